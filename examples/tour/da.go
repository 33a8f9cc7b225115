package main

import (
	"context"
	"fmt"
	"io"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// da samples the posterior of the SBI paper's linear-regression
// coefficients β from its Laplace release at ε = 1 by data-augmentation
// MCMC, once with each record kernel (SOMA and IMwG).
func da(w io.Writer, seed uint64, quick bool) (map[string]*privinfer.Draws, error) {
	model := linreg.Paper()
	sens, err := mechanism.LinRegSensitivity(model.P(), linreg.PaperN)
	if err != nil {
		return nil, err
	}
	lap, err := mechanism.NewLaplace(sens, 1, model.ContribDim())
	if err != nil {
		return nil, err
	}
	sdp, err := linreg.Release(1)
	if err != nil {
		return nil, err
	}
	step, err := mcmc.NewLinRegConjugate(2, 2, []float64{0, 0, 0}, []float64{1, 1, 1}) // β ~ N(0, I), σ² = 2
	if err != nil {
		return nil, err
	}
	cfg := mcmc.Config{Chains: 4, Warmup: 500, Draws: 1000, Thin: 2, Seed: seed,
		Init: [][]float64{{1, 1, 1}, {-1, -1, -1}, {1, -1, 1}, {-1, 1, -1}}}
	if quick {
		cfg.Draws = 500
	}
	out := map[string]*privinfer.Draws{}
	for _, k := range []mcmc.XKernel{mcmc.SOMA, mcmc.RandomScanIMwG} {
		m := &mcmc.DAModel{Records: model, Theta: step, Mech: lap, SDP: sdp, N: linreg.PaperN, Stat: mcmc.StatMean}
		res, err := mcmc.RunDA(context.Background(), m, k, cfg)
		if err != nil {
			return nil, err
		}
		d := &privinfer.Draws{Names: []string{"beta0", "beta1", "beta2"}, Dim: 3, Chains: len(res.Chains)}
		for _, ch := range res.Chains {
			d.Theta = append(d.Theta, ch.Draws...)
		}
		out[k.String()] = d
		fmt.Fprintf(w, "%v (acceptance %.2f):\n%v", k, res.AcceptRate(), d.Summary())
	}
	return out, nil
}
