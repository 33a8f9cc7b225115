package polynomial_test

import (
	"fmt"

	"github.com/privinfer/privinfer/simulate/polynomial"
)

// The ABCDP paper's cubic polynomial y(t) = a3 + a2 t + a1 t² + a0 t³
// without observation noise.
func Example() {
	m, err := polynomial.NewCubic([]float64{0, 1, 2}, 0)
	if err != nil {
		panic(err)
	}
	y := make([]float64, m.StatDim())
	if err := m.Simulate(nil, []float64{1, 0, 0, 2}, y); err != nil { // t³ + 2
		panic(err)
	}
	fmt.Println(y, "prior dimension:", polynomial.Prior().Dim())
	// Output: [2 3 10] prior dimension: 4
}
