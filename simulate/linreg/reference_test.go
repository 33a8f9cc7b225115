package linreg

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestReleasesMatchReference compares the linear regression paper values with the
// project's reference file paper-values.json (skipped when the shared
// folder is absent).
func TestReleasesMatchReference(t *testing.T) {
	dir := testutil.SharedDir(t, "simulate/linreg")
	raw, err := os.ReadFile(filepath.Join(dir, "reference", "paper-values.json"))
	if err != nil {
		t.Skipf("reference file: %v", err)
	}
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
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	eq := func(name string, got, want []float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: length %d, reference %d", name, len(got), len(want))
			return
		}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("%s[%d] = %v, reference %v", name, i, got[i], want[i])
			}
		}
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
