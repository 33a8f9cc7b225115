package ldp_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/ldp"
	"github.com/privinfer/privinfer/mechanism"
	mldp "github.com/privinfer/privinfer/mechanism/ldp"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/clipped"
)

// The clipped-Gaussian model: each person releases a clipped value with
// Laplace noise; the analyst evaluates the marginal likelihood of eq. 28.
func ExampleClippedGaussian() {
	m, err := ldp.NewClippedGaussian(ldp.ClippedGaussianConfig{A: -5, B: 5, Epsilon: 1})
	if err != nil {
		panic(err)
	}
	// Reports inside and far outside the clipping interval.
	for _, z := range []float64{0.5, 40} {
		fmt.Printf("log Pr[z = %g | μ = 0, σ = 1] = %.6f\n", z, m.LogDensity(z, 0, 1))
	}
	// Output:
	// log Pr[z = 0.5 | μ = 0, σ = 1] = -3.083099
	// log Pr[z = 40 | μ = 0, σ = 1] = -6.990732
}

// The posterior of (μ, σ) from 300 reports, by quadrature on an adaptive
// grid; for sampling, pass post to mcmc.Run with mcmc.NUTS (it is an
// mcmc.GradTarget on (μ, log σ)).
func ExampleGaussianPosterior() {
	m, _ := ldp.NewClippedGaussian(ldp.ClippedGaussianConfig{A: -5, B: 5, Epsilon: 2})
	r := rand.New(rand.NewPCG(1, 2))
	// A simulation study: 300 persons' reports, drawn reproducibly with
	// the release law of the local mechanism (real reports come from
	// m.Mechanism().Release on each person's device).
	rep := mechanism.Reproducible(m.Mechanism())
	z := make([]float64, 300)
	for i := range z {
		x := []float64{1 + 0.5*r.NormFloat64()}
		if err := rep.Release(r, x, z[i:i+1]); err != nil {
			panic(err)
		}
	}
	post, err := ldp.NewGaussianPosterior(m, z, ldp.GaussianPrior{Mu0: 0, Sd0: 2, Shape: 2, Rate: 2})
	if err != nil {
		panic(err)
	}
	var _ mcmc.GradTarget = post
	g, err := post.Grid(context.Background(), 48)
	if err != nil {
		panic(err)
	}
	fmt.Printf("posterior mean of μ: %.2f\n", g.MeanMu())
	fmt.Printf("P(μ ≤ 1 | z) = %.2f\n", g.CDFMu(1))
	// Output:
	// posterior mean of μ: 0.71
	// P(μ ≤ 1 | z) = 0.83
}

// The OUE histogram likelihood of eq. 33 for one report.
func ExampleOUEModel() {
	m, _ := ldp.NewOUEModel(ldp.OUEModelConfig{Epsilon: 1, Dim: 3})
	theta := []float64{0.7, 0.2, 0.1}
	fmt.Printf("%.6f\n", m.LogDensity([]float64{1, 0, 0}, theta))
	// Output:
	// -1.529943
}

// Lemma 3.2: a polynomial times a Gaussian kernel on (0, ∞), observed with
// Gaussian noise, has a closed-form marginal.
func ExamplePolyExpQuad() {
	// p(x) ∝ x² exp(−x²/2) on (0, ∞) (a chi distribution with 3 degrees of freedom).
	p, err := ldp.NewPolyExpQuad(ldp.PolyExpQuadConfig{G: []float64{0, 0, 1}, H0: 0, H1: 0, H2: -0.5, A: 0, B: math.Inf(1)})
	if err != nil {
		panic(err)
	}
	fmt.Printf("log Pr[z = 1.5 | σ = 0.5] = %.6f\n", p.LogMarginal(1.5, 0.5))
	// Output:
	// log Pr[z = 1.5 | σ = 0.5] = -0.742745
}

