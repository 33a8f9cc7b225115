// Aggregate releases a DP mean and a DP histogram of 200 records through
// the curator's aggregations (mechanism/aggregate, ε = 0.5 each) and
// recovers the analyst's noise-aware posterior of the population mean μ
// and proportion p by exact-kernel importance sampling (abc.KernelIS). It
// runs in under a second.
//
//	go run ./examples/aggregate [-seed 1]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	"github.com/privinfer/privinfer/simulate"
)

func main() {
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if _, _, err := run(os.Stdout, *seed, 4000); err != nil {
		log.Fatal(err)
	}
}

// survey simulates the statistics of n records x_i ~ N(μ, 1) clamped to
// [lo, hi] and c_i ~ Bernoulli(p), θ = (μ, p): the mean of x, the counts
// of c = 0 and c = 1.
type survey struct{ n, lo, hi float64 }

func (s survey) StatDim() int { return 3 }

func (s survey) Simulate(r *rand.Rand, theta, dst []float64) error {
	if theta[1] < 0 || theta[1] > 1 {
		return fmt.Errorf("p = %v outside [0, 1]", theta[1])
	}
	dst[0], dst[1], dst[2] = 0, s.n, 0
	for range int(s.n) {
		dst[0] += min(max(theta[0]+r.NormFloat64(), s.lo), s.hi) / s.n
		if r.Float64() < theta[1] {
			dst[1], dst[2] = dst[1]-1, dst[2]+1
		}
	}
	return nil
}

// run releases the statistics of 200 records; it returns the posterior
// from sims simulations, the releases and their noise scales.
func run(w io.Writer, seed uint64, sims int) (*privinfer.Draws, []float64, error) {
	r := rand.New(rand.NewPCG(seed, 1))
	data := survey{n: 200, lo: -2, hi: 4}
	x, c := make([]float64, 200), make([]int, 200) // confidential: μ = 1.2, p = 0.3
	for i := range x {
		x[i] = 1.2 + r.NormFloat64()
		if r.Float64() < 0.3 {
			c[i] = 1
		}
	}
	// Reproducible draws the noise from r, for this demonstration only: a
	// real release leaves it false (noise from the OS generator).
	cfg := aggregate.Config{Epsilon: 0.5, Neighbour: aggregate.Substitute, Lo: data.lo, Hi: data.hi, Reproducible: true}
	mean, err1 := aggregate.BoundedMean(r, x, cfg)
	hist, err2 := aggregate.Histogram(r, c, 2, cfg)
	if err := errors.Join(err1, err2); err != nil {
		return nil, nil, err
	}
	// The analyst models the discrete Laplace noise by the Laplace law.
	obs := []float64{mean.Value, hist.Counts[0], hist.Counts[1]}
	noise, err := mechanism.NewLaplaceScales([]float64{mean.Scale, hist.Scale, hist.Scale}, mechanism.Sequential(mean.Budget, hist.Budget))
	if err != nil {
		return nil, nil, err
	}
	muPrior, _ := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 10})
	pPrior, _ := simulate.NewUniform(simulate.UniformConfig{Lo: 0, Hi: 1})
	prior, _ := simulate.NewIndependent(muPrior, pPrior)
	problem := privinfer.Problem{Prior: prior, Simulator: data, Mechanism: noise, Observed: obs, Names: []string{"mu", "p"}}
	res, err := abc.KernelIS(context.Background(), problem,
		abc.KernelISConfig{Simulations: sims, Stages: 4, Mean: []float64{obs[0], 0.5}, Cov: []float64{1, 0, 0, 0.1}, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "released mean %.3f and histogram %v (ε = 0.5 each)\n%v", obs[0], hist.Counts, res.Draws.Summary())
	return res.Draws, []float64{obs[0], obs[1], obs[2], mean.Scale, hist.Scale}, nil
}
