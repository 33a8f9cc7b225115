package main

import (
	"errors"
	"flag"
	"testing"

	"github.com/privinfer/privinfer/examples/internal/cli"
	"github.com/privinfer/privinfer/examples/modips/internal/out"
)

func TestProgram(t *testing.T) {
	// Three values of m keep the test short (the paper's grid reaches 500).
	out.Check(t, cli.Runner("t", parse, run), "-m", "2,5,10")
	for _, m := range []string{"1", "x", "2,,3"} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-m", m}); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("-m %s: got %v, want a usage error", m, err)
		}
	}
}
