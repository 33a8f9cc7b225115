package mechanism

import (
	"errors"
	"math"
	"testing"
)

// TestAnalyticGaussianSigmaReference compares the calibration with the
// 60-digit mpmath values of testdata/gen_analytic_gaussian.py.
func TestAnalyticGaussianSigmaReference(t *testing.T) {
	n := 0
	worst := 0.0
	for _, row := range readTable(t, "testdata/analytic_gaussian.txt") {
		eps, delta, want := row[0], row[1], row[2]
		for _, sens := range []float64{1, 0.25, 3} {
			got, err := AnalyticGaussianSigma(GaussianConfig{Epsilon: eps, Delta: delta, Sensitivity: sens})
			if err != nil {
				t.Fatal(err)
			}
			rel := math.Abs(got-want*sens) / (want * sens)
			worst = math.Max(worst, rel)
			if rel > 1e-12 {
				t.Errorf("eps=%v delta=%v sens=%v: sigma=%.17g, want %.17g (rel err %.3g)", eps, delta, sens, got, want*sens, rel)
			}
			// Smallest σ: the returned σ satisfies δ(σ) ≤ δ.
			if d := AnalyticGaussianDelta(eps, got, sens); d > delta {
				t.Errorf("eps=%v delta=%v: delta(sigma)=%v exceeds delta", eps, delta, d)
			}
		}
		n++
	}
	if n != 8 {
		t.Fatalf("read %d reference cases, want 8", n)
	}
	t.Logf("worst relative error vs mpmath: %.3g", worst)
}

func TestClassicalGaussianSigma(t *testing.T) {
	got, err := ClassicalGaussianSigma(GaussianConfig{Epsilon: 0.5, Delta: 1e-5, Sensitivity: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := 2 * math.Sqrt(2*math.Log(1.25e5)) / 0.5
	if math.Abs(got-want) > 1e-14*want {
		t.Fatalf("got %v want %v", got, want)
	}
	if _, err := ClassicalGaussianSigma(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 1}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("epsilon=1 should be rejected, got %v", err)
	}
	// The analytic calibration is never larger than the classical one.
	for _, eps := range []float64{0.05, 0.3, 0.9} {
		a, _ := AnalyticGaussianSigma(GaussianConfig{Epsilon: eps, Delta: 1e-6, Sensitivity: 1})
		c, _ := ClassicalGaussianSigma(GaussianConfig{Epsilon: eps, Delta: 1e-6, Sensitivity: 1})
		if a > c {
			t.Errorf("eps=%v analytic %v > classical %v", eps, a, c)
		}
	}
}

// TestAnalyticGaussianDeltaReference compares the privacy profile with the
// 60-digit mpmath values of testdata/gen_analytic_gaussian_delta.py,
// including the cancelling regime (small ε, large σ), and checks that the
// calibration keeps δ(σ) below its target with the margin that covers the
// measured error.
func TestAnalyticGaussianDeltaReference(t *testing.T) {
	n := 0
	worst := 0.0
	for _, row := range readTable(t, "testdata/analytic_gaussian_delta.txt") {
		eps, sigma, want := row[0], row[1], row[2]
		for _, sens := range []float64{1, 0.25, 4} {
			got := AnalyticGaussianDelta(eps, sigma*sens, sens)
			rel := math.Abs(got-want) / want
			// δ is ill-conditioned in x = εσ/Δ: rounding x by one ulp
			// moves δ by about x²·2^-53 relative, so that is the scale of
			// the tolerance; the calibration margin covers it for every
			// δ ≥ 1e-100 (x ≤ 21).
			x := eps * sigma
			tol := math.Max(2e-13, 2e-15*(1+x*x))
			if want >= 1e-100 && tol > deltaEvalMargin {
				t.Errorf("eps=%v sigma=%v: tolerance %v exceeds the calibration margin", eps, sigma, tol)
			}
			if want >= 1e-30 {
				worst = math.Max(worst, rel)
			}
			if rel > tol {
				t.Errorf("eps=%v sigma=%v sens=%v: delta=%.17g, want %.17g (rel err %.3g)", eps, sigma, sens, got, want, rel)
			}
		}
		n++
	}
	if n < 50 {
		t.Fatalf("read %d reference cases", n)
	}
	t.Logf("worst relative error of delta(sigma) vs mpmath over %d cases (delta >= 1e-30): %.3g", n, worst)
}
