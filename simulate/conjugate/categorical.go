package conjugate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// CategoricalDirichlet is the model of categorical records
// x_i ∈ {0, …, K−1} with P(x_i = k) = p_k and the prior
// p ~ Dirichlet(Alpha): θ = p, on the simplex. A record's contribution is
// the one-hot vector of its category, so the released statistic is the
// vector of category frequencies, of ℓ1 sensitivity 2/n when one record
// is replaced. The θ-step draws p | x ~ Dirichlet(Alpha + counts). Build
// it with NewCategoricalDirichlet.
type CategoricalDirichlet struct {
	alpha []float64
}

// CategoricalDirichletConfig configures NewCategoricalDirichlet. The zero
// value is refused.
type CategoricalDirichletConfig struct {
	// Alpha holds the Dirichlet prior's weights, one per category: K in
	// [2, 2^20] entries, each finite and > 0. All ones is the uniform
	// prior on the simplex.
	Alpha []float64
}

// maxCategories bounds K.
const maxCategories = 1 << 20

// Validate reports whether c is usable, with an error wrapping
// simulate.ErrInvalid that names the offending field.
func (c CategoricalDirichletConfig) Validate() error {
	if k := len(c.Alpha); k < 2 || k > maxCategories {
		return fmt.Errorf("%w: CategoricalDirichletConfig.Alpha must have between 2 and 2^20 entries, got %d", simulate.ErrInvalid, k)
	}
	for i, a := range c.Alpha {
		if err := checkPos(fmt.Sprintf("CategoricalDirichletConfig.Alpha[%d]", i), a); err != nil {
			return err
		}
	}
	return nil
}

// NewCategoricalDirichlet returns the model of cfg after cfg.Validate; it
// keeps a copy of cfg.Alpha.
func NewCategoricalDirichlet(cfg CategoricalDirichletConfig) (*CategoricalDirichlet, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &CategoricalDirichlet{alpha: slices.Clone(cfg.Alpha)}, nil
}

// Config returns the configuration m was built with (a fresh Alpha), or
// the zero value for a model used without its constructor.
func (m *CategoricalDirichlet) Config() CategoricalDirichletConfig {
	if m == nil {
		return CategoricalDirichletConfig{}
	}
	return CategoricalDirichletConfig{Alpha: slices.Clone(m.alpha)}
}

// Validate reports a model not built by its constructor, with an error
// wrapping simulate.ErrInvalid.
func (m *CategoricalDirichlet) Validate() error {
	if m == nil || len(m.alpha) < 2 {
		return unbuilt("CategoricalDirichlet")
	}
	return nil
}

// Dim is K, the length of θ = p (0 without the constructor).
func (m *CategoricalDirichlet) Dim() int { return m.ParamDim() }

// Sample draws p from the Dirichlet prior. As simulate.Prior states, it
// panics on a nil r or a short theta; a model used without its
// constructor writes nothing.
func (m *CategoricalDirichlet) Sample(r *rand.Rand, theta []float64) {
	if m.Validate() != nil {
		return
	}
	variate.Dirichlet(r, m.alpha, theta[:len(m.alpha)])
}

// LogDensity is the Dirichlet prior's log density of p (with respect to
// the Lebesgue measure on the first K − 1 coordinates): −Inf off the
// simplex (a negative entry, or a sum further than simulate.SimplexTol
// from 1), NaN for a θ of another length or a model used without its
// constructor.
func (m *CategoricalDirichlet) LogDensity(theta []float64) float64 {
	if m.Validate() != nil || len(theta) != len(m.alpha) {
		return math.NaN()
	}
	return variate.DirichletLogPdf(theta, m.alpha)
}

// ParamDim is K (0 without the constructor).
func (m *CategoricalDirichlet) ParamDim() int {
	if m.Validate() != nil {
		return 0
	}
	return len(m.alpha)
}

// RecordDim is 1: a record is a category index (stored as float64).
func (m *CategoricalDirichlet) RecordDim() int {
	if m.Validate() != nil {
		return 0
	}
	return 1
}

