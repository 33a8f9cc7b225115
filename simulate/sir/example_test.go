package sir_test

import (
	"fmt"

	"github.com/privinfer/privinfer/simulate/sir"
)

// The deterministic SIR ODE at the paper's θ*: the non-DP baseline.
func ExampleODE() {
	ode, err := sir.NewODE(sir.Config{K: 1_000_000, Output: sir.Proportions}, 0)
	if err != nil {
		panic(err)
	}
	i := make([]float64, ode.StatDim())
	_ = ode.Simulate(nil, sir.SyntheticTheta(), i)
	for k, t := range ode.Times()[:5] {
		fmt.Printf("t=%3.0f  I/K=%.4f\n", t, i[k])
	}
	fmt.Printf("R0 = %.2f\n", sir.R0(sir.SyntheticTheta(), sir.LogRates))
	// Output:
	// t=  0  I/K=0.0000
	// t= 17  I/K=0.0127
	// t= 34  I/K=0.6291
	// t= 51  I/K=0.2761
	// t= 68  I/K=0.1185
	// R0 = 12.18
}
