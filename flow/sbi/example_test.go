package sbi_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/internal/stats"
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
	prior, _ := simulate.NewDiagNormal([]float64{0}, []float64{1})
	mech, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.5, Epsilon: 1, Dim: 1})
	p := sbi.Problem{Prior: prior, Simulator: locationSim{}, Mechanism: mech, Observed: []float64{1.2}}

	o := sbi.DefaultOptions()
	o.Rounds, o.SimsPerRound, o.InnerPoints, o.Atoms = 2, 200, 8, 5
	cfg := flow.DefaultConfig(1, 1)
	cfg.Layers, cfg.Hidden, cfg.Blocks, cfg.ContextGating = 2, 16, 1, false
	o.Flow = &cfg
	o.Train.BatchSize, o.Train.MaxEpochs, o.Train.LearningRate = 50, 12, 3e-3
	o.Seed = 1

	post, res, err := sbi.SPPE(context.Background(), p, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	x := make([]float64, 2000)
	if err := post.Sample(rand.New(rand.NewPCG(1, 1)), 2000, x); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("simulations: %d, rounds: %d\n", res.Simulations, len(res.Rounds))
	fmt.Printf("posterior mean ≈ %.1f (exact 0.73)\n", stats.Mean(x))
	// Output:
	// simulations: 400, rounds: 2
	// posterior mean ≈ 0.7 (exact 0.73)
}
