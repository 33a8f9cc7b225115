package linreg

import (
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestReleasesMatchReference compares the linear regression paper values with the
// project's reference file paper-values.json (skipped when the shared
// folder is absent).
func TestReleasesMatchReference(t *testing.T) {
	var ref struct {
		LR struct {
			Theta  []float64 `json:"theta_true"`
			Conf   []float64 `json:"s_clamped_confidential_vec"`
			Eps10  []float64 `json:"s_dp_observed_vec_eps10"`
			Eps1   []float64 `json:"s_dp_observed_vec_eps1"`
			Eps01  []float64 `json:"s_dp_observed_vec_eps0.1"`
			Mean   []float64 `json:"predictor_mean"`
			Sigma2 float64   `json:"sigma2"`
		} `json:"linear_regression"`
	}
	testutil.PaperValues(t, "simulate/linreg", &ref)
	eq := func(name string, got, want []float64) {
		t.Helper()
		testutil.SlicesNear(t, name, got, want, 1e-12)
	}
	eq("lr theta", PaperTheta(), ref.LR.Theta)
	eq("lr conf", ConfidentialStat(), ref.LR.Conf)
	for _, c := range []struct {
		eps  float64
		want []float64
	}{{10, ref.LR.Eps10}, {1, ref.LR.Eps1}, {0.1, ref.LR.Eps01}} {
		got, _ := Release(c.eps)
		eq("lr release", got, c.want)
	}
}
