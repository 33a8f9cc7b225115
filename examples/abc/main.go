// ABC infers the rate λ of a user's own simulator, n = 50 visit counts
// x_i ~ Poisson(λ) capped at 30, from the Laplace-privatized mean of the
// counts (ε = 1, sensitivity 30/50) under a Gamma(2, scale 2) prior, by
// noise-aware SMC-ABC: every simulated mean passes through the same
// mechanism before it is compared with the release. It runs in about three
// CPU-seconds.
//
//	go run ./examples/abc [-seed 1]
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
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

func main() {
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if _, err := run(os.Stdout, *seed, 1000); err != nil {
		log.Fatal(err)
	}
}

// visits simulates the confidential statistic: the mean of n capped
// Poisson(λ) counts, θ = (λ).
type visits struct{ n int }

func (v visits) StatDim() int { return 1 }

func (v visits) Simulate(r *rand.Rand, theta, dst []float64) error {
	pois, err := simulate.NewPoisson(theta[0])
	if err != nil {
		return err
	}
	dst[0] = 0
	for range v.n {
		dst[0] += min(pois.Sample(r), 30) / float64(v.n)
	}
	return nil
}

// run returns the SMC-ABC posterior of λ given the released mean 4.1, with
// the given number of particles.
func run(w io.Writer, seed uint64, particles int) (*privinfer.Draws, error) {
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 30.0 / 50, Epsilon: 1, Dim: 1})
	if err != nil {
		return nil, err
	}
	gamma, err := simulate.NewGamma(simulate.GammaConfig{Shape: 2, Scale: 2})
	if err != nil {
		return nil, err
	}
	prior, _ := simulate.NewIndependent(gamma)
	problem := privinfer.Problem{Prior: prior, Simulator: visits{n: 50}, Mechanism: lap,
		Observed: []float64{4.1}, Names: []string{"lambda"}}
	res, err := abc.SMC(context.Background(), problem, abc.SMCConfig{Distance: abc.Euclidean{}, Particles: particles,
		Schedule: abc.Adaptive{Initial: 5, Quantile: 0.5, Rounds: 10}, Seed: seed})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "released mean 4.1 (ε = 1); SMC-ABC, final tolerance %.3f:\n%v", res.Final().Tolerance, res.Draws.Summary())
	return res.Draws, nil
}
