// LDP collects n = 500 locally private reports, each person's value
// x ~ N(1, 0.8²) clipped to [−3, 3] with Laplace noise at ε = 2, and
// samples the posterior of the population's (μ, σ) from the reports with
// mcmc/ldp (ldp.Sample, NUTS by default), in about four CPU-seconds.
//
//	go run ./examples/ldp [-seed 1]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/ldp"
	"github.com/privinfer/privinfer/mechanism"
)

func main() {
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if _, _, err := run(os.Stdout, *seed, 1000); err != nil {
		log.Fatal(err)
	}
}

// run returns the draws (draws per chain, 4 chains) and the posterior they
// sample.
func run(w io.Writer, seed uint64, draws int) (*privinfer.Draws, *ldp.GaussianPosterior, error) {
	r := rand.New(rand.NewPCG(seed, 4))
	model, err := ldp.NewClippedGaussian(ldp.ClippedGaussianConfig{A: -3, B: 3, Epsilon: 2})
	if err != nil {
		return nil, nil, err
	}
	// Each person releases their own report through model.Mechanism()
	// (Release, noise from the OS generator); here they are simulated
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
	d, err := ldp.Sample(context.Background(), post, nil, mcmc.Config{Chains: 4, Warmup: 500, Draws: draws, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "%d reports at ε = 2:\n%v", len(z), d.Summary())
	return d, post, nil
}
