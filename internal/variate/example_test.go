package variate_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/variate"
)

// Draw from several distributions with one seeded generator and evaluate log
// densities. Draws depend on the seed; the summaries printed here are stable.
func Example() {
	r := rand.New(rand.NewPCG(1, 2))

	// A binomial with a billion trials is exact and O(1) per draw.
	const n = 1_000_000_000
	sum := 0.0
	for i := 0; i < 1000; i++ {
		sum += float64(variate.Binomial(r, n, 0.5))
	}
	fmt.Printf("mean of 1000 Binomial(1e9, 0.5) draws within 3 sd of 5e8: %v\n",
		math.Abs(sum/1000-5e8) < 3*math.Sqrt(n*0.25/1000))

	// A normal truncated 10 sd out never leaves its interval.
	x := variate.TruncNormal(r, 0, 1, 10, math.Inf(1))
	fmt.Printf("TruncNormal(0, 1, [10, Inf)) in [10, 11): %v\n", x >= 10 && x < 11)

	// Gamma with a tiny shape: work with the log of the draw.
	lg := variate.GammaLog(r, 1e-3)
	fmt.Printf("GammaLog(1e-3) finite: %v\n", !math.IsInf(lg, 0) && !math.IsNaN(lg))

	// Invalid parameters are reported, never a panic.
	fmt.Println(variate.Binomial(r, -1, 0.5), variate.Gamma(r, -1, 1))

	// Log masses are accurate for huge counts.
	fmt.Printf("log P(X = 5e8) for Binomial(1e9, 0.5): %.6f\n", variate.BinomialLogPmf(n/2, n, 0.5))
	// Output:
	// mean of 1000 Binomial(1e9, 0.5) draws within 3 sd of 5e8: true
	// TruncNormal(0, 1, [10, Inf)) in [10, 11): true
	// GammaLog(1e-3) finite: true
	// -1 NaN
	// log P(X = 5e8) for Binomial(1e9, 0.5): -10.587424
}

func ExampleAlias() {
	a, err := variate.NewAlias([]float64{1, 0, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := rand.New(rand.NewPCG(3, 4))
	counts := make([]int, a.Len())
	for i := 0; i < 100000; i++ {
		counts[a.Sample(r)]++
	}
	fmt.Printf("P(2) ≈ %.2f, category 1 drawn %d times, log P(2) = %.4f\n",
		float64(counts[2])/100000, counts[1], a.LogPmf(2))
	_, err = variate.NewAlias([]float64{1, -1})
	fmt.Println(err)
	// Output:
	// P(2) ≈ 0.75, category 1 drawn 0 times, log P(2) = -0.2877
	// variate: alias: variate: invalid weights: entry 1 must be finite and >= 0, got -1
}

func ExampleMultinomial() {
	r := rand.New(rand.NewPCG(5, 6))
	dst := make([]int64, 3)
	if err := variate.Multinomial(r, 1_000_000, []float64{2, 0, 6}, dst); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("total:", dst[0]+dst[1]+dst[2], "empty category:", dst[1])
	fmt.Println(variate.Multinomial(r, -5, []float64{1, 1}, dst[:2]))
	// Output:
	// total: 1000000 empty category: 0
	// variate: multinomial: n must be >= 0, got -5: variate: invalid argument
}
