package mcmc_test

import (
	"context"
	"fmt"
	"math"

	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/linregda"
)

// ExampleRun samples a standard normal with coordinatewise slice sampling
// on four parallel chains and checks convergence.
func ExampleRun() {
	target := mcmc.TargetFunc{N: 1, Fn: func(x []float64) float64 { return -0.5 * x[0] * x[0] }}
	res, err := mcmc.Run(context.Background(), target, mcmc.Slice{}, mcmc.Config{
		Chains: 4, Warmup: 200, Draws: 2000, Seed: 1,
		Init: [][]float64{{-5}, {5}, {-5}, {5}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	rhat, _ := res.Draws.RHat(0)
	fmt.Println("mean within 0.1 of 0:", math.Abs(res.Draws.Mean()[0]) < 0.1)
	fmt.Println("R-hat below 1.01:", rhat < 1.01)
	// Output:
	// mean within 0.1 of 0: true
	// R-hat below 1.01: true
}

// ExampleRunDA runs data-augmentation MCMC with the SOMA record step on
// the slides' n = 10 privatized linear regression (ε = 30), where SOMA
// accepts about 92% of proposals and IMwG about 51%. The problem carries
// the prior, the record-level simulator, the Laplace mechanism and the
// release; the DAConfig carries the exact NIG θ-step and the record step.
func ExampleRunDA() {
	p, nig, err := linregda.SlidesN10(30)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range []mcmc.RecordStep{mcmc.SOMA, mcmc.RandomScanIMwG} {
		res, err := mcmc.RunDA(context.Background(), p, mcmc.DAConfig{
			ThetaStep: nig, RecordStep: k, Chains: 4, Draws: 2000, Seed: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s acceptance ≈ %.0f%%\n", k, 100*res.AcceptRate())
	}
	// Output:
	// SOMA acceptance ≈ 92%
	// Ran-IMwG acceptance ≈ 51%
}

// ExampleRHat shows that chains stuck in different places are flagged and
// that degenerate input yields NaN with a reason.
func ExampleRHat() {
	a := []float64{0.1, -0.3, 0.2, 0.0, -0.1, 0.3, -0.2, 0.1}
	b := []float64{5.1, 4.7, 5.2, 5.0, 4.9, 5.3, 4.8, 5.1}
	r, _ := mcmc.RHat([][]float64{a, b})
	fmt.Printf("R-hat of separated chains > 1.5: %v\n", r > 1.5)
	_, err := mcmc.RHat([][]float64{{1, 1, 1, 1, 1, 1}})
	fmt.Println(err)
	// Output:
	// R-hat of separated chains > 1.5: true
	// mcmc: degenerate input for diagnostic: all draws are equal
}

// ExampleNewMetropolisTheta runs data augmentation with the generic
// Metropolis θ-step, which needs only the Problem's prior and the record
// model's log density, on the slides' n = 10 problem at ε = 30.
func ExampleNewMetropolisTheta() {
	p, _, err := linregda.SlidesN10(30)
	if err != nil {
		fmt.Println(err)
		return
	}
	theta, err := mcmc.NewMetropolisTheta(p, []float64{0.3, 0.3, 0.3, 0.3}, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := mcmc.RunDA(context.Background(), p, mcmc.DAConfig{
		ThetaStep: theta, RecordStep: mcmc.SOMA, Chains: 2, Warmup: 100, Draws: 500, Seed: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Draws.ParamNames(), res.Draws.Len(), "draws")
	fmt.Println("SOMA accepts over 85% of record proposals:", res.AcceptRate() > 0.85)
	// Output:
	// [beta0 beta1 beta2 sigma2] 1000 draws
	// SOMA accepts over 85% of record proposals: true
}
