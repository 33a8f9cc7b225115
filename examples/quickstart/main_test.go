package main

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
)

// TestClampedMoments checks the closed-form moments of a clamped normal
// against composite Simpson quadrature of the clamped density.
func TestClampedMoments(t *testing.T) {
	for _, tc := range []struct{ mu, sigma, lo, hi float64 }{
		{0, 1, -2, 4}, {3.5, 1, -2, 4}, {-5, 2, -2, 4}, {1, 0.3, 0.5, 0.6},
	} {
		m, v := clampedMoments(tc.mu, tc.sigma, tc.lo, tc.hi)
		// Quadrature: point masses at the bounds plus the interior.
		pa := normCDF((tc.lo - tc.mu) / tc.sigma)
		pb := 1 - normCDF((tc.hi-tc.mu)/tc.sigma)
		const k = 20000
		h := (tc.hi - tc.lo) / k
		var q1, q2 float64
		for j := 0; j <= k; j++ {
			x := tc.lo + h*float64(j)
			f := normPDF((x-tc.mu)/tc.sigma) / tc.sigma
			wt := 2.0
			if j == 0 || j == k {
				wt = 1
			} else if j%2 == 1 {
				wt = 4
			}
			q1 += wt * f * x
			q2 += wt * f * x * x
		}
		q1 = q1*h/3 + tc.lo*pa + tc.hi*pb
		q2 = q2*h/3 + tc.lo*tc.lo*pa + tc.hi*tc.hi*pb
		if math.Abs(m-q1) > 1e-9 || math.Abs(v-(q2-q1*q1)) > 1e-9 {
			t.Errorf("%+v: closed form (%v, %v), quadrature (%v, %v)", tc, m, v, q1, q2-q1*q1)
		}
	}
}

// TestConvolvedIsDensity checks that the noise-aware likelihood integrates
// to one over s_dp, reduces to the Laplace density as sd → 0 and agrees
// with Simpson's rule on ±12 standard deviations (to 1e-5 relative: the
// rule converges slowly across the Laplace kink at s = s_dp).
func TestConvolvedIsDensity(t *testing.T) {
	m, sd, b := 0.3, 0.07, 0.3
	var total float64
	h := 0.001
	for x := -10.0; x <= 10; x += h {
		total += convolved(x, m, sd, b) * h
	}
	if math.Abs(total-1) > 1e-4 {
		t.Fatalf("∫ p(s_dp|μ) ds_dp = %v, want 1", total)
	}
	got := convolved(1.0, m, 1e-6, b)
	want := math.Exp(-math.Abs(1.0-m)/b) / (2 * b)
	if math.Abs(got-want) > 1e-6*want {
		t.Fatalf("sd→0 limit %v, want Laplace density %v", got, want)
	}
	for _, y := range []float64{-1, 0.3, 0.35, 2} {
		const k = 4000
		h, simpson := 24*sd/k, 0.0
		for j := 0; j <= k; j++ {
			s := m - 12*sd + h*float64(j)
			wt := float64(2 + 2*(j%2))
			if j == 0 || j == k {
				wt = 1
			}
			simpson += wt * normPDF((s-m)/sd) / sd * math.Exp(-math.Abs(y-s)/b) / (2 * b)
		}
		if got, want := convolved(y, m, sd, b), simpson*h/3; math.Abs(got-want) > 1e-5*want {
			t.Errorf("s_dp = %v: closed form %v, Simpson %v", y, got, want)
		}
	}
}

// TestPosteriorsMatchQuadrature compares the library's posteriors with the
// quadrature reference (the normal law of the clamped mean with exact
// moments, convolved with the Laplace density in closed form, on a grid
// of μ over the prior's range with spacing 0.005). Means may differ by 4
// Monte Carlo standard errors (a false alarm below 1e-4 per comparison)
// plus 0.005 for the central-limit approximation of the reference (0.01
// for the naive posterior, whose SMC-ABC has a final tolerance), and the
// ends of the 95% interval by 5% of its width (10% for SMC-ABC). Standard
// deviations are not compared: when the release lies inside the clamping
// bounds the exact posterior has far tails of mass about 1e-4 (μ beyond a
// bound, where the clamped mean is constant) that change its sd by a
// quarter and that importance sampling does not reach.
func TestPosteriorsMatchQuadrature(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		eps, sdp float64
		seed     uint64
	}{{0.1, 1.0, 1}, {1, 1.3, 2}, {0.1, 3.6, 3}} {
		mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: (hi - lo) / n, Epsilon: tc.eps, Dim: 1})
		if err != nil {
			t.Fatal(err)
		}
		aware, naive, err := posteriors(mech, []float64{tc.sdp}, tc.seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		refAware, refNaive, err := reference(mech.Scale(0), tc.sdp)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name        string
			d, ref      *privinfer.Draws
			meanTol, iv float64
		}{{"noise-aware", aware, refAware, 0.005, 0.05}, {"naive", naive, refNaive, 0.01, 0.1}} {
			m, sd := c.ref.Mean()[0], c.ref.SD()[0]
			lo, hi := c.ref.Interval(0, 0.95)
			if math.IsNaN(m + sd + lo + hi) {
				t.Fatalf("quadrature reference is not finite: %v ± %v [%v, %v]", m, sd, lo, hi)
			}
			mcse, err := c.d.MCSEMean(0)
			if err != nil {
				t.Fatal(err)
			}
			got := c.d.Mean()[0]
			glo, ghi := c.d.Interval(0, 0.95)
			t.Logf("ε=%g s_dp=%g %s: library %.4f ± %.4f [%.4f, %.4f], quadrature %.4f ± %.4f [%.4f, %.4f]", tc.eps, tc.sdp, c.name, got, c.d.SD()[0], glo, ghi, m, sd, lo, hi)
			if math.Abs(got-m) > 4*mcse+c.meanTol {
				t.Errorf("ε=%g s_dp=%g %s: mean %.4f, quadrature %.4f (MCSE %.4f)", tc.eps, tc.sdp, c.name, got, m, mcse)
			}
			if w := hi - lo; math.Abs(glo-lo) > c.iv*w || math.Abs(ghi-hi) > c.iv*w {
				t.Errorf("ε=%g s_dp=%g %s: interval [%.4f, %.4f], quadrature [%.4f, %.4f]", tc.eps, tc.sdp, c.name, glo, ghi, lo, hi)
			}
		}
	}
}

