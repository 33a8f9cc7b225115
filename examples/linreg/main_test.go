package main

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"testing"

	"github.com/privinfer/privinfer/examples/internal/cli"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-eps", "x"}, {"-eps", "2"}, {"-eps", "-1"}, {"-methods", "mcmc"}, {"-rounds", "0"}, {"-sims", "1"},
		{"-lr", "0"}, {"-n", "3"}, {"-nope"}, {"stray"},
	} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-quick", "-sims", "50"})
	if err != nil || len(c.Eps) != 2 || c.Rounds != 2 || c.Sims != 50 {
		t.Errorf("-quick: %+v, %v", c, err)
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		acc  []methodAccuracy
		want string
	}{
		{[]methodAccuracy{{"sppe", 0.55, 0.1}, {"sple", 0.6, 0.1}}, cli.Reproduced},
		{[]methodAccuracy{{"sppe", 0.55, 0.1}, {"sple", 0.9, 1}}, cli.Partial},
		{[]methodAccuracy{{"sppe", 0.8, 1}}, cli.Differs},
		{[]methodAccuracy{{"sppe", 0.55, 0.2}}, cli.Differs},
	} {
		var b bytes.Buffer
		verdict(&b, 10, tc.acc)
		vs := cli.ParseVerdicts(b.String())
		if len(vs) != 1 || vs[0].Kind != tc.want || vs[0].What != "SBI paper Table 2 (linear regression, ε = 10)" {
			t.Errorf("%+v: got %+v, want %s", tc.acc, vs, tc.want)
		}
	}
}

// TestInv3 checks the cofactor inverse against the identity A·A⁻¹ = I and
// its refusal of matrices that are not positive definite.
func TestInv3(t *testing.T) {
	a := []float64{4, 1, 0.5, 1, 3, -0.2, 0.5, -0.2, 2}
	inv, ok := inv3(a)
	if !ok {
		t.Fatal("positive definite matrix refused")
	}
	for i := range 3 {
		for j := range 3 {
			var s float64
			for k := range 3 {
				s += a[i*3+k] * inv[k*3+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-12 {
				t.Fatalf("(A·A⁻¹)[%d,%d] = %v, want %v", i, j, s, want)
			}
		}
	}
	if _, ok := inv3([]float64{1, 2, 0, 2, 1, 0, 0, 0, 1}); ok {
		t.Fatal("indefinite matrix accepted")
	}
}
