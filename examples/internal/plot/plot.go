// Package plot gives the example programs the library's small SVG/PNG
// charting kit: line charts, interval charts and marginal histograms drawn
// on a Canvas that writes SVG and PNG (corner plots of posterior draws are
// privinfer.Draws.Corner). The types are the library's own, re-exported
// here so that the examples depend on no internal package of the library.
package plot

import iplot "github.com/privinfer/privinfer/internal/plot"

// Canvas is a fixed-size drawing surface that writes SVG (WriteSVG) and PNG
// (WritePNG).
type Canvas = iplot.Canvas

// LineChart draws series of (x, y) points with optional vertical lines and
// a logarithmic y axis.
type LineChart = iplot.LineChart

// Series is one line of a LineChart.
type Series = iplot.Series

// Intervals draws one horizontal interval per row, grouped by label.
type Intervals = iplot.Intervals

// Interval is one row of Intervals: a low, middle and high value.
type Interval = iplot.Interval

// Histograms draws the marginal histograms of several samples, one panel per
// parameter.
type Histograms = iplot.Histograms

// Sample is one (optionally weighted) sample of a Histograms plot.
type Sample = iplot.Sample
