package ldp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestReportLaw: the default report (operating-system generator) and the
// seeded opt-out both follow clip(x) + Laplace(0, Δ/ε), the law the
// likelihoods of eqs. 28–30 model (Kolmogorov–Smirnov). The seeded
// reports, 20,000 of each, fail at p < 1e-4 (fixed seed). The default
// reports cannot be seeded, so, as mechanism's tests of its
// operating-system source do, they fail at p < 1e-9, a false alarm once
// in about 5·10⁸ runs (at 1e-4 one run in about 5,000 failed by chance;
// the p-values were uniform over 200 repeats); 100,000 of each keep the
// test's power: with the noise scale 10% off, p stayed below 1e-25 in
// ten repeats.
func TestReportLaw(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	g, _ := NewClippedGaussian(ClippedGaussianConfig{A: -1, B: 2, Eps: 0.8})
	e, _ := NewClippedExponential(ClippedExponentialConfig{B: 3, Eps: 1.5})
	r := rand.New(rand.NewPCG(4, 5))
	lapCDF := func(mu, b float64) func(float64) float64 {
		return func(z float64) float64 {
			if z < mu {
				return 0.5 * math.Exp((z-mu)/b)
			}
			return 1 - 0.5*math.Exp(-(z-mu)/b)
		}
	}
	for _, seeded := range []bool{false, true} {
		n, alpha := 100000, 1e-9
		if seeded {
			n, alpha = 20000, 1e-4
		}
		zg := make([]float64, n)
		ze := make([]float64, n)
		for i := range n {
			var err error
			if seeded {
				zg[i], err = g.ReleaseSeeded(r, 5) // clipped to 2
			} else {
				zg[i], err = g.Release(r, 5)
			}
			if err != nil {
				t.Fatal(err)
			}
			if seeded {
				ze[i], err = e.ReleaseSeeded(r, 1.25)
			} else {
				ze[i], err = e.Release(r, 1.25)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, p := stats.KSOneSample(zg, lapCDF(2, 3/0.8)); p < alpha {
			t.Errorf("Gaussian report (seeded %v): KS p = %.3g", seeded, p)
		}
		if _, p := stats.KSOneSample(ze, lapCDF(1.25, 3/1.5)); p < alpha {
			t.Errorf("exponential report (seeded %v): KS p = %.3g", seeded, p)
		}
	}
	// Seeded reports are reproducible.
	a, _ := g.ReleaseSeeded(rand.New(rand.NewPCG(9, 9)), 0.3)
	b, _ := g.ReleaseSeeded(rand.New(rand.NewPCG(9, 9)), 0.3)
	if a != b {
		t.Errorf("seeded reports differ: %v, %v", a, b)
	}
}
