package sbi_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// locationSim simulates the mean of four N(θ, 1) observations.
type locationSim struct{}

func (locationSim) StatDim() int { return 1 }
func (locationSim) Simulate(r *rand.Rand, theta, dst []float64) error {
	dst[0] = theta[0] + 0.5*r.NormFloat64()
	return nil
}

// Example runs SPPE on a location model whose mean was released with Laplace
// noise, with a small flow and few simulations.
func Example() {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	mech, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.5, Epsilon: 1, Dim: 1})
	p := privinfer.Problem{Prior: prior, Simulator: locationSim{}, Mechanism: mech, Observed: []float64{1.2}, Names: []string{"mu"}}

	fc := flow.DefaultConfig(1, 1)
	fc.Layers, fc.Hidden, fc.Blocks, fc.ContextGating = 2, 16, 1, false
	tc := flow.DefaultTrainConfig()
	tc.BatchSize, tc.MaxEpochs, tc.LearningRate = 50, 12, 3e-3
	cfg := sbi.Config{Rounds: 2, SimsPerRound: 200, InnerPoints: 8, Atoms: 5, PosteriorSamples: 2000,
		Flow: &fc, Train: &tc, Seed: 1}

	res, err := sbi.SPPE(context.Background(), p, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("simulations: %d, rounds: %d\n", res.Simulations, len(res.Rounds))
	fmt.Printf("posterior mean of %s ≈ %.1f (exact 0.73)\n", res.Draws.ParamNames()[0], res.Draws.Mean()[0])
	// Output:
	// simulations: 400, rounds: 2
	// posterior mean of mu ≈ 0.7 (exact 0.73)
}

// ExampleConfig_DefaultFlow shows which flow a Config resolves to when its
// Flow is nil, and how to start from it: here an amortized posterior flow
// for θ in two dimensions and an eight-dimensional release, without the
// context-dependent affine layer that one-round runs get by default.
func ExampleConfig_DefaultFlow() {
	amortized := sbi.Config{Rounds: 1}
	fc := amortized.DefaultFlow(sbi.PosteriorFlow, 2, 8)
	fmt.Println("amortized posterior flow:", fc.Layers, "layers, affine layer", fc.ContextAffine)

	sequential := sbi.Config{Rounds: 10}
	fmt.Println("sequential posterior flow: affine layer", sequential.DefaultFlow(sbi.PosteriorFlow, 2, 8).ContextAffine)
	fmt.Println("likelihood flow: affine layer", sequential.DefaultFlow(sbi.LikelihoodFlow, 8, 2).ContextAffine)

	fc.ContextAffine = false
	amortized.Flow = &fc // SPPE(ctx, problem, amortized) now trains the flow without it
	// Output:
	// amortized posterior flow: 5 layers, affine layer true
	// sequential posterior flow: affine layer false
	// likelihood flow: affine layer true
}
