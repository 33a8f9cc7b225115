package privinfer

import "github.com/privinfer/privinfer/internal/plot"

// The charting kit behind Draws.Corner, for the figures of a study: each
// chart's Draw returns a Canvas that writes SVG (WriteSVG) and PNG
// (WritePNG). Charts validate their data in Draw and return an error
// naming what is wrong (mismatched lengths, empty series, non-finite
// values where a value is needed).
type (
	// Canvas is a fixed-size drawing surface returned by a chart's Draw;
	// WriteSVG and WritePNG write it.
	Canvas = plot.Canvas
	// LineChart plots Series with optional error bands, dashed
	// horizontal and vertical reference lines and logarithmic axes: a
	// metric against rounds, coverage against m, C2ST against the
	// simulation budget.
	LineChart = plot.LineChart
	// Series is one curve of a LineChart: X and Y, optional band Lo and Hi
	// of the length of X, a name for the legend, and Dashed.
	Series = plot.Series
	// Histograms overlays the marginal histograms of several samples for
	// each parameter, with optional true-value lines.
	Histograms = plot.Histograms
	// HistogramSample is one named sample of Histograms: Rows[i] is draw
	// i, Weights (optional) its importance weights.
	HistogramSample = plot.Sample
	// Intervals draws labelled intervals (posterior intervals per data
	// set and method, say) as horizontal bars with point estimates.
	Intervals = plot.Intervals
	// Interval is one row of Intervals: label, group (rows of one group
	// share a colour), and Lo ≤ Mid ≤ Hi.
	Interval = plot.Interval
)
