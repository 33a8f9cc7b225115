package linreg_test

import (
	"fmt"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// The SBI paper's linear regression release at ε = 10: the model's mean
// statistic over n = 100 records composed with the Laplace mechanism of
// ℓ1 sensitivity 13/100, ready for simulation-based inference against the
// paper's observed release.
func Example() {
	model := linreg.Paper()
	stat, err := simulate.NewMeanStat(model, linreg.PaperN)
	if err != nil {
		panic(err)
	}
	sens, err := linreg.Sensitivity(model.P(), linreg.PaperN)
	if err != nil {
		panic(err)
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: 10, Dim: stat.StatDim()})
	if err != nil {
		panic(err)
	}
	sim, err := simulate.Private(stat, lap)
	if err != nil {
		panic(err)
	}
	sdp, err := linreg.Release(10)
	if err != nil {
		panic(err)
	}
	prior, err := linreg.Prior(model.P())
	if err != nil {
		panic(err)
	}
	fmt.Println("θ dimension:", prior.Dim(), "release length:", sim.StatDim(), len(sdp))
	fmt.Printf("sensitivity: %.2f\n", sens)
	// Output:
	// θ dimension: 3 release length: 9 9
	// sensitivity: 0.13
}
