package ldp

import (
	"math"
	"testing"
)

func TestSensitivities(t *testing.T) {
	// Corollary 3.1 is Lemma 3.1 at R = 1, equal σ.
	for _, ry := range []float64{0.5, 1, 2} {
		a, _ := LinRegSensitivity(LinRegSensitivityConfig{R: 1, RY: ry, Sigma1: 1.3, Sigma2: 1.3, Sigma3: 1.3})
		b, _ := LinRegSensitivityEqual(ry)
		if math.Abs(a-b) > 1e-14 {
			t.Errorf("RY=%v: Lemma %v vs Corollary %v", ry, a, b)
		}
	}
	if v, _ := LinRegSensitivityEqual(1); math.Abs(v-math.Sqrt(5.5)) > 1e-15 {
		t.Errorf("Cor 3.1 at RY=1: %v", v)
	}
	// Lemma 3.1 by hand at R = 2, RY = 3, σ = (1, 2, 4): c1 = 1/4, c2 = 1/16,
	// Δ² = 81/32 + 32 + 2·(1/4)·9·4 + 81/16 = 1843/32.
	if v, _ := LinRegSensitivity(LinRegSensitivityConfig{R: 2, RY: 3, Sigma1: 1, Sigma2: 2, Sigma3: 4}); math.Abs(v-math.Sqrt(1843.0/32)) > 1e-13 {
		t.Errorf("Lemma 3.1: %v, want %v", v, math.Sqrt(1843.0/32))
	}
	a, _ := LogRegSensitivity(LogRegSensitivityConfig{R: 1, Sigma1: 0.9, Sigma2: 0.9})
	if math.Abs(a-LogRegSensitivityEqual()) > 1e-14 || math.Abs(a-math.Sqrt(4.5)) > 1e-15 {
		t.Errorf("Cor 13.1: %v", a)
	}
	// Lemma 13.1 by hand at R = 2, σ1 = 1, σ2 = 2: 4/2 + 8 + 2·16/4 = 18.
	if v, _ := LogRegSensitivity(LogRegSensitivityConfig{R: 2, Sigma1: 1, Sigma2: 2}); math.Abs(v-math.Sqrt(18)) > 1e-14 {
		t.Errorf("Lemma 13.1: %v, want √18", v)
	}
	if v, _ := InputSensitivity(1.5); v != 3 {
		t.Errorf("input sensitivity %v", v)
	}
}
