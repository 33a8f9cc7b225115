package main

import (
	"errors"
	"flag"
	"math"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/modips/out"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

func TestProgram(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	// Three values of m keep the test short (the paper's grid reaches 500).
	out.Check(t, cli.Runner("t", parse, run), "-m", "2,5,10")
	for _, m := range []string{"1", "x", "2,,3"} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-m", m}); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("-m %s: got %v, want a usage error", m, err)
		}
	}
}

func TestScaleAndBias(t *testing.T) {
	for _, s := range []string{"0", "-1", "1001", "x"} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-scale", s}); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("-scale %s: got %v, want a usage error", s, err)
		}
	}
	if got := printed("binary p=0.1 n=1000", 10); got != "binary p=0.1 n=100" {
		t.Errorf("printed: %q", got)
	}
	if got := printed("gaussian (-4,5) BIT n=1000", 1); got != "gaussian (-4,5) BIT n=1000" {
		t.Errorf("printed at scale 1: %q", got)
	}
	// Closed forms: binary p = 0.1, n = 100, m = 30: b = 30, n1 = 10,
	// (15e^{−1/3} − 15e^{−3})/100; Gaussian (−4, 5), n = 1000, m = 500:
	// b = 4.5, 2.25(e^{−4/4.5} − e^{−5/4.5}).
	for _, c := range []struct {
		sc   string
		m    int
		want float64
	}{
		{"binary p=0.1 n=100", 30, (15*math.Exp(-1.0/3) - 15*math.Exp(-3)) / 100},
		{"gaussian (-4,5) BIT n=1000", 500, 2.25 * (math.Exp(-4/4.5) - math.Exp(-5/4.5))},
		{"gaussian (-4,4) BIT n=100", 50, 0},
	} {
		if b, ok := bitBias(c.sc, c.m); !ok || math.Abs(b-c.want) > 1e-12 {
			t.Errorf("%s m=%d: bias %v (%v), want %v", c.sc, c.m, b, ok, c.want)
		}
	}
	if _, ok := bitBias("gaussian (-4,5) truncate n=100", 5); ok {
		t.Error("truncation scenario has a BIT bias")
	}
}
