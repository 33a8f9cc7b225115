package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	"github.com/privinfer/privinfer/simulate"
)

// survey simulates the curator's statistics of n records (x_i, c_i),
// x_i ~ N(μ, 1) clamped to [lo, hi] and c_i ~ Bernoulli(p), θ = (μ, p):
// the clamped mean of x and the histogram (count of c = 0, count of c = 1).
type survey struct {
	n      int
	lo, hi float64
}

func (s survey) StatDim() int { return 3 }

func (s survey) Simulate(r *rand.Rand, theta, dst []float64) error {
	if theta[1] < 0 || theta[1] > 1 {
		return fmt.Errorf("p = %v outside [0, 1]", theta[1])
	}
	dst[0], dst[1], dst[2] = 0, 0, 0
	for range s.n {
		dst[0] += min(max(theta[0]+r.NormFloat64(), s.lo), s.hi) / float64(s.n)
		if r.Float64() < theta[1] {
			dst[2]++
		} else {
			dst[1]++
		}
	}
	return nil
}

// histMean releases a DP mean and a DP histogram through the curator's
// aggregations and recovers the noise-aware posterior of (μ, p) by
// exact-kernel importance sampling. The analyst models each release's
// discrete Laplace noise by the Laplace law of the same scale.
func histMean(w io.Writer, seed uint64, quick bool) (*privinfer.Draws, []float64, error) {
	r := rand.New(rand.NewPCG(seed, 1))
	data := survey{n: 200, lo: -2, hi: 4}
	x, c := make([]float64, data.n), make([]int, data.n) // confidential
	for i := range x {
		x[i] = 1.2 + r.NormFloat64()
		if r.Float64() < 0.3 {
			c[i] = 1
		}
	}
	cfg := aggregate.Config{Epsilon: 0.5, Neighbour: aggregate.Substitute, Lo: data.lo, Hi: data.hi, Reproducible: true}
	mean, err := aggregate.BoundedMean(r, x, cfg)
	if err != nil {
		return nil, nil, err
	}
	hist, err := aggregate.Histogram(r, c, 2, cfg)
	if err != nil {
		return nil, nil, err
	}
	obs := []float64{mean.Value, hist.Counts[0], hist.Counts[1]}
	noise, err := mechanism.NewLaplaceScales([]float64{mean.Scale, hist.Scale, hist.Scale}, mechanism.Sequential(mean.Budget, hist.Budget))
	if err != nil {
		return nil, nil, err
	}
	muPrior, _ := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 10})
	pPrior, _ := simulate.NewUniform(simulate.UniformConfig{Lo: 0, Hi: 1})
	prior, _ := simulate.NewIndependent(muPrior, pPrior)
	sims := 4000
	if quick {
		sims = 2000
	}
	problem := privinfer.Problem{Prior: prior, Simulator: data, Mechanism: noise, Observed: obs, Names: []string{"mu", "p"}}
	res, err := abc.KernelIS(context.Background(), problem,
		abc.KernelISConfig{Simulations: sims, Stages: 4, Mean: []float64{obs[0], 0.5}, Cov: []float64{1, 0, 0, 0.1}, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	post := res.Draws
	fmt.Fprintf(w, "released mean %.3f and histogram %v (ε = 0.5 each)\n%v", obs[0], hist.Counts, post.Summary())
	return post, []float64{obs[0], obs[1], obs[2], mean.Scale, hist.Scale}, nil
}
