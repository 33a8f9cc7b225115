package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
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
	testutil.SkipHeavyUnderRace(t)
	grid, dens := exactPosterior()
	wm, ws := gridMoments(grid, dens)
	res, err := SPPE(context.Background(), testProblem(), smallConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rounds) != 2 || res.Simulations != 800 {
		t.Fatalf("rounds %d, simulations %d", len(res.Rounds), res.Simulations)
	}
	if err := res.Draws.Validate(); err != nil || res.Draws.Len() != 1000 || res.Draws.Chains != 0 {
		t.Fatalf("draws: %v, %d rows, %d chains", err, res.Draws.Len(), res.Draws.Chains)
	}
	post := res.Posterior
	x := make([]float64, 1000)
	if err := post.Sample(rand.New(rand.NewPCG(1, 2)), 1000, x); err != nil {
		t.Fatal(err)
	}
	// Both the returned draws and fresh draws must match the exact law.
	for name, x := range map[string][]float64{"Draws": res.Draws.Theta, "Sample": x} {
		m, s := stats.Mean(x), math.Sqrt(stats.Variance(x))
		d, _ := stats.KSOneSample(x, gridCDF(grid, dens))
		t.Logf("exact mean %.3f sd %.3f; SPPE %s mean %.3f sd %.3f KS D %.3f; in-support %.3f", wm, ws, name, m, s, d, post.InSupport())
		if math.Abs(m-wm) > 0.1 || math.Abs(s/ws-1) > 0.2 || d > 0.09 {
			t.Errorf("SPPE posterior (%s) off: mean %.3f (exact %.3f), sd %.3f (exact %.3f), KS D %.3f", name, m, wm, s, ws, d)
		}
	}
	// LogDensity is the flow's density at the observation (full support
	// here), taken at the residual of the regression shift (a translation).
	if post.shift == nil {
		t.Fatal("the default configuration has no regression shift")
	}
	off := make([]float64, 1)
	post.shift.at([]float64{testObs}, off)
	if lp := post.LogDensity([]float64{wm}); math.Abs(lp-post.Flow().LogDensity([]float64{wm - off[0]}, []float64{testObs})) > 1e-12 {
		t.Errorf("LogDensity %v differs from the flow's density", lp)
	}
}

