package main

import (
	"bytes"
	"errors"
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/internal/cli"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-particles", "1"}, {"-rounds", "0"}, {"-walltime", "-1s"}, {"-maxsims", "-1"},
		{"-min-tol", "-1"}, {"-min-acceptance", "1"}, {"-eps", "3"}, {"-eps", "0"}, {"-exact", "1"}, {"-exact", "-2"}, {"-exact-stages", "0"}, {"-nope"}, {"stray"},
	} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	o, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-quick", "-rounds", "2"})
	if err != nil || o.particles != 100 || o.rounds != 2 || o.wall != 3*time.Minute {
		t.Errorf("-quick: %+v, %v", o, err)
	}
}

// TestVerdict checks the three verdict branches on synthetic populations.
func TestVerdict(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ref := make([]float64, 0, 4000)
	for range 2000 {
		ref = append(ref, -0.5+0.1*r.NormFloat64(), -3+0.05*r.NormFloat64())
	}
	pop := func(shift, tol float64) *abc.Round {
		p := &abc.Round{Draws: &privinfer.Draws{Dim: 2}, Tolerance: tol}
		for range 500 {
			p.Draws.Theta = append(p.Draws.Theta, -0.5+shift+0.1*r.NormFloat64(), -3+0.05*r.NormFloat64())
			p.Draws.Weights = append(p.Draws.Weights, 1.0/500)
		}
		return p
	}
	for _, tc := range []struct {
		p    *abc.Round
		ref  []float64
		want string
	}{
		{pop(0, 0.02), ref, cli.Reproduced},
		{pop(0.2, 0.2), ref, cli.Partial},
		{pop(0.2, 0.01), ref, cli.Differs},
		{pop(0, 0.2), nil, cli.Partial},
	} {
		var b bytes.Buffer
		verdict(&b, "SMC-ABC", 10, tc.p, tc.ref)
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != tc.want {
			t.Errorf("got %+v, want %s", vs, tc.want)
		}
	}
}
