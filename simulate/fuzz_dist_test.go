package simulate

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzDistributions feeds arbitrary numbers to every constructor of a
// distribution or prior: each returns an error wrapping ErrInvalid, or a
// value whose draw lies in its support, with a log density that is not
// NaN, and +Inf only at a boundary of the support where the density
// diverges.
func FuzzDistributions(f *testing.F) {
	f.Add(0.0, 1.0, int64(10))
	f.Add(math.NaN(), math.Inf(1), int64(-1))
	f.Add(1e308, 1e-308, int64(1<<62))
	f.Add(-1.0, 0.0, int64(0))
	f.Add(5e-324, 1e300, int64(1))
	f.Fuzz(func(t *testing.T, a, b float64, n int64) {
		r := rand.New(rand.NewPCG(1, 2))
		check := func(name string, err error) bool {
			if err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("%s: error %v does not wrap ErrInvalid", name, err)
				}
				return false
			}
			return true
		}
		uni := func(name string, d Univariate, err error) {
			if !check(name, err) {
				return
			}
			x := d.Sample(r)
			lo, hi := d.Support()
			if math.IsNaN(x) || x < lo || x > hi {
				t.Fatalf("%s(%v, %v, %v): draw %v outside [%v, %v]", name, a, b, n, x, lo, hi)
			}
			// +Inf only at a boundary where the density diverges (a Gamma
			// or Beta with shape < 1 whose draw underflowed to 0).
			if v := d.LogDensity(x); math.IsNaN(v) || (math.IsInf(v, 1) && x != lo && x != hi) {
				t.Fatalf("%s(%v, %v, %v): log density %v at its draw %v", name, a, b, n, v, x)
			}
		}
		d1, err := NewNormal(NormalConfig{Mu: a, Sigma: b})
		uni("NewNormal", d1, err)
		d2, err := NewLogNormal(NormalConfig{Mu: a, Sigma: b})
		uni("NewLogNormal", d2, err)
		d3, err := NewUniform(UniformConfig{Lo: a, Hi: b})
		uni("NewUniform", d3, err)
		d4, err := NewHalfNormal(a)
		uni("NewHalfNormal", d4, err)
		d5, err := NewExponential(a)
		uni("NewExponential", d5, err)
		d6, err := NewGamma(GammaConfig{Shape: a, Scale: b})
		uni("NewGamma", d6, err)
		d7, err := NewBeta(BetaConfig{Alpha: a, Beta: b})
		uni("NewBeta", d7, err)
		d8, err := NewPoisson(a)
		uni("NewPoisson", d8, err)
		d9, err := NewBinomial(BinomialConfig{N: n, P: b})
		uni("NewBinomial", d9, err)
		d10, err := NewCategorical([]float64{a, b})
		uni("NewCategorical", d10, err)
		prior := func(name string, p Prior, err error) {
			if !check(name, err) {
				return
			}
			th := make([]float64, p.Dim())
			p.Sample(r, th)
			onEdge := false // a Dirichlet draw with a component underflowed to 0
			for _, v := range th {
				onEdge = onEdge || v == 0
			}
			if v := p.LogDensity(th); math.IsNaN(v) || (math.IsInf(v, 1) && !onEdge) {
				t.Fatalf("%s(%v, %v): log density %v at its draw %v", name, a, b, v, th)
			}
		}
		p1, err := NewDiagNormal(DiagNormalConfig{Mean: []float64{a, 0}, Variances: []float64{b, 1}})
		prior("NewDiagNormal", p1, err)
		p2, err := NewMVNormal(MVNormalConfig{Mean: []float64{a, 0}, Cov: []float64{b, 0.5, 0.5, b}})
		prior("NewMVNormal", p2, err)
		p3, err := NewDirichlet([]float64{a, b})
		prior("NewDirichlet", p3, err)
		if m, err := NewMultinomial(n, []float64{a, b}); check("NewMultinomial", err) {
			dst := make([]float64, m.Dim())
			m.Sample(r, dst)
			for _, v := range dst {
				if math.IsNaN(v) || v < 0 || v > float64(n) {
					t.Fatalf("NewMultinomial(%v, [%v %v]): draw %v", n, a, b, dst)
				}
			}
		}
	})
}
