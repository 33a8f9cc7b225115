// DA samples the posterior of the coefficients β of the SBI paper's
// linear regression (simulate/linreg) from its Laplace release at ε = 1 by
// data-augmentation MCMC (mcmc.RunDA), which imputes the confidential
// records beside θ; once with each record kernel, SOMA and random-scan
// IMwG.
//
//	go run ./examples/da
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

func main() {
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if _, err := run(os.Stdout, *seed, 1000); err != nil {
		log.Fatal(err)
	}
}

// run returns the draws of each record kernel (draws per chain, 4 chains)
// by its name.
func run(w io.Writer, seed uint64, draws int) (map[string]*privinfer.Draws, error) {
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
	cfg := mcmc.DAConfig{ThetaStep: step, Chains: 4, Warmup: 500, Draws: draws, Thin: 2, Seed: seed,
		Init: [][]float64{{1, 1, 1}, {-1, -1, -1}, {1, -1, 1}, {-1, 1, -1}}}
	out := map[string]*privinfer.Draws{}
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
