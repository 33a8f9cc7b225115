package plot

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Series is one curve of a LineChart. Lo and Hi, when non-nil, give an
// error band drawn as a shaded region; they must have the length of X.
type Series struct {
	Name   string
	X, Y   []float64
	Lo, Hi []float64
	Dashed bool
}

// LineChart is a line plot with optional error bands, such as a metric
// against rounds or coverage against m.
type LineChart struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Series                []Series
	// HLines are horizontal reference lines (for example a nominal
	// coverage level), drawn dashed.
	HLines []float64
	// VLines are vertical reference lines (for example a true value),
	// drawn dashed.
	VLines []float64
	Width  float64 // pixels; 0 means 640
	Height float64 // pixels; 0 means 420
}

// maxMarkers is the largest number of points of a series drawn with a
// marker at every point.
const maxMarkers = 80

// ErrNoData is returned when a chart has nothing to draw.
var ErrNoData = errors.New("plot: no data")

// Draw lays the chart out on a new canvas.
func (l LineChart) Draw() (*Canvas, error) {
	if len(l.Series) == 0 {
		return nil, ErrNoData
	}
	var xs, ys [][]float64
	for i, s := range l.Series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("plot: series %d (%q): len(X) = %d, len(Y) = %d", i, s.Name, len(s.X), len(s.Y))
		}
		if (s.Lo != nil && len(s.Lo) != len(s.X)) || (s.Hi != nil && len(s.Hi) != len(s.X)) {
			return nil, fmt.Errorf("plot: series %d (%q): band length does not match X", i, s.Name)
		}
		xs = append(xs, s.X)
		ys = append(ys, s.Y, s.Lo, s.Hi)
	}
	ys = append(ys, l.HLines)
	xs = append(xs, l.VLines)
	c := NewCanvas(orDefault(l.Width, 640), orDefault(l.Height, 420))
	xlo, xhi := dataRange(l.LogX, 0.02, xs...)
	ylo, yhi := dataRange(l.LogY, 0.05, ys...)
	x := axis{lo: xlo, hi: xhi, p0: 70, p1: c.W - 20, log: l.LogX, label: l.XLabel}
	y := axis{lo: ylo, hi: yhi, p0: c.H - 50, p1: 35, log: l.LogY, label: l.YLabel, vertical: true}
	frame(c, x, y, true)
	if l.Title != "" {
		c.Text(c.W/2, 20, l.Title, titleSize, "middle", 0)
	}
	for _, h := range l.HLines {
		py := y.pix(h)
		c.Line(x.p0, py, x.p1, py, Style{Stroke: "#555555", StrokeWidth: 1, Dash: "5,4"})
	}
	for _, v := range l.VLines {
		if !finite(v) || (l.LogX && v <= 0) {
			continue
		}
		px := x.pix(v)
		c.Line(px, y.p0, px, y.p1, Style{Stroke: "#555555", StrokeWidth: 1, Dash: "5,4"})
	}
	var names, colors []string
	for i, s := range l.Series {
		col := color(i)
		if s.Lo != nil && s.Hi != nil {
			var bx, by []float64
			for j := range s.X {
				bx = append(bx, x.pix(s.X[j]))
				by = append(by, y.pix(s.Hi[j]))
			}
			for j := len(s.X) - 1; j >= 0; j-- {
				bx = append(bx, x.pix(s.X[j]))
				by = append(by, y.pix(s.Lo[j]))
			}
			c.Polygon(bx, by, Style{Fill: col, Opacity: 0.2})
		}
		px := make([]float64, len(s.X))
		py := make([]float64, len(s.Y))
		for j := range s.X {
			px[j], py[j] = x.pix(s.X[j]), y.pix(s.Y[j])
		}
		st := Style{Stroke: col, StrokeWidth: 2}
		if s.Dashed {
			st.Dash = "6,4"
		}
		c.Polyline(px, py, st)
		if len(px) <= maxMarkers { // dense curves are drawn without point markers
			for j := range px {
				c.Circle(px[j], py[j], 2.5, Style{Fill: col})
			}
		}
		if s.Name != "" {
			names = append(names, s.Name)
			colors = append(colors, col)
		}
	}
	right, top := bestLegendCorner(x, y, l.Series, names)
	legend(c, right, top, names, colors)
	return c, nil
}

