package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/conjugate"
)

// BetaBernoulli is the binary-data model x_i ~ Bernoulli(p), p ~ Beta(A,
// B) (modips §5, Fig. 5). The sufficient statistic is n1 = Σx_i with
// sensitivity 1 and range [0, n]; the posterior is Beta(n1 + A, n − n1 +
// B). (The paper prints beta(n0 + α, n1 + β), with n0 and n1 swapped; this
// is the correct conjugate posterior.) Records are 0 or 1. Build it with
// NewBetaBernoulli; the zero value is refused by every engine.
type BetaBernoulli struct {
	cfg BetaBernoulliConfig
}

// BetaBernoulliConfig configures NewBetaBernoulli: the prior
// p ~ Beta(Alpha, Beta). The zero value is invalid; Alpha = Beta = 1 is
// the uniform prior.
type BetaBernoulliConfig struct {
	// Alpha is the prior's first shape A (finite, > 0, not subnormal).
	Alpha float64
	// Beta is the prior's second shape B (finite, > 0, not subnormal).
	Beta float64
}

// Validate reports whether c is usable, with an error wrapping
// ErrInvalid that names the offending field.
func (c BetaBernoulliConfig) Validate() error {
	if err := checkPos("BetaBernoulliConfig.Alpha", c.Alpha); err != nil {
		return err
	}
	return checkPos("BetaBernoulliConfig.Beta", c.Beta)
}

// NewBetaBernoulli returns the beta–Bernoulli model of cfg after
// cfg.Validate.
func NewBetaBernoulli(cfg BetaBernoulliConfig) (*BetaBernoulli, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &BetaBernoulli{cfg: cfg}, nil
}

// Config returns the configuration m was built with (the zero value for
// a nil model).
func (m *BetaBernoulli) Config() BetaBernoulliConfig {
	if m == nil {
		return BetaBernoulliConfig{}
	}
	return m.cfg
}

// RecordDim implements Conjugate.
func (*BetaBernoulli) RecordDim() int { return 1 }

// ParamDim implements Conjugate.
func (*BetaBernoulli) ParamDim() int { return 1 }

// Statistics implements Conjugate.
func (*BetaBernoulli) Statistics(n int) ([]Statistic, error) {
	if n < 1 {
		return nil, invalidf("n must be >= 1, got %d", n)
	}
	return []Statistic{{Sens: 1, Lo: 0, Hi: float64(n)}}, nil
}

// Stats implements Conjugate.
func (*BetaBernoulli) Stats(x, s []float64) error {
	n1 := 0.0
	for i, v := range x {
		if v != 0 && v != 1 {
			return invalidf("binary record %d is %v, want 0 or 1", i, v)
		}
		n1 += v
	}
	s[0] = n1
	return nil
}

// Posterior implements Conjugate: p ~ Beta(s + A, n − s + B).
func (m *BetaBernoulli) Posterior(r *rand.Rand, s []float64, n int, theta []float64) error {
	a, b := m.cfg.Alpha, m.cfg.Beta
	theta[0] = variate.Beta(r, s[0]+a, float64(n)-s[0]+b)
	if math.IsNaN(theta[0]) {
		return fmt.Errorf("synth: beta posterior (%v, %v) invalid", s[0]+a, float64(n)-s[0]+b)
	}
	return nil
}

// Synthesize implements Conjugate: Bernoulli(θ[0]) records.
func (*BetaBernoulli) Synthesize(r *rand.Rand, theta, dst []float64) error {
	p := theta[0]
	if !(p >= 0 && p <= 1) {
		return invalidf("bernoulli probability %v", p)
	}
	for i := range dst {
		if r.Float64() < p {
			dst[i] = 1
		} else {
			dst[i] = 0
		}
	}
	return nil
}

// GaussianMean is the model x_i ~ N(μ, σ²) with σ known and a flat prior
// on μ, with data bounded to [Lo, Hi] ([c0, c1] in modips §5.1). The
// statistic is the sample mean, sensitivity (Hi − Lo)/n, range [Lo, Hi];
// the posterior is N(x̄, σ²/n). Synthetic records are bounded to [Lo, Hi]
// by RecordBounding. Build it with NewGaussianMean; the zero value is
// refused by every engine.
type GaussianMean struct {
	cfg GaussianMeanConfig
}

