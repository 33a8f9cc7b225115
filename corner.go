package privinfer

import (
	"io"
	"math"

	"github.com/privinfer/privinfer/internal/plot"
)

// CornerConfig configures Draws.Corner. The zero value draws one sample
// with default sizes.
type CornerConfig struct {
	// Title is printed above the plot; empty for none.
	Title string
	// Label names the draws in the legend; empty for no legend entry.
	Label string
	// Compare are further draws of the same parameters overlaid in other
	// colors (for example a reference posterior), with legend labels
	// CompareLabels (same length, or nil for none).
	Compare       []*Draws
	CompareLabels []string
	// Truth marks true parameter values (length Dim; NaN entries are
	// skipped); nil for none.
	Truth []float64
	// Bins is the number of histogram bins on the diagonal; 0 means 30.
	Bins int
	// MaxPoints is the number of scatter points per sample and panel; 0
	// means 1500. Weighted draws are thinned by systematic resampling so
	// that the density of points follows the weights.
	MaxPoints int
	// Panel is the side of one panel in pixels; 0 means 180.
	Panel float64
}

// Corner writes a corner (pair) plot of the draws to w as an SVG
// document: weighted marginal histograms on the diagonal and scatter
// plots of every pair of parameters below it, with the draws of
// cfg.Compare overlaid. The output is deterministic for equal inputs.
// Errors wrap ErrInvalid for invalid draws, mismatched dimensions or
// negative sizes.
func (d *Draws) Corner(w io.Writer, cfg CornerConfig) error {
	if w == nil {
		return invalidf("Corner needs a non-nil io.Writer")
	}
	canvas, err := d.cornerCanvas(cfg)
	if err != nil {
		return err
	}
	return canvas.WriteSVG(w)
}

// CornerPNG writes the corner plot of Corner to w as a PNG image of the
// same size. Errors are those of Corner.
func (d *Draws) CornerPNG(w io.Writer, cfg CornerConfig) error {
	if w == nil {
		return invalidf("CornerPNG needs a non-nil io.Writer")
	}
	canvas, err := d.cornerCanvas(cfg)
	if err != nil {
		return err
	}
	return canvas.WritePNG(w)
}

// cornerCanvas validates the draws and cfg and draws the corner plot.
func (d *Draws) cornerCanvas(cfg CornerConfig) (*plot.Canvas, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if d.Len() == 0 {
		return nil, invalidf("Corner needs at least one draw")
	}
	if cfg.Bins < 0 || cfg.MaxPoints < 0 || !(cfg.Panel >= 0) || math.IsInf(cfg.Panel, 0) {
		return nil, invalidf("CornerConfig sizes must be >= 0 and finite, got Bins %d, MaxPoints %d, Panel %v", cfg.Bins, cfg.MaxPoints, cfg.Panel)
	}
	if cfg.Truth != nil && len(cfg.Truth) != d.Dim {
		return nil, invalidf("CornerConfig.Truth has length %d, want Dim = %d", len(cfg.Truth), d.Dim)
	}
	if cfg.CompareLabels != nil && len(cfg.CompareLabels) != len(cfg.Compare) {
		return nil, invalidf("CornerConfig.CompareLabels has length %d, want one per Compare draws (%d)", len(cfg.CompareLabels), len(cfg.Compare))
	}
	sets := []plot.Sample{sample(d, cfg.Label)}
	for k, c := range cfg.Compare {
		if err := c.Validate(); err != nil {
			return nil, invalidf("CornerConfig.Compare[%d]: %v", k, err)
		}
		if c.Dim != d.Dim || c.Len() == 0 {
			return nil, invalidf("CornerConfig.Compare[%d] has dimension %d and %d draws, want dimension %d and at least one draw", k, c.Dim, c.Len(), d.Dim)
		}
		label := ""
		if cfg.CompareLabels != nil {
			label = cfg.CompareLabels[k]
		}
		sets = append(sets, sample(c, label))
	}
	canvas, err := plot.Corner{
		Title:     cfg.Title,
		Params:    d.ParamNames(),
		Sets:      sets,
		Truth:     cfg.Truth,
		MaxPoints: cfg.MaxPoints,
		Bins:      cfg.Bins,
		Panel:     cfg.Panel,
	}.Draw()
	if err != nil {
		return nil, invalidf("corner plot: %v", err)
	}
	return canvas, nil
}

// sample converts draws to the plotting package's row form (rows share
// Theta's storage).
func sample(d *Draws, label string) plot.Sample {
	rows := make([][]float64, d.Len())
	for i := range rows {
		rows[i] = d.Row(i)
	}
	return plot.Sample{Name: label, Rows: rows, Weights: d.Weights}
}