// bestLegendCorner returns the (right, top) anchor for legend of the plot
// corner whose legend box covers the fewest data points (top right on
// ties).
func bestLegendCorner(x, y axis, series []Series, names []string) (right, top float64) {
	w, h := legendSize2(names)
	type corner struct{ right, top float64 }
	corners := []corner{
		{x.p1, y.p1},                   // top right
		{x.p0 + w + 16, y.p1},          // top left
		{x.p1, y.p0 - h - 16},          // bottom right
		{x.p0 + w + 16, y.p0 - h - 16}, // bottom left
	}
	best, bestN := corners[0], -1
	for _, cn := range corners {
		x0, y0 := cn.right-w-8, cn.top+8
		n := 0
		for _, s := range series {
			for j := range s.X {
				px, py := x.pix(s.X[j]), y.pix(s.Y[j])
				if px >= x0-4 && px <= x0+w+4 && py >= y0-4 && py <= y0+h+4 {
					n++
				}
				// Count segment midpoints too, so that lines crossing the
				// box are seen even between sparse points.
				if j > 0 {
					mx, my := (px+x.pix(s.X[j-1]))/2, (py+y.pix(s.Y[j-1]))/2
					if mx >= x0-4 && mx <= x0+w+4 && my >= y0-4 && my <= y0+h+4 {
						n++
					}
				}
			}
		}
		if bestN < 0 || n < bestN {
			best, bestN = cn, n
		}
	}
	return best.right, best.top
}

// Sample is a named set of draws of one or more parameters, stored row by
// row: Rows[i] is draw i. Weights, when non-nil, are importance weights.
type Sample struct {
	Name    string
	Rows    [][]float64
	Weights []float64
}

// Histograms overlays marginal histograms of several samples for each
// parameter, with optional true-value lines.
type Histograms struct {
	Title  string
	Params []string  // parameter names, one panel each
	Sets   []Sample  // samples to overlay
	Truth  []float64 // true values (NaN or nil to omit)
	Bins   int       // 0 means 30
	Width  float64   // per panel; 0 means 320
	Height float64   // 0 means 300
}

// Draw lays the histograms out side by side on a new canvas.
func (h Histograms) Draw() (*Canvas, error) {
	d := len(h.Params)
	if err := checkPanels(d, h.Sets, h.Truth); err != nil {
		return nil, err
	}
	bins := orDefaultInt(h.Bins, 30)
	pw, ph := orDefault(h.Width, 320), orDefault(h.Height, 300)
	top := 30.0
	if h.Title == "" {
		top = 10
	}
	names, cols := setLegend(h.Sets)
	// The legend gets its own row above the panels so that it never hides
	// a histogram.
	legendY := top + 8
	if len(names) > 0 {
		top += 24
	}
	c := NewCanvas(pw*float64(d), ph+top)
	if h.Title != "" {
		c.Text(c.W/2, 20, h.Title, titleSize, "middle", 0)
	}
	legendRow(c, c.W/2, legendY, names, cols)
	for k := 0; k < d; k++ {
		ox := pw * float64(k)
		vals := rangeColumn(h.Sets, k)
		if h.Truth != nil {
			vals = append(vals, []float64{h.Truth[k]})
		}
		lo, hi := dataRange(false, 0.03, vals...)
		x := axis{lo: lo, hi: hi, p0: ox + 55, p1: ox + pw - 10, label: h.Params[k]}
		dens := make([][]float64, len(h.Sets))
		ymax := 0.0
		for s := range h.Sets {
			dens[s] = histogram(h.Sets[s], k, lo, hi, bins)
			for _, v := range dens[s] {
				ymax = math.Max(ymax, v)
			}
		}
		y := axis{lo: 0, hi: ymax * 1.08, p0: top + ph - 45, p1: top + 5, label: "density"}
		if ymax == 0 {
			y.hi = 1
		}
		frame(c, x, y, false)
		bw := (hi - lo) / float64(bins)
		for s, dv := range dens {
			xs := make([]float64, 0, 2*bins+2)
			ys := make([]float64, 0, 2*bins+2)
			xs, ys = append(xs, x.pix(lo)), append(ys, y.pix(0))
			for b, v := range dv {
				xs = append(xs, x.pix(lo+bw*float64(b)), x.pix(lo+bw*float64(b+1)))
				ys = append(ys, y.pix(v), y.pix(v))
			}
			xs, ys = append(xs, x.pix(hi)), append(ys, y.pix(0))
			c.Polygon(xs, ys, Style{Fill: color(s), Opacity: 0.25})
			c.Polyline(xs, ys, Style{Stroke: color(s), StrokeWidth: 1.5})
		}
		if h.Truth != nil && finite(h.Truth[k]) {
			px := x.pix(h.Truth[k])
			c.Line(px, y.p1, px, y.p0, Style{Stroke: "black", StrokeWidth: 1.5, Dash: "5,3"})
		}
	}
	return c, nil
}

