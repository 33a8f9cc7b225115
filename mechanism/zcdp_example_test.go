package mechanism_test

import (
	"fmt"

	"github.com/privinfer/privinfer/mechanism"
)

// Two Gaussian releases (σ = 10, ℓ2 sensitivity 1) compose to ρ = 0.01;
// the accountant reports the (ε, δ) they imply at δ = 1e-6.
func ExampleAccountant_SpendRho() {
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1, Delta: 1e-6})
	rho, _ := mechanism.GaussianRho(1, 10)
	for range 2 {
		if err := acct.SpendRho(rho); err != nil {
			fmt.Println(err)
		}
	}
	tight, _ := mechanism.ZCDPEpsilon(acct.Rho(), 1e-6)
	bs, _ := mechanism.ZCDPEpsilonBS(acct.Rho(), 1e-6)
	fmt.Printf("ρ = %.3f: ε = %.4f (tight), %.4f (Bun–Steinke)\n", acct.Rho(), tight, bs)
	fmt.Println(acct.Guarantee().Epsilon == tight)
	// Output:
	// ρ = 0.010: ε = 0.6217 (tight), 0.7534 (Bun–Steinke)
	// true
}
