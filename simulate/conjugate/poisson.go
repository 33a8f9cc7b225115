package conjugate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/simulate"
)

// PoissonGamma is the count model x_i ~ Poisson(λ) with the prior
// λ ~ Gamma(Shape, rate Rate): θ = (λ). A record is one count; its
// contribution is the count clamped to [0, MaxCount], so the released
// mean count has ℓ1 sensitivity MaxCount/n. The θ-step draws λ | x ~ Gamma(Shape + Σx_i,
// rate Rate + n) from the raw counts. Build it with NewPoissonGamma.
type PoissonGamma struct {
	cfg PoissonGammaConfig
}

// PoissonGammaConfig configures NewPoissonGamma. Every field is required:
// the zero value is refused.
type PoissonGammaConfig struct {
	// Shape is the shape of the gamma prior on λ (finite, > 0).
	Shape float64
	// Rate is the rate of the gamma prior on λ (finite, > 0); the prior
	// mean is Shape/Rate.
	Rate float64
	// MaxCount is the public bound counts are clamped to in the released
	// statistic (finite, > 0, at most 2^40).
	MaxCount float64
}

// Validate reports whether c is usable, with an error wrapping
// simulate.ErrInvalid that names the offending field.
func (c PoissonGammaConfig) Validate() error {
	if err := checkPos("PoissonGammaConfig.Shape", c.Shape); err != nil {
		return err
	}
	if err := checkPos("PoissonGammaConfig.Rate", c.Rate); err != nil {
		return err
	}
	if err := checkPos("PoissonGammaConfig.MaxCount", c.MaxCount); err != nil {
		return err
	}
	if c.MaxCount > maxRecords {
		return fmt.Errorf("%w: PoissonGammaConfig.MaxCount must be <= 2^40, got %v", simulate.ErrInvalid, c.MaxCount)
	}
	return nil
}

// NewPoissonGamma returns the model of cfg after cfg.Validate.
func NewPoissonGamma(cfg PoissonGammaConfig) (*PoissonGamma, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &PoissonGamma{cfg: cfg}, nil
}

// Config returns the configuration m was built with (the zero value for a
// model used without its constructor).
func (m *PoissonGamma) Config() PoissonGammaConfig {
	if m == nil {
		return PoissonGammaConfig{}
	}
	return m.cfg
}

// Validate reports a model not built by its constructor, with an error
// wrapping simulate.ErrInvalid.
func (m *PoissonGamma) Validate() error {
	if m == nil || m.cfg.Validate() != nil {
		return unbuilt("PoissonGamma")
	}
	return nil
}

// Dim is 1, the length of θ = (λ) (0 without the constructor).
func (m *PoissonGamma) Dim() int { return m.ParamDim() }

// Sample draws λ from the gamma prior. As simulate.Prior states, it
// panics on a nil r or a short theta; a model used without its
// constructor writes nothing.
func (m *PoissonGamma) Sample(r *rand.Rand, theta []float64) {
	if m.Validate() != nil {
		return
	}
	theta[0] = variate.Gamma(r, m.cfg.Shape, 1/m.cfg.Rate)
}

// LogDensity is the gamma prior's log density of λ: −Inf for λ ≤ 0 and
// NaN for a θ of another length or a model used without its constructor.
func (m *PoissonGamma) LogDensity(theta []float64) float64 {
	if m.Validate() != nil || len(theta) != 1 || math.IsNaN(theta[0]) {
		return math.NaN()
	}
	if !(theta[0] > 0) {
		return math.Inf(-1)
	}
	return variate.GammaLogPdf(theta[0], m.cfg.Shape, 1/m.cfg.Rate)
}

// ParamDim is 1 (0 without the constructor).
func (m *PoissonGamma) ParamDim() int {
	if m.Validate() != nil {
		return 0
	}
	return 1
}

// RecordDim is 1: a record is one count.
func (m *PoissonGamma) RecordDim() int { return m.ParamDim() }

