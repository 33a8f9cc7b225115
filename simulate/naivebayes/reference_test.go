package naivebayes

import (
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestReleasesMatchReference compares the naive Bayes paper release with the
// project's reference file paper-values.json (skipped when the shared
// folder is absent).
func TestReleasesMatchReference(t *testing.T) {
	var ref struct {
		NB struct {
			Obs []float64 `json:"observed_private_vec"`
		} `json:"naive_bayes_loglinear"`
	}
	testutil.PaperValues(t, "simulate/naivebayes", &ref)
	testutil.SlicesNear(t, "nb release", Release(), ref.NB.Obs, 1e-12)
}
