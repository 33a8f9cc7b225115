package mechanism

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestConstructorErrors: bad parameters return errors that wrap
// ErrInvalid and name the argument and the constraint.
func TestConstructorErrors(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"laplace eps", second(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 0, Dim: 1})), "epsilon must be"},
		{"laplace eps NaN", second(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: nan, Dim: 1})), "epsilon must be"},
		{"laplace sens", second(NewLaplace(LaplaceConfig{Sensitivity: -1, Epsilon: 1, Dim: 1})), "sensitivity must be"},
		{"laplace dim", second(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 0})), "dim must be"},
		{"gaussian sigma", second(NewGaussian(ScaleConfig{Sigma: 0, Dim: 1})), "Sigma must be"},
		{"analytic delta 0", second(AnalyticGaussianSigma(GaussianConfig{Epsilon: 1, Delta: 0, Sensitivity: 1})), "delta must be in (0, 1)"},
		{"analytic delta 1", second(AnalyticGaussianSigma(GaussianConfig{Epsilon: 1, Delta: 1, Sensitivity: 1})), "delta must be in (0, 1)"},
		{"analytic eps", second(AnalyticGaussianSigma(GaussianConfig{Epsilon: -1, Delta: 1e-5, Sensitivity: 1})), "epsilon must be"},
		{"analytic sens", second(AnalyticGaussianSigma(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 0})), "sensitivity must be"},
		{"classical eps≥1", second(ClassicalGaussianSigma(GaussianConfig{Epsilon: 1.5, Delta: 1e-5, Sensitivity: 1})), "epsilon must be < 1"},
		{"pdp delta", second(ProbabilisticGaussianSigma(GaussianConfig{Epsilon: 1, Delta: 2, Sensitivity: 1})), "delta must be"},
		{"trajectory n", second(NewInfectionTrajectory(TrajectoryConfig{Trials: 0, Inflation: 1, Population: 1, Times: 1})), "n must be"},
		{"rr eps", second(NewRandomizedResponse(LocalConfig{Epsilon: math.Inf(1), Dim: 1})), "epsilon must be"},
		{"kary k", second(NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 1, Dim: 1})), "k must be"},
		{"oue d", second(NewOUE(LocalConfig{Epsilon: 1, Dim: 1})), "Dim must be"},
		{"exp n", second(NewExponential(ExponentialConfig{Epsilon: 1, Sensitivity: 1, Candidates: 0})), "n must be"},
		{"svt c", second(NewSparse(SparseConfig{Threshold: 0, Sensitivity: 1, Epsilon: 1, C: 0})), "c must be"},
		{"svt scale", second(NewSparseVector(SVTConfig{Sensitivity: 1, ThresholdScale: 0, QueryScale: 1, MaxAbove: 1})), "threshold noise scale"},
		{"secure eps", second(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1e-12, Dim: 1})), "epsilon must be in"},
		{"budget delta", newAccountantErr(Budget{Epsilon: 1, Delta: -0.1}), "delta must be in [0, 1)"},
		{"clamp bounds", ClampSlice(nil, nil, 1, 0), "bounds must be"},
		{"mmd", second(MMDSensitivity(0, 10)), "kernel bound"},
	}
	for _, c := range cases {
		if !errors.Is(c.err, ErrInvalid) {
			t.Errorf("%s: error %v does not wrap ErrInvalid", c.name, c.err)
			continue
		}
		if !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, c.err, c.want)
		}
	}
}

