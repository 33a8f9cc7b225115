package main

import (
	"context"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/naivebayes"
)

// sppeConfig configures the SPPE run (sequential private posterior
// estimation, SBI paper Algorithm 1).
type sppeConfig struct {
	Rounds, Sims, Inner, Atoms int
	Layers, Hidden, Blocks     int
	Epochs, Patience           int
	Draws                      int
	Seed                       uint64
}

// runSPPE trains SPPE's conditional flow q(φ | s_dp) on the log-ratio
// coordinates φ of θ and returns draws of θ. The loss integrates over the
// Laplace noise with RQMC inner points, so every confidential simulation
// serves Inner releases.
func runSPPE(ctx context.Context, m *naivebayes.Model, prior simulate.Prior, mech *mechanism.Laplace, obs []float64, cfg sppeConfig, progress privinfer.ProgressFunc) (*privinfer.Draws, *sbi.SPPEResult, error) {
	p := privinfer.Problem{
		Prior:     alrPrior{m: m, prior: prior},
		Simulator: alrSim{m: m, sim: m},
		Mechanism: mech,
		Observed:  obs,
	}
	fc := flow.DefaultConfig(m.UnconstrainedDim(), m.StatDim())
	fc.Layers, fc.Hidden, fc.Blocks = cfg.Layers, cfg.Hidden, cfg.Blocks
	tc := flow.DefaultTrainConfig()
	tc.MaxEpochs, tc.Patience = cfg.Epochs, cfg.Patience
	res, err := sbi.SPPE(ctx, p, sbi.Config{Rounds: cfg.Rounds, SimsPerRound: cfg.Sims, InnerPoints: cfg.Inner, Atoms: cfg.Atoms,
		Flow: &fc, Train: &tc, PosteriorSamples: cfg.Draws, LeakageFallback: true, Progress: progress, Seed: cfg.Seed})
	if err != nil {
		return nil, res, err
	}
	return toTheta(m, res.Draws), res, nil
}
