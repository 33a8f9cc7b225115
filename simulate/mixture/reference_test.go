package mixture

import (
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestReleasesMatchReference compares the ABCDP toy model's θ* with the
// project's reference file paper-values.json (skipped when the shared
// folder is absent).
func TestReleasesMatchReference(t *testing.T) {
	var ref struct {
		ABCDP struct {
			Toy struct {
				Theta []float64 `json:"theta_true"`
			} `json:"toy_mixture_of_uniforms"`
		} `json:"abcdp"`
	}
	testutil.PaperValues(t, "simulate/mixture", &ref)
	testutil.SlicesNear(t, "abcdp theta", PaperTheta(), ref.ABCDP.Toy.Theta, 1e-12)
}
