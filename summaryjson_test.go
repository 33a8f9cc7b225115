package privinfer

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestSummaryJSONRoundTrip(t *testing.T) {
	weighted := &Draws{Dim: 1, Names: []string{"p"}, Theta: []float64{1, 2, 3, 4}, Weights: []float64{1, 2, 3, 4}}
	chained := &Draws{Dim: 2, Names: []string{"a", "b"}, Chains: 2}
	for i := range 40 {
		chained.Theta = append(chained.Theta, math.Sin(float64(i)), float64(i%7))
	}
	constant := &Draws{Dim: 1, Theta: []float64{1, 1, 1, 1, 1, 1, 1}}
	for name, d := range map[string]*Draws{"weighted": weighted, "chained": chained, "constant": constant} {
		s := d.Summary()
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var back Summary
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %s: %v", name, b, err)
		}
		if !sameSummary(s, &back) {
			t.Errorf("%s: round trip differs:\n%+v\n%+v", name, s, &back)
		}
		if back.String() != s.String() {
			t.Errorf("%s: the table of the round trip differs", name)
		}
	}
	b, _ := json.Marshal(weighted.Summary())
	if !strings.Contains(string(b), `"r_hat":"NaN"`) || !strings.Contains(string(b), `"quantile_probs":[0.05,0.5,0.95]`) {
		t.Errorf("weighted summary JSON %s lacks \"r_hat\":\"NaN\" or the quantile probabilities", b)
	}
	var s Summary
	if err := json.Unmarshal([]byte(`{"rows":[{"mean":"big"}]}`), &s); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad summary JSON: %v", err)
	}
	if b, err := json.Marshal((*Summary)(nil)); err != nil || string(b) != "null" {
		t.Errorf("nil summary: %s, %v", b, err)
	}
}

// sameSummary compares summaries field by field, NaN equal to NaN.
func sameSummary(a, b *Summary) bool {
	eq := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
	eqs := func(x, y []float64) bool {
		if len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !eq(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	if !eq(a.HDIProb, b.HDIProb) || !eqs(a.QuantileProbs, b.QuantileProbs) || a.Weighted != b.Weighted || !eq(a.ESS, b.ESS) ||
		a.Draws != b.Draws || a.Chains != b.Chains || a.Reason != b.Reason || len(a.Rows) != len(b.Rows) {
		return false
	}
	for i, r := range a.Rows {
		q := b.Rows[i]
		if r.Name != q.Name || !eqs([]float64{r.Mean, r.SD, r.HDILow, r.HDIHigh, r.MCSEMean, r.MCSESD, r.ESSBulk, r.ESSTail, r.RHat},
			[]float64{q.Mean, q.SD, q.HDILow, q.HDIHigh, q.MCSEMean, q.MCSESD, q.ESSBulk, q.ESSTail, q.RHat}) || !eqs(r.Quantiles, q.Quantiles) {
			return false
		}
	}
	return true
}