// GaussianMeanConfig configures NewGaussianMean. The zero value is
// invalid (Sigma and the bounds must be set).
type GaussianMeanConfig struct {
	// Sigma is the known standard deviation σ of the records (finite,
	// > 0, not subnormal).
	Sigma float64
	// Lo and Hi are the public bounds of the confidential records, which
	// are clamped to [Lo, Hi] (finite, Lo < Hi, width finite and not
	// subnormal).
	Lo, Hi float64
	// RecordBounding is how synthetic records are kept in [Lo, Hi]; the
	// zero value is BIT.
	RecordBounding Bounding
}

// Validate reports whether c is usable, with an error wrapping
// ErrInvalid that names the offending field.
func (c GaussianMeanConfig) Validate() error {
	if err := checkPos("GaussianMeanConfig.Sigma", c.Sigma); err != nil {
		return err
	}
	if err := checkMode("GaussianMeanConfig.RecordBounding", c.RecordBounding); err != nil {
		return err
	}
	return checkBounds("GaussianMeanConfig.Lo, GaussianMeanConfig.Hi", c.Lo, c.Hi)
}

// NewGaussianMean returns the Gaussian-mean model of cfg after
// cfg.Validate.
func NewGaussianMean(cfg GaussianMeanConfig) (*GaussianMean, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &GaussianMean{cfg: cfg}, nil
}

// Config returns the configuration g was built with (the zero value for
// a nil model).
func (g *GaussianMean) Config() GaussianMeanConfig {
	if g == nil {
		return GaussianMeanConfig{}
	}
	return g.cfg
}

// checkBounds validates public bounds lo, hi (names names the fields):
// finite, lo < hi, with a width hi − lo that is finite and not subnormal
// (sensitivities are computed from it).
func checkBounds(names string, lo, hi float64) error {
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return invalidf("%s: bounds must be finite with lo < hi, got [%v, %v]", names, lo, hi)
	}
	if w := hi - lo; math.IsInf(w, 0) || w < minNormal {
		return invalidf("%s: bounds [%v, %v] have width %v; it must be finite and at least %v", names, lo, hi, w, minNormal)
	}
	return nil
}

// minNormal is the smallest normal float64; positive parameters below it
// (subnormal) are refused, since quantities derived from them lose all
// precision or overflow.
const minNormal = 0x1p-1022

// checkPos validates a positive parameter: finite and at least minNormal.
func checkPos(name string, v float64) error {
	if !(v >= minNormal) || math.IsInf(v, 1) {
		return invalidf("%s must be finite and >= %v (positive, not subnormal), got %v", name, minNormal, v)
	}
	return nil
}

// validator is implemented by the conjugate models of this package:
// validate refuses a model not built by its constructor (the zero value),
// so that the engines fail with ErrInvalid instead of using it.
type validator interface{ validate() error }

// validate implements validator.
func (m *BetaBernoulli) validate() error {
	if m == nil {
		return invalidf("BetaBernoulli is nil")
	}
	return m.cfg.Validate()
}

// validate implements validator.
func (g *GaussianMean) validate() error {
	if g == nil {
		return invalidf("GaussianMean is nil")
	}
	return g.cfg.Validate()
}

// validate implements validator.
func (g *GaussianNIG) validate() error {
	if g == nil {
		return invalidf("GaussianNIG is nil")
	}
	return g.cfg.Validate()
}

// validate implements validator.
func (p *PoissonGamma) validate() error {
	if p == nil {
		return invalidf("PoissonGamma is nil")
	}
	return conjErr(p.m.Validate())
}

// validate implements validator.
func (m *CategoricalDirichlet) validate() error {
	if m == nil {
		return invalidf("CategoricalDirichlet is nil")
	}
	return conjErr(m.m.Validate())
}

// checkMode validates the bounding mode in the field name.
func checkMode(name string, b Bounding) error {
	if b != BIT && b != Truncation {
		return invalidf("%s: unknown bounding %v", name, b)
	}
	return nil
}

// RecordDim implements Conjugate.
func (*GaussianMean) RecordDim() int { return 1 }

