package main

import (
	"bytes"
	"context"
	"math"
	"testing"
	"time"

	natsio "github.com/nats-io/nats.go"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/nats"
	"github.com/privinfer/privinfer/simulate/nats/internal/embedded"
	"github.com/privinfer/privinfer/simulate/nats/models"
)

// TestWorkerCommand runs the command against an embedded server, executes
// a block of the linear-regression simulator on it and stops it.
func TestWorkerCommand(t *testing.T) {
	s, err := embedded.Start(embedded.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Shutdown(); s.WaitForShutdown() }()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-server", s.ClientURL(), "-ackwait", "5s", "-parallelism", "2"}, &stderr)
	}()

	nc, err := natsio.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	reg, err := models.Registry()
	if err != nil {
		t.Fatal(err)
	}
	p, err := models.LinRegProblem(reg, 1)
	if err != nil {
		t.Fatal(err)
	}
	e, err := nats.New(ctx, nc, nats.Config{Streams: nats.Streams{AckWait: 5 * time.Second}, Registry: reg, BlockRows: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const n = 100
	theta := make([]float64, 3*n)
	for i := range theta {
		theta[i] = float64(i%7)/3 - 1
	}
	remote := simulate.Block{Seed: 5, Dim: 3, Theta: theta, Stats: make([]float64, n*p.Simulator.StatDim())}
	local := remote
	local.Stats = make([]float64, len(remote.Stats))
	tctx, tcancel := context.WithTimeout(ctx, 30*time.Second)
	defer tcancel()
	if err := e.Execute(tctx, p.Simulator, remote); err != nil {
		t.Fatal(err)
	}
	if err := (simulate.InProcess{}).Execute(tctx, p.Simulator, local); err != nil {
		t.Fatal(err)
	}
	for i := range local.Stats {
		if math.Float64bits(local.Stats[i]) != math.Float64bits(remote.Stats[i]) {
			t.Fatalf("statistic %d differs", i)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not stop")
	}
}

func TestBadFlags(t *testing.T) {
	var stderr bytes.Buffer
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-server", "nats://127.0.0.1:1", "-ackwait", "1ms"}} {
		if err := run(context.Background(), args, &stderr); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
