package mechanism

import (
	"math"
	"testing"
)

func TestClampNormalize(t *testing.T) {
	if Clamp(3, 0, 1) != 1 || Clamp(-3, 0, 1) != 0 || Clamp(0.25, 0, 1) != 0.25 {
		t.Error("Clamp")
	}
	x := []float64{-10, 0, 5, 10, 20}
	dst := make([]float64, len(x))
	if err := NormalizeSlice(dst, x, 0, 10); err != nil {
		t.Fatal(err)
	}
	want := []float64{-1, -1, 0, 1, 1}
	for i := range want {
		if dst[i] != want[i] {
			t.Errorf("Normalize %v → %v, want %v", x[i], dst[i], want[i])
		}
	}
	m, sens, err := ClampedMean([]float64{-10, 1, 2, 10}, -4, 4)
	if err != nil || m != (-4+1+2+4)/4.0 || sens != 2 {
		t.Errorf("ClampedMean = %v, %v, %v", m, sens, err)
	}
	if v, _ := ClampedVarianceSensitivity(-4, 4, 100); v != 0.64 {
		t.Errorf("variance sensitivity %v", v)
	}
}

func TestMMDSensitivity(t *testing.T) {
	if v, _ := MMDSensitivity(4, 50); v != 0.08 {
		t.Errorf("MMD sensitivity %v", v)
	}
}

// TestProbabilisticGaussian checks the modips Def. 3 pDP calibration: with
// this σ the privacy loss L = (Δ/σ)·Z + Δ²/(2σ²), Z ~ N(0,1), exceeds ε
// in absolute value with probability δ/2 + Φ(−…) ≤ δ.
func TestProbabilisticGaussian(t *testing.T) {
	for _, c := range []struct{ eps, delta float64 }{{0.5, 1e-5}, {1, 1e-3}, {3, 1e-6}} {
		sg, err := ProbabilisticGaussianSigma(GaussianConfig{Epsilon: c.eps, Delta: c.delta, Sensitivity: 1})
		if err != nil {
			t.Fatal(err)
		}
		// σ solves ε = Δ²/(2σ²) + (Δ/σ)|Φ⁻¹(δ/2)|, i.e. P(L > ε) = δ/2.
		z := normQuantile(c.delta / 2)
		if got := 1/(2*sg*sg) - z/sg; math.Abs(got-c.eps) > 1e-12*c.eps {
			t.Errorf("eps=%v delta=%v: equation gives %v", c.eps, c.delta, got)
		}
		pOver := normCDF(-(c.eps - 1/(2*sg*sg)) * sg)
		pUnder := normCDF(-(c.eps + 1/(2*sg*sg)) * sg)
		if pOver+pUnder > c.delta*(1+1e-9) {
			t.Errorf("P(|L| > ε) = %v > δ = %v", pOver+pUnder, c.delta)
		}
		g, _ := NewProbabilisticGaussian(GaussianConfig{Epsilon: c.eps, Delta: c.delta, Sensitivity: 1, Dim: 1})
		if g.Sigma() != sg || g.Budget() != (Budget{Epsilon: c.eps, Delta: c.delta}) {
			t.Errorf("constructor mismatch")
		}
	}
}
