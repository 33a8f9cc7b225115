package regression_test

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/simulate/regression"
)

// The LDP paper's logistic-regression input model: with θ = 0 both
// responses are equally likely whatever x.
func Example() {
	m, err := regression.NewLogistic(1, nil)
	if err != nil {
		panic(err)
	}
	rec := []float64{0.7, 1} // (x, y)
	ll := m.RecordLogLik([]float64{0}, rec)
	logNx := -0.5*0.7*0.7 - 0.5*math.Log(2*math.Pi)
	fmt.Printf("p(y = 1 | x) = %.2f, record dimension %d\n", math.Exp(ll-logNx), m.RecordDim())
	// Output: p(y = 1 | x) = 0.50, record dimension 2
}
