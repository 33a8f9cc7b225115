package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// svgCounts parses an SVG document and counts elements by name; it fails
// the test if the document is not well-formed XML.
func svgCounts(t *testing.T, c *Canvas) (map[string]int, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := c.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	counts := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			counts[se.Name.Local]++
		}
	}
	return counts, buf.String()
}

func TestNiceTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{-3.2, 7.9, []float64{-2, 0, 2, 4, 6}},
		{1e-3, 5e-3, []float64{0.001, 0.002, 0.003, 0.004, 0.005}},
	}
	for _, tc := range cases {
		got := niceTicks(tc.lo, tc.hi, 6)
		if len(got) != len(tc.want) {
			t.Fatalf("niceTicks(%v, %v) = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Fatalf("niceTicks(%v, %v) = %v, want %v", tc.lo, tc.hi, got, tc.want)
			}
		}
	}
}

func TestAxisMapping(t *testing.T) {
	a := axis{lo: 0, hi: 10, p0: 100, p1: 300}
	if got := a.pix(2.5); got != 150 {
		t.Fatalf("pix(2.5) = %v, want 150", got)
	}
	l := axis{lo: 0, hi: 2, p0: 0, p1: 200, log: true}
	if got := l.pix(10); math.Abs(got-100) > 1e-9 {
		t.Fatalf("log pix(10) = %v, want 100", got)
	}
	if !math.IsNaN(l.pix(-1)) {
		t.Fatal("log axis must map non-positive values to NaN")
	}
}

func TestHistogramIsDensity(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([][]float64, 5000)
	for i := range rows {
		rows[i] = []float64{r.NormFloat64()}
	}
	h := histogram(Sample{Rows: rows}, 0, -6, 6, 40)
	var total float64
	for _, v := range h {
		total += v * 12 / 40
	}
	if math.Abs(total-1) > 1e-12 {
		t.Fatalf("histogram integrates to %v, want 1", total)
	}
}