// ContribDim is 1: the clamped count.
func (m *PoissonGamma) ContribDim() int { return m.ParamDim() }

// CheckParam checks that θ = (λ) with λ finite and > 0; errors wrap
// simulate.ErrInvalidTheta.
func (m *PoissonGamma) CheckParam(theta []float64) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if len(theta) != 1 || !(theta[0] > 0) || math.IsInf(theta[0], 1) {
		return fmt.Errorf("%w: PoissonGamma θ must be (λ) with λ finite and > 0, got %v", simulate.ErrInvalidTheta, theta)
	}
	return nil
}

// SampleRecord draws a Poisson(λ) count.
func (m *PoissonGamma) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = float64(variate.Poisson(r, theta[0]))
}

// Contribution writes the count clamped to [0, MaxCount]: a negative
// value, which no Poisson record takes, counts as 0, so that
// L1Sensitivity bounds the change of the statistic whatever the record.
func (m *PoissonGamma) Contribution(rec, dst []float64) {
	dst[0] = math.Max(0, math.Min(rec[0], m.cfg.MaxCount))
}

// RecordLogLik is the Poisson log probability of the count rec[0]: −Inf
// for a value that is not a non-negative integer.
func (m *PoissonGamma) RecordLogLik(theta, rec []float64) float64 {
	x := rec[0]
	if !(x >= 0) || x != math.Floor(x) || x > 1<<62 {
		return math.Inf(-1)
	}
	return variate.PoissonLogPmf(int64(x), theta[0])
}

// L1Sensitivity returns MaxCount/n, the ℓ1 sensitivity of the mean
// clamped count over n records when one record is replaced.
func (m *PoissonGamma) L1Sensitivity(n int) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if err := checkN(n); err != nil {
		return 0, err
	}
	return m.cfg.MaxCount / float64(n), nil
}

// SampleTheta draws λ from its conjugate posterior Gamma(Shape + Σx_i,
// rate Rate + n) given the n raw counts in records (mcmc.ThetaStep).
// Counts must be non-negative integers.
func (m *PoissonGamma) SampleTheta(r *rand.Rand, records []float64, n int, theta []float64) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if err := checkStep("PoissonGamma", r, records, n, 1, theta, 1); err != nil {
		return err
	}
	sum := 0.0
	for i, x := range records {
		if x < 0 || x != math.Floor(x) {
			return fmt.Errorf("%w: PoissonGamma θ-step: records[%d] must be a non-negative integer count, got %v", simulate.ErrInvalid, i, x)
		}
		sum += x
	}
	return m.SamplePosterior(r, sum, n, theta)
}

// SamplePosterior draws λ from the conjugate posterior Gamma(Shape + sum,
// rate Rate + n) given n counts that sum to sum: the update SampleTheta
// applies to the raw records and synth.PoissonGamma to a sanitized sum.
// sum must be finite and ≥ 0 (it need not be an integer), n in
// [0, 2^40] (n = 0 draws from the prior), theta of length 1.
func (m *PoissonGamma) SamplePosterior(r *rand.Rand, sum float64, n int, theta []float64) error {
	if err := m.Validate(); err != nil {
		return err
	}
	switch {
	case r == nil:
		return fmt.Errorf("%w: PoissonGamma posterior: r is nil", simulate.ErrInvalid)
	case !(sum >= 0) || math.IsInf(sum, 1):
		return fmt.Errorf("%w: PoissonGamma posterior: sum must be finite and >= 0, got %v", simulate.ErrInvalid, sum)
	case n < 0 || n > maxRecords:
		return fmt.Errorf("%w: PoissonGamma posterior: n must be in [0, 2^40], got %d", simulate.ErrInvalid, n)
	case len(theta) != 1:
		return fmt.Errorf("%w: PoissonGamma posterior: theta must have length 1, got %d", simulate.ErrInvalid, len(theta))
	}
	theta[0] = variate.Gamma(r, m.cfg.Shape+sum, 1/(m.cfg.Rate+float64(n)))
	return nil
}
