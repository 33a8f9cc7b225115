package mechanism

import (
	"errors"
	"math"
	"testing"
)

// TestZCDPEpsilonReference checks the tight zCDP → (ε, δ) conversion and
// the Bun–Steinke bound against 40-digit mpmath values
// (testdata/gen_zcdp.py).
func TestZCDPEpsilonReference(t *testing.T) {
	n := 0
	worst := 0.0
	for _, v := range readTable(t, "testdata/zcdp_epsilon.txt") {
		if len(v) != 4 {
			t.Fatalf("reference row %v: want 4 columns", v)
		}
		got, err := ZCDPEpsilon(v[0], v[1])
		if err != nil {
			t.Fatal(err)
		}
		if v[2] <= 0 {
			// ρ-zCDP already implies (0, δ)-DP.
			if got != 0 {
				t.Errorf("ρ=%v δ=%v: ε=%v, want 0 (infimum %v)", v[0], v[1], got, v[2])
			}
			n++
			continue
		}
		rel := (got - v[2]) / v[2]
		// Soundness: the returned ε is ε(α) at some α, never below the
		// infimum (up to rounding of one evaluation).
		if rel < -1e-14 {
			t.Errorf("ρ=%v δ=%v: ε=%v below the infimum %v", v[0], v[1], got, v[2])
		}
		worst = math.Max(worst, math.Abs(rel))
		if math.Abs(rel) > 1e-12 {
			t.Errorf("ρ=%v δ=%v: ε=%v, reference %v (rel %.2g)", v[0], v[1], got, v[2], rel)
		}
		bs, err := ZCDPEpsilonBS(v[0], v[1])
		if err != nil || math.Abs(bs-v[3]) > 1e-14*v[3] {
			t.Errorf("ρ=%v δ=%v: Bun–Steinke ε=%v, reference %v", v[0], v[1], bs, v[3])
		}
		if got > bs {
			t.Errorf("ρ=%v δ=%v: tight ε=%v above Bun–Steinke %v", v[0], v[1], got, bs)
		}
		n++
	}
	if n < 60 {
		t.Fatalf("only %d reference rows", n)
	}
	t.Logf("%d (ρ, δ) pairs: max relative error of the tight conversion %.2g", n, worst)
}

// TestZCDPGaussianVsAnalytic: the (ε, δ) implied by the Gaussian
// mechanism's ρ = Δ²/(2σ²) can never beat the exact (analytic) δ(ε) of the
// same Gaussian mechanism (Balle & Wang 2018), and is within a small
// factor of it.
func TestZCDPGaussianVsAnalytic(t *testing.T) {
	for _, sigma := range []float64{0.5, 1, 3, 10, 50} {
		for _, delta := range []float64{1e-9, 1e-6, 1e-3} {
			rho, err := GaussianRho(1, sigma)
			if err != nil || math.Abs(rho-1/(2*sigma*sigma)) > 1e-16 {
				t.Fatalf("GaussianRho(1, %v) = %v, %v", sigma, rho, err)
			}
			eps, err := ZCDPEpsilon(rho, delta)
			if err != nil {
				t.Fatal(err)
			}
			exact := AnalyticGaussianDelta(eps, sigma, 1)
			if exact > delta*(1+1e-9) {
				t.Errorf("σ=%v δ=%v: zCDP ε=%v but the exact δ(ε)=%v exceeds δ", sigma, delta, eps, exact)
			}
			// The analytic calibration at this ε needs σ* ≤ σ, and the
			// conversion loses little: σ*/σ > 0.75.
			s, err := AnalyticGaussianSigma(GaussianConfig{Epsilon: eps, Delta: delta, Sensitivity: 1})
			if err != nil || s > sigma*(1+1e-9) || s < 0.75*sigma {
				t.Errorf("σ=%v δ=%v ε=%v: analytic σ* = %v", sigma, delta, eps, s)
			}
		}
	}
}

