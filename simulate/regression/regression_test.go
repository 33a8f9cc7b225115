package regression

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestInputs checks the logistic response frequency at θ = 0 (binomial
// z-test with a 5-se bound over 100000 draws) and the linear and logistic
// log-likelihoods against closed forms.
func TestInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	const n = 100000
	z := func(name string, count int, p float64) {
		se := math.Sqrt(p * (1 - p) / n)
		if math.Abs(float64(count)/n-p) > 5*se {
			t.Errorf("%s: frequency %v, want %v", name, float64(count)/n, p)
		}
	}
	lg, _ := NewLogistic(2, nil)
	ones := 0
	rr := make([]float64, 3)
	for range n {
		lg.SampleRecord(r, []float64{0, 0}, rr)
		if rr[2] == 1 {
			ones++
		}
	}
	z("logistic with θ = 0", ones, 0.5)
	li, _ := NewLinear(LinearConfig{Dim: 1, Cov: nil, Sigma2: 0.25})
	want := -0.5*0.09 - 0.5*math.Log(2*math.Pi) - 0.5*(1-0.6)*(1-0.6)/0.25 - 0.5*math.Log(2*math.Pi*0.25)
	if v := li.RecordLogLik([]float64{2}, []float64{0.3, 1}); math.Abs(v-want) > 1e-12 {
		t.Errorf("linear inputs log-lik %v, want %v", v, want)
	}
	eta := 0.3 * 2.0
	wantL := -0.5*0.09 - 0.5*math.Log(2*math.Pi) - math.Log1p(math.Exp(-eta))
	lg1, _ := NewLogistic(1, nil)
	if v := lg1.RecordLogLik([]float64{2}, []float64{0.3, 1}); math.Abs(v-wantL) > 1e-12 {
		t.Errorf("logistic inputs log-lik %v, want %v", v, wantL)
	}
}
