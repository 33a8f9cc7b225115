package main

import (
	"context"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/privinfer/privinfer"
)

// The engines' posteriors are compared with exact references within a
// Monte Carlo tolerance: a posterior mean may differ from the reference by
// at most 4 Monte Carlo standard errors (a false-alarm rate below 1e-4 per
// comparison for a normal error) plus a stated model allowance, and a
// posterior standard deviation by at most the stated fraction.

func checkMean(t *testing.T, what string, d *privinfer.Draws, j int, ref, allowance float64) {
	t.Helper()
	mcse, err := d.MCSEMean(j)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got := d.Mean()[j]; math.Abs(got-ref) > 4*mcse+allowance {
		t.Errorf("%s: posterior mean %.4f, reference %.4f (tolerance 4×%.4f + %.4f)", what, got, ref, mcse, allowance)
	}
}

// TestLDP checks that the example's chains have converged (split R̂ ≤ 1.01,
// bulk and tail ESS ≥ 400) and compares NUTS with the model's quadrature
// posterior on a grid: the mean of μ within 4 MCSE plus the grid's
// resolution allowance 0.005, and the reference CDFs at the draws' 5%, 50%
// and 95% quantiles within 4·√(p(1−p)/ESS_tail) + 0.01 of the nominal
// levels p.
func TestLDP(t *testing.T) {
	skipShort(t)
	d, post, err := run(io.Discard, 1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	grid, err := post.Grid(context.Background(), 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", d.Summary())
	for j := range 2 {
		rhat, err1 := d.RHat(j)
		bulk, err2 := d.ESSBulk(j)
		tail, err3 := d.ESSTail(j)
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatal(err)
		}
		if !(rhat <= 1.01) || !(bulk >= 400) || !(tail >= 400) {
			t.Errorf("%s: R̂ %.3f, bulk ESS %.0f, tail ESS %.0f: not converged", d.Names[j], rhat, bulk, tail)
		}
	}
	checkMean(t, "μ", d, 0, grid.MeanMu(), 0.005)
	for j, cdf := range []func(float64) float64{grid.CDFMu, grid.CDFSigma} {
		ess, err := d.ESSTail(j)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []float64{0.05, 0.5, 0.95} {
			tol := 4*math.Sqrt(p*(1-p)/ess) + 0.01
			if got := cdf(d.Quantile(j, p)); math.Abs(got-p) > tol {
				t.Errorf("%s: reference CDF at the draws' %v-quantile is %.3f (tolerance %.3f)", d.Names[j], p, got, tol)
			}
		}
	}
}

// skipShort skips a test that takes seconds in the short (race) run.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds: skipped with -short")
	}
}
