package synth

import (
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/mechanism"
)

// PredictiveSSS is model-free modips.SSS (§3.4): instead of drawing a
// parameter from a sanitized posterior, it sanitizes a predictive
// sufficient statistic s, one with f(x̃ | x) = f(x̃ | s(x)), and draws the
// synthetic data from the predictive distribution f(x̃ | s*) directly.
//
// The data are discretized on Grid (records outside it are clamped onto
// it) and assumed only exchangeable over its cells; under a symmetric
// Dirichlet(Alpha) prior on the cell probabilities the cell counts are
// predictive sufficient (Johnson's sufficientness postulate) and the
// predictive of a new data set is the Pólya urn: a record falls in cell k
// with probability (Alpha + c_k + ñ_k)/(K·Alpha + Σc + i) after i
// synthetic records, ñ_k of them in cell k. Records are uniform inside
// their cell.
//
// The counts are released by the Laplace mechanism (ℓ1 sensitivity 2: n is
// public and replacing a record moves one count) and negative released
// counts are set to 0, which is post-processing. The Pólya urn reuses the
// sanitized counts only, so each synthetic set costs the budget of one
// release. Unlike HistogramModel without Bootstrap, whose sets are drawn
// from the sanitized histogram as if it were the population, the urn
// propagates the uncertainty about the population distribution, so the
// between-set variance of an analysis carries both synthesis components
// of Theorem 7 and combine.DPSynthesis applies.
//
// PredictiveSSS implements Model: the "parameter" handed from Sanitize to
// Synthesize is the sanitized count vector s* (Posterior.Dim is the number
// of cells; every draw returns the same s*), so nested modips draws t sets
// from one release.
type PredictiveSSS struct {
	Grid *Grid
	// Alpha is the Dirichlet concentration per cell (> 0); 0 means 1.
	Alpha float64
}

// maxAlpha bounds PredictiveSSS.Alpha.
const maxAlpha = 1 << 30

// check validates the fields.
func (p *PredictiveSSS) check() error {
	if p == nil {
		return invalidf("predictive SSS is nil")
	}
	if err := p.Grid.check(); err != nil {
		return err
	}
	if math.IsNaN(p.Alpha) || p.Alpha < 0 || p.Alpha > maxAlpha {
		return invalidf("alpha must be in [0, 2^30] (0 means 1), got %v", p.Alpha)
	}
	return nil
}

func (p *PredictiveSSS) alpha() float64 {
	if p.Alpha == 0 {
		return 1
	}
	return p.Alpha
}

// RecordDim implements Model (0 without a grid).
func (p *PredictiveSSS) RecordDim() int {
	if p == nil {
		return 0
	}
	return p.Grid.Dim()
}

// Counts returns the cell counts of x on the grid (records clamped onto
// it): the confidential statistic that Sanitize releases.
func (p *PredictiveSSS) Counts(x []float64) ([]float64, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	d := p.Grid.Dim()
	if len(x) == 0 || len(x)%d != 0 {
		return nil, invalidf("data length %d is not a positive multiple of %d", len(x), d)
	}
	counts := make([]float64, p.Grid.Cells())
	rec := make([]float64, d)
	for i := 0; i < len(x)/d; i++ {
		for j := range rec {
			v := x[i*d+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, invalidf("record %d has a NaN or infinite value", i)
			}
			rec[j] = mechanism.Clamp(v, p.Grid.Lo[j], p.Grid.Hi[j])
		}
		counts[p.Grid.Locate(rec)]++
	}
	return counts, nil
}

// Mechanism returns the Laplace mechanism of the count release at budget
// eps.
func (p *PredictiveSSS) Mechanism(eps float64) (*mechanism.Laplace, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if err := checkEps("epsilon", eps); err != nil {
		return nil, err
	}
	m, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 2, Epsilon: eps, Dim: p.Grid.Cells()})
	return m, mechErr(err)
}

// Sanitize implements Model: it releases the cell counts of x with budget
// eps through rl and returns the sanitized counts (negative ones set to 0)
// as the statistic of the predictive.
func (p *PredictiveSSS) Sanitize(r *rand.Rand, x []float64, eps float64, rl Releaser) (Posterior, error) {
	mech, err := p.Mechanism(eps)
	if err != nil {
		return nil, err
	}
	counts, err := p.Counts(x)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(counts))
	if err := rl.release(mech, r, counts, out); err != nil {
		return nil, err
	}
	for i, v := range out {
		out[i] = math.Max(0, v)
	}
	return statPosterior(out), nil
}

// statPosterior hands a released statistic to Synthesize unchanged.
type statPosterior []float64

func (s statPosterior) Dim() int { return len(s) }
func (s statPosterior) Sample(_ *rand.Rand, theta []float64) error {
	if len(theta) != len(s) {
		return invalidf("θ has length %d, the statistic %d", len(theta), len(s))
	}
	copy(theta, s)
	return nil
}

// Synthesize implements Model: len(dst)/RecordDim records from the Pólya
// urn seeded with the sanitized counts theta (length Cells, finite, ≥ 0).
// The urn is drawn exactly as its de Finetti representation: cell
// probabilities w ~ Dirichlet(Alpha + theta), then cells i.i.d. from w.
func (p *PredictiveSSS) Synthesize(r *rand.Rand, theta, dst []float64) error {
	if err := p.check(); err != nil {
		return err
	}
	d := p.Grid.Dim()
	if len(theta) != p.Grid.Cells() {
		return invalidf("the grid has %d cells, the statistic θ has %d", p.Grid.Cells(), len(theta))
	}
	if len(dst)%d != 0 {
		return invalidf("dst length %d is not a multiple of the record dimension %d", len(dst), d)
	}
	a := p.alpha()
	w := make([]float64, len(theta))
	for k, c := range theta {
		if !(c >= 0) || math.IsInf(c, 1) {
			return invalidf("sanitized count %d is %v", k, c)
		}
		w[k] = a + c
	}
	variate.Dirichlet(r, w, w)
	cells := make([]float64, len(dst)/d)
	if err := categorical(r, w, cells); err != nil {
		return err
	}
	for i, c := range cells {
		p.Grid.Uniform(r, int(c), dst[i*d:(i+1)*d])
	}
	return nil
}
