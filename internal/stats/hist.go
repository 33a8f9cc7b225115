package stats

import (
	"fmt"
	"math"
)

// Histogram counts (optionally weighted) observations in equal-width bins
// over [Lo, Hi]. Bin k covers [Lo + k·w, Lo + (k+1)·w) with
// w = (Hi−Lo)/len(Counts), except that the value Hi itself falls in the last
// bin. Observations below Lo go to Under, above Hi to Over, and NaN
// observations to NaN. The zero value is not usable; call NewHistogram.
type Histogram struct {
	Lo, Hi float64
	Counts []float64 // total weight per bin
	Under  float64   // weight below Lo
	Over   float64   // weight above Hi
	NaN    float64   // weight of NaN observations
}

// NewHistogram returns an empty histogram with bins equal-width bins over
// [lo, hi]. It returns an error unless lo < hi are finite and bins ≥ 1.
func NewHistogram(lo, hi float64, bins int) (*Histogram, error) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo < hi) {
		return nil, fmt.Errorf("stats: histogram range must be finite with lo < hi, got [%v, %v]: %w", lo, hi, ErrInvalid)
	}
	if bins < 1 {
		return nil, fmt.Errorf("stats: histogram bins must be >= 1, got %d: %w", bins, ErrInvalid)
	}
	return &Histogram{Lo: lo, Hi: hi, Counts: make([]float64, bins)}, nil
}

// Bin returns the bin index of x, −1 below the range (or NaN) and
// len(h.Counts) above it.
func (h *Histogram) Bin(x float64) int {
	if math.IsNaN(x) || x < h.Lo {
		return -1
	}
	if x > h.Hi {
		return len(h.Counts)
	}
	k := int(float64(len(h.Counts)) * ((x - h.Lo) / (h.Hi - h.Lo)))
	if k >= len(h.Counts) {
		k = len(h.Counts) - 1
	}
	return k
}

// Add records the observation x with weight 1.
func (h *Histogram) Add(x float64) { h.AddWeighted(x, 1) }

// AddWeighted records the observation x with weight w.
func (h *Histogram) AddWeighted(x, w float64) {
	switch k := h.Bin(x); {
	case math.IsNaN(x):
		h.NaN += w
	case k < 0:
		h.Under += w
	case k >= len(h.Counts):
		h.Over += w
	default:
		h.Counts[k] += w
	}
}

// Edge returns the left edge of bin k (k = len(Counts) gives Hi).
func (h *Histogram) Edge(k int) float64 {
	if k >= len(h.Counts) {
		return h.Hi
	}
	return h.Lo + (h.Hi-h.Lo)*float64(k)/float64(len(h.Counts))
}

// Total returns the total weight in the bins (excluding Under, Over, NaN).
func (h *Histogram) Total() float64 {
	s := 0.0
	for _, c := range h.Counts {
		s += c
	}
	return s
}

// Density writes into dst (length len(Counts)) the histogram normalised as a
// probability density over [Lo, Hi]: Counts[k] / (Total·width). It returns an
// error if len(dst) is wrong or the bins are empty.
func (h *Histogram) Density(dst []float64) error {
	if len(dst) != len(h.Counts) {
		return fmt.Errorf("%w: len(dst) = %d, want %d bins", ErrDimension, len(dst), len(h.Counts))
	}
	t := h.Total()
	if !(t > 0) {
		return fmt.Errorf("stats: histogram is empty: %w", ErrInvalid)
	}
	width := (h.Hi - h.Lo) / float64(len(h.Counts))
	for k, c := range h.Counts {
		dst[k] = c / (t * width)
	}
	return nil
}
