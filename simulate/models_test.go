package simulate

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
)

// TestUniformMixture checks the ABCDP toy model: N = 5000 draws at θ* have
// the mixture CDF F(y) = Σ_{i<⌊y⌋} θ_i + θ_{⌊y⌋+1}(y − ⌊y⌋) (KS, level
// 1e-4), and the Dataset simulator returns them.
func TestUniformMixture(t *testing.T) {
	m, _ := NewUniformMixture(5)
	theta := UniformMixturePaperTheta()
	ds, _ := NewDataset(m, 5000)
	y := make([]float64, ds.StatDim())
	if err := ds.Simulate(rand.New(rand.NewPCG(5, 5)), theta, y); err != nil {
		t.Fatal(err)
	}
	cdf := func(x float64) float64 {
		if x <= 0 {
			return 0
		}
		if x >= 5 {
			return 1
		}
		k := int(x)
		s := 0.0
		for i := range k {
			s += theta[i]
		}
		return s + theta[k]*(x-float64(k))
	}
	if _, p := stats.KSOneSample(y, cdf); !(p > 1e-4) {
		t.Errorf("mixture KS p = %v", p)
	}
	if v := m.RecordLogLik(theta, []float64{2.5}); math.Abs(v-math.Log(0.33)) > 1e-15 {
		t.Errorf("RecordLogLik %v", v)
	}
	if err := ds.Simulate(nil, []float64{0.5, 0.5, 0.1, 0, 0}, y); !errors.Is(err, ErrInvalidTheta) {
		t.Errorf("non-simplex θ: %v", err)
	}
	if _, err := UniformMixturePrior(5); err != nil {
		t.Error(err)
	}
}

func TestCubicPolynomial(t *testing.T) {
	times := []float64{0, 1, 2.5}
	m, err := NewCubicPolynomial(times, 0)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 3)
	theta := []float64{0.5, -1, 2, 3} // a0 t³ + a1 t² + a2 t + a3
	if err := m.Simulate(nil, theta, dst); err != nil {
		t.Fatal(err)
	}
	for j, tt := range times {
		want := 3 + 2*tt - tt*tt + 0.5*tt*tt*tt
		if math.Abs(dst[j]-want) > 1e-12 {
			t.Errorf("y(%v) = %v, want %v", tt, dst[j], want)
		}
	}
	if err := m.Simulate(nil, []float64{1, 2, 3}, dst); !errors.Is(err, ErrInvalidTheta) {
		t.Errorf("short θ: %v", err)
	}
	if _, err := NewCubicPolynomial(times, -1); err == nil {
		t.Error("negative noise accepted")
	}
}

// TestLDPModels checks the clipped models' point masses at the bounds and
// the categorical frequencies against their probabilities (binomial
// z-tests with 5-se bounds over 100000 draws), and the log-likelihoods.
func TestLDPModels(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	const n = 100000
	z := func(name string, count int, p float64) {
		se := math.Sqrt(p * (1 - p) / n)
		if math.Abs(float64(count)/n-p) > 5*se {
			t.Errorf("%s: frequency %v, want %v", name, float64(count)/n, p)
		}
	}
	cg, _ := NewClippedGaussian(-1, 2)
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
	if err := cg.CheckParam([]float64{0, 0}); !errors.Is(err, ErrInvalidTheta) {
		t.Errorf("σ = 0: %v", err)
	}

	ce, _ := NewClippedExponential(2)
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

	cat, _ := NewHistogram(4)
	p := []float64{0.1, 0.2, 0.3, 0.4}
	ms, _ := NewMeanStat(cat, n)
	f := make([]float64, 4)
	if err := ms.Simulate(r, p, f); err != nil {
		t.Fatal(err)
	}
	for k := range f {
		z("categorical", int(math.Round(f[k]*n)), p[k])
	}

	lg, _ := NewLogisticInputs(2, nil)
	ones := 0
	rr := make([]float64, 3)
	for range n {
		lg.SampleRecord(r, []float64{0, 0}, rr)
		if rr[2] == 1 {
			ones++
		}
	}
	z("logistic with θ = 0", ones, 0.5)
	li, _ := NewLinearInputs(1, nil, 0.25)
	want := -0.5*0.09 - 0.5*math.Log(2*math.Pi) - 0.5*(1-0.6)*(1-0.6)/0.25 - 0.5*math.Log(2*math.Pi*0.25)
	if v := li.RecordLogLik([]float64{2}, []float64{0.3, 1}); math.Abs(v-want) > 1e-12 {
		t.Errorf("linear inputs log-lik %v, want %v", v, want)
	}
	eta := 0.3 * 2.0
	wantL := -0.5*0.09 - 0.5*math.Log(2*math.Pi) - math.Log1p(math.Exp(-eta))
	lg1, _ := NewLogisticInputs(1, nil)
	if v := lg1.RecordLogLik([]float64{2}, []float64{0.3, 1}); math.Abs(v-wantL) > 1e-12 {
		t.Errorf("logistic inputs log-lik %v, want %v", v, wantL)
	}
}
