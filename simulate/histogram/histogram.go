// Package histogram provides the LDP paper's histogram data model
// (§3.2.2): categorical items with one-hot contributions, as a
// simulate.RecordModel. Errors wrap simulate.ErrInvalid
// (simulate.ErrInvalidTheta for a bad θ).
package histogram

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Model is the LDP paper's histogram data model (§3.2.2): a record
// is an item x ∈ {0, …, d−1} (stored as float64) with P(x = k) = θ_k, the
// input of optimal unary encoding. Its contribution is the one-hot vector,
// so simulate.MeanStat releases the normalised frequencies.
type Model struct{ d int }

// New returns the model over d ≥ 2 items.
func New(d int) (*Model, error) {
	if d < 2 || d > 1<<24 {
		return nil, fmt.Errorf("%w: histogram needs 2 <= d <= 2^24 items, got %d", simulate.ErrInvalid, d)
	}
	return &Model{d}, nil
}

// ParamDim is d.
func (m *Model) ParamDim() int { return m.d }

// RecordDim is 1.
func (m *Model) RecordDim() int { return 1 }

// ContribDim is d.
func (m *Model) ContribDim() int { return m.d }

// CheckParam checks that θ is a probability vector.
func (m *Model) CheckParam(theta []float64) error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("histogram.Model")
	}
	return modelutil.CheckSimplex("histogram", theta, m.d)
}

// SampleRecord draws one item.
func (m *Model) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = float64(modelutil.Categorical(r, theta))
}

// Contribution writes the one-hot encoding of the item.
func (m *Model) Contribution(rec, dst []float64) {
	clear(dst)
	dst[int(rec[0])] = 1
}

// RecordLogLik is log θ_x; −Inf for an invalid code.
func (m *Model) RecordLogLik(theta, rec []float64) float64 {
	k := int(rec[0])
	if rec[0] != float64(k) || k < 0 || k >= m.d {
		return math.Inf(-1)
	}
	return math.Log(theta[k])
}

// valid reports whether m was built by New.
func (m *Model) valid() bool { return m != nil && m.d >= 2 }

// Validate returns an error wrapping simulate.ErrInvalid when the Model is
// nil or was not built by its constructor; simulate.NewMeanStat and
// simulate.MeanContribution call it.
func (m *Model) Validate() error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("histogram.Model")
	}
	return nil
}
