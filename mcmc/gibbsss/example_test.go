package gibbsss_test

import (
	"context"
	"fmt"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mcmc/gibbsss"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// Gibbs-SS on the SBI paper's linear-regression release at ε = 10: n = 100
// records of linreg.Paper (σ² = 2 known, predictors N((0.9, −1.17), I)
// known, records clamped to [−10, 10] and divided by 10), their nine
// statistics released with the Laplace mechanism of ℓ1 sensitivity 13/100,
// and β ~ N(0, I), as in the paper.
func Example() {
	model := linreg.Paper()
	stat, err := simulate.NewMeanStat(model, linreg.PaperN)
	if err != nil {
		fmt.Println(err)
		return
	}
	sens, err := linreg.Sensitivity(model.P(), linreg.PaperN)
	if err != nil {
		fmt.Println(err)
		return
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: 10, Dim: stat.StatDim()})
	if err != nil {
		fmt.Println(err)
		return
	}
	prior, err := linreg.Prior(model.P())
	if err != nil {
		fmt.Println(err)
		return
	}
	sdp, err := linreg.Release(10)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := privinfer.Problem{Prior: prior, Simulator: stat, Mechanism: lap, Observed: sdp}
	res, err := gibbsss.Run(context.Background(), p, gibbsss.Config{Chains: 4, Warmup: 1000, Draws: 2000, Thin: 5, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := res.Draws
	fmt.Println(d.ParamNames(), d.Chains, "chains of", d.Len()/d.Chains, "draws")
	fmt.Println("β1 negative with 95% posterior probability:", d.Quantile(1, 0.95) < 0)
	// Output:
	// [beta0 beta1 beta2] 4 chains of 2000 draws
	// β1 negative with 95% posterior probability: true
}
