package ldp

import (
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
)

var calibLevels = []float64{0.5, 0.7, 0.9, 0.95}

// checkCalibration asserts that, for each ε, both parameters' coverage at
// every level lies in the Clopper–Pearson interval (α = 1e-3 per check, 24
// checks: family-wise false-alarm rate ≤ 2.4%) and that the PIT values pass
// a KS test for uniformity at p > 1e-3.
func checkCalibration(t *testing.T, n, datasets int) {
	prior := GaussianPrior{Mu0: 0, Sd0: 1, Shape: 2, Rate: 2}
	for ei, eps := range []float64{0.1, 1, 10} {
		res, err := CalibrateGaussian(t.Context(), CalibrationConfig{A: -5, B: 5, Epsilon: eps, N: n, Datasets: datasets, Prior: prior, GridSize: 32, Seed: uint64(100 + ei)})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range calibLevels {
			cm, cs := res.Coverage(q)
			for _, c := range []struct {
				name string
				v    float64
			}{{"mu", cm}, {"sigma", cs}} {
				k := int64(c.v*float64(datasets) + 0.5)
				lo, hi := stats.ClopperPearson(k, int64(datasets), 1e-3)
				t.Logf("eps=%-4v %-5s nominal %.2f  coverage %.3f  (99.9%% CP [%.3f, %.3f])", eps, c.name, q, c.v, lo, hi)
				if q < lo || q > hi {
					t.Errorf("eps=%v %s: coverage %.3f at nominal %.2f outside [%.3f, %.3f]", eps, c.name, c.v, q, lo, hi)
				}
			}
		}
		for name, pit := range map[string][]float64{"mu": res.PITMu, "sigma": res.PITSigma} {
			_, p := stats.KSOneSample(pit, func(x float64) float64 { return min(max(x, 0), 1) })
			if p < 1e-3 {
				t.Errorf("eps=%v %s: PIT not uniform, KS p = %.2g", eps, name, p)
			}
		}
	}
}

// TestGaussianCalibrationReduced is the default-size version of LDP Fig. 1:
// 100 datasets of 50 reports per ε, grid posterior.
func TestGaussianCalibrationReduced(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	checkCalibration(t, 50, 100)
}

// TestGaussianCalibrationLong is the full study: 300 datasets of 1000
// reports per ε (PRIVINFER_LONG=1).
func TestGaussianCalibrationLong(t *testing.T) {
	testutil.Long(t)
	checkCalibration(t, 1000, 300)
}
