package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/simulate"
)

// MetropolisTheta is a θ-step for any Problem with a record-level
// simulator: Steps random-walk Metropolis moves on θ with Gaussian
// proposals of per-coordinate standard deviations Scale, targeting
// π(θ | x) ∝ π(θ) Π_i f(x_i | θ) with the Problem's Prior and the record
// model's RecordLogLik. It leaves π(θ | x) invariant rather than drawing
// from it exactly, which is all data augmentation needs (the sweep is then
// a Metropolis-within-Gibbs sampler of the joint posterior); conjugate
// θ-steps such as simulate/linreg's Conjugate mix faster where they exist.
//
// It is safe for concurrent use by the chains of RunDA and, in steady
// state, allocates nothing.
type MetropolisTheta struct {
	prior simulate.Prior
	rec   simulate.RecordModel
	scale []float64
	steps int
	bufs  sync.Pool // *[]float64 of length Dim
}

// NewMetropolisTheta returns the θ-step for problem p, which needs a
// record-level simulator (privinfer.NeedRecords), with proposal standard
// deviations scale (length Prior.Dim(), finite and > 0) and steps ≥ 1
// moves per call.
func NewMetropolisTheta(p privinfer.Problem, scale []float64, steps int) (*MetropolisTheta, error) {
	if err := p.Require(privinfer.NeedRecords); err != nil {
		return nil, problemErr(err)
	}
	rec, _, err := p.Records()
	if err != nil {
		return nil, problemErr(err)
	}
	d := p.Prior.Dim()
	if len(scale) != d {
		return nil, fmt.Errorf("%w: MetropolisTheta scale must have length Prior.Dim() = %d, got %d", ErrInvalid, d, len(scale))
	}
	for i, v := range scale {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: MetropolisTheta scale[%d] must be finite and > 0, got %v", ErrInvalid, i, v)
		}
	}
	if steps < 1 || steps > maxValues {
		return nil, fmt.Errorf("%w: MetropolisTheta steps must be in [1, %d], got %d", ErrInvalid, maxValues, steps)
	}
	m := &MetropolisTheta{prior: p.Prior, rec: rec, scale: append([]float64(nil), scale...), steps: steps}
	m.bufs.New = func() any { b := make([]float64, d); return &b }
	return m, nil
}

// logPost returns log π(θ) + Σ_i log f(x_i | θ), −Inf outside the support.
func (m *MetropolisTheta) logPost(records []float64, n int, theta []float64) float64 {
	lp := m.prior.LogDensity(theta)
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		return lp
	}
	if m.rec.CheckParam(theta) != nil {
		return math.Inf(-1)
	}
	rd := m.rec.RecordDim()
	for i := range n {
		lp += m.rec.RecordLogLik(theta, records[i*rd:(i+1)*rd])
	}
	return lp
}

// SampleTheta performs Steps Metropolis moves from the θ in theta given the
// n records, overwriting theta. The starting θ must have positive
// posterior density.
func (m *MetropolisTheta) SampleTheta(r *rand.Rand, records []float64, n int, theta []float64) error {
	if m == nil || m.rec == nil {
		return fmt.Errorf("%w: MetropolisTheta used without NewMetropolisTheta (nil or zero value)", ErrInvalid)
	}
	if r == nil {
		return fmt.Errorf("%w: MetropolisTheta: random source is nil", ErrInvalid)
	}
	d := len(m.scale)
	if len(theta) != d || n < 0 || len(records) != n*m.rec.RecordDim() {
		return fmt.Errorf("%w: MetropolisTheta: theta must have length %d and records %d·%d, got %d and %d", ErrInvalid, d, n, m.rec.RecordDim(), len(theta), len(records))
	}
	cur := m.logPost(records, n, theta)
	if math.IsNaN(cur) {
		return fmt.Errorf("%w: MetropolisTheta: log posterior at the current θ", ErrNaN)
	}
	if math.IsInf(cur, -1) {
		return fmt.Errorf("%w: MetropolisTheta: the current θ has zero posterior density", ErrInvalid)
	}
	bp := m.bufs.Get().(*[]float64)
	defer m.bufs.Put(bp)
	prop := *bp
	for range m.steps {
		for j, s := range m.scale {
			prop[j] = theta[j] + s*r.NormFloat64()
		}
		lp := m.logPost(records, n, prop)
		if math.IsNaN(lp) {
			return fmt.Errorf("%w: MetropolisTheta: log posterior at a proposed θ", ErrNaN)
		}
		if lp >= cur || math.Log(r.Float64()) < lp-cur {
			copy(theta, prop)
			cur = lp
		}
	}
	return nil
}
