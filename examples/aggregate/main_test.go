package main

import (
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

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// clampedNormalMoments returns the mean and variance of clamp(X, lo, hi)
// for X ~ N(mu, 1).
func clampedNormalMoments(mu, lo, hi float64) (m, v float64) {
	a, b := lo-mu, hi-mu
	pa, pb := normCDF(a), 1-normCDF(b)
	phiA, phiB := math.Exp(-a*a/2)/math.Sqrt(2*math.Pi), math.Exp(-b*b/2)/math.Sqrt(2*math.Pi)
	pin := 1 - pa - pb
	e1, e2 := phiA-phiB, pin+a*phiA-b*phiB
	m = lo*pa + hi*pb + mu*pin + e1
	m2 := lo*lo*pa + hi*hi*pb + mu*mu*pin + 2*mu*e1 + e2
	return m, m2 - m*m
}

// laplaceConvNormal is ∫ N(s; m, sd²) Laplace(y − s; b) ds in closed form.
func laplaceConvNormal(y, m, sd, b float64) float64 {
	u := y - m
	r := sd / b
	t1 := math.Exp(r*r/2-u/b) * normCDF(u/sd-r)
	t2 := math.Exp(r*r/2+u/b) * normCDF(-u/sd-r)
	return (t1 + t2) / (2 * b)
}

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

// TestHistMean compares the importance-sampling posterior of (μ, p) with
// quadrature: μ's likelihood is the normal law of the clamped mean (exact
// moments, central-limit approximation, allowance 0.01) convolved with the
// Laplace noise in closed form; p's posterior under its uniform prior is the
// mixture over the true count c of Beta(c+1, n−c+1) laws with weights
// Laplace(h₀ − (n−c))·Laplace(h₁ − c).
func TestHistMean(t *testing.T) {
	post, rel, err := run(io.Discard, 1, 2000)
	if err != nil {
		t.Fatal(err)
	}
	const n, lo, hi = 200, -2.0, 4.0
	ref, err := privinfer.Grid(func(x []float64) float64 {
		m, v := clampedNormalMoments(x[0], lo, hi)
		return -x[0]*x[0]/200 + math.Log(laplaceConvNormal(rel[0], m, math.Sqrt(v/n), rel[3]))
	}, privinfer.GridConfig{Lo: []float64{lo}, Hi: []float64{hi}, Points: []int{6000}})
	if err != nil {
		t.Fatal(err)
	}
	mMu, sdMu := ref.Mean()[0], ref.SD()[0]
	var s, e1, e2 float64
	for c := 0.0; c <= n; c++ {
		wt := math.Exp(-(math.Abs(rel[1]-(n-c)) + math.Abs(rel[2]-c)) / rel[4])
		s += wt
		e1 += wt * (c + 1) / (n + 2)
		e2 += wt * (c + 1) * (c + 2) / ((n + 2) * (n + 3))
	}
	mP, sdP := e1/s, math.Sqrt(e2/s-(e1/s)*(e1/s))
	t.Logf("reference μ %.4f ± %.4f, p %.4f ± %.4f\n%v", mMu, sdMu, mP, sdP, post.Summary())
	checkMean(t, "μ", post, 0, mMu, 0.01)
	checkSD(t, "μ", post, 0, sdMu, 0.2)
	checkMean(t, "p", post, 1, mP, 0.002)
	checkSD(t, "p", post, 1, sdP, 0.2)
}
