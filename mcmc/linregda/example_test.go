package linregda_test

import (
	"context"
	"fmt"

	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/linregda"
)

// ExampleSBIPaper samples the SBI paper's linear-regression posterior
// given the ε = 10 release with SOMA (the paper's Table 2 has β1 ≈ −2.7
// with 95% interval (−3.7, −1.0)).
func ExampleSBIPaper() {
	p, theta, err := linregda.SBIPaper(10)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := mcmc.RunDA(context.Background(), p, mcmc.DAConfig{
		ThetaStep: theta, RecordStep: mcmc.SOMA, Chains: 2, Warmup: 300, Draws: 1000, Seed: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := res.Draws
	fmt.Println(d.ParamNames(), d.Chains, "chains of", d.Len()/d.Chains, "draws")
	fmt.Println("β1 negative with 95% posterior probability:", d.Quantile(1, 0.95) < 0)
	// Output:
	// [beta0 beta1 beta2] 2 chains of 1000 draws
	// β1 negative with 95% posterior probability: true
}