func TestAccountantZCDP(t *testing.T) {
	// Two Gaussian releases of ρ = 0.05 compose to ρ = 0.1; at δ = 1e-6
	// the guarantee is ε(0.1, 1e-6).
	a, err := NewAccountant(Budget{Epsilon: 3, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := a.SpendRho(0.05); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := ZCDPEpsilon(0.1, 1e-6)
	if g := a.Guarantee(); math.Abs(g.Epsilon-want) > 1e-15 || g.Delta != 1e-6 || a.Rho() != 0.1 {
		t.Errorf("guarantee %v (ρ=%v), want ε=%v", g, a.Rho(), want)
	}
	if rem := a.Remaining(); math.Abs(rem.Epsilon-(3-want)) > 1e-12 {
		t.Errorf("remaining %v, want ε=%v", rem, 3-want)
	}
	// A pure spend composes as ε²/2-zCDP when that is better than adding ε.
	if err := a.Spend(Budget{Epsilon: 0.1}); err != nil {
		t.Fatal(err)
	}
	viaRho, _ := ZCDPEpsilon(0.1+0.005, 1e-6)
	if g := a.Guarantee(); math.Abs(g.Epsilon-math.Min(viaRho, want+0.1)) > 1e-15 {
		t.Errorf("mixed guarantee %v, want ε=%v", g, math.Min(viaRho, want+0.1))
	}
	// Spending beyond the total is refused and records nothing.
	before := a.Guarantee()
	if err := a.SpendRho(2); !errors.Is(err, ErrBudgetExceeded) {
		t.Errorf("overspend: %v", err)
	}
	if a.Guarantee() != before {
		t.Error("refused spend was recorded")
	}
	// zCDP needs δ > 0 in the total.
	p, _ := NewAccountant(Budget{Epsilon: 10})
	if err := p.SpendRho(1e-6); !errors.Is(err, ErrBudgetExceeded) {
		t.Errorf("zCDP spend on a pure budget: %v", err)
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if err := a.SpendRho(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("SpendRho(%v): %v", bad, err)
		}
		if _, err := ZCDPEpsilon(bad, 1e-6); !errors.Is(err, ErrInvalid) {
			t.Errorf("ZCDPEpsilon(%v): %v", bad, err)
		}
		if _, err := GaussianRho(1, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("GaussianRho(σ=%v): %v", bad, err)
		}
	}
	for _, bad := range []float64{0, 1, -1, math.NaN()} {
		if _, err := ZCDPEpsilon(0.1, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ZCDPEpsilon(δ=%v): %v", bad, err)
		}
	}
	// Without zCDP spends the accountant is plain sequential composition.
	s, _ := NewAccountant(Budget{Epsilon: 1, Delta: 1e-5})
	_ = s.Spend(Budget{Epsilon: 0.3, Delta: 1e-6})
	_ = s.Spend(Budget{Epsilon: 0.2})
	if g := s.Guarantee(); g != (Budget{Epsilon: 0.5, Delta: 1e-6}) || g != s.Spent() {
		t.Errorf("sequential guarantee %v", g)
	}
}

// TestAccountantReleaseZCDP charges a mechanism's ρ and refunds it when the
// release fails validation.
func TestAccountantReleaseZCDP(t *testing.T) {
	g, _ := NewGaussian(ScaleConfig{Sigma: 2, Dim: 1})
	m := rhoGaussian{g, 1.0 / 8}
	a, _ := NewAccountant(Budget{Epsilon: 5, Delta: 1e-6})
	dst := make([]float64, 1)
	if err := a.ReleaseZCDP(m, newRand(1), []float64{3}, dst); err != nil || a.Rho() != 0.125 {
		t.Fatalf("release: %v, ρ=%v", err, a.Rho())
	}
	if err := a.ReleaseZCDP(m, newRand(1), []float64{math.NaN()}, dst); !errors.Is(err, ErrInvalid) || a.Rho() != 0.125 {
		t.Errorf("failed release: %v, ρ=%v (want refund)", err, a.Rho())
	}
}

type rhoGaussian struct {
	*Gaussian
	rho float64
}

func (m rhoGaussian) Rho() float64 { return m.rho }