// TestSPLERecoversConjugatePosterior is the SPLE analogue: the likelihood
// flow q(s_dp | θ) times the prior, sampled by adaptive Metropolis, must
// match the exact posterior (same tolerances; the MCMC draws are
// autocorrelated, so the KS bound is looser).
func TestSPLERecoversConjugatePosterior(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	grid, dens := exactPosterior()
	wm, ws := gridMoments(grid, dens)
	p := testProblem()
	res, err := SPLE(context.Background(), p, smallConfig())
	if err != nil {
		t.Fatal(err)
	}
	last := res.Rounds[len(res.Rounds)-1]
	if err := res.Draws.Validate(); err != nil || res.Draws.Len() != 1000 || res.Draws.Chains != 4 {
		t.Fatalf("draws: %v, %d rows, %d chains", err, res.Draws.Len(), res.Draws.Chains)
	}
	x := res.Draws.Theta
	m, s := stats.Mean(x), math.Sqrt(stats.Variance(x))
	d, _ := stats.KSOneSample(x, gridCDF(grid, dens))
	t.Logf("exact mean %.3f sd %.3f; SPLE mean %.3f sd %.3f KS D %.3f; R̂ %v accept %.2f", wm, ws, m, s, d, last.RHat, last.AcceptRate)
	if math.Abs(m-wm) > 0.1 || math.Abs(s/ws-1) > 0.2 || d > 0.1 {
		t.Errorf("SPLE posterior off: mean %.3f (exact %.3f), sd %.3f (exact %.3f), KS D %.3f", m, wm, s, ws, d)
	}
	// Sample draws from the estimate π(θ) q(s_dp°|θ) itself: compare its
	// 4000 draws with that density normalised on the grid. Four chains
	// thinned by 2 at acceptance ≈ 0.5 keep an ESS of at least a quarter
	// of the draws, so the mean's standard error is at most ≈ 0.67/√1000 ≈
	// 0.021: bounds 0.07 on the mean (above 3 standard errors), 10% on the
	// sd and KS D < 0.06 (measured: 0.012, 4%, 0.025).
	post := res.Posterior
	est := make([]float64, len(grid))
	for i, th := range grid {
		est[i] = math.Exp(post.LogDensity([]float64{th}))
	}
	h := grid[1] - grid[0]
	tot := 0.0
	for _, v := range est {
		tot += v * h
	}
	for i := range est {
		est[i] /= tot
	}
	em, es := gridMoments(grid, est)
	y := make([]float64, 4000)
	if err := post.Sample(rand.New(rand.NewPCG(1, 2)), 4000, y); err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string][]float64{"Draws": x, "Sample": y} {
		m, s := stats.Mean(x), math.Sqrt(stats.Variance(x))
		d, _ := stats.KSOneSample(x, gridCDF(grid, est))
		t.Logf("estimate mean %.3f sd %.3f; %s mean %.3f sd %.3f KS D %.3f", em, es, name, m, s, d)
		if name == "Sample" && (math.Abs(m-em) > 0.07 || math.Abs(s/es-1) > 0.1 || d > 0.06) {
			t.Errorf("Sample off the estimate's law: mean %.3f (%.3f), sd %.3f (%.3f), KS D %.3f", m, em, s, es, d)
		}
	}
	if last.RHat[0] > 1.1 {
		t.Errorf("split R̂ = %v", last.RHat)
	}
	// The proposal's draws are a sample of their number: the chains were
	// thinned (or rerun with more thinning) until the within-chain ESS
	// reached half the draws.
	if want := float64(smallConfig().SimsPerRound) / 2; !(last.ESS >= want) || last.Thin < 5 {
		t.Errorf("last round's chains: ESS %v (want ≥ %v), thinning %d (want ≥ 5)", last.ESS, want, last.Thin)
	}
	if rh, err := res.Draws.RHat(0); err != nil || rh > 1.1 {
		t.Errorf("Draws.RHat = %v, %v", rh, err)
	}
	// LogDensity is the unnormalised log posterior log π(θ) + log q(s_dp°|θ).
	lik := post.Likelihood()
	for _, th := range []float64{-1, wm, 2} {
		want := p.Prior.LogDensity([]float64{th}) + lik.LogDensity([]float64{testObs}, []float64{th})
		if got := post.LogDensity([]float64{th}); math.Abs(got-want) > 1e-12 {
			t.Errorf("LogDensity(%v) = %v, want %v", th, got, want)
		}
	}
	// The approximate MLE of θ given s_dp° is near s_dp° itself for this
	// location model (the exact marginal likelihood peaks at θ = s_dp°).
	mle, _, err := lik.MLE([]float64{testObs}, []float64{0}, 0)
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
	o := smallConfig()
	mod := func(f func(p *privinfer.Problem, o *Config)) (privinfer.Problem, Config) {
		p2, o2 := good, o
		tc := *o.Train
		o2.Train = &tc
		f(&p2, &o2)
		return p2, o2
	}
	cases := map[string]func(p *privinfer.Problem, o *Config){
		"wrong dim":  func(p *privinfer.Problem, o *Config) { p.Observed = []float64{1, 2} },
		"NaN obs":    func(p *privinfer.Problem, o *Config) { p.Observed = []float64{math.NaN()} },
		"rounds -1":  func(p *privinfer.Problem, o *Config) { o.Rounds = -1 },
		"M -1":       func(p *privinfer.Problem, o *Config) { o.InnerPoints = -1 },
		"atoms 1":    func(p *privinfer.Problem, o *Config) { o.Atoms = 1 },
		"no prior":   func(p *privinfer.Problem, o *Config) { p.Prior = nil },
		"bad valfrc": func(p *privinfer.Problem, o *Config) { o.Train.ValidationFraction = 1 },
	}
	for name, f := range cases {
		p, oo := mod(f)
		if _, err := SPPE(ctx, p, oo); !errors.Is(err, ErrInvalid) {
			t.Errorf("SPPE %s: err = %v", name, err)
		}
		if _, err := SPLE(ctx, p, oo); !errors.Is(err, ErrInvalid) {
			t.Errorf("SPLE %s: err = %v", name, err)
		}
	}
	// A mechanism without a uniform transform is refused with the root
	// package's named error.
	p := good
	p.Mechanism = noTransform{}
	for name, run := range map[string]func() error{
		"SPPE": func() error { _, err := SPPE(ctx, p, o); return err },
		"SPLE": func() error { _, err := SPLE(ctx, p, o); return err },
		"PosteriorPredictive": func() error {
			_, err := PosteriorPredictive(ctx, p, []float64{0}, 1)
			return err
		},
	} {
		if err := run(); !errors.Is(err, privinfer.ErrNoTransform) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s without a transform: err = %v", name, err)
		}
	}
	// A simulator error aborts with that error.
	p = good
	p.Simulator = normalSim{tau: 1, fail: errBoom}
	if _, err := SPPE(ctx, p, o); !errors.Is(err, errBoom) || !errors.As(err, new(*simulate.RowError)) {
		t.Errorf("simulator error: %v", err)
	}
	if _, err := SPLE(ctx, p, o); !errors.Is(err, errBoom) {
		t.Errorf("simulator error: %v", err)
	}
	// Cancellation.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := SPPE(cctx, good, o); !errors.Is(err, context.Canceled) {
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
	testutil.SkipHeavyUnderRace(t)
	cfg := flow.DefaultConfig(1, 1)
	cfg.Layers, cfg.Hidden, cfg.Blocks, cfg.Bins = 1, 8, 1, 4
	cfg.StandardizeContext, cfg.StandardizeInputs = false, false
	f, err := flow.New(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	c := smallConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	o := c.withDefaults()
	far, _ := simulate.NewUniform(simulate.UniformConfig{Lo: 50, Hi: 51})
	farPrior, _ := simulate.NewIndependent(far)
	p := testProblem()
	p.Prior = farPrior
	post, err := newPosterior(f, p.Prior, p.Observed, &o, 1, nil)
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
	post, _ = newPosterior(f, p.Prior, p.Observed, &o, 1, nil)
	if err := post.Sample(rand.New(rand.NewPCG(2, 2)), 200, x); err != nil {
		t.Fatal(err)
	}
	for _, v := range x {
		if v < 50 || v > 51 {
			t.Fatalf("fallback draw %v outside the support", v)
		}
	}

	near, _ := simulate.NewUniform(simulate.UniformConfig{Lo: 0.5, Hi: 3})
	nearPrior, _ := simulate.NewIndependent(near)
	p.Prior = nearPrior
	post, _ = newPosterior(f, p.Prior, p.Observed, &o, 1, nil)
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
	if d > 0.1 || diag.RHat[0] > 1.1 || !(diag.ESS >= 1000) || diag.Thin < 5 {
		t.Errorf("MCMC fallback disagrees with rejection: D = %.3f, R̂ %v, ESS %v of 2000 draws, thinning %d", d, diag.RHat, diag.ESS, diag.Thin)
	}
	// LogDensity renormalises by the in-support fraction and is −Inf outside.
	if !math.IsInf(post.LogDensity([]float64{0}), -1) {
		t.Error("LogDensity outside the support is finite")
	}
	if got, want := post.LogDensity([]float64{1}), f.LogDensity([]float64{1}, p.Observed)-math.Log(in); math.Abs(got-want) > 1e-12 {
		t.Errorf("LogDensity %v, want %v", got, want)
	}
}

