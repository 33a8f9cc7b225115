package naivebayes_test

import (
	"fmt"

	"github.com/privinfer/privinfer/simulate/naivebayes"
)

// The SBI paper's naive Bayes setting: two classes and two binary
// features over n = 100 records, its Dirichlet(2) prior, and the
// additive-log-ratio map to an unconstrained parameter and back.
func Example() {
	m := naivebayes.Paper()
	prior, err := m.Prior(2)
	if err != nil {
		panic(err)
	}
	theta := naivebayes.PaperTheta()
	phi := make([]float64, m.UnconstrainedDim())
	m.ToUnconstrained(theta, phi)
	back := make([]float64, m.ParamDim())
	m.FromUnconstrained(phi, back)
	fmt.Println("θ:", prior.Dim(), "unconstrained:", len(phi), "release:", len(naivebayes.Release()))
	fmt.Printf("sensitivity 2K/n = %.2f, round trip p_1 = %.4f\n", m.Sensitivity(), back[8])
	// Output:
	// θ: 10 unconstrained: 5 release: 8
	// sensitivity 2K/n = 0.04, round trip p_1 = 0.8489
}
