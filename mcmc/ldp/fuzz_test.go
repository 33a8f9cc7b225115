package ldp

import (
	"errors"
	"math"
	"testing"

	"github.com/privinfer/privinfer"
	mldp "github.com/privinfer/privinfer/mechanism/ldp"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/clipped"
)

// FuzzClippedGaussian checks that the eq. 28 log-likelihood never panics,
// is never NaN for valid parameters, and never exceeds log(ε/(2(b−a))): the
// marginal is a mixture of Laplace densities, each bounded by c/2.
func FuzzClippedGaussian(f *testing.F) {
	f.Add(-5.0, 5.0, 1.0, 0.3, 0.0, 1.0)
	f.Add(0.0, 1.0, 1e4, 51.0, 0.5, 50.0)
	f.Add(-1.0, 2.0, 1e-3, -1e6, 3.0, 1e-3)
	f.Add(0.0, 1.0, 30.0, 0.5, 0.5, 1e-9)
	f.Fuzz(func(t *testing.T, a, b, eps, z, mu, sigma float64) {
		m, err := NewClippedGaussian(ClippedGaussianConfig{A: a, B: b, Epsilon: eps})
		if err != nil {
			return
		}
		v := m.LogDensity(z, mu, sigma)
		valid := finite(z) && finite(mu) && sigma > 0 && !math.IsInf(sigma, 1)
		if !valid {
			return
		}
		if b-a > 1e12 || eps > 1e8 || math.Abs(z) > 1e12 || math.Abs(mu) > 1e12 || sigma > 1e12 || sigma < 1e-12 {
			return // beyond the documented range the log may overflow
		}
		if math.IsNaN(v) {
			t.Fatalf("NaN log-likelihood at a=%v b=%v eps=%v z=%v mu=%v sigma=%v", a, b, eps, z, mu, sigma)
		}
		if bound := math.Log(eps / (2 * (b - a))); v > bound+1e-9*math.Max(1, math.Abs(bound)) {
			t.Fatalf("log-likelihood %v above the Laplace bound %v", v, bound)
		}
	})
}

// FuzzOUEData checks that report parsing rejects everything but bit
// vectors and never panics.
func FuzzOUEData(f *testing.F) {
	f.Add([]byte{0, 1, 0, 1, 1, 0})
	f.Add([]byte{2, 0, 0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, _ := NewOUEModel(OUEModelConfig{Epsilon: 1, Dim: 3})
		z := make([]float64, len(raw))
		bitsOnly := true
		for i, v := range raw {
			z[i] = float64(v)
			if v > 1 {
				bitsOnly = false
			}
		}
		d, err := m.NewData(z)
		ok := len(z) > 0 && len(z)%3 == 0 && bitsOnly
		if ok != (err == nil) {
			t.Fatalf("NewData(%v): err = %v, want ok = %v", raw, err, ok)
		}
		if err == nil {
			if v := d.LogDensity([]float64{0.2, 0.3, 0.5}); math.IsNaN(v) || v > 0 {
				t.Fatalf("log-likelihood %v", v)
			}
		}
	})
}

// FuzzClippedExponential is FuzzClippedGaussian for eq. 30: never NaN for
// valid parameters and never above log(ε/(2b)).
func FuzzClippedExponential(f *testing.F) {
	f.Add(5.0, 1.0, 0.3, 1.0)
	f.Add(1.0, 1e4, -1e3, 1e4)
	f.Add(1.0, 1.0, 0.5, 1.0) // θ = κ, where the printed eq. 30 divides 0 by 0
	f.Fuzz(func(t *testing.T, b, eps, z, theta float64) {
		m, err := NewClippedExponential(ClippedExponentialConfig{B: b, Epsilon: eps})
		if err != nil {
			return
		}
		v := m.LogDensity(z, theta)
		if !finite(z) || !(theta > 0) || math.IsInf(theta, 1) {
			return
		}
		if b > 1e12 || b < 1e-12 || eps > 1e8 || eps < 1e-12 || math.Abs(z) > 1e12 || theta > 1e12 || theta < 1e-12 {
			return
		}
		if math.IsNaN(v) {
			t.Fatalf("NaN log-likelihood at b=%v eps=%v z=%v theta=%v", b, eps, z, theta)
		}
		if bound := math.Log(eps / (2 * b)); v > bound+1e-9*math.Max(1, math.Abs(bound)) {
			t.Fatalf("log-likelihood %v above the Laplace bound %v", v, bound)
		}
	})
}

// FuzzProblemPosterior checks that NewProblemPosterior never panics on
// arbitrary clipping bounds, budgets and reports: it returns an error
// wrapping ErrInvalid, or a posterior whose natural parameters at x = 0
// are (0, 1) and whose log density there is a number (or −Inf) within the
// models' documented range.
func FuzzProblemPosterior(f *testing.F) {
	f.Add(-3.0, 3.0, 2.0, 0.5, -7.0, 40.0)
	f.Add(0.0, 1e-300, 1e-9, 0.0, 0.0, 0.0)
	f.Add(-1e300, 1e300, 1e6, math.Inf(1), 1.0, 2.0)
	f.Fuzz(func(t *testing.T, lo, hi, eps, z0, z1, z2 float64) {
		mech, err := mldp.NewClippedLaplace(mldp.ClippedLaplaceConfig{Lo: lo, Hi: hi, Epsilon: eps})
		if err != nil {
			if !errors.Is(err, mldp.ErrInvalid) {
				t.Fatalf("mechanism error %v does not wrap its ErrInvalid", err)
			}
			return
		}
		mu, _ := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 1})
		sg, _ := simulate.NewGamma(simulate.GammaConfig{Shape: 2, Scale: 1})
		prior, _ := simulate.NewIndependent(mu, sg)
		rec, err := clipped.NewGaussian(clipped.GaussianConfig{A: lo, B: hi})
		if err != nil {
			return
		}
		sim, _ := simulate.NewDataset(rec, 3)
		p, err := NewProblemPosterior(privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: mech, Observed: []float64{z0, z1, z2}})
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		th := make([]float64, 2)
		p.Natural([]float64{0, 0}, th)
		if th[0] != 0 || th[1] != 1 {
			t.Fatalf("Natural(0, 0) = %v", th)
		}
		if w := hi - lo; w < 1e-12 || w > 1e12 || eps > 1e8 || math.Abs(z0)+math.Abs(z1)+math.Abs(z2) > 1e12 {
			return // beyond the documented range the log may overflow
		}
		if v := p.LogDensity([]float64{0, 0}); math.IsNaN(v) {
			t.Fatalf("NaN log density at x = 0 (lo %v hi %v eps %v z %v %v %v)", lo, hi, eps, z0, z1, z2)
		}
	})
}