// ParamDim implements Conjugate.
func (*GaussianMean) ParamDim() int { return 1 }

// Statistics implements Conjugate.
func (g *GaussianMean) Statistics(n int) ([]Statistic, error) {
	if n < 1 {
		return nil, invalidf("n must be >= 1, got %d", n)
	}
	c := g.cfg
	if err := checkBounds("GaussianMeanConfig.Lo, GaussianMeanConfig.Hi", c.Lo, c.Hi); err != nil {
		return nil, err
	}
	return []Statistic{{Sens: (c.Hi - c.Lo) / float64(n), Lo: c.Lo, Hi: c.Hi}}, nil
}

// Stats implements Conjugate: the mean of the records clamped to [Lo, Hi].
func (g *GaussianMean) Stats(x, s []float64) error {
	sum := 0.0
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("record %d is %v", i, v)
		}
		sum += mechanism.Clamp(v, g.cfg.Lo, g.cfg.Hi)
	}
	s[0] = sum / float64(len(x))
	return nil
}

// Posterior implements Conjugate: μ ~ N(s, σ²/n).
func (g *GaussianMean) Posterior(r *rand.Rand, s []float64, n int, theta []float64) error {
	theta[0] = s[0] + g.cfg.Sigma/math.Sqrt(float64(n))*variate.Normal(r)
	return nil
}

// Synthesize implements Conjugate: N(μ, σ²) records bounded to [Lo, Hi].
func (g *GaussianMean) Synthesize(r *rand.Rand, theta, dst []float64) error {
	c := g.cfg
	return boundedNormals(r, theta[0], c.Sigma, c.Lo, c.Hi, c.RecordBounding, dst)
}

func boundedNormals(r *rand.Rand, mu, sigma, lo, hi float64, b Bounding, dst []float64) error {
	if math.IsNaN(mu) || !(sigma >= 0) {
		return invalidf("normal parameters (%v, %v)", mu, sigma)
	}
	for i := range dst {
		v := mu + sigma*variate.Normal(r)
		if b == Truncation {
			for k := 0; v < lo || v > hi; k++ {
				if k == 1<<20 {
					return fmt.Errorf("synth: truncated normal N(%v, %v²) on [%v, %v] did not terminate", mu, sigma, lo, hi)
				}
				v = mu + sigma*variate.Normal(r)
			}
		} else {
			v = mechanism.Clamp(v, lo, hi)
		}
		dst[i] = v
	}
	return nil
}

// GaussianNIG is the model x_i ~ N(μ, σ²) with the reference prior
// f(μ, σ²) ∝ σ⁻² and data bounded to [Lo, Hi] ([c0, c1] in modips §5.3).
// It is conjugate.NormalNIG's record model with this improper prior (the
// limit K0 = 0, A0 = −1/2, B0 = 0 of its normal-inverse-gamma prior)
// instead of a proper one; the two share conjugate.NIG's posterior update
// and sampler. The statistics are
// the sample mean and the sample variance s² (denominator n − 1), with ℓ1
// sensitivities (Hi − Lo)/n and (Hi − Lo)²/n and ranges [Lo, Hi] and [0,
// (Hi − Lo)²/4]. The posterior is σ² ~ inverse-gamma((n − 1)/2, (n −
// 1)s²/2), μ | σ² ~ N(x̄, σ²/n). (The paper prints N(x̄, σ²/2); σ²/n is
// the correct conditional.) θ = (μ, σ²). A sanitized s² of 0 gives σ² = 0.
// Build it with NewGaussianNIG; the zero value is refused by every
// engine.
type GaussianNIG struct {
	cfg GaussianNIGConfig
}

// GaussianNIGConfig configures NewGaussianNIG. The zero value is invalid
// (the bounds must be set).
type GaussianNIGConfig struct {
	// Lo and Hi are the public bounds of the confidential records, which
	// are clamped to [Lo, Hi] (finite, Lo < Hi, (Hi − Lo)² finite and the
	// width not subnormal).
	Lo, Hi float64
	// RecordBounding is how synthetic records are kept in [Lo, Hi]; the
	// zero value is BIT.
	RecordBounding Bounding
}

