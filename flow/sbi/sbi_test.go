package sbi

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/simulate"
)

// TestSPPERecoversConjugatePosterior trains SPPE on the normal model with
// Laplace noise, whose exact posterior is computed by quadrature, and checks
// the posterior mean, standard deviation and the KS distance of 1000 draws
// to the exact CDF. The exact posterior has mean ≈ 0.68 and sd ≈ 0.56; the
// tolerances (0.1 on the mean, 20% on the sd, D < 0.09) allow for the
// approximation error of a small flow trained on 800 simulations and the
// sampling error of 1000 draws (sd of the mean ≈ 0.018, KS D's 99.9% point
// ≈ 0.062 for exact draws).
func TestSPPERecoversConjugatePosterior(t *testing.T) {
	grid, dens := exactPosterior()
	wm, ws := gridMoments(grid, dens)
	post, res, err := SPPE(context.Background(), testProblem(), smallOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rounds) != 2 || res.Simulations != 800 {
		t.Fatalf("rounds %d, simulations %d", len(res.Rounds), res.Simulations)
	}
	x := make([]float64, 1000)
	if err := post.Sample(rand.New(rand.NewPCG(1, 2)), 1000, x); err != nil {
		t.Fatal(err)
	}
	m, s := stats.Mean(x), math.Sqrt(stats.Variance(x))
	d, _ := stats.KSOneSample(x, gridCDF(grid, dens))
	t.Logf("exact mean %.3f sd %.3f; SPPE mean %.3f sd %.3f KS D %.3f; in-support %.3f", wm, ws, m, s, d, post.InSupport())
	if math.Abs(m-wm) > 0.1 || math.Abs(s/ws-1) > 0.2 || d > 0.09 {
		t.Errorf("SPPE posterior off: mean %.3f (exact %.3f), sd %.3f (exact %.3f), KS D %.3f", m, wm, s, ws, d)
	}
	// LogProb is the flow's density at the observation (full support here).
	if lp := post.LogProb([]float64{wm}); math.Abs(lp-post.Flow().LogProb([]float64{wm}, []float64{testObs})) > 1e-12 {
		t.Errorf("LogProb %v differs from the flow's density", lp)
	}
}

