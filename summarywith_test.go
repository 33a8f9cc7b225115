package privinfer

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestSummaryWith checks the configurable columns on the Beta(9, 6) grid
// posterior of TestGridConjugate: P(p ≤ q) against the exact CDF
// I_q(9, 6) (within one grid cell's mass, 2e-3, as there), the chosen
// quantiles against Draws.Quantiles, the printed columns, the JSON round
// trip, the defaults, and the errors naming the field.
func TestSummaryWith(t *testing.T) {
	logp := func(x []float64) float64 { return 8*math.Log(x[0]) + 5*math.Log1p(-x[0]) }
	d, err := Grid(logp, GridConfig{Lo: []float64{0}, Hi: []float64{1}, Points: []int{2000}, Names: []string{"p"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := SummaryConfig{QuantileProbs: []float64{0.1, 0.9}, Thresholds: []float64{0.5, 0.6, 0.8}}
	s, err := d.SummaryWith(cfg)
	if err != nil {
		t.Fatal(err)
	}
	row := s.Rows[0]
	for k, q := range cfg.Thresholds {
		if want := binomTail(14, 9, q); math.Abs(row.Below[k]-want) > 2e-3 || row.Below[k] != d.CDF(0, q) {
			t.Errorf("P(p ≤ %v) = %v, exact %v, CDF %v", q, row.Below[k], want, d.CDF(0, q))
		}
	}
	if q := d.Quantiles(0, 0.1, 0.9); row.Quantiles[0] != q[0] || row.Quantiles[1] != q[1] || s.HDIProb != DefaultHDIProb {
		t.Errorf("quantiles %v, want %v; HDI probability %v", row.Quantiles, q, s.HDIProb)
	}
	out := s.String()
	for _, col := range []string{"10%", "90%", "P(≤0.5)", "P(≤0.6)", "P(≤0.8)"} {
		if !strings.Contains(out, col) {
			t.Errorf("the table has no column %s:\n%s", col, out)
		}
	}
	if strings.Contains(out, "5%  ") || strings.Contains(out, "95%") {
		t.Errorf("the table keeps the default quantile columns:\n%s", out)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Thresholds) != 3 || back.Thresholds[1] != 0.6 || back.Rows[0].Below[2] != row.Below[2] {
		t.Errorf("JSON round trip lost the thresholds: %s", b)
	}

	def, err := d.SummaryWith(SummaryConfig{})
	if err != nil || def.String() != d.Summary().String() || def.Thresholds != nil || def.Rows[0].Below != nil {
		t.Errorf("the zero SummaryConfig differs from Summary (%v)", err)
	}
	if b, _ := json.Marshal(def); strings.Contains(string(b), "thresholds") || strings.Contains(string(b), "below") {
		t.Errorf("a summary without thresholds writes them: %s", b)
	}

	for _, c := range []struct {
		cfg   SummaryConfig
		field string
	}{
		{SummaryConfig{HDIProb: 1}, "SummaryConfig.HDIProb"},
		{SummaryConfig{HDIProb: math.NaN()}, "SummaryConfig.HDIProb"},
		{SummaryConfig{QuantileProbs: []float64{0.5, 1.5}}, "SummaryConfig.QuantileProbs[1]"},
		{SummaryConfig{Thresholds: []float64{math.Inf(1)}}, "SummaryConfig.Thresholds[0]"},
		{SummaryConfig{Thresholds: make([]float64, 65)}, "SummaryConfig.Thresholds"},
		{SummaryConfig{QuantileProbs: make([]float64, 65)}, "SummaryConfig.QuantileProbs"},
	} {
		if _, err := d.SummaryWith(c.cfg); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%+v: got %v, want ErrInvalid naming %s", c.cfg, err, c.field)
		}
	}
	if _, err := (&Draws{Dim: 1}).SummaryWith(SummaryConfig{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty draws: got %v, want ErrInvalid", err)
	}
}
