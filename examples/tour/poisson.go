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
	opt := sbi.DefaultOptions()
	opt.Rounds, opt.SimsPerRound, opt.InnerPoints, opt.Atoms, opt.Seed = 3, 1000, 4, 5, seed
	arch := flow.DefaultConfig(1, 1) // a small flow is enough for one parameter
	arch.Layers, arch.Hidden, arch.Blocks = 3, 16, 1
	opt.Flow = &arch
	opt.Train.MaxEpochs = 40
	if quick {
		opt.Rounds, opt.Train.MaxEpochs = 2, 20
	}
	post, _, err := sbi.SPPE(context.Background(), sbi.Problem{Prior: lambda, Simulator: sim, Mechanism: lap, Observed: sdp}, opt)
	if err != nil {
		return nil, nil, 0, err
	}
	theta := make([]float64, 2000)
	if err := post.Sample(rand.New(rand.NewPCG(seed, 2)), len(theta), theta); err != nil {
		return nil, nil, 0, err
	}
	sppe = &privinfer.Draws{Names: []string{"lambda"}, Dim: 1, Theta: theta}
	fmt.Fprintf(w, "released mean %.2f (ε = 1)\nSMC-ABC (final tolerance %.3f):\n%vSPPE:\n%v", sdp[0], res.Final().Tolerance, smc.Summary(), sppe.Summary())
	return smc, sppe, sdp[0], nil
}