// Corner is a pair plot of posterior samples: marginal histograms on the
// diagonal and scatter plots of every pair below it, with several samples
// overlaid in different colors.
type Corner struct {
	Title     string
	Params    []string
	Sets      []Sample
	Truth     []float64 // optional
	MaxPoints int       // scatter points per set and panel; 0 means 1500
	Bins      int       // 0 means 30
	Panel     float64   // panel size in pixels; 0 means 180
}

// Draw lays the corner plot out on a new canvas.
func (co Corner) Draw() (*Canvas, error) {
	d := len(co.Params)
	if err := checkPanels(d, co.Sets, co.Truth); err != nil {
		return nil, err
	}
	bins := orDefaultInt(co.Bins, 30)
	maxPts := orDefaultInt(co.MaxPoints, 1500)
	ps := orDefault(co.Panel, 180)
	left, top := 60.0, 40.0
	c := NewCanvas(left+ps*float64(d)+20, top+ps*float64(d)+45)
	if co.Title != "" {
		c.Text(c.W/2, 22, co.Title, titleSize, "middle", 0)
	}
	ranges := make([][2]float64, d)
	for k := 0; k < d; k++ {
		vals := rangeColumn(co.Sets, k)
		if co.Truth != nil {
			vals = append(vals, []float64{co.Truth[k]})
		}
		ranges[k][0], ranges[k][1] = dataRange(false, 0.03, vals...)
	}
	for i := 0; i < d; i++ { // row
		for j := 0; j <= i; j++ { // column
			ox, oy := left+ps*float64(j), top+ps*float64(i)
			x := axis{lo: ranges[j][0], hi: ranges[j][1], p0: ox + 4, p1: ox + ps - 4}
			if i == d-1 {
				x.label = co.Params[j]
			}
			if i == j {
				dens := make([][]float64, len(co.Sets))
				ymax := 0.0
				for s := range co.Sets {
					dens[s] = histogram(co.Sets[s], j, ranges[j][0], ranges[j][1], bins)
					for _, v := range dens[s] {
						ymax = math.Max(ymax, v)
					}
				}
				if ymax == 0 {
					ymax = 1
				}
				y := axis{lo: 0, hi: ymax * 1.1, p0: oy + ps - 4, p1: oy + 4}
				cornerFrame(c, x, y, i == d-1, false)
				bw := (ranges[j][1] - ranges[j][0]) / float64(bins)
				for s, dv := range dens {
					xs := []float64{x.pix(ranges[j][0])}
					ys := []float64{y.pix(0)}
					for b, v := range dv {
						xs = append(xs, x.pix(ranges[j][0]+bw*float64(b)), x.pix(ranges[j][0]+bw*float64(b+1)))
						ys = append(ys, y.pix(v), y.pix(v))
					}
					c.Polyline(xs, ys, Style{Stroke: color(s), StrokeWidth: 1.5})
				}
				if co.Truth != nil && finite(co.Truth[j]) {
					px := x.pix(co.Truth[j])
					c.Line(px, y.p1, px, y.p0, Style{Stroke: "black", StrokeWidth: 1.2, Dash: "4,3"})
				}
				continue
			}
			y := axis{lo: ranges[i][0], hi: ranges[i][1], p0: oy + ps - 4, p1: oy + 4}
			if j == 0 {
				y.label = co.Params[i]
			}
			cornerFrame(c, x, y, i == d-1, j == 0)
			for s, set := range co.Sets {
				for _, r := range scatterRows(set, maxPts) {
					vx, vy := set.Rows[r][j], set.Rows[r][i]
					if vx < x.lo || vx > x.hi || vy < y.lo || vy > y.hi {
						continue // outside the panel's range
					}
					c.Circle(x.pix(vx), y.pix(vy), 1.3, Style{Fill: color(s), Opacity: 0.35})
				}
			}
			if co.Truth != nil && finite(co.Truth[i]) && finite(co.Truth[j]) {
				c.Circle(x.pix(co.Truth[j]), y.pix(co.Truth[i]), 4, Style{Stroke: "black", StrokeWidth: 1.5, Fill: "none"})
			}
		}
	}
	names, cols := setLegend(co.Sets)
	legend(c, c.W-10, top, names, cols)
	return c, nil
}