// TestGaussianCalibrationErrorsNameFields checks that the σ calibrations
// and the calibrated constructors name the GaussianConfig field at fault,
// whichever of them refuses it.
func TestGaussianCalibrationErrorsNameFields(t *testing.T) {
	for _, c := range []struct {
		name, field string
		err         error
	}{
		{"analytic epsilon", "GaussianConfig.Epsilon", second(AnalyticGaussianSigma(GaussianConfig{Epsilon: math.NaN(), Delta: 1e-5, Sensitivity: 1}))},
		{"analytic delta", "GaussianConfig.Delta", second(AnalyticGaussianSigma(GaussianConfig{Epsilon: 1, Delta: 0, Sensitivity: 1}))},
		{"analytic sensitivity", "GaussianConfig.Sensitivity", second(AnalyticGaussianSigma(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: math.Inf(1)}))},
		{"classical epsilon ≥ 1", "GaussianConfig.Epsilon", second(ClassicalGaussianSigma(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 1}))},
		{"NewClassicalGaussian epsilon ≥ 1", "GaussianConfig.Epsilon", second(NewClassicalGaussian(GaussianConfig{Epsilon: 2, Delta: 1e-5, Sensitivity: 1, Dim: 1}))},
		{"probabilistic delta", "GaussianConfig.Delta", second(ProbabilisticGaussianSigma(GaussianConfig{Epsilon: 1, Delta: 1, Sensitivity: 1}))},
	} {
		if !errors.Is(c.err, ErrInvalid) || !strings.Contains(c.err.Error(), c.field) {
			t.Errorf("%s: got %v, want an error wrapping ErrInvalid naming %s", c.name, c.err, c.field)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func newAccountantErr(b Budget) error { _, err := NewAccountant(b); return err }

// TestReleaseValidation: every mechanism refuses wrong lengths and
// non-finite statistics without touching dst.
func TestReleaseValidation(t *testing.T) {
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 3})
	sec, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 3})
	g, _ := NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-6, Sensitivity: 1, Dim: 3})
	tr, _ := NewInfectionTrajectory(TrajectoryConfig{Trials: 10, Inflation: 10, Population: 100, Times: 3})
	rr, _ := NewRandomizedResponse(LocalConfig{Epsilon: 1, Dim: 3})
	kr, _ := NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 3, Dim: 3})
	bd, _ := NewBounded(lap, []float64{0, 0, 0}, []float64{1, 1, 1}, BIT)
	sv, _ := NewAboveThreshold(AboveThresholdConfig{Threshold: 0, Sensitivity: 1, Epsilon: 1})
	for _, m := range []Mechanism{lap, sec, g, tr, rr, kr, bd, sv} {
		r := newRand(1)
		dst := []float64{7, 7, 7}
		for _, bad := range [][]float64{{0, 1}, {0, 1, math.NaN()}, {math.Inf(-1), 0, 1}} {
			err := m.Release(r, bad, dst)
			if err == nil {
				t.Errorf("%T accepted %v", m, bad)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%T: unexpected error kind %v", m, err)
			}
		}
		if err := m.Release(r, []float64{0, 1, 1}, dst[:2]); !errors.Is(err, ErrInvalid) {
			t.Errorf("%T: short dst: %v", m, err)
		}
		if dst[0] != 7 || dst[1] != 7 || dst[2] != 7 {
			t.Errorf("%T wrote into dst on invalid input: %v", m, dst)
		}
	}
	// Domain errors.
	dst := make([]float64, 3)
	if err := rr.Release(newRand(1), []float64{0, 0.5, 1}, dst); !errors.Is(err, ErrInvalid) {
		t.Errorf("RR non-bit: %v", err)
	}
	if err := kr.Release(newRand(1), []float64{0, 3, 1}, dst); !errors.Is(err, ErrInvalid) {
		t.Errorf("k-ary out of range: %v", err)
	}
	oue, _ := NewOUE(LocalConfig{Epsilon: 1, Dim: 3})
	if err := oue.Release(newRand(1), []float64{1, 1, 0}, dst); !errors.Is(err, ErrInvalid) {
		t.Errorf("OUE not one-hot: %v", err)
	}
	if err := sec.Release(newRand(1), []float64{0, 1e300, 0}, dst); !errors.Is(err, ErrInvalid) {
		t.Errorf("secure Laplace huge value: %v", err)
	}
	ex, _ := NewExponential(ExponentialConfig{Epsilon: 1, Sensitivity: 1, Candidates: 3})
	if err := ex.Release(newRand(1), []float64{0, 1, 2}, dst); !errors.Is(err, ErrInvalid) {
		t.Errorf("exponential needs a 1-element dst: %v", err)
	}
}

// TestSimulateReleaseNilGenerator checks that SimulateRelease refuses a
// nil generator with an error wrapping ErrInvalid that names r.
func TestSimulateReleaseNilGenerator(t *testing.T) {
	lap, err := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 1})
	if err != nil {
		t.Fatal(err)
	}
	gau, err := NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 1, Dim: 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]interface {
		SimulateRelease(r *rand.Rand, s, dst []float64) error
	}{"Laplace": lap, "Gaussian": gau} {
		err := m.SimulateRelease(nil, []float64{0}, make([]float64, 1))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "invalid argument: r: ") {
			t.Errorf("%s.SimulateRelease(nil, …): got %v, want ErrInvalid naming r", name, err)
		}
	}
}