// TestSPLERecoversConjugatePosterior is the SPLE analogue: the likelihood
// flow q(s_dp | θ) times the prior, sampled by adaptive Metropolis, must
// match the exact posterior (same tolerances; the MCMC draws are
// autocorrelated, so the KS bound is looser).
func TestSPLERecoversConjugatePosterior(t *testing.T) {
	grid, dens := exactPosterior()
	wm, ws := gridMoments(grid, dens)
	out, res, err := SPLE(context.Background(), testProblem(), smallOptions())
	if err != nil {
		t.Fatal(err)
	}
	x := out.Samples
	if len(x) != 1000 {
		t.Fatalf("%d samples", len(x))
	}
	m, s := stats.Mean(x), math.Sqrt(stats.Variance(x))
	d, _ := stats.KSOneSample(x, gridCDF(grid, dens))
	t.Logf("exact mean %.3f sd %.3f; SPLE mean %.3f sd %.3f KS D %.3f; R̂ %v accept %.2f", wm, ws, m, s, d, out.RHat, res.Rounds[1].AcceptRate)
	if math.Abs(m-wm) > 0.1 || math.Abs(s/ws-1) > 0.2 || d > 0.1 {
		t.Errorf("SPLE posterior off: mean %.3f (exact %.3f), sd %.3f (exact %.3f), KS D %.3f", m, wm, s, ws, d)
	}
	if out.RHat[0] > 1.1 {
		t.Errorf("split R̂ = %v", out.RHat)
	}
	// The approximate MLE of θ given s_dp° is near s_dp° itself for this
	// location model (the exact marginal likelihood peaks at θ = s_dp°).
	mle, _, err := out.Likelihood.MLE([]float64{testObs}, []float64{0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(mle[0]-testObs) > 0.25 {
		t.Errorf("MLE %v, want ≈ %v", mle, testObs)
	}
}

func TestBadInputErrors(t *testing.T) {
	ctx := context.Background()
	good := testProblem()
	o := smallOptions()
	mod := func(f func(p *Problem, o *Options)) (Problem, Options) {
		p2, o2 := good, o
		f(&p2, &o2)
		return p2, o2
	}
	cases := map[string]func(p *Problem, o *Options){
		"wrong dim":  func(p *Problem, o *Options) { p.Observed = []float64{1, 2} },
		"NaN obs":    func(p *Problem, o *Options) { p.Observed = []float64{math.NaN()} },
		"rounds 0":   func(p *Problem, o *Options) { o.Rounds = 0 },
		"M 0":        func(p *Problem, o *Options) { o.InnerPoints = 0 },
		"atoms 1":    func(p *Problem, o *Options) { o.Atoms = 1 },
		"no prior":   func(p *Problem, o *Options) { p.Prior = nil },
		"bad valfrc": func(p *Problem, o *Options) { o.Train.ValidationFraction = 1 },
	}
	for name, f := range cases {
		p, oo := mod(f)
		if _, _, err := SPPE(ctx, p, oo); !errors.Is(err, ErrInput) {
			t.Errorf("SPPE %s: err = %v", name, err)
		}
		if _, _, err := SPLE(ctx, p, oo); !errors.Is(err, ErrInput) {
			t.Errorf("SPLE %s: err = %v", name, err)
		}
	}
	// A simulator error aborts with that error.
	p := good
	p.Simulator = normalSim{tau: 1, fail: errBoom}
	if _, _, err := SPPE(ctx, p, o); !errors.Is(err, errBoom) || !errors.Is(err, ErrSimulation) {
		t.Errorf("simulator error: %v", err)
	}
	if _, _, err := SPLE(ctx, p, o); !errors.Is(err, errBoom) {
		t.Errorf("simulator error: %v", err)
	}
	// Cancellation.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := SPPE(cctx, good, o); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestLeakageGuard builds a posterior whose flow (an untrained flow, roughly
// N(0, 1) in θ) has no mass in the prior support U(50, 51): sampling must
// fail with ErrLeakage, and the MCMC fallback must return in-support draws.
// With support U(0.5, 3) instead, MCMC on q·1{π > 0} and rejection sampling
// target the same law: their draws must agree (two-sample KS; the thinned
// chains are mildly autocorrelated, hence D < 0.1 rather than a p-value).
func TestLeakageGuard(t *testing.T) {
	cfg := flow.DefaultConfig(1, 1)
	cfg.Layers, cfg.Hidden, cfg.Blocks, cfg.Bins = 1, 8, 1, 4
	cfg.StandardizeContext, cfg.StandardizeInputs = false, false
	f, err := flow.New(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	o := smallOptions()
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	far, _ := simulate.NewUniform(50, 51)
	farPrior, _ := simulate.NewIndependent(far)
	p := testProblem()
	p.Prior = farPrior
	post, err := newPosterior(f, p, &o)
	if err != nil {
		t.Fatal(err)
	}
	if post.InSupport() != 0 {
		t.Fatalf("in-support fraction %v, want 0", post.InSupport())
	}
	x := make([]float64, 200)
	if err := post.Sample(rand.New(rand.NewPCG(2, 2)), 200, x); !errors.Is(err, ErrLeakage) {
		t.Fatalf("Sample err = %v, want ErrLeakage", err)
	}
	o.LeakageFallback = true
	post, _ = newPosterior(f, p, &o)
	if err := post.Sample(rand.New(rand.NewPCG(2, 2)), 200, x); err != nil {
		t.Fatal(err)
	}
	for _, v := range x {
		if v < 50 || v > 51 {
			t.Fatalf("fallback draw %v outside the support", v)
		}
	}

	near, _ := simulate.NewUniform(0.5, 3)
	nearPrior, _ := simulate.NewIndependent(near)
	p.Prior = nearPrior
	post, _ = newPosterior(f, p, &o)
	in := post.InSupport()
	if in < 0.05 || in > 0.95 {
		t.Fatalf("in-support fraction %v", in)
	}
	a := make([]float64, 2000)
	b := make([]float64, 2000)
	if err := post.Sample(rand.New(rand.NewPCG(3, 3)), 2000, a); err != nil {
		t.Fatal(err)
	}
	diag, err := post.SampleMCMC(context.Background(), 2000, 5, b)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := stats.KSTwoSample(a, b)
	t.Logf("in-support %.3f, KS D %.3f, R̂ %v, accept %.2f", in, d, diag.RHat, diag.AcceptRate)
	if d > 0.1 || diag.RHat[0] > 1.1 {
		t.Errorf("MCMC fallback disagrees with rejection: D = %.3f, R̂ %v", d, diag.RHat)
	}
	// LogProb renormalises by the in-support fraction and is −Inf outside.
	if !math.IsInf(post.LogProb([]float64{0}), -1) {
		t.Error("LogProb outside the support is finite")
	}
	if got, want := post.LogProb([]float64{1}), f.LogProb([]float64{1}, p.Observed)-math.Log(in); math.Abs(got-want) > 1e-12 {
		t.Errorf("LogProb %v, want %v", got, want)
	}
}
