package ldp_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/ldp"
)

// The clipped-Gaussian model: each person releases a clipped value with
// Laplace noise; the analyst evaluates the marginal likelihood of eq. 28.
func ExampleClippedGaussian() {
	m, err := ldp.NewClippedGaussian(-5, 5, 1)
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
	m, _ := ldp.NewClippedGaussian(-5, 5, 2)
	r := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, 300)
	for i := range z {
		z[i], _ = m.ReleaseSeeded(r, 1+0.5*r.NormFloat64())
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
	// posterior mean of μ: 0.93
	// P(μ ≤ 1 | z) = 0.59
}

// The OUE histogram likelihood of eq. 33 for one report.
func ExampleOUEModel() {
	m, _ := ldp.NewOUEModel(1, 3)
	theta := []float64{0.7, 0.2, 0.1}
	fmt.Printf("%.6f\n", m.LogDensity([]float64{1, 0, 0}, theta))
	// Output:
	// -1.529943
}

// Lemma 3.2: a polynomial times a Gaussian kernel on (0, ∞), observed with
// Gaussian noise, has a closed-form marginal.
func ExamplePolyExpQuad() {
	// p(x) ∝ x² exp(−x²/2) on (0, ∞) (a chi distribution with 3 degrees of freedom).
	p, err := ldp.NewPolyExpQuad([]float64{0, 0, 1}, 0, 0, -0.5, 0, math.Inf(1))
	if err != nil {
		panic(err)
	}
	fmt.Printf("log Pr[z = 1.5 | σ = 0.5] = %.6f\n", p.LogMarginal(1.5, 0.5))
	// Output:
	// log Pr[z = 1.5 | σ = 0.5] = -0.742745
}
