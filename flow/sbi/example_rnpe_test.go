//go:build !race

// Not in the race-detector build, where training RNPE takes minutes and
// pushes the package past go test's 10-minute limit
// (go test -race -short ./...).

package sbi_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/simulate"
)

// twice measures θ twice with unit noise: s = (θ + e₁, θ + e₂).
type twice struct{}

func (twice) StatDim() int { return 2 }

func (twice) Simulate(r *rand.Rand, theta, dst []float64) error {
	dst[0] = theta[0] + 0.2*r.NormFloat64()
	dst[1] = theta[0] + 0.2*r.NormFloat64()
	return nil
}

// RNPE on a release whose second coordinate no θ can produce: it flags
// that coordinate and infers θ from the first, where plain NPE is pulled
// far out.
func ExampleRNPE() {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	p := privinfer.Problem{Prior: prior, Simulator: twice{}, Observed: []float64{0.5, 8}, Names: []string{"theta"}}
	small := flow.DefaultConfig(1, 2)
	small.Layers, small.Hidden, small.Blocks = 2, 16, 1
	marg := flow.DefaultConfig(2, 0)
	marg.Layers, marg.Hidden, marg.Blocks = 3, 16, 1
	train := sbi.DefaultTrain()
	train.MaxEpochs, train.LearningRate = 40, 2e-3
	res, err := sbi.RNPE(context.Background(), p, sbi.RNPEConfig{
		NPE:          sbi.Config{SimsPerRound: 1000, Flow: &small, Train: &train},
		MarginalFlow: &marg, MarginalTrain: &train, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("second summary misspecified: %v\n", res.Misspecified[1] > 0.9)
	fmt.Printf("RNPE posterior mean within 0.3 of 0.5: %v\n", abs(res.Draws.Mean()[0]-0.5) < 0.3)
	fmt.Printf("plain NPE posterior mean above 2: %v\n", res.NPEDraws.Mean()[0] > 2)
	// Output:
	// second summary misspecified: true
	// RNPE posterior mean within 0.3 of 0.5: true
	// plain NPE posterior mean above 2: true
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
