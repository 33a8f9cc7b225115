package main

import (
	"context"
	"math/rand/v2"

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
func runSPPE(ctx context.Context, m *naivebayes.Model, prior simulate.Prior, mech *mechanism.Laplace, obs []float64, cfg sppeConfig, progress func(sbi.Progress)) ([][]float64, *sbi.Result, error) {
	p := sbi.Problem{
		Prior:     alrPrior{m: m, prior: prior},
		Simulator: alrSim{m: m, sim: m},
		Mechanism: mech,
		Observed:  obs,
	}
	o := sbi.DefaultOptions()
	o.Rounds, o.SimsPerRound, o.InnerPoints, o.Atoms = cfg.Rounds, cfg.Sims, cfg.Inner, cfg.Atoms
	fc := flow.DefaultConfig(m.UnconstrainedDim(), m.StatDim())
	fc.Layers, fc.Hidden, fc.Blocks = cfg.Layers, cfg.Hidden, cfg.Blocks
	o.Flow = &fc
	o.Train.MaxEpochs, o.Train.Patience = cfg.Epochs, cfg.Patience
	o.Seed = cfg.Seed
	o.Progress = progress
	o.LeakageFallback = true
	post, res, err := sbi.SPPE(ctx, p, o)
	if err != nil {
		return nil, res, err
	}
	d := m.UnconstrainedDim()
	phis := make([]float64, cfg.Draws*d)
	r := rand.New(rand.NewPCG(cfg.Seed, 0x73707065))
	if err := post.Sample(r, cfg.Draws, phis); err != nil {
		return nil, res, err
	}
	rows := make([][]float64, cfg.Draws)
	for i := range rows {
		rows[i] = make([]float64, m.ParamDim())
		m.FromUnconstrained(phis[i*d:(i+1)*d], rows[i])
	}
	return rows, res, nil
}
