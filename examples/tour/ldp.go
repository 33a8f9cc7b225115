package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/ldp"
	"github.com/privinfer/privinfer/mechanism"
)

// ldpGaussian collects n = 500 locally private reports of values
// x ~ N(1, 0.8²) clipped to [−3, 3] with Laplace noise at ε = 2, and samples
// the posterior of (μ, σ) with NUTS.
func ldpGaussian(w io.Writer, seed uint64, quick bool) (*privinfer.Draws, *ldp.GaussianPosterior, error) {
	r := rand.New(rand.NewPCG(seed, 4))
	model, err := ldp.NewClippedGaussian(ldp.ClippedGaussianConfig{A: -3, B: 3, Epsilon: 2})
	if err != nil {
		return nil, nil, err
	}
	// Each person releases their own report through model.Mechanism()
	// (Release, operating-system noise); the tour simulates them
	// reproducibly.
	rep := mechanism.Reproducible(model.Mechanism())
	z := make([]float64, 500)
	for i := range z {
		if err := rep.Release(r, []float64{1 + 0.8*r.NormFloat64()}, z[i:i+1]); err != nil {
			return nil, nil, err
		}
	}
	post, err := ldp.NewGaussianPosterior(model, z, ldp.GaussianPrior{Mu0: 0, Sd0: 3, Shape: 2, Rate: 1})
	if err != nil {
		return nil, nil, err
	}
	cfg := mcmc.Config{Chains: 4, Warmup: 500, Draws: 1000, Seed: seed}
	if quick {
		cfg.Draws = 500
	}
	draws, err := ldp.Sample(context.Background(), post, nil, cfg) // NUTS draws of (mu, sigma)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "%d reports at ε = 2:\n%v", len(z), draws.Summary())
	return draws, post, nil
}