// TestNonPrivate runs SPPE and SPLE on a problem without a mechanism: the
// observation is the confidential summary itself, s° = 1.2 with
// s | θ ~ N(θ, τ²) and θ ~ N(0, 1), whose posterior is N(s°/(1 + τ²),
// τ²/(1 + τ²)) = N(0.96, 0.447²). Tolerances as for the private problem;
// with one inner point per simulation (no noise to integrate over) the
// rounds have 1000 simulations instead of 400.
func TestNonPrivate(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := testProblem()
	p.Mechanism = nil
	mean := testObs / (1 + testTau*testTau)
	sd := math.Sqrt(testTau * testTau / (1 + testTau*testTau))
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-(x-mean)/(sd*math.Sqrt2)) }
	cfg := smallConfig()
	cfg.SimsPerRound = 1000
	pres, err := SPPE(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lres, err := SPLE(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string][]float64{"SPPE": pres.Draws.Theta, "SPLE": lres.Draws.Theta} {
		m, s := stats.Mean(x), math.Sqrt(stats.Variance(x))
		d, _ := stats.KSOneSample(x, cdf)
		t.Logf("exact mean %.3f sd %.3f; %s mean %.3f sd %.3f KS D %.3f", mean, sd, name, m, s, d)
		if math.Abs(m-mean) > 0.1 || math.Abs(s/sd-1) > 0.2 || d > 0.1 {
			t.Errorf("%s non-private posterior off: mean %.3f (exact %.3f), sd %.3f (exact %.3f), KS D %.3f", name, m, mean, s, sd, d)
		}
	}
	pred, err := PosteriorPredictive(context.Background(), p, []float64{0.5, 0.5}, 3)
	if err != nil || len(pred) != 2 {
		t.Fatalf("PosteriorPredictive: %v, %v", pred, err)
	}
}

