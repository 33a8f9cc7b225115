//go:build !race

package sbi_test

// The example in this file trains three SPPE runs; it is left out of the
// race-detector build, where it takes tens of seconds
// (go test -race -short ./...).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// ExampleConfig_checkpoint stops a three-round SPPE run after its first
// round, as a killed process would, and runs it again with the same
// checkpoint file: the second run continues from round 2 and returns the
// draws the uninterrupted run returns.
func ExampleConfig_checkpoint() {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	mech, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.5, Epsilon: 1, Dim: 1})
	p := privinfer.Problem{Prior: prior, Simulator: locationSim{}, Mechanism: mech, Observed: []float64{1.2}, Names: []string{"mu"}}
	fc := flow.DefaultConfig(1, 1)
	fc.Layers, fc.Hidden, fc.Blocks, fc.ContextGating = 2, 16, 1, false
	tc := flow.DefaultTrainConfig()
	tc.BatchSize, tc.MaxEpochs, tc.LearningRate = 50, 12, 3e-3
	cfg := sbi.Config{Rounds: 3, SimsPerRound: 200, InnerPoints: 8, Atoms: 5, PosteriorSamples: 500,
		Flow: &fc, Train: &tc, Seed: 1}

	whole, err := sbi.SPPE(context.Background(), p, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}

	dir, err := os.MkdirTemp("", "sbi-checkpoint")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	cfg.Checkpoint = filepath.Join(dir, "run.ckpt")
	ctx, stop := context.WithCancel(context.Background())
	cfg.OnRound = func(round int, _ sbi.Estimate, _ *privinfer.Draws) {
		if round == 1 {
			stop() // the process dies after round 1
		}
	}
	_, err = sbi.SPPE(ctx, p, cfg)
	fmt.Println("first run:", err)

	cfg.OnRound = nil
	cfg.Progress = func(ev privinfer.Progress) {
		if ev.Stage == "resume" {
			fmt.Println("second run: continuing after round", ev.Round)
		}
	}
	res, err := sbi.SPPE(context.Background(), p, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("rounds:", len(res.Rounds), "simulations:", res.Simulations)
	fmt.Println("same draws as the uninterrupted run:", slices.Equal(res.Draws.Theta, whole.Draws.Theta))
	// Output:
	// first run: context canceled
	// second run: continuing after round 1
	// rounds: 3 simulations: 600
	// same draws as the uninterrupted run: true
}
