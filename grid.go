package privinfer

import (
	"fmt"
	"math"
)

// maxGridCells bounds the number of cells of a Grid.
const maxGridCells = 1 << 24

// GridConfig describes the grid of Grid: a box [Lo, Hi] in one or two
// dimensions cut into Points equal cells per coordinate.
type GridConfig struct {
	// Lo and Hi are the bounds of the box, one per parameter (1 or 2
	// parameters), each finite with Lo[j] < Hi[j]. The box should hold all
	// but a negligible part of the posterior mass: Grid ignores what lies
	// outside.
	Lo, Hi []float64
	// Points is the number of cells per coordinate (each ≥ 2); nil means
	// 1000 in one dimension and 200 per coordinate in two. The product is
	// at most 2^24.
	Points []int
	// Names are optional parameter names for the Draws (nil: θ[0], θ[1]).
	Names []string
}

// Validate checks the config: 1 or 2 parameters, finite bounds with
// Lo < Hi, Points nil or of the same length with entries ≥ 2 and at most
// 2^24 cells in all, and Names nil or as many distinct non-empty names.
// Errors wrap ErrInvalid and name the field.
func (c GridConfig) Validate() error {
	d := len(c.Lo)
	switch {
	case d < 1 || d > 2:
		return invalidf("GridConfig.Lo must have 1 or 2 entries (the parameter dimension), got %d", d)
	case len(c.Hi) != d:
		return invalidf("GridConfig.Hi has length %d, GridConfig.Lo %d", len(c.Hi), d)
	case c.Points != nil && len(c.Points) != d:
		return invalidf("GridConfig.Points has length %d, want nil or %d", len(c.Points), d)
	}
	for j := range d {
		lo, hi := c.Lo[j], c.Hi[j]
		if math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0) || !(lo < hi) || math.IsInf(hi-lo, 0) {
			return invalidf("GridConfig bounds [Lo[%d], Hi[%d]] = [%v, %v] must be finite with Lo < Hi", j, j, lo, hi)
		}
	}
	cells := 1
	for j, n := range c.points() {
		if n < 2 || n > maxGridCells {
			return invalidf("GridConfig.Points[%d] must be in [2, %d], got %d", j, maxGridCells, n)
		}
		cells *= n
		if cells > maxGridCells {
			return invalidf("GridConfig.Points give more than %d cells", maxGridCells)
		}
	}
	if c.Names != nil {
		if err := checkNames(c.Names, d); err != nil {
			return fmt.Errorf("GridConfig.Names: %w", err)
		}
	}
	return nil
}

// points returns Points with its default.
func (c GridConfig) points() []int {
	if c.Points != nil {
		return c.Points
	}
	if len(c.Lo) == 1 {
		return []int{1000}
	}
	return []int{200, 200}
}

// Grid evaluates an unnormalised log posterior density on the midpoints of
// a grid of equal cells and returns them as weighted Draws: one draw per
// cell centre, weighted by exp(logDensity) normalised to sum to one (the
// midpoint rule, so Mean, Cov, Quantile, CDF and Summary of the result are
// midpoint-rule integrals, with an error of order cell width² for smooth
// densities). Cells where logDensity is −Inf (outside the support) are
// left out. It is the reference posterior of one- and two-parameter
// problems, to check an engine's draws against.
//
// Draws.Cov and Draws.SD treat weights as reliability weights and scale
// the weighted second moments by ESS/(ESS − 1), 1/(1 − Σw²); on a grid the
// midpoint-rule variance is Cov times (ESS − 1)/ESS. The factor is small
// (ESS is of the order of the number of cells the posterior covers:
// ESS ≈ 884, a factor 1.0011, for a Beta(9, 6) posterior on 2000 cells
// of [0, 1]) but not negligible against the rule's own error.
//
// logDensity is called once per cell, in row-major order of the cells
// (the last coordinate fastest), with a slice it must not keep. A NaN or
// +Inf value, or −Inf everywhere, gives an error wrapping ErrInvalid, as
// does a nil logDensity or a config that does not Validate.
func Grid(logDensity func(theta []float64) float64, cfg GridConfig) (*Draws, error) {
	if logDensity == nil {
		return nil, invalidf("Grid needs a non-nil logDensity")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := len(cfg.Lo)
	pts := cfg.points()
	axes := make([][]float64, d)
	for j := range d {
		h := (cfg.Hi[j] - cfg.Lo[j]) / float64(pts[j])
		axes[j] = make([]float64, pts[j])
		for i := range axes[j] {
			axes[j][i] = cfg.Lo[j] + (float64(i)+0.5)*h
		}
	}
	cells := 1
	for _, n := range pts {
		cells *= n
	}
	theta := make([]float64, 0, cells*d)
	lw := make([]float64, 0, cells)
	x := make([]float64, d)
	point := func(c int) { // x = the midpoint of cell c, the last axis fastest
		for j := d - 1; j >= 0; j-- {
			x[j] = axes[j][c%pts[j]]
			c /= pts[j]
		}
	}
	top := math.Inf(-1)
	for c := range cells {
		point(c)
		v := logDensity(x)
		switch {
		case math.IsNaN(v) || math.IsInf(v, 1):
			return nil, invalidf("Grid: logDensity(%v) = %v", x, v)
		case math.IsInf(v, -1):
			continue
		}
		// Read the point again from the axes: logDensity must not keep x,
		// but it might have written to it.
		point(c)
		theta = append(theta, x...)
		lw = append(lw, v)
		top = math.Max(top, v)
	}
	if len(lw) == 0 {
		return nil, invalidf("Grid: logDensity is −Inf on every cell of the box")
	}
	sum := 0.0
	for i, v := range lw {
		lw[i] = math.Exp(v - top)
		sum += lw[i]
	}
	for i := range lw {
		lw[i] /= sum
	}
	var names []string
	if cfg.Names != nil {
		names = append([]string(nil), cfg.Names...)
	}
	return &Draws{Names: names, Dim: d, Theta: theta, Weights: lw}, nil
}

// CDF returns the (weighted) posterior probability P(θ_j ≤ q): the total
// normalised weight of the draws whose coordinate j is at most q (each
// draw weight 1/n when unweighted), draws with a NaN coordinate j left
// out. It returns NaN for draws that do not Validate or are empty, for an
// out-of-range j, for a NaN q and when every coordinate j is NaN.
func (d *Draws) CDF(j int, q float64) float64 {
	if !d.valid() || j < 0 || j >= d.Dim || math.IsNaN(q) {
		return math.NaN()
	}
	var below, total float64
	for i := range d.Len() {
		x := d.Theta[i*d.Dim+j]
		if math.IsNaN(x) {
			continue
		}
		w := 1.0
		if d.Weights != nil {
			w = d.Weights[i]
		}
		total += w
		if x <= q {
			below += w
		}
	}
	if total == 0 {
		return math.NaN()
	}
	return below / total
}
