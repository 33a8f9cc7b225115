package ldp

import (
	"math"
	"testing"
)

func expRef(b, eps, z, theta float64) float64 {
	k := eps / b
	lap := func(x float64) float64 { return 0.5 * k * math.Exp(-k*math.Abs(z-x)) }
	f := func(x float64) float64 { return lap(x) * theta * math.Exp(-theta*x) }
	br := []float64{z}
	for j := 1; j <= 30; j++ {
		br = append(br, float64(j)/theta)
	}
	return integrate(f, 0, b, br...) + lap(b)*math.Exp(-theta*b)
}

func TestClippedExponentialVsQuadrature(t *testing.T) {
	worst := 0.0
	for _, b := range []float64{1, 5} {
		for _, eps := range []float64{1e-3, 0.1, 1, 10, 100} {
			m, err := NewClippedExponential(ClippedExponentialConfig{B: b, Epsilon: eps})
			if err != nil {
				t.Fatal(err)
			}
			k := eps / b
			for _, theta := range []float64{0.01, 0.5 / b, k, k * (1 + 1e-9), 3, 50} {
				for _, z := range []float64{-3 * b, -0.1 * b, 0, 0.2 * b, 0.5 * b, b, 1.3 * b, 4 * b} {
					ref := expRef(b, eps, z, theta)
					if ref < 1e-290 {
						continue
					}
					got := math.Exp(m.LogDensity(z, theta))
					e := relErr(got, ref)
					worst = math.Max(worst, e)
					if e > 1e-8 {
						t.Errorf("b=%v eps=%v theta=%v z=%v: got %.16g want %.16g (rel %.2g)", b, eps, theta, z, got, ref, e)
					}
				}
			}
		}
	}
	t.Logf("clipped exponential eq. 30: worst relative error vs quadrature %.2g", worst)
}
