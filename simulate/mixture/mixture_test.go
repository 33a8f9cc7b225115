package mixture

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/simulate"
)

// TestUniformMixture checks the ABCDP toy model: N = 5000 draws at θ* have
// the mixture CDF F(y) = Σ_{i<⌊y⌋} θ_i + θ_{⌊y⌋+1}(y − ⌊y⌋) (KS, level
// 1e-4), and the Dataset simulator returns them.
func TestUniformMixture(t *testing.T) {
	m, _ := NewUniform(5)
	theta := PaperTheta()
	ds, _ := simulate.NewDataset(m, 5000)
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
	if err := ds.Simulate(nil, []float64{0.5, 0.5, 0.1, 0, 0}, y); !errors.Is(err, simulate.ErrInvalidTheta) {
		t.Errorf("non-simplex θ: %v", err)
	}
	if _, err := Prior(5); err != nil {
		t.Error(err)
	}
}
