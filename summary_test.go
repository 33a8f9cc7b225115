package privinfer

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestSummaryMatchesMethods checks every Summary entry against the method
// that defines it, and the chained case against the Python references.
func TestSummaryMatchesMethods(t *testing.T) {
	d, ref := readDiagCase(t, "ar1")
	d.Names = []string{"x", "y"}
	s := d.Summary()
	if s == nil || len(s.Rows) != 2 || s.Weighted || s.Chains != 4 || s.Draws != 4000 || s.HDIProb != 0.94 {
		t.Fatalf("summary %+v", s)
	}
	r, ok := s.Row("x")
	if !ok {
		t.Fatal("no row x")
	}
	lo, hi := d.HDI(0, 0.94)
	mcsd, err := d.MCSESD(0)
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range []struct{ got, want float64 }{
		{r.Mean, d.Mean()[0]}, {r.SD, d.SD()[0]}, {r.HDILow, lo}, {r.HDIHigh, hi},
		{r.MCSEMean, ref[5]}, {r.MCSESD, mcsd}, {r.ESSBulk, ref[2]}, {r.ESSTail, ref[3]}, {r.RHat, ref[0]},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("entry %d = %v, want %v", k, c.got, c.want)
		}
	}
	// MCSESD against the ArviZ formula's independent Python value.
	if !near(mcsd, 0.04160727150232761, 1e-9) {
		t.Errorf("MCSESD = %.15g, reference 0.04160727150232761", mcsd)
	}
	if s.Reason != "" {
		t.Errorf("Reason = %q", s.Reason)
	}
	lines := strings.Split(strings.TrimSpace(s.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "hdi_3%") || !strings.Contains(lines[0], "r_hat") || !strings.HasPrefix(lines[1], "x ") {
		t.Errorf("table:\n%s", s)
	}
}

func TestSummaryWeighted(t *testing.T) {
	d := &Draws{Dim: 1, Names: []string{"p"}, Theta: []float64{1, 2, 3, 4}, Weights: []float64{1, 2, 3, 4}}
	s := d.Summary()
	r := s.Rows[0]
	// Mean Σ w x/Σw = 30/10; ESS = 100/30.
	if !s.Weighted || !near(r.Mean, 3, 1e-15) || !near(s.ESS, 10.0/3, 1e-15) {
		t.Errorf("weighted summary %+v %+v", s, r)
	}
	if !near(r.MCSEMean, d.SD()[0]/math.Sqrt(10.0/3), 1e-15) {
		t.Errorf("weighted MCSE = %v", r.MCSEMean)
	}
	if !math.IsNaN(r.RHat) || !math.IsNaN(r.ESSBulk) || !math.IsNaN(r.MCSESD) {
		t.Errorf("chain diagnostics of weighted draws: %+v", r)
	}
	// Biased variance 0.4 + 0.2 + 0 + 0.4 = 1, Σw² = 0.3: sd = √(1/0.7),
	// MCSE = sd/√(10/3).
	// Quantiles: the sorted draws sit at the midpoints of their
	// cumulative weights, 0.05, 0.2, 0.45 and 0.8, so q5% = 1, the median
	// 3 + 0.05/0.35 = 3.143 and q95% = 4 (beyond the last midpoint).
	want := "    mean     sd  hdi_3%  hdi_97%     5%    50%    95%  mcse_mean  ess\n" +
		"p  3.000  1.195   1.000    4.000  1.000  3.143  4.000      0.655    3\n"
	if q := r.Quantiles; len(q) != 3 || q[0] != 1 || !near(q[1], 3+0.05/0.35, 1e-14) || q[2] != 4 {
		t.Errorf("weighted quantiles %v, want [1 %v 4]", q, 3+0.05/0.35)
	}
	if got := s.String(); got != want {
		t.Errorf("weighted table:\n%s\nwant\n%s", got, want)
	}
	// Degenerate diagnostics are NaN with a reason, not a failure.
	c := (&Draws{Dim: 1, Theta: []float64{1, 1, 1, 1, 1, 1, 1}}).Summary()
	if c == nil || !math.IsNaN(c.Rows[0].RHat) || !strings.Contains(c.Reason, "equal") {
		t.Errorf("constant draws: %+v", c)
	}
	if (&Draws{}).Summary() != nil || d.SummaryHDI(1) != nil {
		t.Error("summary of invalid input")
	}
	var none *Summary
	if !strings.Contains(none.String(), "no summary") {
		t.Error("nil summary String")
	}
}

func TestCorner(t *testing.T) {
	d := &Draws{Dim: 2, Names: []string{"a", "b"}, Theta: []float64{0, 1, 1, 0, 0.5, 0.5, 2, 2}, Weights: []float64{1, 2, 3, 4}}
	ref := &Draws{Dim: 2, Theta: []float64{0, 0, 1, 1, 2, 2}}
	var b bytes.Buffer
	cfg := CornerConfig{Title: "posterior", Label: "weighted", Compare: []*Draws{ref}, CompareLabels: []string{"reference"}, Truth: []float64{1, math.NaN()}}
	if err := d.Corner(&b, cfg); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, s := range []string{"<svg", "posterior", "weighted", "reference", ">a<", ">b<", "</svg>"} {
		if !strings.Contains(svg, s) {
			t.Errorf("SVG lacks %q", s)
		}
	}
	var b2 bytes.Buffer
	_ = d.Corner(&b2, cfg)
	if b2.String() != svg {
		t.Error("corner plot is not deterministic")
	}
	bad := []CornerConfig{
		{Truth: []float64{1}},
		{Compare: []*Draws{{Dim: 1, Theta: []float64{1}}}},
		{Compare: []*Draws{nil}},
		{Compare: []*Draws{ref}, CompareLabels: []string{}},
		{Bins: -1},
		{Panel: math.NaN()},
	}
	for k, c := range bad {
		if err := d.Corner(&b, c); !errors.Is(err, ErrInvalid) {
			t.Errorf("config %d: %v", k, err)
		}
	}
	if err := (&Draws{Dim: 1}).Corner(&b, CornerConfig{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("no draws: %v", err)
	}
	if err := d.Corner(nil, CornerConfig{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil writer: %v", err)
	}
}

// TestCornerPNG checks that the PNG corner plot decodes, has the SVG's
// size, is deterministic, and refuses what Corner refuses.
func TestCornerPNG(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	d := &Draws{Dim: 2, Names: []string{"a", "b"}, Theta: []float64{0, 1, 1, 0, 0.5, 0.5, 2, 2}, Weights: []float64{1, 2, 3, 4}}
	cfg := CornerConfig{Title: "posterior", Label: "weighted", Panel: 100}
	var b, b2 bytes.Buffer
	if err := d.CornerPNG(&b, cfg); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := d.Corner(&svg, cfg); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`width="%d" height="%d"`, img.Bounds().Dx(), img.Bounds().Dy())
	if !strings.Contains(svg.String(), want) {
		t.Errorf("PNG is %v, SVG header %.200q", img.Bounds(), svg.String())
	}
	if err := d.CornerPNG(&b2, cfg); err != nil || !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Errorf("corner PNG is not deterministic (%v)", err)
	}
	if err := d.CornerPNG(&b, CornerConfig{Bins: -1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Bins -1: %v", err)
	}
	if err := d.CornerPNG(nil, cfg); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil writer: %v", err)
	}
}
