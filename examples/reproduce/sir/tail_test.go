package main

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer"
)

// TestMeasureTail checks the γ-tail figures on a sample whose answer is
// known: a reference of n evenly spaced normal quantiles of log γ, and the
// same draws with k of them moved far to the right, as identity tails of a
// flow put them. The fraction beyond the reference's 99.9% quantile must
// grow by exactly k/n, the natural-scale mean must move by the moved
// draws' excess over n in reference sds, and the log-scale mean by
// theirs.
func TestMeasureTail(t *testing.T) {
	const n, k = 10000, 20
	const mu, sigma, far = -3.0, 0.027, -0.7
	theta := make([]float64, 2*n)
	for i := range n {
		// Normal quantiles by bisection on erfc: no dependence on a
		// quantile function under test.
		p := (float64(i) + 0.5) / n
		lo, hi := -10.0, 10.0
		for range 100 {
			m := (lo + hi) / 2
			if 0.5*math.Erfc(-m/math.Sqrt2) < p {
				lo = m
			} else {
				hi = m
			}
		}
		theta[2*i], theta[2*i+1] = -0.5, mu+sigma*(lo+hi)/2
	}
	ref := &privinfer.Draws{Dim: 2, Theta: theta}
	tr := newTailRef(ref)
	if z := (tr.q999 - mu) / sigma; math.Abs(z-3.09) > 0.02 { // type-7 interpolation between the midpoints
		t.Fatalf("99.9%% quantile at %.3f sd, want 3.09", z)
	}
	base, err := measureTail(nil, ref, tr)
	if err != nil {
		t.Fatal(err)
	}
	if base.beyond > 0.0011 || base.beyond < 0.0009 || math.Abs(base.natMean) > 1e-9 || math.Abs(base.logMean) > 1e-9 || math.Abs(base.natSD-1) > 1e-3 {
		t.Errorf("the reference against itself: %+v, want a fraction of 0.001, no shift and sd ratio 1", base)
	}
	moved := append([]float64(nil), theta...)
	var dNat, dLog float64
	for i := range k {
		j := 2*(n/2+i) + 1 // draws from the middle, below the quantile
		dNat += math.Exp(far) - math.Exp(moved[j])
		dLog += far - moved[j]
		moved[j] = far
	}
	got, err := measureTail(nil, &privinfer.Draws{Dim: 2, Theta: moved}, tr)
	if err != nil {
		t.Fatal(err)
	}
	if want := base.beyond + float64(k)/n; math.Abs(got.beyond-want) > 1e-12 {
		t.Errorf("fraction beyond %.5f, want %.5f", got.beyond, want)
	}
	if want := dNat / n / tr.natSD; math.Abs(got.natMean-want) > 1e-6*want {
		t.Errorf("natural-scale mean moved %.4f sd, want %.4f", got.natMean, want)
	}
	if want := dLog / n / tr.logSD; math.Abs(got.logMean-want) > 1e-6*want {
		t.Errorf("log-scale mean moved %.4f sd, want %.4f", got.logMean, want)
	}
	if got.natMean < 3*got.logMean {
		t.Errorf("a far right tail should move the natural-scale mean (%.3f sd) far more than the log-scale one (%.3f sd)", got.natMean, got.logMean)
	}
}
