package main

import (
	"context"
	"fmt"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/naivebayes"
)

// neuralConfig configures an SPPE or SPLE run (sequential private
// posterior or likelihood estimation, SBI paper Algorithms 1 and 2).
type neuralConfig struct {
	Rounds, Sims, Inner, Atoms int
	Layers, Hidden, Blocks     int
	Epochs, Patience           int
	Draws                      int
	Seed                       uint64
	// Float32 trains with float32 products and splines
	// (flow.TrainConfig.Float32).
	Float32 bool
	// Checkpoints is the -checkpoints folder: every run keeps its state
	// there after each round (sbi.Config.Checkpoint); empty keeps none.
	Checkpoints string
}

// key describes every setting that changes the run, for cache keys.
// Float64 training keeps the key it had before Float32 existed.
func (c neuralConfig) key() string {
	k := fmt.Sprintf("rounds=%d sims=%d M=%d atoms=%d layers=%d hidden=%d blocks=%d epochs=%d patience=%d draws=%d seed=%d",
		c.Rounds, c.Sims, c.Inner, c.Atoms, c.Layers, c.Hidden, c.Blocks, c.Epochs, c.Patience, c.Draws, c.Seed)
	if c.Float32 {
		k += " float32"
	}
	return k
}

// The two neural methods.
const (
	methSPPE = "SPPE"
	methSPLE = "SPLE"
)

// alrProblem is the naive Bayes problem on the additive-log-ratio
// coordinates φ of θ.
func alrProblem(m *naivebayes.Model, prior simulate.Prior, mech *mechanism.Laplace, obs []float64) privinfer.Problem {
	return privinfer.Problem{
		Prior:     alrPrior{m: m, prior: prior},
		Simulator: alrSim{m: m, sim: m},
		Mechanism: mech,
		Observed:  obs,
	}
}

// runNeural runs SPPE (meth = methSPPE: a conditional flow q(φ | s_dp)) or
// SPLE (methSPLE: a conditional flow q(s_dp | φ), sampled by MCMC) on the
// log-ratio coordinates φ of θ and returns the final draws of φ and the run's
// record. The loss integrates over the Laplace noise with RQMC inner points,
// so every confidential simulation serves Inner releases. onRound, if not
// nil, receives every round's estimate and draws of φ.
func runNeural(ctx context.Context, meth string, p privinfer.Problem, cfg neuralConfig, progress privinfer.ProgressFunc, onRound func(round int, est sbi.Estimate, phi *privinfer.Draws)) (*privinfer.Draws, *sbi.Result, error) {
	fc := flow.DefaultConfig(p.Prior.Dim(), p.Simulator.StatDim())
	if meth == methSPLE {
		fc = flow.DefaultConfig(p.Simulator.StatDim(), p.Prior.Dim())
	}
	fc.Layers, fc.Hidden, fc.Blocks = cfg.Layers, cfg.Hidden, cfg.Blocks
	tc := flow.DefaultTrainConfig()
	tc.MaxEpochs, tc.Patience, tc.Float32 = cfg.Epochs, cfg.Patience, cfg.Float32
	sc := sbi.Config{Rounds: cfg.Rounds, SimsPerRound: cfg.Sims, InnerPoints: cfg.Inner, Atoms: cfg.Atoms,
		Flow: &fc, Train: &tc, PosteriorSamples: cfg.Draws, LeakageFallback: true, Progress: progress, Seed: cfg.Seed, OnRound: onRound,
		RegressionShift: sbi.ShiftOff, // the SBI paper's z-scoring
		Checkpoint:      cli.CheckpointFile(cfg.Checkpoints, meth, cfg.key(), p.Observed)}
	if meth == methSPLE {
		res, err := sbi.SPLE(ctx, p, sc)
		if err != nil {
			return nil, nil, err
		}
		return res.Draws, &res.Result, nil
	}
	res, err := sbi.SPPE(ctx, p, sc)
	if err != nil {
		return nil, nil, err
	}
	return res.Draws, &res.Result, nil
}
