package synth

import (
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// HistogramModel is model-free dips (§3.4, Fig. 4): the empirical
// distribution of the data is a histogram on Grid (records outside the
// grid are clamped onto it), sanitized by the Laplace mechanism on its
// counts, and synthetic records are drawn from the sanitized histogram
// (a cell with probability ∝ max(count*, 0), uniform inside it).
//
// With n public, replacing one record moves one count from a cell to
// another, so the count vector has ℓ1 sensitivity 2.
//
// With Bootstrap (Fig. 4b) the histogram is built from a bootstrap
// resample of the data, which propagates the uncertainty about the
// population distribution into the between-set variance. A record can be
// drawn several times by the bootstrap; each record's copies are capped at
// MaxCopies (default 4; P(Poisson(1) > 4) ≈ 0.004), so the resampled
// histogram has ℓ1 sensitivity 2·MaxCopies, which the noise is calibrated
// to. The resampling indices do not depend on the data values, so the
// release is ε-DP.
//
// HistogramModel implements Model: the "parameter" θ is the sanitized
// histogram itself, so Posterior.Dim is the number of cells.
type HistogramModel struct {
	Grid      *Grid
	Bootstrap bool
	MaxCopies int
}

// RecordDim implements Model (0 without a grid).
func (h *HistogramModel) RecordDim() int { return h.Grid.Dim() }

// maxCopiesLimit bounds MaxCopies.
const maxCopiesLimit = 1 << 16

func (h *HistogramModel) maxCopies() int {
	if h.MaxCopies > 0 {
		return h.MaxCopies
	}
	return 4
}

// Sanitize implements Model.
func (h *HistogramModel) Sanitize(r *rand.Rand, x []float64, eps float64, rl Releaser) (Posterior, error) {
	if err := h.Grid.check(); err != nil {
		return nil, err
	}
	if h.MaxCopies < 0 || h.MaxCopies > maxCopiesLimit {
		return nil, invalidf("max copies must be in [0, %d], got %d", maxCopiesLimit, h.MaxCopies)
	}
	if err := checkEps("epsilon", eps); err != nil {
		return nil, err
	}
	p := h.Grid.Dim()
	if len(x) == 0 || len(x)%p != 0 {
		return nil, invalidf("data length %d is not a positive multiple of %d", len(x), p)
	}
	n := len(x) / p
	counts := make([]float64, h.Grid.Cells())
	rec := make([]float64, p)
	cell := func(i int) int {
		for j := range rec {
			v := x[i*p+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return -1
			}
			rec[j] = mechanism.Clamp(v, h.Grid.Lo[j], h.Grid.Hi[j])
		}
		return h.Grid.Locate(rec)
	}
	sens := 2.0
	if h.Bootstrap {
		c := h.maxCopies()
		sens = 2 * float64(c)
		copies := make([]int32, n)
		for range n {
			copies[r.IntN(n)]++
		}
		for i, k := range copies {
			if k == 0 {
				continue
			}
			ci := cell(i)
			if ci < 0 {
				return nil, invalidf("record %d has a NaN or infinite value", i)
			}
			counts[ci] += float64(min(int(k), c))
		}
	} else {
		for i := range n {
			ci := cell(i)
			if ci < 0 {
				return nil, invalidf("record %d has a NaN or infinite value", i)
			}
			counts[ci]++
		}
	}
	out, err := laplaceRelease(r, rl, counts, sens, eps)
	if err != nil {
		return nil, err
	}
	for i, v := range out {
		out[i] = math.Max(0, v)
	}
	return &histPosterior{cp: newCellPosterior(h.Grid, out)}, nil
}

// histPosterior returns the sanitized histogram weights as θ.
type histPosterior struct{ cp *CellPosterior }

func (h *histPosterior) Dim() int { return len(h.cp.Weights) }
func (h *histPosterior) Sample(_ *rand.Rand, theta []float64) error {
	t := h.cp.cum[len(h.cp.cum)-1]
	prev := 0.0
	for i, c := range h.cp.cum {
		theta[i] = (c - prev) / t
		prev = c
	}
	return nil
}

// Synthesize implements Model: records drawn from the histogram θ
// (normalized cell probabilities), uniform within cells.
func (h *HistogramModel) Synthesize(r *rand.Rand, theta, dst []float64) error {
	if err := h.Grid.check(); err != nil {
		return err
	}
	p := h.Grid.Dim()
	if len(theta) != h.Grid.Cells() {
		return invalidf("histogram has %d cells, θ has %d", h.Grid.Cells(), len(theta))
	}
	cells := make([]float64, len(dst)/p)
	if err := categorical(r, theta, cells); err != nil {
		return err
	}
	for i, c := range cells {
		h.Grid.Uniform(r, int(c), dst[i*p:(i+1)*p])
	}
	return nil
}