// Validate reports whether c is usable, with an error wrapping
// ErrInvalid that names the offending field.
func (c GaussianNIGConfig) Validate() error {
	if err := checkMode("GaussianNIGConfig.RecordBounding", c.RecordBounding); err != nil {
		return err
	}
	if err := checkBounds("GaussianNIGConfig.Lo, GaussianNIGConfig.Hi", c.Lo, c.Hi); err != nil {
		return err
	}
	if w := c.Hi - c.Lo; math.IsInf(w*w, 0) {
		return invalidf("GaussianNIGConfig.Lo, GaussianNIGConfig.Hi: bounds width %v squared overflows", w)
	}
	return nil
}

// NewGaussianNIG returns the normal model with the prior ∝ σ⁻² of cfg
// after cfg.Validate.
func NewGaussianNIG(cfg GaussianNIGConfig) (*GaussianNIG, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &GaussianNIG{cfg: cfg}, nil
}

// Config returns the configuration g was built with (the zero value for
// a nil model).
func (g *GaussianNIG) Config() GaussianNIGConfig {
	if g == nil {
		return GaussianNIGConfig{}
	}
	return g.cfg
}

// CommunalWeight returns the mean's share w = 1/(1 + Hi − Lo) under which
// individualized allocation (w, 1 − w) equals communal sanitization.
func (g *GaussianNIG) CommunalWeight() float64 { return 1 / (1 + g.cfg.Hi - g.cfg.Lo) }

// RecordDim implements Conjugate.
func (*GaussianNIG) RecordDim() int { return 1 }

// ParamDim implements Conjugate.
func (*GaussianNIG) ParamDim() int { return 2 }

// Statistics implements Conjugate.
func (g *GaussianNIG) Statistics(n int) ([]Statistic, error) {
	if n < 2 {
		return nil, invalidf("n must be >= 2, got %d", n)
	}
	c := g.cfg
	if err := checkBounds("GaussianNIGConfig.Lo, GaussianNIGConfig.Hi", c.Lo, c.Hi); err != nil {
		return nil, err
	}
	w := c.Hi - c.Lo
	return []Statistic{
		{Sens: w / float64(n), Lo: c.Lo, Hi: c.Hi},
		{Sens: w * w / float64(n), Lo: 0, Hi: w * w / 4},
	}, nil
}

// Stats implements Conjugate: (x̄, s²) of the clamped records.
func (g *GaussianNIG) Stats(x, s []float64) error {
	if len(x) < 2 {
		return invalidf("need at least 2 records, got %d", len(x))
	}
	sum := 0.0
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("record %d is %v", i, v)
		}
		sum += mechanism.Clamp(v, g.cfg.Lo, g.cfg.Hi)
	}
	mean := sum / float64(len(x))
	ss := 0.0
	for _, v := range x {
		d := mechanism.Clamp(v, g.cfg.Lo, g.cfg.Hi) - mean
		ss += d * d
	}
	s[0], s[1] = mean, ss/float64(len(x)-1)
	return nil
}

// referenceNIG is the prior f(μ, σ²) ∝ σ⁻² as the improper limit of the
// normal-inverse-gamma family (see conjugate.NIG).
var referenceNIG = conjugate.NIG{M: 0, K: 0, A: -0.5, B: 0}

// Posterior implements Conjugate: conjugate.NIG's Update of the reference
// prior given n records of mean s[0] and variance s[1] (sum of squared
// deviations (n − 1)·s[1]), then its Sample.
func (g *GaussianNIG) Posterior(r *rand.Rand, s []float64, n int, theta []float64) error {
	if len(s) < 2 || len(theta) < 2 {
		return invalidf("GaussianNIG posterior: s and theta need length 2, got %d and %d", len(s), len(theta))
	}
	post, err := referenceNIG.Update(n, s[0], float64(n-1)*s[1])
	if err != nil {
		return conjErr(err)
	}
	return conjErr(post.Sample(r, theta[:2]))
}

// Synthesize implements Conjugate: N(μ, σ²) records bounded to [Lo, Hi].
func (g *GaussianNIG) Synthesize(r *rand.Rand, theta, dst []float64) error {
	c := g.cfg
	return boundedNormals(r, theta[0], math.Sqrt(theta[1]), c.Lo, c.Hi, c.RecordBounding, dst)
}

