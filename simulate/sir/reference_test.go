package sir

import (
	"encoding/json"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestReleasesMatchReference compares the SIR paper values with the
// project's reference file paper-values.json (skipped when the shared
// folder is absent).
func TestReleasesMatchReference(t *testing.T) {
	var ref struct {
		SIR struct {
			Synthetic struct {
				K           float64   `json:"K"`
				RecordTimes []float64 `json:"record_times"`
				Theta       []float64 `json:"theta_true_log"`
				Eps10       []float64 `json:"eps10"`
				Eps1        []float64 `json:"eps1"`
				Eps01       []float64 `json:"eps0.1"`
			} `json:"synthetic"`
			Real map[string]json.RawMessage `json:"real_outbreaks"`
		} `json:"sir"`
	}
	testutil.PaperValues(t, "simulate/sir", &ref)
	eq := func(name string, got, want []float64) {
		t.Helper()
		testutil.SlicesNear(t, name, got, want, 1e-12)
	}
	s := ref.SIR.Synthetic
	if s.K != SyntheticK {
		t.Errorf("K %v", s.K)
	}
	eq("record times", PaperTimes(), s.RecordTimes)
	eq("sir theta", SyntheticTheta(), s.Theta)
	for _, c := range []struct {
		eps  float64
		want []float64
	}{{10, s.Eps10}, {1, s.Eps1}, {0.1, s.Eps01}} {
		got, _ := SyntheticRelease(c.eps)
		eq("sir release", got, c.want)
	}
	for _, o := range Outbreaks() {
		var e struct {
			SDP   []float64 `json:"s_dp"`
			Theta []float64 `json:"code_reference_log_theta"`
		}
		if err := json.Unmarshal(ref.SIR.Real[o.Name], &e); err != nil {
			t.Fatalf("%s: %v", o.Name, err)
		}
		eq(o.Name, o.SDP, e.SDP)
		eq(o.Name+" theta", o.CodeLogTheta, e.Theta)
	}
}
