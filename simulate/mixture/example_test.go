package mixture_test

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/simulate/mixture"
)

// The ABCDP paper's mixture of five unit uniforms at its θ*: a record in
// [2, 3) has log-likelihood log θ_3.
func Example() {
	m, err := mixture.NewUniform(5)
	if err != nil {
		panic(err)
	}
	theta := mixture.PaperTheta()
	prior, err := mixture.Prior(5)
	if err != nil {
		panic(err)
	}
	fmt.Println("θ dimension:", prior.Dim(), "valid θ*:", m.CheckParam(theta) == nil)
	fmt.Printf("p(y = 2.5) = %.2f\n", math.Exp(m.RecordLogLik(theta, []float64{2.5})))
	// Output:
	// θ dimension: 5 valid θ*: true
	// p(y = 2.5) = 0.33
}
