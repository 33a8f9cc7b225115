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

func TestLinRegStats(t *testing.T) {
	// Two records, p = 2.
	x := []float64{0.5, -1, 1, 0.25}
	y := []float64{0.2, -0.6}
	dst := make([]float64, LinRegStatDim(2))
	if len(dst) != 9 {
		t.Fatalf("stat dim %d, want 9", len(dst))
	}
	if err := LinRegStats(x, y, 2, dst); err != nil {
		t.Fatal(err)
	}
	want := []float64{
		(0.2 - 0.6) / 2, (0.5*0.2 + 1*-0.6) / 2, (-1*0.2 + 0.25*-0.6) / 2, // x'y/n
		(0.04 + 0.36) / 2,              // y'y/n
		(0.5 + 1) / 2, (-1 + 0.25) / 2, // (0,1), (0,2)
		(0.25 + 1) / 2, (0.5*-1 + 1*0.25) / 2, (1 + 0.0625) / 2, // (1,1), (1,2), (2,2)
	}
	for i := range want {
		if math.Abs(dst[i]-want[i]) > 1e-15 {
			t.Errorf("stat %d = %v, want %v", i, dst[i], want[i])
		}
	}
	if s, _ := LinRegSensitivity(2, 100); s != 0.13 {
		t.Errorf("(p²+3p+3)/n = %v, want 0.13", s)
	}
	if err := LinRegStats([]float64{2, 0}, []float64{0}, 2, dst); err == nil {
		t.Error("unnormalised x accepted")
	}
}

// TestLinRegSensitivityBound searches neighbouring records over a grid of
// values in [-1, 1] for the largest ℓ1 change of n·LinRegStats and checks
// it against the stated sensitivity for p = 1, 2 (the paper's p).
func TestLinRegSensitivityBound(t *testing.T) {
	grid := []float64{-1, -0.5, 0, 0.5, 1}
	for _, p := range []int{1, 2} {
		bound, _ := LinRegSensitivity(p, 1)
		cons, _ := LinRegSensitivityConservative(p, 1)
		if cons < bound {
			t.Errorf("conservative bound %v below paper bound %v", cons, bound)
		}
		d := LinRegStatDim(p)
		a := make([]float64, d)
		b := make([]float64, d)
		nv := p + 1
		total := 1
		for i := 0; i < 2*nv; i++ {
			total *= len(grid)
		}
		worst := 0.0
		rec := make([]float64, 2*nv)
		for idx := 0; idx < total; idx++ {
			k := idx
			for j := range rec {
				rec[j] = grid[k%len(grid)]
				k /= len(grid)
			}
			_ = LinRegStats(rec[:p], rec[p:p+1], p, a)
			_ = LinRegStats(rec[nv:nv+p], rec[nv+p:nv+p+1], p, b)
			l1 := 0.0
			for j := range a {
				l1 += math.Abs(a[j] - b[j])
			}
			worst = math.Max(worst, l1)
		}
		t.Logf("p=%d: worst grid ℓ1 change %v, stated sensitivity %v", p, worst, bound)
		if worst > bound+1e-12 {
			t.Errorf("p=%d: ℓ1 change %v exceeds (p²+3p+3) = %v", p, worst, bound)
		}
	}
}

func TestLDPSensitivities(t *testing.T) {
	// Corollary 3.1 is Lemma 3.1 at R = 1, equal σ.
	for _, ry := range []float64{0.5, 1, 2} {
		a, _ := LDPLinRegSensitivity(1, ry, 1.3, 1.3, 1.3)
		b, _ := LDPLinRegSensitivityEqual(ry)
		if math.Abs(a-b) > 1e-14 {
			t.Errorf("Ry=%v: Lemma %v vs Corollary %v", ry, a, b)
		}
	}
	if v, _ := LDPLinRegSensitivityEqual(1); math.Abs(v-math.Sqrt(5.5)) > 1e-15 {
		t.Errorf("Cor 3.1 at Ry=1: %v", v)
	}
	a, _ := LDPLogRegSensitivity(1, 0.9, 0.9)
	if math.Abs(a-LDPLogRegSensitivityEqual()) > 1e-14 || math.Abs(a-math.Sqrt(4.5)) > 1e-15 {
		t.Errorf("Cor 13.1: %v", a)
	}
	if v, _ := LDPInputSensitivity(1.5); v != 3 {
		t.Errorf("input sensitivity %v", v)
	}
	if v, _ := NaiveBayesLaplaceScale(2, 100, 10); v != 0.004 {
		t.Errorf("naive Bayes scale %v, want 2K/(nε) = 0.004", v)
	}
	if v, _ := MMDSensitivity(4, 50); v != 0.08 {
		t.Errorf("MMD sensitivity %v", v)
	}
}

// TestProbabilisticGaussian checks the modips Def. 3 pDP calibration: with
// this σ the privacy loss L = (Δ/σ)·Z + Δ²/(2σ²), Z ~ N(0,1), exceeds ε
// in absolute value with probability δ/2 + Φ(−…) ≤ δ.
func TestProbabilisticGaussian(t *testing.T) {
	for _, c := range []struct{ eps, delta float64 }{{0.5, 1e-5}, {1, 1e-3}, {3, 1e-6}} {
		sg, err := ProbabilisticGaussianSigma(c.eps, c.delta, 1)
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
