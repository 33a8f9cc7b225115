package clipped_test

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/simulate/clipped"
)

// The LDP paper's clipped Gaussian puts the mass beyond the bounds at the
// bounds: with μ at the centre of [−1, 1] and σ = 1, each bound carries
// Φ(−1) ≈ 0.1587.
func Example() {
	m, err := clipped.NewGaussian(clipped.GaussianConfig{A: -1, B: 1})
	if err != nil {
		panic(err)
	}
	theta := []float64{0, 1}
	fmt.Printf("P(x = a) = %.4f, P(x = b) = %.4f\n",
		math.Exp(m.RecordLogLik(theta, []float64{-1})), math.Exp(m.RecordLogLik(theta, []float64{1})))
	// Output: P(x = a) = 0.1587, P(x = b) = 0.1587
}
