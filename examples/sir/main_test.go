package main

import (
	"bytes"
	"errors"
	"flag"
	"testing"

	"github.com/privinfer/privinfer/examples/internal/cli"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-eps", "x"}, {"-eps", "3"}, {"-methods", "abc"}, {"-rounds", "0"}, {"-sims", "1"}, {"-M", "0"},
		{"-lr", "-1"}, {"-n", "2"}, {"-nope"}, {"stray"},
	} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-quick", "-rounds", "3"})
	if err != nil || c.Rounds != 3 || c.Sims != 100 || len(c.Eps) != 1 {
		t.Errorf("-quick: %+v, %v", c, err)
	}
}

func TestSyntheticVerdict(t *testing.T) {
	au, ours := "SMC-ABC (authors)", "SMC-ABC (ours)"
	for _, tc := range []struct {
		acc  []accuracy
		want string
	}{
		{[]accuracy{{"sppe", au, 0.55, 0.05}, {"sple", au, 0.6, 0.1}}, cli.Reproduced},
		// Our own reference takes precedence over the authors' sample.
		{[]accuracy{{"sppe", au, 0.55, 0.05}, {"sppe", ours, 0.9, 0.05}}, cli.Differs},
		{[]accuracy{{"sppe", au, 0.9, 0.5}, {"sppe", ours, 0.58, 0.05}}, cli.Reproduced},
		// The exact reference takes precedence over both.
		{[]accuracy{{"sppe", refExact, 0.58, 0.05}, {"sppe", ours, 0.9, 0.5}}, cli.Reproduced},
		{[]accuracy{{"sppe", refExact, 0.9, 0.05}, {"sppe", ours, 0.58, 0.05}}, cli.Differs},
		{[]accuracy{{"sppe", au, 0.55, 0.05}, {"sple", au, 0.8, 0.05}}, cli.Partial},
		// Both criteria must hold.
		{[]accuracy{{"sppe", au, 0.55, 0.2}}, cli.Differs},
		{[]accuracy{{"sppe", au, 0.9, 0.01}}, cli.Differs},
		{nil, cli.Partial},
	} {
		var b bytes.Buffer
		syntheticVerdict(&b, 10, tc.acc)
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != tc.want {
			t.Errorf("%+v: got %+v, want %s", tc.acc, vs, tc.want)
		}
	}
}
