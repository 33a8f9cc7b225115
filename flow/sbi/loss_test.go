package sbi

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAtomicLossGradient checks ∂ℓ/∂log q of the atomic APT loss and the
// NLL against central finite differences, and the closed form ℓ = log n_a
// when every atom has the same corrected logit.
func TestAtomicLossGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, kind := range []lossKind{lossNPE, lossAtomic} {
		b := batch{groups: 3, na: 4}
		if kind != lossAtomic {
			b.na = 1
		}
		n := b.groups * b.na
		b.lp = make([]float64, n)
		lq := make([]float64, n)
		for i := range lq {
			lq[i] = r.NormFloat64()
			b.lp[i] = r.NormFloat64()
		}
		d := make([]float64, n)
		scratch := make([]float64, n)
		b.loss(kind, lq, d)
		for i := range lq {
			const h = 1e-6
			lq[i] += h
			up := b.loss(kind, lq, scratch)
			lq[i] -= 2 * h
			dn := b.loss(kind, lq, scratch)
			lq[i] += h
			if fd := (up - dn) / (2 * h); math.Abs(fd-d[i]) > 1e-7 {
				t.Errorf("kind %d row %d: gradient %v, finite difference %v", kind, i, d[i], fd)
			}
		}
	}
	b := batch{groups: 2, na: 5, lp: make([]float64, 10)}
	lq := make([]float64, 10)
	for i := range lq {
		lq[i] = 0.7
		b.lp[i] = 0.2
	}
	if l := b.loss(lossAtomic, lq, make([]float64, 10)); math.Abs(l-math.Log(5)) > 1e-12 {
		t.Errorf("uniform logits: loss %v, want log 5", l)
	}
}

// TestDeterministic checks that a run depends on the seed only: two runs
// give the same flow parameters and the same posterior draws.
func TestDeterministic(t *testing.T) {
	o := smallConfig()
	o.Rounds, o.SimsPerRound, o.Train.MaxEpochs = 1, 100, 3
	a, err := SPPE(context.Background(), testProblem(), o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := SPPE(context.Background(), testProblem(), o)
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := a.Posterior.Flow().Params(), b.Posterior.Flow().Params()
	for i := range pa {
		if pa[i] != pb[i] {
			t.Fatalf("parameter %d differs between identical runs", i)
		}
	}
	if !slices.Equal(a.Draws.Theta, b.Draws.Theta) {
		t.Error("identical runs gave different posterior draws")
	}
}
