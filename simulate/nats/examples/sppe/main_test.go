package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(envWorker); url != "" {
		// This test binary, started as a worker process by startWorkers.
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-time.After(2 * time.Minute); cancel() }()
		if err := worker(ctx, url); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRun runs the example with two worker processes on a small SPPE and
// checks that the NATS draws equal the in-process draws.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"-workers", "2", "-rounds", "2", "-sims", "200", "-epochs", "3", "-block", "16"}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "draws identical to the in-process run: true") {
		t.Fatalf("output:\n%s", out.String())
	}
	t.Log("\n" + out.String())
}