// cornerFrame draws a panel box with tick labels only on the outer edges.
func cornerFrame(c *Canvas, x, y axis, xTicks, yTicks bool) {
	c.Rect(x.p0, y.p1, x.p1-x.p0, y.p0-y.p1, axisStyle)
	if xTicks {
		for _, t := range niceTicks(x.lo, x.hi, 4) {
			px := x.pixRaw(t)
			c.Line(px, y.p0, px, y.p0+4, axisStyle)
			// Labels that would overhang the panel are left out, so that
			// they never run into the neighbouring panel's labels.
			lbl := tickLabel(t, false)
			half := 0.3 * tickSize * float64(len([]rune(lbl)))
			if px-half < x.p0-3 || px+half > x.p1+3 {
				continue
			}
			c.Text(px, y.p0+15, lbl, tickSize, "middle", 0)
		}
		if x.label != "" {
			c.Text((x.p0+x.p1)/2, y.p0+32, x.label, labelSize, "middle", 0)
		}
	}
	if yTicks {
		for _, t := range niceTicks(y.lo, y.hi, 4) {
			py := y.pixRaw(t)
			c.Line(x.p0-4, py, x.p0, py, axisStyle)
			c.Text(x.p0-6, py+3.5, tickLabel(t, false), tickSize, "end", 0)
		}
		if y.label != "" {
			c.Text(x.p0-45, (y.p0+y.p1)/2, y.label, labelSize, "middle", -90)
		}
	}
}

// Interval is one horizontal interval with a point estimate.
type Interval struct {
	Label       string // row label, e.g. a data set
	Group       string // method; rows of one group share a color
	Lo, Mid, Hi float64
}

// Intervals draws labelled intervals (for example 95% posterior intervals
// of R0 per outbreak and method) as horizontal bars with point estimates.
type Intervals struct {
	Title, XLabel string
	Rows          []Interval
	VLines        []float64 // vertical reference lines
	Width         float64   // 0 means 640
}

// Draw lays the interval plot out on a new canvas.
func (iv Intervals) Draw() (*Canvas, error) {
	if len(iv.Rows) == 0 {
		return nil, ErrNoData
	}
	var vals []float64
	for i, r := range iv.Rows {
		if !(r.Lo <= r.Mid && r.Mid <= r.Hi) {
			return nil, fmt.Errorf("plot: interval %d (%q): want Lo ≤ Mid ≤ Hi, got %v, %v, %v", i, r.Label, r.Lo, r.Mid, r.Hi)
		}
		vals = append(vals, r.Lo, r.Hi)
	}
	maxLabel := 0
	groups := map[string]int{}
	var gnames []string
	for _, r := range iv.Rows {
		maxLabel = max(maxLabel, len([]rune(r.Label)))
		if _, ok := groups[r.Group]; !ok {
			groups[r.Group] = len(gnames)
			gnames = append(gnames, r.Group)
		}
	}
	left := 20 + 6.5*float64(maxLabel)
	rowH := 22.0
	showLegend := len(gnames) > 1 || gnames[0] != ""
	// The legend gets its own row under the title so that it never hides
	// an interval.
	legendH := 0.0
	if showLegend {
		legendH = 22
	}
	c := NewCanvas(orDefault(iv.Width, 640), 60+legendH+rowH*float64(len(iv.Rows))+45)
	lo, hi := dataRange(false, 0.05, vals, iv.VLines)
	x := axis{lo: lo, hi: hi, p0: left, p1: c.W - 20, label: iv.XLabel}
	y := axis{lo: 0, hi: float64(len(iv.Rows)), p0: c.H - 50, p1: 40 + legendH}
	if iv.Title != "" {
		c.Text(c.W/2, 22, iv.Title, titleSize, "middle", 0)
	}
	c.Rect(x.p0, y.p1, x.p1-x.p0, y.p0-y.p1, axisStyle)
	for _, t := range niceTicks(lo, hi, 6) {
		px := x.pixRaw(t)
		c.Line(px, y.p1, px, y.p0, gridStyle)
		c.Text(px, y.p0+15, tickLabel(t, false), tickSize, "middle", 0)
	}
	c.Text((x.p0+x.p1)/2, y.p0+32, x.label, labelSize, "middle", 0)
	for _, v := range iv.VLines {
		px := x.pix(v)
		c.Line(px, y.p1, px, y.p0, Style{Stroke: "#555555", StrokeWidth: 1, Dash: "5,4"})
	}
	for i, r := range iv.Rows {
		py := y.p1 + rowH*(float64(i)+0.5) + 10
		col := color(groups[r.Group])
		c.Text(x.p0-6, py+4, r.Label, legendSize, "end", 0)
		c.Line(x.pix(r.Lo), py, x.pix(r.Hi), py, Style{Stroke: col, StrokeWidth: 3})
		c.Circle(x.pix(r.Mid), py, 4, Style{Fill: col})
	}
	if showLegend {
		cols := make([]string, len(gnames))
		for i := range gnames {
			cols[i] = color(i)
		}
		legendRow(c, (x.p0+x.p1)/2, 34, gnames, cols)
	}
	return c, nil
}

