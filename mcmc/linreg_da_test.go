package mcmc

import (
	"testing"

	"github.com/privinfer/privinfer"
)

// paperLinReg returns the SBI paper's privatized linear regression at ε
// and its exact θ-step.
func paperLinReg(t testing.TB, eps float64) (privinfer.Problem, *LinRegConjugate) {
	p, th, err := LinRegPaperDA(eps)
	if err != nil {
		t.Fatal(err)
	}
	return p, th
}

// farInits are four starting points far apart in the tails of the N(0, I) prior.
var farInits = [][]float64{{4, 4, 4}, {-4, -4, -4}, {4, -4, 4}, {-4, 4, -4}}
