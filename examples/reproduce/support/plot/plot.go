// Package plot gives the example programs short names for the library's
// charting kit (privinfer.LineChart, privinfer.Histograms,
// privinfer.Intervals and the Canvas they draw on, which writes SVG and
// PNG); corner plots of posterior draws are privinfer.Draws.Corner. It
// uses only the library's public API.
package plot

import "github.com/privinfer/privinfer"

// Canvas is privinfer.Canvas.
type Canvas = privinfer.Canvas

// LineChart is privinfer.LineChart.
type LineChart = privinfer.LineChart

// Series is privinfer.Series.
type Series = privinfer.Series

// Intervals is privinfer.Intervals.
type Intervals = privinfer.Intervals

// Interval is privinfer.Interval.
type Interval = privinfer.Interval

// Histograms is privinfer.Histograms.
type Histograms = privinfer.Histograms

// Sample is privinfer.HistogramSample.
type Sample = privinfer.HistogramSample
