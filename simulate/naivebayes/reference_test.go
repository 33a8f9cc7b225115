package naivebayes

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestReleasesMatchReference compares the naive Bayes paper release with the
// project's reference file paper-values.json (skipped when the shared
// folder is absent).
func TestReleasesMatchReference(t *testing.T) {
	dir := testutil.SharedDir(t, "simulate/naivebayes")
	raw, err := os.ReadFile(filepath.Join(dir, "reference", "paper-values.json"))
	if err != nil {
		t.Skipf("reference file: %v", err)
	}
	var ref struct {
		NB struct {
			Obs []float64 `json:"observed_private_vec"`
		} `json:"naive_bayes_loglinear"`
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
	eq("nb release", Release(), ref.NB.Obs)
}
