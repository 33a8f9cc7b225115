package ldp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mechanism"
	mldp "github.com/privinfer/privinfer/mechanism/ldp"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/clipped"
)

// gaussianReports simulates n reports of x ~ N(mu, sd²) under m.
func gaussianReports(t *testing.T, m *ClippedGaussian, n int, mu, sd float64, seed uint64) []float64 {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	z := make([]float64, n)
	for i := range z {
		v, err := simReport(m, r, mu+sd*r.NormFloat64())
		if err != nil {
			t.Fatal(err)
		}
		z[i] = v
	}
	return z
}

// TestSampleGaussianMatchesGrid: Sample's draws of (μ, σ), on the natural
// scale, against the quadrature posterior (GaussianPosterior.Grid): the
// grid CDF at the sampled 5%, 25%, 50%, 75% and 95% quantiles must be
// within 4·√(p(1−p)/ESS) of p (false alarm ~1e-4 per check, 10 checks).
func TestSampleGaussianMatchesGrid(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	m, _ := NewClippedGaussian(ClippedGaussianConfig{A: -5, B: 5, Epsilon: 2})
	z := gaussianReports(t, m, 200, 1, 1.5, 13)
	post, _ := NewGaussianPosterior(m, z, GaussianPrior{Mu0: 0, Sd0: 2, Shape: 2, Rate: 1})
	var events int
	d, err := Sample(t.Context(), post, nil, mcmc.Config{Chains: 2, Warmup: 300, Draws: 600, Seed: 3,
		Progress: func(p privinfer.Progress) {
			if p.Stage == "chain" {
				events++
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Names, []string{"mu", "sigma"}) || d.Chains != 2 || d.Len() != 1200 {
		t.Fatalf("names %v, chains %d, %d draws", d.Names, d.Chains, d.Len())
	}
	if events == 0 {
		t.Error("no progress events")
	}
	g, err := post.Grid(t.Context(), 64)
	if err != nil {
		t.Fatal(err)
	}
	for j, name := range d.Names {
		ess, _ := d.ESSBulk(j)
		s := d.Column(j)
		sort.Float64s(s)
		if j == 1 && !(s[0] > 0) {
			t.Fatalf("sigma draw %v not on the natural scale", s[0])
		}
		for _, p := range []float64{0.05, 0.25, 0.5, 0.75, 0.95} {
			q := s[int(p*float64(len(s)))]
			f := g.CDFMu(q)
			if j == 1 {
				f = g.CDFSigma(q)
			}
			if tol := 4 * math.Sqrt(p*(1-p)/ess); math.Abs(f-p) > tol {
				t.Errorf("%s: grid CDF at the sampled %.2f-quantile is %.4f (tolerance %.4f, ESS %.0f)", name, p, f, tol, ess)
			}
		}
		if rh, _ := d.RHat(j); rh > 1.05 {
			t.Errorf("%s: R-hat %v", name, rh)
		}
	}
}

// TestSampleExponentialMatchesQuadrature: the posterior mean and standard
// deviation of the rate from Sample's default configuration (4 chains,
// NUTS) against midpoint quadrature of the posterior over log θ on 4000
// cells: the mean within 4 Monte Carlo standard errors (sd/√ESS, false
// alarm ~6e-5) and the standard deviation within 5%.
func TestSampleExponentialMatchesQuadrature(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	m, _ := NewClippedExponential(ClippedExponentialConfig{B: 3, Epsilon: 1})
	r := rand.New(rand.NewPCG(8, 9))
	z := make([]float64, 150)
	for i := range z {
		z[i], _ = simReport(m, r, r.ExpFloat64()/1.7)
	}
	post, _ := NewExponentialPosterior(m, z, ExponentialPosteriorConfig{Shape: 2, Rate: 1})
	d, err := Sample(t.Context(), post, nil, mcmc.Config{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Names, []string{"theta"}) || d.Chains != 4 || d.Len() != 4000 {
		t.Fatalf("names %v, chains %d, %d draws", d.Names, d.Chains, d.Len())
	}
	// Quadrature over u = log θ in [−6, 4].
	const cells = 4000
	lo, hi := -6.0, 4.0
	h := (hi - lo) / cells
	lps := make([]float64, cells)
	mx := math.Inf(-1)
	for i := range lps {
		lps[i] = post.LogDensity([]float64{lo + (float64(i)+0.5)*h})
		mx = math.Max(mx, lps[i])
	}
	var w, m1, m2 float64
	for i, lp := range lps {
		th := math.Exp(lo + (float64(i)+0.5)*h)
		p := math.Exp(lp - mx)
		w += p
		m1 += p * th
		m2 += p * th * th
	}
	mean, sd := m1/w, math.Sqrt(m2/w-(m1/w)*(m1/w))
	ess, _ := d.ESSBulk(0)
	got, gotSD := d.Mean()[0], d.SD()[0]
	t.Logf("rate: Sample mean %.5f sd %.5f (ESS %.0f); quadrature mean %.5f sd %.5f", got, gotSD, ess, mean, sd)
	if math.Abs(got-mean) > 4*sd/math.Sqrt(ess) {
		t.Errorf("posterior mean %v, quadrature %v (tolerance %v)", got, mean, 4*sd/math.Sqrt(ess))
	}
	if math.Abs(gotSD/sd-1) > 0.05 {
		t.Errorf("posterior sd %v, quadrature %v", gotSD, sd)
	}
}

// clippedGaussianProblem states the clipped-Gaussian model as a Problem:
// prior μ ~ N(0, 2²), σ ~ Gamma(2, rate 1) (GaussianPrior{0, 2, 2, 1}).
func clippedGaussianProblem(t *testing.T, mech mechanism.Mechanism, z []float64) privinfer.Problem {
	t.Helper()
	mu, _ := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 2})
	sg, _ := simulate.NewGamma(simulate.GammaConfig{Shape: 2, Scale: 1})
	prior, err := simulate.NewIndependent(mu, sg)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := clipped.NewGaussian(clipped.GaussianConfig{A: -5, B: 5})
	sim, err := simulate.NewDataset(rec, len(z))
	if err != nil {
		t.Fatal(err)
	}
	return privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: mech, Observed: z, Names: []string{"mu", "sigma"}}
}

// TestProblemPosteriorMatchesClosedForm: the posterior built from a
// Problem equals the hand-built GaussianPosterior and ExponentialPosterior
// with the same priors up to an additive constant (the priors'
// normalisers), at 20 points, to 1e-9 relative; with either form of the
// per-record mechanism.
func TestProblemPosteriorMatchesClosedForm(t *testing.T) {
	m, _ := NewClippedGaussian(ClippedGaussianConfig{A: -5, B: 5, Epsilon: 2})
	z := gaussianReports(t, m, 40, 1, 1.5, 21)
	hand, _ := NewGaussianPosterior(m, z, GaussianPrior{Mu0: 0, Sd0: 2, Shape: 2, Rate: 1})
	cl, _ := mldp.NewClippedLaplace(mldp.ClippedLaplaceConfig{Lo: -5, Hi: 5, Epsilon: 2})
	lap, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 10, Epsilon: 2, Dim: len(z)})
	r := rand.New(rand.NewPCG(1, 1))
	for _, mech := range []mechanism.Mechanism{cl, lap, mechanism.Reproducible(cl)} {
		pp, err := NewProblemPosterior(clippedGaussianProblem(t, mech, z))
		if err != nil {
			t.Fatalf("%T: %v", mech, err)
		}
		x0 := []float64{0.3, 0.1}
		c := pp.LogDensity(x0) - hand.LogDensity(x0)
		for range 20 {
			x := []float64{-2 + 5*r.Float64(), -1 + 2*r.Float64()}
			a, b := pp.LogDensity(x), hand.LogDensity(x)+c
			if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(b)) {
				t.Errorf("%T at %v: Problem posterior %v, closed form %v", mech, x, a, b)
			}
		}
	}
	// The clipped exponential with a Gamma(2, rate 1) prior.
	e, _ := NewClippedExponential(ClippedExponentialConfig{B: 3, Epsilon: 1.5})
	ze := make([]float64, 30)
	for i := range ze {
		ze[i], _ = simReport(e, r, r.ExpFloat64())
	}
	he, _ := NewExponentialPosterior(e, ze, ExponentialPosteriorConfig{Shape: 2, Rate: 1})
	g, _ := simulate.NewGamma(simulate.GammaConfig{Shape: 2, Scale: 1})
	prior, _ := simulate.NewIndependent(g)
	rec, _ := clipped.NewExponential(3)
	sim, _ := simulate.NewDataset(rec, len(ze))
	mech, _ := mldp.NewClippedLaplace(mldp.ClippedLaplaceConfig{Lo: 0, Hi: 3, Epsilon: 1.5})
	pe, err := NewProblemPosterior(privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: mech, Observed: ze})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pe.ParamNames(), []string{"θ[0]"}) && len(pe.ParamNames()) != 1 {
		t.Errorf("names %v", pe.ParamNames())
	}
	c := pe.LogDensity([]float64{0}) - he.LogDensity([]float64{0})
	for _, u := range []float64{-2, -0.5, 0.7, 1.9} {
		a, b := pe.LogDensity([]float64{u}), he.LogDensity([]float64{u})+c
		if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(b)) {
			t.Errorf("exponential at log θ = %v: Problem posterior %v, closed form %v", u, a, b)
		}
	}
}

