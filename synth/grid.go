package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Grid is a product grid of equal-width bins on the box
// [Lo[0], Hi[0]] × … × [Lo[p−1], Hi[p−1]] with Bins[j] bins in dimension
// j. Cells are numbered row-major (the last dimension varies fastest).
type Grid struct {
	Lo, Hi []float64
	Bins   []int
}

// NewGrid validates and returns a grid.
func NewGrid(lo, hi []float64, bins []int) (*Grid, error) {
	g := &Grid{Lo: append([]float64(nil), lo...), Hi: append([]float64(nil), hi...), Bins: append([]int(nil), bins...)}
	if err := g.check(); err != nil {
		return nil, err
	}
	return g, nil
}

// check validates a grid, so that zero values and hand-built grids are
// refused: equal non-zero numbers of bounds and bins, valid bounds, bins
// ≥ 1, at most 2^24 cells and a cell volume that is a positive normal
// number.
func (g *Grid) check() error {
	if g == nil {
		return invalidf("grid is nil")
	}
	if len(g.Lo) == 0 || len(g.Lo) != len(g.Hi) || len(g.Lo) != len(g.Bins) {
		return invalidf("grid needs equal, non-zero numbers of lower bounds, upper bounds and bin counts, got %d, %d, %d", len(g.Lo), len(g.Hi), len(g.Bins))
	}
	cells := 1
	for j := range g.Lo {
		if err := checkBounds(fmt.Sprintf("Grid.Lo[%d], Grid.Hi[%d]", j, j), g.Lo[j], g.Hi[j]); err != nil {
			return err
		}
		if g.Bins[j] < 1 || g.Bins[j] > 1<<24 {
			return invalidf("bins[%d] must be in [1, 2^24], got %d", j, g.Bins[j])
		}
		cells *= g.Bins[j]
		if cells > 1<<24 {
			return invalidf("grid has more than 2^24 cells")
		}
	}
	if v := g.Volume(); !(v >= minNormal) || math.IsInf(v, 0) {
		return invalidf("grid cell volume %v must be finite and not subnormal", v)
	}
	return nil
}

// Dim is the dimension p (0 for a nil grid).
func (g *Grid) Dim() int {
	if g == nil {
		return 0
	}
	return len(g.Lo)
}

// Cells is the number of cells Π Bins[j].
func (g *Grid) Cells() int {
	c := 1
	for _, b := range g.Bins {
		c *= b
	}
	return c
}

// Width returns the bin width in dimension j.
func (g *Grid) Width(j int) float64 { return (g.Hi[j] - g.Lo[j]) / float64(g.Bins[j]) }

// Volume is the common volume of every cell.
func (g *Grid) Volume() float64 {
	v := 1.0
	for j := range g.Lo {
		v *= g.Width(j)
	}
	return v
}

// Locate returns the cell containing x, or −1 outside the box. The upper
// boundary belongs to the last bin.
func (g *Grid) Locate(x []float64) int {
	idx := 0
	for j := range g.Lo {
		if !(x[j] >= g.Lo[j] && x[j] <= g.Hi[j]) {
			return -1
		}
		k := int((x[j] - g.Lo[j]) / g.Width(j))
		if k >= g.Bins[j] {
			k = g.Bins[j] - 1
		}
		idx = idx*g.Bins[j] + k
	}
	return idx
}

// Center writes the center of cell c into x.
func (g *Grid) Center(c int, x []float64) {
	for j := len(g.Lo) - 1; j >= 0; j-- {
		k := c % g.Bins[j]
		c /= g.Bins[j]
		x[j] = g.Lo[j] + (float64(k)+0.5)*g.Width(j)
	}
}

// Uniform writes a uniform draw from cell c into x.
func (g *Grid) Uniform(r *rand.Rand, c int, x []float64) {
	for j := len(g.Lo) - 1; j >= 0; j-- {
		k := c % g.Bins[j]
		c /= g.Bins[j]
		x[j] = g.Lo[j] + (float64(k)+r.Float64())*g.Width(j)
	}
}

// CellPosterior is a sanitized posterior that is a histogram on a grid:
// a cell is drawn with probability proportional to its weight and θ is
// uniform inside it.
type CellPosterior struct {
	Grid    *Grid
	Weights []float64 // non-negative, not all zero
	cum     []float64
}

func newCellPosterior(g *Grid, w []float64) *CellPosterior {
	cum := make([]float64, len(w))
	t := 0.0
	for i, v := range w {
		if v > 0 && !math.IsInf(v, 1) {
			t += v
		}
		cum[i] = t
	}
	if !(t > 0) { // nothing survived sanitization: uniform on the grid
		for i := range cum {
			cum[i] = float64(i + 1)
		}
	}
	return &CellPosterior{Grid: g, Weights: w, cum: cum}
}

// Dim implements Posterior.
func (c *CellPosterior) Dim() int { return c.Grid.Dim() }

// Sample implements Posterior.
func (c *CellPosterior) Sample(r *rand.Rand, theta []float64) error {
	t := c.cum[len(c.cum)-1]
	u := r.Float64() * t
	lo, hi := 0, len(c.cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if c.cum[mid] > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	c.Grid.Uniform(r, lo, theta)
	return nil
}