// ContribDim is K: the one-hot vector.
func (m *CategoricalDirichlet) ContribDim() int { return m.ParamDim() }

// CheckParam checks that θ is a probability vector of length K; errors
// wrap simulate.ErrInvalidTheta.
func (m *CategoricalDirichlet) CheckParam(theta []float64) error {
	if err := m.Validate(); err != nil {
		return err
	}
	return modelutil.CheckSimplex("CategoricalDirichlet", theta, len(m.alpha))
}

// SampleRecord draws a category with probabilities θ.
func (m *CategoricalDirichlet) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = float64(modelutil.Categorical(r, theta))
}

// Contribution writes the one-hot vector of the category rec[0] (all
// zeros for a value that is not a category).
func (m *CategoricalDirichlet) Contribution(rec, dst []float64) {
	clear(dst)
	if k, ok := m.category(rec[0]); ok {
		dst[k] = 1
	}
}

// category returns the index of the category v, or false.
func (m *CategoricalDirichlet) category(v float64) (int, bool) {
	if !(v >= 0 && v < float64(len(m.alpha))) || v != math.Floor(v) {
		return 0, false
	}
	return int(v), true
}

// RecordLogLik is log θ_x: −Inf for a value that is not a category.
func (m *CategoricalDirichlet) RecordLogLik(theta, rec []float64) float64 {
	k, ok := m.category(rec[0])
	if !ok {
		return math.Inf(-1)
	}
	return math.Log(theta[k])
}

// L1Sensitivity returns 2/n, the ℓ1 sensitivity of the category
// frequencies over n records when one record is replaced (one frequency
// falls by 1/n, another rises by 1/n).
func (m *CategoricalDirichlet) L1Sensitivity(n int) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if err := checkN(n); err != nil {
		return 0, err
	}
	return 2 / float64(n), nil
}

// SampleTheta draws p from its conjugate posterior Dirichlet(Alpha +
// counts) given the n raw records (mcmc.ThetaStep). Every record must be
// a category in {0, …, K−1}.
func (m *CategoricalDirichlet) SampleTheta(r *rand.Rand, records []float64, n int, theta []float64) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if err := checkStep("CategoricalDirichlet", r, records, n, 1, theta, len(m.alpha)); err != nil {
		return err
	}
	counts := make([]float64, len(m.alpha))
	for i, v := range records {
		k, ok := m.category(v)
		if !ok {
			return fmt.Errorf("%w: CategoricalDirichlet θ-step: records[%d] must be a category in [0, %d), got %v", simulate.ErrInvalid, i, len(m.alpha), v)
		}
		counts[k]++
	}
	return m.SamplePosterior(r, counts, theta)
}

// SamplePosterior draws p from the conjugate posterior Dirichlet(Alpha +
// counts) given the K category counts: the update SampleTheta applies to
// the raw records and synth.CategoricalDirichlet to sanitized counts.
// Counts must be finite and ≥ 0 (they need not be integers); counts and
// theta have length K.
func (m *CategoricalDirichlet) SamplePosterior(r *rand.Rand, counts, theta []float64) error {
	if err := m.Validate(); err != nil {
		return err
	}
	k := len(m.alpha)
	switch {
	case r == nil:
		return fmt.Errorf("%w: CategoricalDirichlet posterior: r is nil", simulate.ErrInvalid)
	case len(counts) != k:
		return fmt.Errorf("%w: CategoricalDirichlet posterior: counts must have length %d, got %d", simulate.ErrInvalid, k, len(counts))
	case len(theta) != k:
		return fmt.Errorf("%w: CategoricalDirichlet posterior: theta must have length %d, got %d", simulate.ErrInvalid, k, len(theta))
	}
	a := make([]float64, k)
	for i, c := range counts {
		if !(c >= 0) || math.IsInf(c, 1) {
			return fmt.Errorf("%w: CategoricalDirichlet posterior: counts[%d] must be finite and >= 0, got %v", simulate.ErrInvalid, i, c)
		}
		a[i] = m.alpha[i] + c
	}
	variate.Dirichlet(r, a, theta)
	return nil
}