// PoissonGamma is conjugate.PoissonGamma's count model for synthetic
// data: x_i ~ Poisson(λ), λ ~ Gamma(Shape, rate Rate), with confidential
// counts clamped to [0, MaxCount]. The released statistic is the clamped
// sum Σ min(x_i, MaxCount), of sensitivity MaxCount and range
// [0, n·MaxCount]; the posterior given it is the conjugate
// Gamma(Shape + Σx, rate Rate + n) of conjugate.PoissonGamma's
// SamplePosterior. Synthetic counts are not bounded. Build it with
// NewPoissonGamma; the zero value is refused by every engine.
type PoissonGamma struct {
	m *conjugate.PoissonGamma
}

// NewPoissonGamma returns the Poisson–gamma model of cfg after
// cfg.Validate; its errors also wrap ErrInvalid.
func NewPoissonGamma(cfg conjugate.PoissonGammaConfig) (*PoissonGamma, error) {
	m, err := conjugate.NewPoissonGamma(cfg)
	if err != nil {
		return nil, argcheck.Also(err, ErrInvalid)
	}
	return &PoissonGamma{m: m}, nil
}

// Config returns the configuration p was built with (the zero value for
// a model used without its constructor).
func (p *PoissonGamma) Config() conjugate.PoissonGammaConfig {
	if p == nil {
		return conjugate.PoissonGammaConfig{}
	}
	return p.m.Config()
}

// RecordDim implements Conjugate.
func (*PoissonGamma) RecordDim() int { return 1 }

// ParamDim implements Conjugate.
func (*PoissonGamma) ParamDim() int { return 1 }

// Statistics implements Conjugate.
func (p *PoissonGamma) Statistics(n int) ([]Statistic, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, invalidf("n must be >= 1, got %d", n)
	}
	c := p.m.Config()
	return []Statistic{{Sens: c.MaxCount, Lo: 0, Hi: float64(n) * c.MaxCount}}, nil
}

// Stats implements Conjugate.
func (p *PoissonGamma) Stats(x, s []float64) error {
	if err := p.validate(); err != nil {
		return err
	}
	maxCount := p.m.Config().MaxCount
	sum := 0.0
	for i, v := range x {
		if v < 0 || v != math.Floor(v) || math.IsInf(v, 1) {
			return invalidf("count %d is %v, want a finite non-negative integer", i, v)
		}
		sum += math.Min(v, maxCount)
	}
	s[0] = sum
	return nil
}

// Posterior implements Conjugate: conjugate.PoissonGamma's SamplePosterior
// given the (sanitized) sum s[0] of n counts.
func (p *PoissonGamma) Posterior(r *rand.Rand, s []float64, n int, theta []float64) error {
	if len(s) < 1 || len(theta) < 1 {
		return invalidf("PoissonGamma posterior: s and theta need length 1, got %d and %d", len(s), len(theta))
	}
	return conjErr(p.m.SamplePosterior(r, s[0], n, theta[:1]))
}

// Synthesize implements Conjugate.
func (*PoissonGamma) Synthesize(r *rand.Rand, theta, dst []float64) error {
	if !(theta[0] >= 0) || math.IsInf(theta[0], 1) {
		return invalidf("poisson rate %v", theta[0])
	}
	for i := range dst {
		k := variate.Poisson(r, theta[0])
		if k < 0 {
			return invalidf("poisson rate %v", theta[0])
		}
		dst[i] = float64(k)
	}
	return nil
}

// conjErr marks an argument error of package conjugate as wrapping
// ErrInvalid too.
func conjErr(err error) error {
	if err != nil && errors.Is(err, simulate.ErrInvalid) {
		return argcheck.Also(err, ErrInvalid)
	}
	return err
}

