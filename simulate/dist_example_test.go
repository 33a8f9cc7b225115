package simulate_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate"
)

// outbreak is a user's simulator written with the exported
// distributions: a Poisson number of index cases, each infecting a
// Binomial number of contacts; the summary is the total count.
type outbreak struct{ contacts int64 }

func (outbreak) StatDim() int { return 1 }

func (o outbreak) Simulate(r *rand.Rand, theta, dst []float64) error {
	index, err := simulate.NewPoisson(theta[0])
	if err != nil {
		return err
	}
	spread, err := simulate.NewBinomial(simulate.BinomialConfig{N: o.contacts, P: theta[1]})
	if err != nil {
		return err
	}
	total := index.SampleInt(r)
	for range total {
		total += spread.SampleInt(r)
	}
	dst[0] = float64(total)
	return nil
}

// Example writes a prior and a simulator with the exported distributions
// and evaluates the prior's log density at a draw.
func Example() {
	rate, _ := simulate.NewGamma(simulate.GammaConfig{Shape: 2, Scale: 1.5}) // index cases per week
	attack, _ := simulate.NewBeta(simulate.BetaConfig{Alpha: 1, Beta: 9})    // per-contact infection probability
	prior, _ := simulate.NewIndependent(rate, attack)
	r := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, prior.Dim())
	prior.Sample(r, theta)
	s := make([]float64, 1)
	if err := (outbreak{contacts: 8}).Simulate(r, theta, s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("θ = (%.3f, %.3f), log π(θ) = %.3f, cases = %v\n", theta[0], theta[1], prior.LogDensity(theta), s[0])
	// Output:
	// θ = (3.309, 0.101), log π(θ) = -0.472, cases = 11
}

// ExampleNewGamma shows that constructors refuse parameters for which
// draws would overflow.
func ExampleNewGamma() {
	g, _ := simulate.NewGamma(simulate.GammaConfig{Shape: 3, Scale: 2})
	fmt.Printf("log density at 4: %.6f, median %.6f\n", g.LogDensity(4), g.Quantile(0.5))
	_, err := simulate.NewGamma(simulate.GammaConfig{Shape: 1e308, Scale: 1})
	fmt.Println(err)
	// Output:
	// log density at 4: -2.000000, median 5.348121
	// simulate: invalid argument: GammaConfig.Shape: gamma shape must be <= 1e+20, got 1e+308
}

// ExampleNewCategorical draws category indices with probabilities
// proportional to weights.
func ExampleNewCategorical() {
	c, _ := simulate.NewCategorical([]float64{1, 0, 3})
	r := rand.New(rand.NewPCG(3, 4))
	counts := make([]int, c.Len())
	for range 4000 {
		counts[c.SampleInt(r)]++
	}
	fmt.Println(counts[1], counts[2] > 2*counts[0])
	// Output:
	// 0 true
}