func TestLineChart(t *testing.T) {
	lc := LineChart{
		Title: "coverage vs m", XLabel: "m", YLabel: "coverage",
		Series: []Series{
			{Name: "DP rule", X: []float64{1, 2, 3}, Y: []float64{0.9, 0.93, 0.95}, Lo: []float64{0.88, 0.91, 0.94}, Hi: []float64{0.92, 0.95, 0.96}},
			{Name: "Rubin", X: []float64{1, 2, 3}, Y: []float64{0.8, 0.85, 0.86}, Dashed: true},
		},
		HLines: []float64{0.95},
	}
	c, err := lc.Draw()
	if err != nil {
		t.Fatal(err)
	}
	counts, svg := svgCounts(t, c)
	if counts["polyline"] != 2 || counts["polygon"] != 1 || counts["circle"] != 6 {
		t.Fatalf("unexpected element counts %v", counts)
	}
	for _, want := range []string{"coverage vs m", "DP rule", "Rubin", "stroke-dasharray"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	// Deterministic output.
	c2, _ := lc.Draw()
	var a, b bytes.Buffer
	c.WriteSVG(&a)
	c2.WriteSVG(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("rendering is not deterministic")
	}
}

func TestLineChartErrors(t *testing.T) {
	if _, err := (LineChart{}).Draw(); !errors.Is(err, ErrNoData) {
		t.Fatalf("empty chart: got %v, want ErrNoData", err)
	}
	_, err := LineChart{Series: []Series{{X: []float64{1, 2}, Y: []float64{1}}}}.Draw()
	if err == nil {
		t.Fatal("mismatched series lengths must be an error")
	}
}

func TestCornerAndHistograms(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	mk := func(name string, shift float64, n int) Sample {
		rows := make([][]float64, n)
		for i := range rows {
			rows[i] = []float64{shift + r.NormFloat64(), r.NormFloat64(), 2 * r.NormFloat64()}
		}
		return Sample{Name: name, Rows: rows}
	}
	sets := []Sample{mk("SMC-ABC", 0, 300), mk("SPPE", 0.5, 200)}
	co := Corner{Title: "posterior", Params: []string{"β0", "β1", "β2"}, Sets: sets, Truth: []float64{0, 0, 0}}
	c, err := co.Draw()
	if err != nil {
		t.Fatal(err)
	}
	counts, svg := svgCounts(t, c)
	// 3 lower panels × 500 points + 3 truth markers.
	if counts["circle"] != 3*500+3 {
		t.Fatalf("corner plot has %d circles, want %d", counts["circle"], 3*500+3)
	}
	if counts["polyline"] != 3*2 {
		t.Fatalf("corner plot has %d diagonal histograms, want 6", counts["polyline"])
	}
	if !strings.Contains(svg, "β2") || !strings.Contains(svg, "SPPE") {
		t.Fatal("labels missing")
	}
	h := Histograms{Params: []string{"a", "b", "c"}, Sets: sets, Truth: []float64{0, math.NaN(), 1}}
	c, err = h.Draw()
	if err != nil {
		t.Fatal(err)
	}
	counts, _ = svgCounts(t, c)
	if counts["polygon"] != 6 {
		t.Fatalf("histograms: %d filled bars, want 6", counts["polygon"])
	}
	bad := Corner{Params: []string{"a"}, Sets: sets}
	if _, err := bad.Draw(); err == nil {
		t.Fatal("row width mismatch must be an error")
	}
}

func TestIntervals(t *testing.T) {
	iv := Intervals{
		Title: "R0", XLabel: "R0",
		Rows: []Interval{
			{Label: "flu", Group: "SPPE", Lo: 1.2, Mid: 1.5, Hi: 1.9},
			{Label: "flu", Group: "SPLE", Lo: 1.1, Mid: 1.4, Hi: 1.8},
			{Label: "covid", Group: "SPPE", Lo: 2, Mid: 2.5, Hi: 3.1},
		},
		VLines: []float64{1},
	}
	c, err := iv.Draw()
	if err != nil {
		t.Fatal(err)
	}
	counts, _ := svgCounts(t, c)
	if counts["circle"] != 3 {
		t.Fatalf("got %d point estimates, want 3", counts["circle"])
	}
	iv.Rows[0].Mid = 5
	if _, err := iv.Draw(); err == nil {
		t.Fatal("Mid outside [Lo, Hi] must be an error")
	}
}

func TestTextIsEscaped(t *testing.T) {
	c := NewCanvas(100, 100)
	c.Text(10, 10, `a<b & "c"`, 10, "bogus", 0)
	_, svg := svgCounts(t, c)
	if !strings.Contains(svg, "a&lt;b &amp; &#34;c&#34;") || !strings.Contains(svg, `text-anchor="start"`) {
		t.Fatalf("text not escaped or anchor not defaulted:\n%s", svg)
	}
}

func TestTickLabels(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		log  bool
		want string
	}{{0, true, "1"}, {1, true, "10"}, {-2, true, "0.01"}, {6, true, "1e6"}, {0.25, false, "0.25"}, {1234567, false, "1.235e+06"}} {
		if got := tickLabel(tc.v, tc.log); got != tc.want {
			t.Errorf("tickLabel(%v, %v) = %q, want %q", tc.v, tc.log, got, tc.want)
		}
	}
}

// legendRect returns the legend box of a chart: the white-filled rectangle.
func legendRect(c *Canvas) (x, y float64, ok bool) {
	for _, it := range c.items {
		if it.kind == kRect && it.style.Fill == "white" {
			return it.pts[0], it.pts[1], true
		}
	}
	return 0, 0, false
}

// TestLegendAvoidsData checks that a line chart's legend moves away from
// the corner where the data are.
func TestLegendAvoidsData(t *testing.T) {
	var xs, high, low []float64
	for i := range 20 {
		xs = append(xs, float64(i))
		high = append(high, 10) // a flat series along the top
		low = append(low, 0)    // and one along the bottom
	}
	// Only the top series: the legend must go to a bottom corner.
	c, err := LineChart{Series: []Series{{Name: "top", X: xs, Y: high}, {Name: "mid", X: xs[:1], Y: []float64{5}}}}.Draw()
	if err != nil {
		t.Fatal(err)
	}
	_, y, ok := legendRect(c)
	if !ok || y < c.H/2 {
		t.Errorf("legend at y = %v (found %v), want the bottom half of %v", y, ok, c.H)
	}
	// Data along the bottom only: the legend stays top right.
	c, err = LineChart{Series: []Series{{Name: "bottom", X: xs, Y: low}, {Name: "mid", X: xs[:1], Y: []float64{5}}}}.Draw()
	if err != nil {
		t.Fatal(err)
	}
	x, y, ok := legendRect(c)
	if !ok || y > c.H/2 || x < c.W/2 {
		t.Errorf("legend at (%v, %v), want top right", x, y)
	}
}