// TestProgressAndOnRound checks the events of a run: per round one
// "simulate" event, one "epoch" event per epoch run (Step of
// Train.MaxEpochs) and one "round" event (Step of Rounds), in that order,
// with non-decreasing elapsed times; and one OnRound call per round with
// the round's estimate and its draws (SimsPerRound, then PosteriorSamples).
func TestProgressAndOnRound(t *testing.T) {
	for _, name := range []string{"SPPE", "SPLE"} {
		cfg := smallConfig()
		cfg.Rounds, cfg.SimsPerRound, cfg.PosteriorSamples, cfg.Train.MaxEpochs = 2, 100, 40, 3
		cfg.InnerPoints, cfg.Warmup, cfg.Thin = 2, 50, 1
		var events []privinfer.Progress
		cfg.Progress = func(e privinfer.Progress) { events = append(events, e) }
		type call struct {
			round, n int
			est      Estimate
		}
		var calls []call
		cfg.OnRound = func(round int, est Estimate, d *privinfer.Draws) {
			calls = append(calls, call{round, d.Len(), est})
		}
		var res *Result
		switch name {
		case "SPPE":
			r, err := SPPE(context.Background(), testProblem(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			res = &r.Result
			if calls[1].est != Estimate(r.Posterior) {
				t.Errorf("%s: last OnRound estimate is not the result's posterior", name)
			}
		case "SPLE":
			r, err := SPLE(context.Background(), testProblem(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			res = &r.Result
			if calls[1].est != Estimate(r.Posterior) {
				t.Errorf("%s: last OnRound estimate is not the result's posterior", name)
			}
		}
		var want []string
		for _, rr := range res.Rounds {
			want = append(want, fmt.Sprintf("%d simulate %d/%d", rr.Round, cfg.SimsPerRound, cfg.SimsPerRound))
			for ep := 1; ep <= rr.Epochs; ep++ {
				want = append(want, fmt.Sprintf("%d epoch %d/%d", rr.Round, ep, cfg.Train.MaxEpochs))
			}
			want = append(want, fmt.Sprintf("%d round %d/%d", rr.Round, rr.Round, cfg.Rounds))
		}
		var got []string
		for i, e := range events {
			got = append(got, fmt.Sprintf("%d %s %d/%d", e.Round, e.Stage, e.Step, e.Total))
			if i > 0 && e.Elapsed < events[i-1].Elapsed {
				t.Errorf("%s: elapsed time decreases at event %d", name, i)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: events\n%v\nwant\n%v", name, got, want)
		}
		if len(calls) != 2 || calls[0].round != 1 || calls[0].n != 100 || calls[1].round != 2 || calls[1].n != 40 || res.Draws.Len() != 40 {
			t.Errorf("%s: OnRound calls %+v, %d final draws", name, calls, res.Draws.Len())
		}
	}
}
