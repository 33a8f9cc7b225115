// Package mixture provides the ABCDP paper's toy model, a mixture of unit
// uniforms (ABCDP paper eq. 10), with its prior and data-generating
// weights. Errors wrap simulate.ErrInvalid (simulate.ErrInvalidTheta for a
// bad θ).
package mixture

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Uniform is the ABCDP toy model (ABCDP paper eq. 10): a record
// y ~ Σ_i θ_i Uniform[i − 1, i] for i = 1, …, k, with θ on the simplex
// (prior Dirichlet(1, …, 1), see Prior). As a simulate.RecordModel its
// record and contribution are y itself, so simulate.NewDataset(m, N)
// simulates the N-point data sets that ABCDP compares with MMD.
type Uniform struct{ k int }

// NewUniform returns the mixture of k ≥ 2 unit uniforms (the paper
// uses k = 5).
func NewUniform(k int) (*Uniform, error) {
	if k < 2 || k > maxK {
		return nil, fmt.Errorf("%w: uniform mixture needs 2 <= k <= 2^24 components, got %d", simulate.ErrInvalid, k)
	}
	return &Uniform{k}, nil
}

// maxK bounds the number of components (the prior allocates k values).
const maxK = 1 << 24

// Prior returns the paper's Dirichlet(1, …, 1) prior on k weights,
// 2 ≤ k ≤ 2^24.
func Prior(k int) (*simulate.Dirichlet, error) {
	if k < 2 || k > maxK {
		return nil, fmt.Errorf("%w: the mixture prior needs 2 <= k <= 2^24 weights, got %d", simulate.ErrInvalid, k)
	}
	a := make([]float64, k)
	for i := range a {
		a[i] = 1
	}
	return simulate.NewDirichlet(a)
}

// PaperTheta returns the ABCDP paper's θ* =
// (0.25, 0.04, 0.33, 0.04, 0.34).
func PaperTheta() []float64 { return []float64{0.25, 0.04, 0.33, 0.04, 0.34} }

// ParamDim is k.
func (m *Uniform) ParamDim() int { return m.k }

// RecordDim is 1.
func (m *Uniform) RecordDim() int { return 1 }

// ContribDim is 1.
func (m *Uniform) ContribDim() int { return 1 }

// CheckParam checks that θ is a probability vector of length k.
func (m *Uniform) CheckParam(theta []float64) error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("mixture.Uniform")
	}
	return modelutil.CheckSimplex("uniform mixture", theta, m.k)
}

// SampleRecord draws the component i with probability θ_i and y = i − 1 + U.
func (m *Uniform) SampleRecord(r *rand.Rand, theta, rec []float64) {
	i := modelutil.Categorical(r, theta)
	rec[0] = float64(i) + r.Float64()
}

// Contribution copies the record.
func (m *Uniform) Contribution(rec, dst []float64) { dst[0] = rec[0] }

// RecordLogLik is log θ_{⌈y⌉}; −Inf outside [0, k].
func (m *Uniform) RecordLogLik(theta, rec []float64) float64 {
	y := rec[0]
	if !(y >= 0 && y <= float64(m.k)) {
		return math.Inf(-1)
	}
	i := int(y)
	if i == m.k {
		i--
	}
	return math.Log(theta[i])
}

// valid reports whether m was built by NewUniform.
func (m *Uniform) valid() bool { return m != nil && m.k >= 2 }

// Validate returns an error wrapping simulate.ErrInvalid when the Uniform is
// nil or was not built by its constructor; simulate.NewMeanStat and
// simulate.MeanContribution call it.
func (m *Uniform) Validate() error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("mixture.Uniform")
	}
	return nil
}
