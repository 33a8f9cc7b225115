package gibbsss_test

import (
	"context"
	"fmt"

	"github.com/privinfer/privinfer/mcmc/gibbsss"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// Gibbs-SS on the SBI paper's linear-regression release at ε = 10: n = 100
// records, the nine statistics of records clamped to [−10, 10] and divided
// by 10, Laplace noise of scale (13/100)/10, σ² = 2 known, β ~ N(0, I) and
// the predictors' law N((0.9, −1.17), I) known, as in the paper.
func Example() {
	sdp, err := linreg.Release(10)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := gibbsss.Run(context.Background(), gibbsss.Config{
		P: 2, N: linreg.PaperN, Observed: sdp, LaplaceScale: 0.13 / 10, Scale: 10,
		Sigma2: 2, PredictorMean: []float64{0.9, -1.17},
		Chains: 4, Warmup: 1000, Draws: 2000, Thin: 5, Seed: 1})
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
