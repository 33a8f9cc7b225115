package synth

import (
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// Bounding is how a sanitized value outside its legal range [lo, hi] is
// legitimized (Liu 2019, used in modips §5.1). It is mechanism.BoundMode:
// SSS releases through mechanism.Bounded with the mode as given.
type Bounding = mechanism.BoundMode

const (
	// BIT (boundary inflated truncation) sets values below lo to lo and
	// above hi to hi. It is post-processing of the Laplace release.
	BIT = mechanism.BIT
	// Truncation discards out-of-range values: the release follows the
	// Laplace law truncated to [lo, hi]. The normalizing constant of the
	// truncated law depends on the statistic, so a truncated release of
	// an ε-DP Laplace mechanism is only 2ε-DP (mechanism.Truncate, whose
	// Budget reports 2ε). The paper charges ε; this package charges the
	// correct 2ε, so for a budget ε the inner Laplace noise is calibrated
	// to ε/2. For synthetic records (RecordBounding) truncation is
	// post-processing.
	Truncation = mechanism.Truncate
)

// Statistic describes one element of a sufficient statistic: its ℓ1
// global sensitivity and its legal range.
type Statistic struct {
	Sens   float64
	Lo, Hi float64
}

// Conjugate is a Bayesian model with a finite-dimensional Bayesian
// sufficient statistic s(x) and a posterior f(θ | s) that can be sampled
// for any s in the statistic's range (modips.SSS).
type Conjugate interface {
	// RecordDim is the number of values per record.
	RecordDim() int
	// ParamDim is the dimension of θ.
	ParamDim() int
	// Statistics returns, for datasets of n records, the sensitivity and
	// range of each element of s.
	Statistics(n int) ([]Statistic, error)
	// Stats computes s(x) into s. Confidential values outside the model's
	// public bounds are clamped first, which is what makes the
	// sensitivities hold.
	Stats(x, s []float64) error
	// Posterior draws θ ~ f(θ | s) for a dataset of n records.
	Posterior(r *rand.Rand, s []float64, n int, theta []float64) error
	// Synthesize fills dst with records drawn from f(x | θ).
	Synthesize(r *rand.Rand, theta, dst []float64) error
}

// JointSensitivity is implemented by conjugate models whose statistic has
// an ℓ1 sensitivity smaller than the sum of the elements' sensitivities
// (for example multinomial counts: 2, not K). Communal sanitization then
// uses it.
type JointSensitivity interface {
	L1Sensitivity(n int) float64
}

// SSS sanitizes the sufficient statistics of a conjugate model with the
// Laplace mechanism and draws from the posterior given the sanitized
// statistics. It implements Model.
type SSS struct {
	Model Conjugate
	// Weights selects the allocation: nil is communal sanitization (Def.
	// 5: every element gets Laplace(δ_s/ε) noise, δ_s the statistic's ℓ1
	// sensitivity); otherwise individualized sanitization (Def. 6: element
	// i gets Laplace(Δ_i/(w_i ε)) noise). Weights must be positive and sum
	// to one.
	Weights []float64
	// Bounding legitimizes out-of-range sanitized statistics.
	Bounding Bounding
}

// NewSSS validates and returns an SSS sanitizer.
func NewSSS(model Conjugate, weights []float64, b Bounding) (*SSS, error) {
	if model == nil {
		return nil, invalidf("model is nil")
	}
	if c, ok := model.(validator); ok {
		if err := c.validate(); err != nil {
			return nil, err
		}
	}
	if err := checkMode("bounding", b); err != nil {
		return nil, err
	}
	if weights != nil {
		if err := checkWeights(weights); err != nil {
			return nil, err
		}
	}
	return &SSS{Model: model, Weights: weights, Bounding: b}, nil
}

func checkWeights(w []float64) error {
	sum := 0.0
	for i, v := range w {
		if !(v > 0) || math.IsInf(v, 1) {
			return invalidf("weight %d must be finite and > 0, got %v", i, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		return invalidf("weights must sum to 1, got %v", sum)
	}
	return nil
}

// RecordDim implements Model (0 without a conjugate model).
func (s *SSS) RecordDim() int {
	if s.Model == nil {
		return 0
	}
	return s.Model.RecordDim()
}

// check validates the sanitizer's fields.
func (s *SSS) check() error {
	if s.Model == nil {
		return invalidf("SSS has no conjugate model")
	}
	if c, ok := s.Model.(validator); ok {
		if err := c.validate(); err != nil {
			return err
		}
	}
	return checkMode("SSS.Bounding", s.Bounding)
}

// Synthesize implements Model.
func (s *SSS) Synthesize(r *rand.Rand, theta, dst []float64) error {
	if err := s.check(); err != nil {
		return err
	}
	if len(theta) != s.Model.ParamDim() {
		return invalidf("θ has length %d, the model %d", len(theta), s.Model.ParamDim())
	}
	return s.Model.Synthesize(r, theta, dst)
}

// Mechanism returns the Laplace mechanism SSS uses for a dataset of n
// records at budget eps, with the statistics' descriptions.
func (s *SSS) Mechanism(n int, eps float64) (*mechanism.Laplace, []Statistic, error) {
	if n < 1 {
		return nil, nil, invalidf("n must be >= 1, got %d", n)
	}
	if err := s.check(); err != nil {
		return nil, nil, err
	}
	if err := checkEps("epsilon", eps); err != nil {
		return nil, nil, err
	}
	st, err := s.Model.Statistics(n)
	if err != nil {
		return nil, nil, err
	}
	sens := make([]float64, len(st))
	for i := range st {
		sens[i] = st[i].Sens
	}
	var mech *mechanism.Laplace
	if s.Weights == nil {
		if js, ok := s.Model.(JointSensitivity); ok {
			mech, err = mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: js.L1Sensitivity(n), Epsilon: eps, Dim: len(st)})
		} else {
			mech, err = mechanism.CommunalLaplace(sens, eps)
		}
	} else {
		if len(s.Weights) != len(st) {
			return nil, nil, invalidf("%d weights for %d statistics", len(s.Weights), len(st))
		}
		if err := checkWeights(s.Weights); err != nil {
			return nil, nil, err
		}
		mech, err = mechanism.IndividualizedLaplace(sens, s.Weights, eps)
	}
	if err != nil {
		return nil, nil, mechErr(err)
	}
	return mech, st, nil
}

// SanitizeStats releases the sanitized, bounded statistics of x with
// budget eps charged by rl. The release is a mechanism.Bounded Laplace
// mechanism: with BIT its Laplace noise has budget eps; with Truncation,
// whose privacy loss is twice the inner mechanism's (see Truncation), the
// inner Laplace mechanism is calibrated to eps/2.
func (s *SSS) SanitizeStats(r *rand.Rand, x []float64, eps float64, rl Releaser) ([]float64, int, error) {
	if err := s.check(); err != nil {
		return nil, 0, err
	}
	p := s.Model.RecordDim()
	if len(x) == 0 || len(x)%p != 0 {
		return nil, 0, invalidf("data length %d is not a positive multiple of %d", len(x), p)
	}
	n := len(x) / p
	inner := eps
	if s.Bounding == Truncation {
		inner = eps / 2
	}
	lap, st, err := s.Mechanism(n, inner)
	if err != nil {
		return nil, 0, err
	}
	lo := make([]float64, len(st))
	hi := make([]float64, len(st))
	for i := range st {
		lo[i], hi[i] = st[i].Lo, st[i].Hi
	}
	mech, err := mechanism.NewBounded(lap, lo, hi, s.Bounding)
	if err != nil {
		return nil, 0, mechErr(err)
	}
	stat := make([]float64, len(st))
	if err := s.Model.Stats(x, stat); err != nil {
		return nil, 0, err
	}
	out := make([]float64, len(st))
	if err := rl.release(mech, r, stat, out); err != nil {
		return nil, 0, err
	}
	return out, n, nil
}

// Sanitize implements Model: it sanitizes the statistics once and returns
// the posterior f(θ | s*), from which any number of draws are
// post-processing.
func (s *SSS) Sanitize(r *rand.Rand, x []float64, eps float64, rl Releaser) (Posterior, error) {
	st, n, err := s.SanitizeStats(r, x, eps, rl)
	if err != nil {
		return nil, err
	}
	return &conjPosterior{m: s.Model, s: st, n: n}, nil
}

type conjPosterior struct {
	m Conjugate
	s []float64
	n int
}

func (c *conjPosterior) Dim() int { return c.m.ParamDim() }
func (c *conjPosterior) Sample(r *rand.Rand, theta []float64) error {
	return c.m.Posterior(r, c.s, c.n, theta)
}
