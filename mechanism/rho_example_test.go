package mechanism_test

import (
	"fmt"

	"github.com/privinfer/privinfer/mechanism"
)

// An (ε, δ) budget spent on zCDP mechanisms: the ρ it allows, and what is
// left after one release.
func ExampleAccountant_RemainingRho() {
	total := mechanism.Budget{Epsilon: 1, Delta: 1e-6}
	rho, _ := mechanism.RhoFromEpsilonDelta(total.Epsilon, total.Delta)
	fmt.Printf("ρ for %v: %.5f\n", total, rho)

	acc, _ := mechanism.NewAccountant(total)
	_ = acc.SpendRho(rho / 2)
	fmt.Printf("after spending ρ/2: %.5f left\n", acc.RemainingRho())
	fmt.Println(mechanism.Budget{Epsilon: 0.1 + 0.2})
	// Output:
	// ρ for (ε=1, δ=1e-06): 0.02436
	// after spending ρ/2: 0.01218 left
	// ε=0.3
}
