package main

import (
	"bytes"
	"context"
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

func checkSD(t *testing.T, what string, d *privinfer.Draws, j int, ref, frac float64) {
	t.Helper()
	if got := d.SD()[j]; math.Abs(got-ref) > frac*ref {
		t.Errorf("%s: posterior sd %.4f, reference %.4f (tolerance %.0f%%)", what, got, ref, 100*frac)
	}
}

// TestSBI compares SPPE, saved and loaded, with the exact posterior of λ given
// the Laplace-privatized mean r of n Poisson counts under a Gamma(a, rate β)
// prior: the total S is negative binomial, λ | S is Gamma(a+S, β+n), and
// S | r has weights NB(S)·Laplace(r − S/n; b). The cap at 30 is ignored
// (its probability is below 1e-9 where the posterior has mass). SPPE, trained
// briefly (two rounds), is allowed a tenth of a posterior sd in the mean and 35%
// in the sd.
func TestSBI(t *testing.T) {
	skipShort(t)
	trained, loaded, err := run(io.Discard, 1, 2)
	const r = 4.1
	if err != nil {
		t.Fatal(err)
	}
	const a, beta, n, b = 2.0, 0.5, 50.0, 30.0 / 50
	var s, e1, e2 float64
	for S := 0.0; S <= 2000; S++ {
		lg1, _ := math.Lgamma(a + S)
		lg2, _ := math.Lgamma(S + 1)
		lg3, _ := math.Lgamma(a)
		logNB := lg1 - lg2 - lg3 + a*math.Log(beta/(beta+n)) + S*math.Log(n/(beta+n))
		wt := math.Exp(logNB - math.Abs(r-S/n)/b)
		s += wt
		e1 += wt * (a + S) / (beta + n)
		e2 += wt * (a + S) * (a + S + 1) / ((beta + n) * (beta + n))
	}
	mean, sd := e1/s, math.Sqrt(e2/s-(e1/s)*(e1/s))
	sppe, err := loaded.Draws(context.Background(), 4000, 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reference λ %.4f ± %.4f\nSPPE\n%v", mean, sd, sppe.Summary())
	checkMean(t, "SPPE", sppe, 0, mean, 0.1*sd)
	checkSD(t, "SPPE", sppe, 0, sd, 0.35)
	// The loaded posterior samples exactly as the trained one.
	orig, err := trained.Draws(context.Background(), 4000, 7)
	if err != nil {
		t.Fatal(err)
	}
	var ba, bb bytes.Buffer
	if err := orig.WriteCSV(&ba); err != nil {
		t.Fatal(err)
	}
	if err := sppe.WriteCSV(&bb); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ba.Bytes(), bb.Bytes()) {
		t.Error("the loaded posterior's draws differ from the trained one's")
	}
}

// skipShort skips a test that takes seconds in the short (race) run.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds: skipped with -short")
	}
}
