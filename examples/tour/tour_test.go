package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privinfer/privinfer"
)

// long selects the programs' full settings (PRIVINFER_LONG=1); by default
// the tests run them at their quick settings, a few seconds each.
var long = os.Getenv("PRIVINFER_LONG") == "1"

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
	post, rel, err := histMean(io.Discard, 1, !long)
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
	var pm, lp []float64
	var s, e1, e2 float64
	for c := 0.0; c <= n; c++ {
		wt := math.Exp(-(math.Abs(rel[1]-(n-c)) + math.Abs(rel[2]-c)) / rel[4])
		s += wt
		e1 += wt * (c + 1) / (n + 2)
		e2 += wt * (c + 1) * (c + 2) / ((n + 2) * (n + 3))
		pm, lp = append(pm, c), append(lp, 0)
	}
	mP, sdP := e1/s, math.Sqrt(e2/s-(e1/s)*(e1/s))
	t.Logf("reference μ %.4f ± %.4f, p %.4f ± %.4f\n%v", mMu, sdMu, mP, sdP, post.Summary())
	checkMean(t, "μ", post, 0, mMu, 0.01)
	checkSD(t, "μ", post, 0, sdMu, 0.2)
	checkMean(t, "p", post, 1, mP, 0.002)
	checkSD(t, "p", post, 1, sdP, 0.2)
}

// TestPoisson compares SMC-ABC and SPPE with the exact posterior of λ given
// the Laplace-privatized mean r of n Poisson counts under a Gamma(a, rate β)
// prior: the total S is negative binomial, λ | S is Gamma(a+S, β+n), and
// S | r has weights NB(S)·Laplace(r − S/n; b). The cap at 30 is ignored
// (its probability is below 1e-9 where the posterior has mass). SMC-ABC's
// tolerance adds an allowance of 0.02 to the mean, and its population,
// which shrinks slightly over the rounds, is allowed 15% in the sd; SPPE,
// trained briefly, is allowed a tenth of a posterior sd in the mean and 35%
// in the sd.
func TestPoisson(t *testing.T) {
	skipShort(t)
	smc, sppe, r, err := poisson(io.Discard, 1, !long)
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
	t.Logf("reference λ %.4f ± %.4f\nSMC-ABC\n%vSPPE\n%v", mean, sd, smc.Summary(), sppe.Summary())
	checkMean(t, "SMC-ABC", smc, 0, mean, 0.02)
	checkSD(t, "SMC-ABC", smc, 0, sd, 0.15)
	checkMean(t, "SPPE", sppe, 0, mean, 0.1*sd)
	checkSD(t, "SPPE", sppe, 0, sd, 0.35)
}

// TestDA compares both record kernels with the long DA-MCMC reference run
// of the same release (mcmc/testdata), read with privinfer.ReadCSV; the
// tolerance combines both runs' Monte Carlo standard errors.
func TestDA(t *testing.T) {
	skipShort(t)
	f, err := os.Open("../../mcmc/testdata/linreg_eps1_damcmc.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, err := privinfer.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := da(io.Discard, 1, !long)
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range runs {
		for j := range 3 {
			mr, _ := ref.MCSEMean(j)
			md, err := d.MCSEMean(j)
			if err != nil {
				t.Fatal(err)
			}
			tol := 4 * math.Hypot(mr, md)
			if got, want := d.Mean()[j], ref.Mean()[j]; math.Abs(got-want) > tol {
				t.Errorf("%s β%d: mean %.3f, reference %.3f (tolerance %.3f)", name, j, got, want, tol)
			}
			checkSD(t, name, d, j, ref.SD()[j], 0.3)
		}
	}
}

// TestLDP compares NUTS with the model's quadrature posterior on a grid:
// the mean of μ within 4 MCSE plus the grid's resolution allowance 0.005,
// and the reference CDFs at the draws' 5%, 50% and 95% quantiles within
// 4·√(p(1−p)/ESS_tail) + 0.01 of the nominal levels p.
func TestLDP(t *testing.T) {
	skipShort(t)
	d, post, err := ldpGaussian(io.Discard, 1, !long)
	if err != nil {
		t.Fatal(err)
	}
	grid, err := post.Grid(context.Background(), 64)
	if err != nil {
		t.Fatal(err)
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

// TestModips checks the pooled result against the rule's closed form
// (T = W̄ + B/m, ν = (m−1)(1 + mW̄/B)²) and the validity of its interval:
// over independent releases the pooled 95% interval must cover the true
// proportion at least at the nominal rate, less the one-sided 99.9%
// binomial margin (a false alarm once in a thousand runs). The rule is
// conservative here (the intervals cover in nearly every release), so only
// under-coverage is an error.
func TestModips(t *testing.T) {
	skipShort(t)
	var buf bytes.Buffer
	res, err := modips(&buf, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	m := float64(res.M)
	if math.Abs(res.Var-(res.Within+res.Between/m)) > 1e-15 || math.Abs(res.DF-(m-1)*math.Pow(1+m*res.Within/res.Between, 2)) > 1e-9*res.DF {
		t.Errorf("pooled result %+v does not follow the DP-synthesis rule", res)
	}
	reps := 100
	if long {
		reps = 400
	}
	covered := 0
	r := newTestRand()
	for range reps {
		res, err := pooledProportion(r, 1000, 0.4)
		if err != nil {
			t.Fatal(err)
		}
		if lo, hi, _ := res.Interval(0.95); lo <= 0.4 && 0.4 <= hi {
			covered++
		}
	}
	// Normal approximation of the binomial margin, z = 3.09 for 99.9%.
	margin := 3.09 * math.Sqrt(0.95*0.05/float64(reps))
	if f := float64(covered) / float64(reps); f < 0.95-margin {
		t.Errorf("coverage %.3f over %d releases, below 0.95 − %.3f", f, reps, margin)
	}
}

func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(11, 12)) }

// TestRun runs the whole tour at quick settings.
func TestRun(t *testing.T) {
	skipShort(t)
	if !long {
		t.Skip("the programs are tested one by one; PRIVINFER_LONG=1 runs the whole tour")
	}
	var buf bytes.Buffer
	if err := run(context.Background(), config{seed: 2, quick: true, out: t.TempDir()}, &buf, io.Discard); err != nil {
		t.Fatal(err)
	}
}

// TestRunOnly runs one program through the command line with -out: its
// corner plot is written as PNG and SVG beside the CSV and progress
// reaches stderr; an unknown program is a usage error.
func TestRunOnly(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	var out, errw bytes.Buffer
	c, err := parse(flag.NewFlagSet("tour", flag.ContinueOnError), []string{"-quick", "-only", "histmean", "-out", dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), c, &out, &errw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "## histmean") || strings.Contains(out.String(), "## poisson") {
		t.Errorf("-only histmean ran:\n%s", out.String())
	}
	for _, f := range []string{"tour_histmean_kernel_IS.csv", "tour_histmean_kernel_IS.png", "tour_histmean_kernel_IS.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(errw.String(), "histmean done") {
		t.Errorf("no progress on stderr: %q", errw.String())
	}
	if _, err := parse(flag.NewFlagSet("tour", flag.ContinueOnError), []string{"-only", "histmean,nope"}); !errors.Is(err, errUsage) {
		t.Errorf("-only nope: %v, want a usage error", err)
	}
}

// skipShort skips a test that takes seconds in the short (race) run.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds: skipped with -short")
	}
}
