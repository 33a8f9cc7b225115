package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// visits is a user's own simulator: n people's visit counts x_i ~ Poisson(λ),
// capped at 30, summarised by their mean.
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

// poisson infers λ from a Laplace-privatized mean of n = 50 visit counts
// (ε = 1, sensitivity 30/50) under a Gamma(2, 2) prior, by SMC-ABC and by
// SPPE; obs is the release.
func poisson(w io.Writer, seed uint64, quick bool) (smc, sppe *privinfer.Draws, obs float64, err error) {
	sim := visits{n: 50}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 30.0 / 50, Epsilon: 1, Dim: 1})
	if err != nil {
		return nil, nil, 0, err
	}
	sdp := []float64{4.1} // the released mean
	prior, err := simulate.NewGamma(simulate.GammaConfig{Shape: 2, Scale: 2})
	if err != nil {
		return nil, nil, 0, err
	}
	lambda, _ := simulate.NewIndependent(prior)
	problem := privinfer.Problem{Prior: lambda, Simulator: sim, Mechanism: lap, Observed: sdp, Names: []string{"lambda"}}
	res, err := abc.SMC(context.Background(), problem,
		abc.SMCConfig{Distance: abc.Euclidean{}, Particles: 1000, Schedule: abc.Adaptive{Initial: 5, Quantile: 0.5, Rounds: 10}, Seed: seed})
	if err != nil {
		return nil, nil, 0, err
	}
	smc = res.Draws
	arch := flow.DefaultConfig(1, 1) // a small flow is enough for one parameter
	arch.Layers, arch.Hidden, arch.Blocks = 3, 16, 1
	train := flow.DefaultTrainConfig()
	train.MaxEpochs = 40
	cfg := sbi.Config{Rounds: 3, SimsPerRound: 1000, InnerPoints: 4, Atoms: 5, PosteriorSamples: 2000, Flow: &arch, Train: &train, Seed: seed}
	if quick {
		cfg.Rounds, train.MaxEpochs = 2, 20
	}
	post, err := sbi.SPPE(context.Background(), problem, cfg)
	if err != nil {
		return nil, nil, 0, err
	}
	sppe = post.Draws
	fmt.Fprintf(w, "released mean %.2f (ε = 1)\nSMC-ABC (final tolerance %.3f):\n%vSPPE:\n%v", sdp[0], res.Final().Tolerance, smc.Summary(), sppe.Summary())
	return smc, sppe, sdp[0], nil
}
