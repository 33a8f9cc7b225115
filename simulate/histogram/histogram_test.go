package histogram

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/simulate"
)

// TestModel checks the categorical frequencies of the mean statistic
// against their probabilities (binomial z-tests with 5-se bounds over
// 100000 records).
func TestModel(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	const n = 100000
	z := func(name string, count int, p float64) {
		se := math.Sqrt(p * (1 - p) / n)
		if math.Abs(float64(count)/n-p) > 5*se {
			t.Errorf("%s: frequency %v, want %v", name, float64(count)/n, p)
		}
	}
	cat, _ := New(4)
	p := []float64{0.1, 0.2, 0.3, 0.4}
	ms, _ := simulate.NewMeanStat(cat, n)
	f := make([]float64, 4)
	if err := ms.Simulate(r, p, f); err != nil {
		t.Fatal(err)
	}
	for k := range f {
		z("categorical", int(math.Round(f[k]*n)), p[k])
	}
}
