package ldp_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/ldp"
)

// Each person clips their value to [−3, 3] and adds Laplace noise at
// ε = 2 before sending it; the curator never sees the values.
func ExampleClippedLaplace() {
	m, err := ldp.NewClippedLaplace(ldp.ClippedLaplaceConfig{Lo: -3, Hi: 3, Epsilon: 2})
	if err != nil {
		panic(err)
	}
	records := []float64{0.4, 7.5, -1.2} // three persons' values
	reports := make([]float64, len(records))
	// A real release: operating-system noise, the generator is ignored.
	if err := m.Release(nil, records, reports); err != nil {
		panic(err)
	}
	fmt.Println("budget per person:", m.Budget())
	// A reproducible simulation study draws the same law from a seed.
	sim := mechanism.Reproducible(m)
	if err := sim.Release(rand.New(rand.NewPCG(1, 2)), records, reports); err != nil {
		panic(err)
	}
	fmt.Printf("noise scale %.4f\n", m.NoiseScale())
	// Output:
	// budget per person: ε=2
	// noise scale 3.0000
}

// The sensitivity of the linear-regression statistics (Lemma 3.1) with
// inputs in the unit ball, outcomes in [−2, 2] and equal noise: Corollary
// 3.1, √(3·2⁴/2 + 2·2² + 2) = √34.
func ExampleLinRegSensitivity() {
	d, err := ldp.LinRegSensitivity(ldp.LinRegSensitivityConfig{R: 1, RY: 2, Sigma1: 1, Sigma2: 1, Sigma3: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("Δ2 = %.4f\n", d)
	// Output:
	// Δ2 = 5.8310
}
