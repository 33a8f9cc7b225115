package mixture

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestReleasesMatchReference compares the ABCDP toy model's θ* with the
// project's reference file paper-values.json (skipped when the shared
// folder is absent).
func TestReleasesMatchReference(t *testing.T) {
	dir := testutil.SharedDir(t, "simulate/mixture")
	raw, err := os.ReadFile(filepath.Join(dir, "reference", "paper-values.json"))
	if err != nil {
		t.Skipf("reference file: %v", err)
	}
	var ref struct {
		ABCDP struct {
			Toy struct {
				Theta []float64 `json:"theta_true"`
			} `json:"toy_mixture_of_uniforms"`
		} `json:"abcdp"`
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
	eq("abcdp theta", PaperTheta(), ref.ABCDP.Toy.Theta)
}