func orDefault(v, def float64) float64 {
	if v > 0 && finite(v) {
		return v
	}
	return def
}

func orDefaultInt(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// checkPanels checks the samples of a chart with one panel per parameter
// (d of them) and its optional true values: ErrNoData without parameters
// or samples.
func checkPanels(d int, sets []Sample, truth []float64) error {
	if d == 0 || len(sets) == 0 {
		return ErrNoData
	}
	if truth != nil && len(truth) != d {
		return fmt.Errorf("plot: len(Truth) = %d, want %d", len(truth), d)
	}
	return checkSets(sets, d)
}

func checkSets(sets []Sample, d int) error {
	for s, set := range sets {
		if len(set.Rows) == 0 {
			return fmt.Errorf("plot: sample %d (%q) is empty", s, set.Name)
		}
		if set.Weights != nil && len(set.Weights) != len(set.Rows) {
			return fmt.Errorf("plot: sample %d (%q): %d weights for %d rows", s, set.Name, len(set.Weights), len(set.Rows))
		}
		for i, row := range set.Rows {
			if len(row) != d {
				return fmt.Errorf("plot: sample %d (%q) row %d has %d values, want %d", s, set.Name, i, len(row), d)
			}
		}
	}
	return nil
}

func column(sets []Sample, k int) [][]float64 {
	out := make([][]float64, len(sets))
	for s, set := range sets {
		col := make([]float64, len(set.Rows))
		for i, row := range set.Rows {
			col[i] = row[k]
		}
		out[s] = col
	}
	return out
}

// rangeColumn returns, per sample, the values of column k that set the
// axis range: all of them for small samples, and for samples of at least
// 500 draws only the 0.2% and 99.8% quantiles, so that a few far-out draws
// do not squeeze every other curve into a corner (draws outside the range
// are left out of the histograms and scatter plots).
func rangeColumn(sets []Sample, k int) [][]float64 {
	cols := column(sets, k)
	for s, col := range cols {
		var fin []float64
		for _, v := range col {
			if finite(v) {
				fin = append(fin, v)
			}
		}
		if len(fin) < 500 {
			continue
		}
		slices.Sort(fin)
		n := len(fin)
		cols[s] = []float64{fin[n/500], fin[n-1-n/500]}
	}
	return cols
}

// histogram returns a normalised (weighted) density histogram of column k
// on [lo, hi] with the given number of bins; values outside are dropped.
func histogram(set Sample, k int, lo, hi float64, bins int) []float64 {
	h := make([]float64, bins)
	width := (hi - lo) / float64(bins)
	var total float64
	for i, row := range set.Rows {
		v := row[k]
		w := 1.0
		if set.Weights != nil {
			w = set.Weights[i]
		}
		if !finite(v) || !(w > 0) || v < lo || v > hi {
			continue
		}
		b := min(int((v-lo)/width), bins-1)
		h[b] += w
		total += w
	}
	if total > 0 {
		for b := range h {
			h[b] /= total * width
		}
	}
	return h
}

// scatterRows returns the rows of set to draw in a scatter panel: every
// len(Rows)/maxPts-th row of an unweighted sample, and for a weighted
// sample maxPts rows chosen by deterministic systematic resampling (the
// points (k + ½)/maxPts of the cumulative normalised weights), so that
// the density of points follows the weights. Rows with non-finite or
// non-positive weight are never chosen.
func scatterRows(set Sample, maxPts int) []int {
	n := len(set.Rows)
	if set.Weights == nil {
		step := max(1, n/maxPts)
		idx := make([]int, 0, n/step+1)
		for r := 0; r < n; r += step {
			idx = append(idx, r)
		}
		return idx
	}
	total := 0.0
	for _, w := range set.Weights {
		if w > 0 && finite(w) {
			total += w
		}
	}
	if !(total > 0) || !finite(total) {
		return nil
	}
	idx := make([]int, 0, maxPts)
	cum, r := 0.0, 0
	for k := range maxPts {
		pos := (float64(k) + 0.5) / float64(maxPts)
		for r < n {
			w := set.Weights[r]
			if !(w > 0) || !finite(w) {
				r++
				continue
			}
			if cum+w/total > pos {
				break
			}
			cum += w / total
			r++
		}
		if r >= n {
			break
		}
		idx = append(idx, r)
	}
	return idx
}

func setLegend(sets []Sample) (names, cols []string) {
	for s, set := range sets {
		if set.Name != "" {
			names = append(names, set.Name)
			cols = append(cols, color(s))
		}
	}
	return names, cols
}
