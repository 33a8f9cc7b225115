package sbi_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// Example_amortized trains an amortized posterior (one round of prior
// simulations) without any observation, saves and reloads it, and
// conditions it on two releases at sample time; the draws keep the
// parameter names.
func Example_amortized() {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	mech, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.5, Epsilon: 1, Dim: 1})
	p := privinfer.Problem{Prior: prior, Simulator: locationSim{}, Mechanism: mech, Names: []string{"mu"}} // no Observed

	fc := flow.DefaultConfig(1, 1)
	fc.Layers, fc.Hidden, fc.Blocks, fc.ContextGating = 2, 16, 1, false
	tc := flow.DefaultTrainConfig()
	tc.BatchSize, tc.MaxEpochs, tc.LearningRate = 50, 20, 3e-3
	cfg := sbi.Config{Rounds: 1, SimsPerRound: 1000, InnerPoints: 8, Flow: &fc, Train: &tc, Seed: 1}

	res, err := sbi.SPPE(context.Background(), p, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	var file bytes.Buffer
	if err := res.Posterior.Save(&file); err != nil {
		fmt.Println(err)
		return
	}
	post, err := sbi.LoadPosterior(&file, prior)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, sdp := range []float64{1.2, -0.5} {
		at, err := post.At([]float64{sdp})
		if err != nil {
			fmt.Println(err)
			return
		}
		d, err := at.Draws(context.Background(), 2000, 7)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("s_dp = %4.1f: posterior mean of %s ≈ %.1f\n", sdp, d.Names[0], d.Mean()[0])
	}
	// Output:
	// s_dp =  1.2: posterior mean of mu ≈ 0.8
	// s_dp = -0.5: posterior mean of mu ≈ -0.2
}