// TestSampleBadInput: Sample and NewProblemPosterior refuse bad
// arguments with errors wrapping ErrInvalid and never panic.
func TestSampleBadInput(t *testing.T) {
	ctx := context.Background()
	m, _ := NewClippedGaussian(ClippedGaussianConfig{A: -5, B: 5, Epsilon: 2})
	z := []float64{0.1, 1.2, -0.4}
	post, _ := NewGaussianPosterior(m, z, GaussianPrior{Mu0: 0, Sd0: 2, Shape: 2, Rate: 1})
	cl, _ := mldp.NewClippedLaplace(mldp.ClippedLaplaceConfig{Lo: -5, Hi: 5, Epsilon: 2})
	good := clippedGaussianProblem(t, cl, z)
	sample := func(p Posterior, c mcmc.Config) func() error {
		return func() error { _, err := Sample(ctx, p, nil, c); return err }
	}
	problem := func(f func(p *privinfer.Problem)) func() error {
		return func() error {
			p := good
			f(&p)
			_, err := NewProblemPosterior(p)
			return err
		}
	}
	wide, _ := mldp.NewClippedLaplace(mldp.ClippedLaplaceConfig{Lo: -6, Hi: 5, Epsilon: 2})
	lap2, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 10, Epsilon: 2, Dim: 2})
	gau, _ := mechanism.NewAnalyticGaussian(mechanism.GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 10, Dim: 3})
	one, _ := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 1})
	prior1, _ := simulate.NewIndependent(one)
	type B = testutil.BadInput
	cases := []B{
		{Category: "nil", Name: "Sample nil posterior", Err: testutil.Naming(sample(nil, mcmc.Config{}), "p ")},
		{Category: "typednil", Name: "Sample (*GaussianPosterior)(nil)", Err: sample((*GaussianPosterior)(nil), mcmc.Config{})},
		{Category: "typednil", Name: "Sample (*ProblemPosterior)(nil)", Err: sample((*ProblemPosterior)(nil), mcmc.Config{})},
		{Category: "zerovalue", Name: "Sample GaussianPosterior{}", Err: sample(&GaussianPosterior{}, mcmc.Config{})},
		{Category: "zerovalue", Name: "Sample HistogramPosterior{}", Err: sample(&HistogramPosterior{}, mcmc.Config{})},
		{Category: "zerovalue", Name: "Sample ProblemPosterior{}", Err: sample(&ProblemPosterior{}, mcmc.Config{})},
		{Category: "nil", Name: "Sample nil context", Err: testutil.Naming(func() error { _, err := Sample(nil, post, nil, mcmc.Config{}); return err }, "ctx")}, //nolint:staticcheck // the nil context is the bad input
		{Category: "nonpositive", Name: "Config.Chains −1", Err: testutil.Naming(sample(post, mcmc.Config{Chains: -1}), "Chains")},
		{Category: "nonpositive", Name: "Config.Warmup −1", Err: sample(post, mcmc.Config{Warmup: -1})},
		{Category: "nonpositive", Name: "Config.Draws −1", Err: sample(post, mcmc.Config{Draws: -1})},
		{Category: "nonpositive", Name: "Config.Thin −1", Err: sample(post, mcmc.Config{Thin: -1})},
		{Category: "huge", Name: "Config.Chains 1<<20", Err: sample(post, mcmc.Config{Chains: 1 << 20})},
		{Category: "mismatched", Name: "Config.Names length", Err: testutil.Naming(sample(post, mcmc.Config{Names: []string{"mu"}}), "cfg.Names")},
		{Category: "mismatched", Name: "Config.Names repeated", Err: sample(post, mcmc.Config{Names: []string{"a", "a"}})},
		{Category: "mismatched", Name: "Config.Init chains", Err: testutil.Naming(sample(post, mcmc.Config{Chains: 2, Init: [][]float64{{0, 0}}}), "Init")},
		{Category: "nan", Name: "Config.Init NaN", Err: testutil.Naming(sample(post, mcmc.Config{Chains: 1, Init: [][]float64{{0, math.NaN()}}}), "Init")},
		{Category: "zerovalue", Name: "NewProblemPosterior Problem{}", Err: func() error { _, err := NewProblemPosterior(privinfer.Problem{}); return err }},
		{Category: "nil", Name: "Problem.Mechanism nil", Err: problem(func(p *privinfer.Problem) { p.Mechanism = nil })},
		{Category: "mismatched", Name: "Problem.Mechanism clipping interval", Err: problem(func(p *privinfer.Problem) { p.Mechanism = wide })},
		{Category: "mismatched", Name: "Problem.Mechanism Laplace dimension", Err: problem(func(p *privinfer.Problem) { p.Mechanism = lap2 })},
		{Category: "mismatched", Name: "Problem.Mechanism Gaussian", Err: problem(func(p *privinfer.Problem) { p.Mechanism = gau })},
		{Category: "mismatched", Name: "Problem.Observed length", Err: problem(func(p *privinfer.Problem) { p.Observed = z[:2] })},
		{Category: "empty", Name: "Problem.Observed empty", Err: problem(func(p *privinfer.Problem) { p.Observed = nil })},
		{Category: "nan", Name: "Problem.Observed NaN", Err: problem(func(p *privinfer.Problem) { p.Observed = []float64{0, math.NaN(), 1} })},
		{Category: "inf", Name: "Problem.Observed Inf", Err: problem(func(p *privinfer.Problem) { p.Observed = []float64{0, math.Inf(1), 1} })},
		{Category: "mismatched", Name: "Problem.Prior dimension", Err: problem(func(p *privinfer.Problem) { p.Prior = prior1 })},
		{Category: "mismatched", Name: "Problem.Simulator not a Dataset", Err: problem(func(p *privinfer.Problem) {
			s, _ := simulate.NewMeanStat(p.Simulator.(*simulate.Dataset).Model(), 3)
			p.Simulator = s
		})},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Sample(cctx, post, nil, mcmc.Config{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
	if _, err := Sample(ctx, post, mcmc.AdaptiveMetropolis{Beta: 2}, mcmc.Config{}); err == nil {
		t.Error("invalid method: want an error")
	}
}
