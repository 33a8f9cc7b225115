package ldp

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
)

// gaussRef integrates η(z|x) f(x|μ,σ; a,b) over the rectified density of
// eq. 6: the two atoms plus the quadrature of the continuous part.
func gaussRef(a, b, eps, z, mu, sigma float64) float64 {
	c := eps / (b - a)
	lap := func(x float64) float64 { return 0.5 * c * math.Exp(-c*math.Abs(z-x)) }
	f := func(x float64) float64 {
		u := (x - mu) / sigma
		return lap(x) * math.Exp(-0.5*u*u) / (sigma * math.Sqrt(2*math.Pi))
	}
	br := []float64{z}
	for j := -10; j <= 10; j++ {
		br = append(br, mu+float64(j)*sigma)
	}
	cont := integrate(f, a, b, br...)
	return lap(a)*special.NormCDF((a-mu)/sigma) + lap(b)*special.NormCDF((mu-b)/sigma) + cont
}

func TestClippedGaussianVsQuadrature(t *testing.T) {
	worst := 0.0
	for _, ab := range [][2]float64{{-5, 5}, {0, 1}, {-1, 3}} {
		a, b := ab[0], ab[1]
		w := b - a
		for _, eps := range []float64{1e-3, 0.1, 1, 10, 100} {
			m, err := NewClippedGaussian(ClippedGaussianConfig{A: a, B: b, Epsilon: eps})
			if err != nil {
				t.Fatal(err)
			}
			for _, mu := range []float64{a - 0.5*w, a + 0.3*w, b + 0.2*w} {
				for _, sigma := range []float64{0.02 * w, 0.3 * w, 2 * w} {
					for _, z := range []float64{a - 2*w, a - 0.1*w, a, a + 0.25*w, 0.5 * (a + b), b - 0.01*w, b, b + 0.7*w, b + 3*w} {
						ref := gaussRef(a, b, eps, z, mu, sigma)
						if ref < 1e-290 {
							continue // covered by the mpmath log-space references
						}
						got := math.Exp(m.LogDensity(z, mu, sigma))
						e := relErr(got, ref)
						worst = math.Max(worst, e)
						if e > 1e-8 {
							t.Errorf("[%v,%v] eps=%v z=%v mu=%v sigma=%v: got %.16g want %.16g (rel %.2g)", a, b, eps, z, mu, sigma, got, ref, e)
						}
					}
				}
			}
		}
	}
	t.Logf("clipped Gaussian eq. 28: worst relative error vs quadrature %.2g", worst)
}
