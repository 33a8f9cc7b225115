package synth

import (
	"errors"
	"math"
	"testing"

	"github.com/privinfer/privinfer/simulate/conjugate"
)

// FuzzModels feeds arbitrary numbers to every model constructor and to
// NewGrid: each returns an error wrapping ErrInvalid, or a model whose
// statistics for 10 records have finite positive sensitivities and finite
// ranges (NewGrid: an error or a grid).
func FuzzModels(f *testing.F) {
	f.Add(1.0, 1.0, 0.0, 1.0, 4)
	f.Add(math.NaN(), math.Inf(1), -1e308, 1e308, -1)
	f.Add(5e-324, 1e300, 1.0, 1.0, 1<<30)
	f.Add(0.0, -1.0, 2.0, 1.0, 0)
	f.Fuzz(func(t *testing.T, a, b, c0, c1 float64, bins int) {
		check := func(name string, m Conjugate, err error) {
			if err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("%s: error %v does not wrap ErrInvalid", name, err)
				}
				return
			}
			st, err := m.Statistics(10)
			if err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("%s: Statistics error %v does not wrap ErrInvalid", name, err)
				}
				return
			}
			for _, s := range st {
				if !(s.Sens > 0) || math.IsInf(s.Sens, 0) || math.IsNaN(s.Lo) || math.IsNaN(s.Hi) || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || !(s.Lo <= s.Hi) {
					t.Fatalf("%s(%v, %v, %v, %v): statistic %+v", name, a, b, c0, c1, s)
				}
			}
		}
		m1, err := NewBetaBernoulli(BetaBernoulliConfig{Alpha: a, Beta: b})
		check("NewBetaBernoulli", m1, err)
		m2, err := NewGaussianMean(GaussianMeanConfig{Sigma: a, Lo: c0, Hi: c1, RecordBounding: BIT})
		check("NewGaussianMean", m2, err)
		m3, err := NewGaussianNIG(GaussianNIGConfig{Lo: c0, Hi: c1, RecordBounding: BIT})
		check("NewGaussianNIG", m3, err)
		m4, err := NewPoissonGamma(conjugate.PoissonGammaConfig{Shape: a, Rate: b, MaxCount: c1})
		check("NewPoissonGamma", m4, err)
		m5, err := NewCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: []float64{a, b}})
		check("NewCategoricalDirichlet", m5, err)
		if bins > 64 {
			bins = 1 << 40 // large counts only where NewGrid refuses them
		}
		g, err := NewGrid([]float64{c0}, []float64{c1}, []int{bins})
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("NewGrid: error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if g == nil {
			t.Fatal("NewGrid returned neither a grid nor an error")
		}
	})
}
