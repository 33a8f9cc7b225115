package conjugate_test

import (
	"context"
	"fmt"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/conjugate"
)

// The noise-aware posterior of category probabilities from a Laplace
// release of the category frequencies of n = 50 records: the model is the
// prior, the record model of the Problem's simulator and the exact
// θ-step of data augmentation.
func Example() {
	const n = 50
	m, _ := conjugate.NewCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: []float64{1, 1, 1}})
	stat, _ := simulate.NewMeanStat(m, n)
	sens, _ := m.L1Sensitivity(n) // 2/n: one replaced record moves two frequencies by 1/n
	lap, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: 2, Dim: 3})
	p := privinfer.Problem{
		Prior: m, Simulator: stat, Mechanism: lap,
		Observed: []float64{0.52, 0.31, 0.18}, // the released frequencies
		Names:    []string{"p0", "p1", "p2"},
	}
	res, err := mcmc.RunDA(context.Background(), p, mcmc.DAConfig{ThetaStep: m, Chains: 2, Warmup: 200, Draws: 1000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	mean := res.Draws.Mean()
	fmt.Printf("posterior means %.2f %.2f %.2f\n", mean[0], mean[1], mean[2])
	// Output:
	// posterior means 0.51 0.31 0.19
}

// The exact θ-step on its own: with the records known (no privacy
// noise), SampleTheta draws (μ, σ²) from the normal-inverse-gamma
// posterior.
func ExampleNormalNIG_SampleTheta() {
	m, _ := conjugate.NewNormalNIG(conjugate.NormalNIGConfig{M0: 0, K0: 1, A0: 2, B0: 2, Lo: -5, Hi: 5})
	x := []float64{1.2, 0.7, 1.9, 1.4, 0.8, 1.1}
	r := newExampleRand()
	theta := make([]float64, 2)
	sum := 0.0
	const draws = 20000
	for range draws {
		if err := m.SampleTheta(r, x, len(x), theta); err != nil {
			fmt.Println(err)
			return
		}
		sum += theta[0]
	}
	// The posterior mean of μ is (K0·M0 + n·x̄)/(K0 + n) = 7.1/7 ≈ 1.014.
	fmt.Printf("E[μ | x] ≈ %.2f\n", sum/draws)
	// Output:
	// E[μ | x] ≈ 1.01
}

// The normal-inverse-gamma update from sufficient statistics: the prior
// N(μ | 0, σ²/1)·InvGamma(σ² | 2, 2) and n = 6 records with mean 1.2 and
// sum of squared deviations 0.9 give K = 7, M = 6·1.2/7, A = 2 + 3 and
// B = 2 + 0.45 + 1·6·1.2²/(2·7).
func ExampleNIG_Update() {
	post, err := conjugate.NIG{M: 0, K: 1, A: 2, B: 2}.Update(6, 1.2, 0.9)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("M = %.4f, K = %g, A = %g, B = %.4f\n", post.M, post.K, post.A, post.B)
	// Output:
	// M = 1.0286, K = 7, A = 5, B = 3.0671
}