// TestVLinesAndMarkers checks vertical reference lines and that dense
// series are drawn without point markers.
func TestVLinesAndMarkers(t *testing.T) {
	var xs, ys []float64
	for i := range maxMarkers + 1 {
		xs = append(xs, float64(i))
		ys = append(ys, float64(i%7))
	}
	c, err := LineChart{Series: []Series{{X: xs, Y: ys}}, VLines: []float64{3.5, math.NaN()}}.Draw()
	if err != nil {
		t.Fatal(err)
	}
	counts, _ := svgCounts(t, c)
	if counts["circle"] != 0 {
		t.Errorf("%d markers on a dense series", counts["circle"])
	}
	dashed := 0
	for _, it := range c.items {
		if it.kind == kLine && it.style.Dash != "" && it.pts[0] == it.pts[2] {
			dashed++
		}
	}
	if dashed != 1 {
		t.Errorf("%d vertical dashed lines, want 1", dashed)
	}
}

// TestLogTicksNarrowRange checks that a log axis spanning less than two
// decades gets at least two ticks labelled as plain numbers.
func TestLogTicksNarrowRange(t *testing.T) {
	for _, r := range [][2]float64{{0.004, 0.02}, {0.05, 0.5}, {3, 4}, {1e-3, 1e3}} {
		a := axis{lo: math.Log10(r[0]), hi: math.Log10(r[1]), log: true}
		ticks := logTicks(a)
		if len(ticks) < 2 {
			t.Errorf("range %v: ticks %v", r, ticks)
		}
		for _, tk := range ticks {
			lbl := tickLabel(tk, true)
			if strings.Contains(lbl, "e-1.") || strings.Contains(lbl, "e-2.") || strings.Contains(lbl, "e0.") {
				t.Errorf("range %v: unreadable label %q", r, lbl)
			}
			if _, err := strconv.ParseFloat(lbl, 64); err != nil {
				t.Errorf("range %v: label %q is not a number", r, lbl)
			}
		}
	}
}

// TestRobustRange checks that a few far-out draws of a large sample do not
// set the axis range, and that no scatter point is drawn outside a panel.
func TestRobustRange(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var rows [][]float64
	for range 2000 {
		rows = append(rows, []float64{r.NormFloat64(), r.NormFloat64()})
	}
	rows[0] = []float64{100, -100} // one wild draw
	cols := rangeColumn([]Sample{{Rows: rows}}, 0)
	lo, hi := dataRange(false, 0, cols...)
	if hi > 10 || lo < -10 {
		t.Errorf("range [%v, %v] set by an outlier", lo, hi)
	}
	c, err := Corner{Params: []string{"a", "b"}, Sets: []Sample{{Name: "s", Rows: rows}}, MaxPoints: 2000}.Draw()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range c.items {
		if it.kind == kCircle && (it.pts[0] < 0 || it.pts[0] > c.W || it.pts[1] < 0 || it.pts[1] > c.H) {
			t.Fatalf("scatter point at (%v, %v) outside the %v×%v canvas", it.pts[0], it.pts[1], c.W, c.H)
		}
	}
}

// TestCombiningMarks checks that a combining circumflex is drawn over the
// previous character in the raster (R̂ occupies one cell, with ink above
// the R where R alone has none) and that an unknown combining mark adds
// no cell and no missing-glyph box.
func TestCombiningMarks(t *testing.T) {
	ink := func(s string) (top, total int, right int) {
		c := NewCanvas(40, 30)
		c.Text(5, 20, s, 13, "start", 0)
		img := c.Raster()
		b := img.Bounds()
		right = -1
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, _, _, _ := img.At(x, y).RGBA()
				if r < 0x8000 {
					total++
					if y < 10 {
						top++
					}
					right = max(right, x)
				}
			}
		}
		return top, total, right
	}
	rTop, rTotal, rRight := ink("R")
	hTop, hTotal, hRight := ink("R\u0302")
	if hTop <= rTop || hTotal <= rTotal {
		t.Errorf("R̂ has %d pixels (%d in the top rows), R has %d (%d): no circumflex drawn", hTotal, hTop, rTotal, rTop)
	}
	if hRight != rRight {
		t.Errorf("R̂ extends to x = %d, R to %d: the mark took a cell of its own", hRight, rRight)
	}
	if _, uTotal, uRight := ink("R\u0330"); uTotal != rTotal || uRight != rRight {
		t.Errorf("an unknown combining mark changed the ink: %d pixels to x = %d, want %d to %d", uTotal, uRight, rTotal, rRight)
	}
}