// CategoricalDirichlet is conjugate.CategoricalDirichlet's categorical
// model for synthetic data: each record is a category index in
// {0, …, K−1}, with probabilities p ~ Dirichlet(Alpha). The released
// statistic is the vector of K counts (each of sensitivity 1, range
// [0, n]); with n public, replacing a record changes two counts, so the
// vector's ℓ1 sensitivity is 2 (used by communal sanitization). The
// posterior given the counts is the conjugate Dirichlet(Alpha + counts)
// of conjugate.CategoricalDirichlet's SamplePosterior. Build it with
// NewCategoricalDirichlet; the zero value is refused by every engine.
type CategoricalDirichlet struct {
	m *conjugate.CategoricalDirichlet
}

// NewCategoricalDirichlet returns the categorical model of cfg after
// cfg.Validate; its errors also wrap ErrInvalid. It keeps a copy of
// cfg.Alpha.
func NewCategoricalDirichlet(cfg conjugate.CategoricalDirichletConfig) (*CategoricalDirichlet, error) {
	m, err := conjugate.NewCategoricalDirichlet(cfg)
	if err != nil {
		return nil, argcheck.Also(err, ErrInvalid)
	}
	return &CategoricalDirichlet{m: m}, nil
}

// Config returns the configuration m was built with (Alpha is a copy;
// the zero value for a model used without its constructor).
func (m *CategoricalDirichlet) Config() conjugate.CategoricalDirichletConfig {
	if m == nil {
		return conjugate.CategoricalDirichletConfig{}
	}
	return m.m.Config()
}

// RecordDim implements Conjugate.
func (*CategoricalDirichlet) RecordDim() int { return 1 }

// ParamDim implements Conjugate: K (0 without the constructor).
func (m *CategoricalDirichlet) ParamDim() int {
	if m == nil {
		return 0
	}
	return m.m.ParamDim()
}

// L1Sensitivity implements JointSensitivity.
func (*CategoricalDirichlet) L1Sensitivity(int) float64 { return 2 }

// Statistics implements Conjugate.
func (m *CategoricalDirichlet) Statistics(n int) ([]Statistic, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, invalidf("n must be >= 1, got %d", n)
	}
	st := make([]Statistic, m.ParamDim())
	for i := range st {
		st[i] = Statistic{Sens: 1, Lo: 0, Hi: float64(n)}
	}
	return st, nil
}

// Stats implements Conjugate.
func (m *CategoricalDirichlet) Stats(x, s []float64) error {
	if err := m.validate(); err != nil {
		return err
	}
	k := m.ParamDim()
	clear(s)
	for i, v := range x {
		c := int(v)
		if float64(c) != v || c < 0 || c >= k {
			return invalidf("record %d is %v, want a category in [0, %d)", i, v, k)
		}
		s[c]++
	}
	return nil
}

// Posterior implements Conjugate: conjugate.CategoricalDirichlet's
// SamplePosterior given the (sanitized) counts s.
func (m *CategoricalDirichlet) Posterior(r *rand.Rand, s []float64, n int, theta []float64) error {
	k := m.ParamDim()
	if len(s) < k || len(theta) < k {
		return invalidf("CategoricalDirichlet posterior: s and theta need length %d, got %d and %d", k, len(s), len(theta))
	}
	if err := m.m.SamplePosterior(r, s[:k], theta[:k]); err != nil {
		return conjErr(err)
	}
	if math.IsNaN(theta[0]) {
		return fmt.Errorf("synth: dirichlet posterior given counts %v invalid", s[:k])
	}
	return nil
}

// Synthesize implements Conjugate: categorical records with
// probabilities θ.
func (m *CategoricalDirichlet) Synthesize(r *rand.Rand, theta, dst []float64) error {
	return categorical(r, theta, dst)
}

// categorical fills dst with category indices drawn with probabilities
// proportional to w (by binary search on the cumulative sums).
func categorical(r *rand.Rand, w, dst []float64) error {
	cum := make([]float64, len(w))
	t := 0.0
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 1) {
			return invalidf("category weight %d is %v", i, v)
		}
		t += v
		cum[i] = t
	}
	if !(t > 0) {
		return invalidf("category weights sum to %v", t)
	}
	for i := range dst {
		u := r.Float64() * t
		lo, hi := 0, len(cum)-1
		for lo < hi {
			mid := (lo + hi) / 2
			if cum[mid] > u {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		dst[i] = float64(lo)
	}
	return nil
}