// TestRun checks that run refuses a bad ε and that -out writes the draws,
// which read back through privinfer.ReadCSV, and the plot.
func TestRun(t *testing.T) {
	for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if err := run(io.Discard, io.Discard, eps, 1, ""); err == nil {
			t.Errorf("ε = %v: expected an error", eps)
		}
	}
	skipShort(t)
	dir := t.TempDir()
	var out, progress bytes.Buffer
	if err := run(&out, &progress, 0.1, 3, dir); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "noise-aware") || !strings.Contains(s, "naive") || !strings.Contains(progress.String(), "round") {
		t.Fatalf("unexpected output:\n%s\nprogress:\n%s", s, progress.String())
	}
	for _, f := range []string{"quickstart_posterior.svg", "quickstart_posterior.png", "quickstart_naive.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	f, err := os.Open(filepath.Join(dir, "quickstart_noise_aware.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := privinfer.ReadCSV(f)
	if err != nil || d.Dim != 1 || d.Names[0] != "mu" || !d.Weighted() {
		t.Fatalf("ReadCSV: %+v, %v", d, err)
	}
}

// clampedMoments returns the mean and variance of clamp(X, lo, hi) for
// X ~ N(mu, sigma²).
func clampedMoments(mu, sigma, lo, hi float64) (mean, variance float64) {
	a := (lo - mu) / sigma
	bb := (hi - mu) / sigma
	pa := normCDF(a)        // P(X < lo)
	pb := 1 - normCDF(bb)   // P(X > hi)
	pin := normCDF(bb) - pa // P(lo ≤ X ≤ hi)
	phiA, phiB := normPDF(a), normPDF(bb)
	// E[Z; a<Z<b] and E[Z²; a<Z<b] for standard normal Z.
	e1 := phiA - phiB
	e2 := pin + a*phiA - bb*phiB
	m1 := lo*pa + hi*pb + mu*pin + sigma*e1
	m2 := lo*lo*pa + hi*hi*pb + mu*mu*pin + 2*mu*sigma*e1 + sigma*sigma*e2
	return m1, math.Max(m2-m1*m1, 0)
}

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
func normPDF(x float64) float64 { return math.Exp(-0.5*x*x) / math.Sqrt(2*math.Pi) }

// reference returns the quadrature reference posteriors of μ, noise-aware
// and naive, on a grid of 24000 cells over the prior's range
// (privinfer.Grid).
func reference(b, sdp float64) (aware, naive *privinfer.Draws, err error) {
	logPost := func(naive bool) func([]float64) float64 {
		return func(x []float64) float64 {
			mu := x[0]
			m, v := clampedMoments(mu, 1, lo, hi)
			// Far beyond a bound the clamped mean is nearly constant; a
			// floor on its sd keeps the reference finite there.
			sd := math.Max(math.Sqrt(v/n), 1e-9)
			prior := -0.5 * mu * mu / (priorSD * priorSD)
			if naive {
				return prior - 0.5*(sdp-m)*(sdp-m)/(sd*sd) - math.Log(sd)
			}
			return prior + math.Log(convolved(sdp, m, sd, b))
		}
	}
	// The prior's range: a release near a clamping bound leaves a long tail.
	grid := privinfer.GridConfig{Lo: []float64{-6 * priorSD}, Hi: []float64{6 * priorSD}, Points: []int{24000}}
	if aware, err = privinfer.Grid(logPost(false), grid); err != nil {
		return nil, nil, err
	}
	naive, err = privinfer.Grid(logPost(true), grid)
	return aware, naive, err
}

// convolved is ∫ N(s; m, sd²)·Laplace(sdp − s; b) ds in closed form (the
// exponentially modified normal on both sides).
func convolved(sdp, m, sd, b float64) float64 {
	u, r := sdp-m, sd/b
	return (math.Exp(r*r/2-u/b)*normCDF(u/sd-r) + math.Exp(r*r/2+u/b)*normCDF(-u/sd-r)) / (2 * b)
}

// skipShort skips a test that takes seconds in the short (race) run.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds: skipped with -short")
	}
}
