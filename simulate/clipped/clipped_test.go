package clipped

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/simulate"
)

// TestModels checks the clipped models' point masses at the bounds
// (binomial z-tests with 5-se bounds over 100000 draws) and their
// log-likelihoods.
func TestModels(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	const n = 100000
	z := func(name string, count int, p float64) {
		se := math.Sqrt(p * (1 - p) / n)
		if math.Abs(float64(count)/n-p) > 5*se {
			t.Errorf("%s: frequency %v, want %v", name, float64(count)/n, p)
		}
	}
	cg, _ := NewGaussian(GaussianConfig{A: -1, B: 2})
	th := []float64{0.5, 1.5}
	rec := make([]float64, 1)
	lo, hi := 0, 0
	for range n {
		cg.SampleRecord(r, th, rec)
		switch rec[0] {
		case -1:
			lo++
		case 2:
			hi++
		}
	}
	pl := 0.5 * math.Erfc(1.5/(1.5*math.Sqrt2)) // Φ((−1 − 0.5)/1.5)
	ph := 0.5 * math.Erfc(1.5/(1.5*math.Sqrt2)) // 1 − Φ((2 − 0.5)/1.5)
	z("clipped Gaussian at a", lo, pl)
	z("clipped Gaussian at b", hi, ph)
	if v := cg.RecordLogLik(th, []float64{-1}); math.Abs(v-math.Log(pl)) > 1e-12 {
		t.Errorf("mass at a: %v", v)
	}
	if err := cg.CheckParam([]float64{0, 0}); !errors.Is(err, simulate.ErrInvalidTheta) {
		t.Errorf("σ = 0: %v", err)
	}

	ce, _ := NewExponential(2)
	at := 0
	for range n {
		ce.SampleRecord(r, []float64{0.7}, rec)
		if rec[0] == 2 {
			at++
		}
	}
	z("clipped exponential at b", at, math.Exp(-1.4))
	if v := ce.RecordLogLik([]float64{0.7}, []float64{1}); math.Abs(v-(math.Log(0.7)-0.7)) > 1e-15 {
		t.Errorf("exponential log density %v", v)
	}
}
