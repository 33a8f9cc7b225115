package main

import (
	"context"
	"fmt"
	"io"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// da samples the posterior of the SBI paper's linear-regression
// coefficients β from its Laplace release at ε = 1 by data-augmentation
// MCMC, once with each record kernel (SOMA and IMwG).
func da(w io.Writer, seed uint64, quick bool) (draws, error) {
	model := linreg.Paper()
	records, err := simulate.NewMeanStat(model, linreg.PaperN) // n = 100 records, mean statistics
	if err != nil {
		return nil, err
	}
	sens, err := linreg.Sensitivity(model.P(), linreg.PaperN)
	if err != nil {
		return nil, err
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: 1, Dim: model.ContribDim()})
	if err != nil {
		return nil, err
	}
	prior, _ := linreg.Prior(2) // β ~ N(0, I)
	sdp, err := linreg.Release(1)
	if err != nil {
		return nil, err
	}
	problem := privinfer.Problem{Prior: prior, Simulator: records, Mechanism: lap, Observed: sdp, Names: []string{"beta0", "beta1", "beta2"}}
	step, err := linreg.NewConjugate(linreg.ConjugateConfig{P: 2, Sigma2: 2, PriorMean: []float64{0, 0, 0}, PriorVar: []float64{1, 1, 1}}) // exact θ-step, σ² = 2
	if err != nil {
		return nil, err
	}
	cfg := mcmc.DAConfig{ThetaStep: step, Chains: 4, Warmup: 500, Draws: 1000, Thin: 2, Seed: seed,
		Init: [][]float64{{1, 1, 1}, {-1, -1, -1}, {1, -1, 1}, {-1, 1, -1}}}
	if quick {
		cfg.Draws = 500
	}
	out := draws{}
	for _, k := range []mcmc.RecordStep{mcmc.SOMA, mcmc.RandomScanIMwG} {
		cfg.RecordStep = k
		res, err := mcmc.RunDA(context.Background(), problem, cfg)
		if err != nil {
			return nil, err
		}
		out[k.String()] = res.Draws
		fmt.Fprintf(w, "%v (acceptance %.2f):\n%v", k, res.AcceptRate(), res.Draws.Summary())
	}
	return out, nil
}
