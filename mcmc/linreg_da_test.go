package mcmc

import (
	"testing"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// paperLinReg returns the SBI paper's privatized linear regression at ε.
func paperLinReg(t testing.TB, eps float64) *DAModel {
	model := linreg.Paper()
	n := linreg.PaperN
	sens, err := mechanism.LinRegSensitivity(model.P(), n)
	if err != nil {
		t.Fatal(err)
	}
	lap, err := mechanism.NewLaplace(sens, eps, model.ContribDim())
	if err != nil {
		t.Fatal(err)
	}
	sdp, err := linreg.Release(eps)
	if err != nil {
		t.Fatal(err)
	}
	th, err := NewLinRegConjugate(2, 2, []float64{0, 0, 0}, []float64{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	return &DAModel{Records: model, Theta: th, Mech: lap, SDP: sdp, N: n, Stat: StatMean}
}

// farInits are four starting points far apart in the tails of the N(0, I) prior.
var farInits = [][]float64{{4, 4, 4}, {-4, -4, -4}, {4, -4, 4}, {-4, 4, -4}}