// The sufficient-statistics logistic regression (§3.1.2): 20000 people
// each release t(x, y) = [y·x, t2(x)] with Gaussian noise at (ε, δ) = (4, 1e-5)
// (Corollary 13.1 sensitivity √4.5 for ‖x‖ ≤ 1), and the analyst samples
// the posterior of θ and Σ under the paper's priors with NUTS.
func ExampleSuffStatLogRegCovPosterior() {
	const d, n = 2, 20000
	r := rand.New(rand.NewPCG(7, 8))
	theta := []float64{2, -1}
	sigma, err := mechanism.AnalyticGaussianSigma(mechanism.GaussianConfig{Epsilon: 4, Delta: 1e-5, Sensitivity: mldp.LogRegSensitivityEqual()})
	if err != nil {
		panic(err)
	}
	m := ldp.LogRegStatDim(d)
	z := make([]float64, m)
	t := make([]float64, m)
	for range n {
		x := []float64{0.4 * r.NormFloat64(), 0.3 * r.NormFloat64()}
		y := -1.0
		if r.Float64() < 1/(1+math.Exp(-(theta[0]*x[0]+theta[1]*x[1]))) {
			y = 1
		}
		if err := ldp.LogRegStats(x, y, t); err != nil {
			panic(err)
		}
		for k := range t { // a simulated release; see mechanism.Gaussian for real ones
			z[k] += t[k] + sigma*r.NormFloat64()
		}
	}
	model, err := ldp.NewSuffStatLogReg(ldp.SuffStatLogRegConfig{Z: z, Dim: d, N: n, Sigma1: sigma, Sigma2: sigma})
	if err != nil {
		panic(err)
	}
	post, err := ldp.NewSuffStatLogRegCovPosterior(model, ldp.SuffStatLogRegCovPosteriorConfig{SDTheta: math.Sqrt(5), Cov: ldp.ScaledLKJ{Eta: 2, Scale: 2.5}})
	if err != nil {
		panic(err)
	}
	res, err := mcmc.Run(context.Background(), post, mcmc.NUTS{}, mcmc.Config{Chains: 2, Warmup: 300, Draws: 300, Seed: 1,
		InitFunc: func(_ int, r *rand.Rand, x []float64) error {
			for i := range x {
				x[i] = 0.1 * r.NormFloat64()
			}
			return nil
		}})
	if err != nil {
		panic(err)
	}
	for j, v := range theta {
		lo, hi := res.Draws.Interval(j, 0.95)
		fmt.Printf("θ%d = %g inside the 95%% interval: %v\n", j+1, v, lo < v && v < hi)
	}
	// Output:
	// θ1 = 2 inside the 95% interval: true
	// θ2 = -1 inside the 95% interval: true
}

// From reports to draws: the analyst receives 100 clipped-Gaussian
// reports (simulated here) and samples the posterior of (μ, σ) with
// Sample, which reports the natural parameters.
func ExampleSample() {
	model, err := ldp.NewClippedGaussian(ldp.ClippedGaussianConfig{A: -3, B: 3, Epsilon: 2})
	if err != nil {
		panic(err)
	}
	// Each person would run model.Mechanism().Release on their device;
	// a reproducible simulation stands in for them.
	r := rand.New(rand.NewPCG(1, 2))
	records := make([]float64, 100)
	for i := range records {
		records[i] = 1 + 0.8*r.NormFloat64()
	}
	reports := make([]float64, len(records))
	if err := mechanism.Reproducible(model.Mechanism()).Release(r, records, reports); err != nil {
		panic(err)
	}
	post, err := ldp.NewGaussianPosterior(model, reports, ldp.GaussianPrior{Mu0: 0, Sd0: 3, Shape: 2, Rate: 1})
	if err != nil {
		panic(err)
	}
	draws, err := ldp.Sample(context.Background(), post, nil, mcmc.Config{Chains: 2, Warmup: 200, Draws: 200, Seed: 7})
	if err != nil {
		panic(err)
	}
	lo, hi := draws.Interval(draws.Index("mu"), 0.95)
	fmt.Println(draws.Names, draws.Len(), "draws")
	fmt.Printf("μ = 1 inside the 95%% interval: %v\n", lo < 1 && 1 < hi)
	// Output:
	// [mu sigma] 400 draws
	// μ = 1 inside the 95% interval: true
}

// The same model stated as a privinfer.Problem: a record-level simulator
// (n clipped-Gaussian records), the per-record local mechanism, the
// reports and any prior.
func ExampleNewProblemPosterior() {
	mu, _ := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 3})
	sigma, _ := simulate.NewGamma(simulate.GammaConfig{Shape: 2, Scale: 1})
	prior, _ := simulate.NewIndependent(mu, sigma)
	rec, _ := clipped.NewGaussian(clipped.GaussianConfig{A: -3, B: 3})
	const n = 100
	sim, _ := simulate.NewDataset(rec, n)
	mech, err := mldp.NewClippedLaplace(mldp.ClippedLaplaceConfig{Lo: -3, Hi: 3, Epsilon: 2})
	if err != nil {
		panic(err)
	}
	// Simulated reports of records with μ = 1, σ = 0.8.
	r := rand.New(rand.NewPCG(3, 4))
	records := make([]float64, n)
	if err := sim.Simulate(r, []float64{1, 0.8}, records); err != nil {
		panic(err)
	}
	reports := make([]float64, n)
	if err := mechanism.Reproducible(mech).Release(r, records, reports); err != nil {
		panic(err)
	}
	p := privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: mech, Observed: reports, Names: []string{"mu", "sigma"}}
	post, err := ldp.NewProblemPosterior(p)
	if err != nil {
		panic(err)
	}
	draws, err := ldp.Sample(context.Background(), post, nil, mcmc.Config{Chains: 2, Warmup: 200, Draws: 200, Seed: 1})
	if err != nil {
		panic(err)
	}
	lo, hi := draws.Interval(0, 0.95)
	fmt.Printf("μ = 1 inside the 95%% interval: %v\n", lo < 1 && 1 < hi)
	// Output:
	// μ = 1 inside the 95% interval: true
}
