package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/variate"
)

// invalidf formats a constructor error that wraps ErrInvalid (parameters
// outside their domain: NaN, ±Inf, ≤ 0, empty or mismatched slices, nil
// components, or values so extreme that draws would overflow).
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Univariate is a proper distribution on the real line: a component of
// an Independent prior, and a building block for simulators. Discrete
// distributions (Poisson, Binomial, Categorical) are Univariate with
// integer-valued draws; their LogDensity is the log mass with respect to
// counting measure.
type Univariate interface {
	// Sample draws one value.
	Sample(r *rand.Rand) float64
	// LogDensity is the log density (log mass for discrete
	// distributions); −Inf outside the support, NaN for NaN x.
	LogDensity(x float64) float64
	// Support returns the closed hull [lo, hi] of the support.
	Support() (lo, hi float64)
}

// Invertible is implemented by continuous univariate distributions with a
// distribution function and its inverse; Truncate needs it.
type Invertible interface {
	// CDF is P(X ≤ x).
	CDF(x float64) float64
	// Quantile is the inverse of CDF: the x with CDF(x) = p for p in
	// [0, 1], NaN otherwise.
	Quantile(p float64) float64
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// tailSD bounds the draws of the location-scale constructors' checks:
// parameters are refused when mean ± tailSD standard deviations would
// overflow, so that no draw is ±Inf.
const tailSD = 40

// checkScale validates a scale or shape parameter: finite, > 0 and not
// subnormal (a subnormal scale has lost its precision and its reciprocal
// overflows).
func checkScale(dist, name string, v float64) error {
	if !(v >= math.SmallestNonzeroFloat64) || math.IsInf(v, 1) {
		return invalidf("%s %s must be finite and > 0, got %v", dist, name, v)
	}
	if v < 0x1p-1022 {
		return invalidf("%s %s %v is subnormal; its reciprocal overflows", dist, name, v)
	}
	return nil
}

// checkLocation validates a location parameter.
func checkLocation(dist, name string, v float64) error {
	if !finite(v) {
		return invalidf("%s %s must be finite, got %v", dist, name, v)
	}
	return nil
}

// checkOverflow refuses parameters whose draws mean ± tailSD·sd overflow.
func checkOverflow(dist string, mean, sd float64) error {
	if !finite(math.Abs(mean) + tailSD*sd) {
		return invalidf("%s draws would overflow: mean %v with standard deviation %v", dist, mean, sd)
	}
	return nil
}

// validator is implemented by the package's distributions: valid reports
// whether the value was built by its constructor (zero values are not).
type validator interface{ valid() bool }

// checkBuilt refuses a zero-value distribution of this package.
func checkBuilt(what string, d any) error {
	if v, ok := d.(validator); ok && !v.valid() {
		return invalidf("%s is a zero value %T; build it with its constructor", what, d)
	}
	return nil
}

func (d *Normal) valid() bool      { return d.sigma > 0 }
func (d *LogNormal) valid() bool   { return d.n.valid() }
func (d *Uniform) valid() bool     { return d.lo < d.hi }
func (d *HalfNormal) valid() bool  { return d.sigma > 0 }
func (d *Exponential) valid() bool { return d.rate > 0 }
func (d *Gamma) valid() bool       { return d.shape > 0 && d.scale > 0 }
func (d *Beta) valid() bool        { return d.a > 0 && d.b > 0 }
func (d *Poisson) valid() bool     { return true } // the zero value is the point mass at 0
func (d *Binomial) valid() bool    { return true } // the zero value is the point mass at 0
func (d *Categorical) valid() bool { return d.a != nil }

// Normal is the normal distribution N(μ, σ²).
type Normal struct{ mu, sigma float64 }

// NormalConfig configures NewNormal and NewLogNormal: the mean μ and the
// standard deviation σ of a normal distribution (for the log-normal, of
// the logarithm).
type NormalConfig struct {
	// Mu is the mean μ; it must be finite. Zero is a valid mean.
	Mu float64
	// Sigma is the standard deviation σ; it must be finite, normal (not
	// subnormal) and > 0, so the zero value is refused.
	Sigma float64
}

// Validate reports whether c describes a normal distribution whose draws
// cannot overflow (|Mu| + 40·Sigma finite), with an error wrapping
// ErrInvalid that names the offending field.
func (c NormalConfig) Validate() error { return c.validate("NormalConfig", "normal") }

func (c NormalConfig) validate(typ, dist string) error {
	if err := checkLocation(typ+".Mu: "+dist, "mean", c.Mu); err != nil {
		return err
	}
	if err := checkScale(typ+".Sigma: "+dist, "sigma", c.Sigma); err != nil {
		return err
	}
	return checkOverflow(typ+": "+dist, c.Mu, c.Sigma)
}

// NewNormal returns N(μ, σ²) with μ = cfg.Mu and σ = cfg.Sigma, refusing
// what cfg.Validate refuses.
func NewNormal(cfg NormalConfig) (*Normal, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Normal{cfg.Mu, cfg.Sigma}, nil
}

// Sample draws from N(μ, σ²).
func (d *Normal) Sample(r *rand.Rand) float64 { return d.mu + d.sigma*r.NormFloat64() }

// LogDensity is the normal log density.
func (d *Normal) LogDensity(x float64) float64 { return variate.NormalLogPdf(x, d.mu, d.sigma) }

// CDF is Φ((x − μ)/σ).
func (d *Normal) CDF(x float64) float64 { return special.NormCDF((x - d.mu) / d.sigma) }

// Quantile is μ + σ Φ⁻¹(p).
func (d *Normal) Quantile(p float64) float64 { return d.mu + d.sigma*special.NormQuantile(p) }

// Support is (−Inf, +Inf).
func (d *Normal) Support() (float64, float64) { return math.Inf(-1), math.Inf(1) }

// LogNormal is the law of exp(X) for X ~ N(μ, σ²).
type LogNormal struct{ n Normal }

// NewLogNormal returns the law of exp(X) for X ~ N(cfg.Mu, cfg.Sigma²):
// cfg.Mu and cfg.Sigma are the mean and standard deviation of the
// logarithm, constrained as for NewNormal. Draws beyond the float64 range
// are +Inf or 0, where LogDensity is −Inf.
func NewLogNormal(cfg NormalConfig) (*LogNormal, error) {
	if err := cfg.validate("NormalConfig", "log-normal"); err != nil {
		return nil, err
	}
	return &LogNormal{Normal{cfg.Mu, cfg.Sigma}}, nil
}

// Sample draws exp(N(μ, σ²)).
func (d *LogNormal) Sample(r *rand.Rand) float64 { return math.Exp(d.n.Sample(r)) }

// LogDensity is the log-normal log density; −Inf for x ≤ 0 and x = +Inf.
func (d *LogNormal) LogDensity(x float64) float64 {
	if math.IsNaN(x) {
		return math.NaN()
	}
	if x <= 0 || math.IsInf(x, 1) {
		return math.Inf(-1)
	}
	lx := math.Log(x)
	return d.n.LogDensity(lx) - lx
}

// CDF is Φ((log x − μ)/σ), 0 for x ≤ 0.
func (d *LogNormal) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return d.n.CDF(math.Log(x))
}

// Quantile is exp(μ + σ Φ⁻¹(p)).
func (d *LogNormal) Quantile(p float64) float64 { return math.Exp(d.n.Quantile(p)) }

// Support is [0, +Inf).
func (d *LogNormal) Support() (float64, float64) { return 0, math.Inf(1) }

// Uniform is the uniform distribution on [lo, hi].
type Uniform struct{ lo, hi float64 }

// UniformConfig configures NewUniform: the uniform distribution on
// [Lo, Hi]. Both fields are required: the zero value (Lo = Hi = 0) is
// refused.
type UniformConfig struct {
	// Lo is the lower bound; it must be finite.
	Lo float64
	// Hi is the upper bound; it must be finite and > Lo, with the width
	// Hi − Lo finite.
	Hi float64
}

// Validate reports whether c describes a uniform distribution, with an
// error wrapping ErrInvalid that names the offending field.
func (c UniformConfig) Validate() error {
	if err := checkLocation("UniformConfig.Lo: uniform", "lower bound", c.Lo); err != nil {
		return err
	}
	if err := checkLocation("UniformConfig.Hi: uniform", "upper bound", c.Hi); err != nil {
		return err
	}
	if !(c.Lo < c.Hi) {
		return invalidf("UniformConfig.Hi: uniform upper bound must be > Lo = %v, got %v", c.Lo, c.Hi)
	}
	if !finite(c.Hi - c.Lo) {
		return invalidf("UniformConfig: uniform width Hi − Lo overflows for [%v, %v]", c.Lo, c.Hi)
	}
	return nil
}

// NewUniform returns U[cfg.Lo, cfg.Hi], refusing what cfg.Validate
// refuses.
func NewUniform(cfg UniformConfig) (*Uniform, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Uniform{cfg.Lo, cfg.Hi}, nil
}

// Sample draws from U[lo, hi).
func (d *Uniform) Sample(r *rand.Rand) float64 {
	// lo + (hi−lo)·u can round up to hi only for u within 2^-53 of 1.
	return min(d.lo+(d.hi-d.lo)*r.Float64(), d.hi)
}

// LogDensity is −log(hi − lo) on [lo, hi], −Inf outside.
func (d *Uniform) LogDensity(x float64) float64 {
	if math.IsNaN(x) || !d.valid() {
		return math.NaN()
	}
	if x < d.lo || x > d.hi {
		return math.Inf(-1)
	}
	return -math.Log(d.hi - d.lo)
}

// CDF is the uniform distribution function.
func (d *Uniform) CDF(x float64) float64 {
	return math.Min(1, math.Max(0, (x-d.lo)/(d.hi-d.lo)))
}

// Quantile is lo + p (hi − lo).
func (d *Uniform) Quantile(p float64) float64 {
	if !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	return min(d.lo+p*(d.hi-d.lo), d.hi)
}

// Support is [lo, hi].
func (d *Uniform) Support() (float64, float64) { return d.lo, d.hi }

// HalfNormal is the law of |X| for X ~ N(0, σ²).
type HalfNormal struct{ sigma float64 }

// NewHalfNormal returns the half-normal with scale sigma (finite, normal
// and > 0, 40·sigma finite).
func NewHalfNormal(sigma float64) (*HalfNormal, error) {
	if err := checkScale("half-normal", "sigma", sigma); err != nil {
		return nil, err
	}
	if err := checkOverflow("half-normal", 0, sigma); err != nil {
		return nil, err
	}
	return &HalfNormal{sigma}, nil
}

// Sample draws |N(0, σ²)|.
func (d *HalfNormal) Sample(r *rand.Rand) float64 { return math.Abs(d.sigma * r.NormFloat64()) }

// LogDensity is log 2 + the normal log density for x ≥ 0, −Inf for x < 0.
func (d *HalfNormal) LogDensity(x float64) float64 {
	if math.IsNaN(x) {
		return math.NaN()
	}
	if x < 0 {
		return math.Inf(-1)
	}
	return math.Ln2 + variate.NormalLogPdf(x, 0, d.sigma)
}

// CDF is erf(x/(σ√2)) for x ≥ 0.
func (d *HalfNormal) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Erf(x / (d.sigma * math.Sqrt2))
}

// Quantile is σ Φ⁻¹((1 + p)/2).
func (d *HalfNormal) Quantile(p float64) float64 {
	if !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	return d.sigma * special.NormQuantile((1+p)/2)
}

// Support is [0, +Inf).
func (d *HalfNormal) Support() (float64, float64) { return 0, math.Inf(1) }

// Exponential is the exponential distribution with the given rate λ
// (mean 1/λ).
type Exponential struct{ rate float64 }

// NewExponential returns the exponential distribution with rate > 0
// (finite, normal, and 40/rate finite).
func NewExponential(rate float64) (*Exponential, error) {
	if err := checkScale("exponential", "rate", rate); err != nil {
		return nil, err
	}
	if err := checkOverflow("exponential", 1/rate, 1/rate); err != nil {
		return nil, err
	}
	return &Exponential{rate}, nil
}

// Sample draws E/λ with E a standard exponential variate.
func (d *Exponential) Sample(r *rand.Rand) float64 { return r.ExpFloat64() / d.rate }

// LogDensity is log λ − λx for x ≥ 0, −Inf for x < 0.
func (d *Exponential) LogDensity(x float64) float64 {
	if math.IsNaN(x) {
		return math.NaN()
	}
	if x < 0 || math.IsInf(x, 1) {
		return math.Inf(-1)
	}
	return math.Log(d.rate) - d.rate*x
}

// CDF is 1 − e^(−λx) for x ≥ 0.
func (d *Exponential) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return -math.Expm1(-d.rate * x)
}

// Quantile is −log(1 − p)/λ.
func (d *Exponential) Quantile(p float64) float64 {
	if !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	return -math.Log1p(-p) / d.rate
}

// Support is [0, +Inf).
func (d *Exponential) Support() (float64, float64) { return 0, math.Inf(1) }

// Gamma is the gamma distribution with density
// x^(shape−1) e^(−x/scale) / (Γ(shape) scale^shape).
type Gamma struct{ shape, scale float64 }

// maxShape bounds the shapes of Gamma, Beta and Dirichlet. Larger shapes
// describe distributions narrower than float64 resolution around their
// mean (relative sd 1/√shape < 1e-10).
const maxShape = 1e20

// GammaConfig configures NewGamma: the gamma distribution with density
// x^(Shape−1) e^(−x/Scale) / (Γ(Shape) Scale^Shape), mean Shape·Scale.
// Both fields are required (their zero values are refused).
type GammaConfig struct {
	// Shape is the shape k: finite, normal (not subnormal), > 0 and
	// ≤ 1e20.
	Shape float64
	// Scale is the scale θ = 1/rate: finite, normal and > 0.
	Scale float64
}

// Validate reports whether c describes a gamma distribution whose draws
// (mean Shape·Scale plus 40 standard deviations) lie within the float64
// range, with an error wrapping ErrInvalid that names the offending
// field.
func (c GammaConfig) Validate() error {
	if err := checkScale("GammaConfig.Shape: gamma", "shape", c.Shape); err != nil {
		return err
	}
	if err := checkScale("GammaConfig.Scale: gamma", "scale", c.Scale); err != nil {
		return err
	}
	if c.Shape > maxShape {
		return invalidf("GammaConfig.Shape: gamma shape must be <= %g, got %v", maxShape, c.Shape)
	}
	return checkOverflow("GammaConfig: gamma", c.Shape*c.Scale, math.Sqrt(c.Shape)*c.Scale+c.Scale)
}

// NewGamma returns Gamma(cfg.Shape, cfg.Scale), refusing what
// cfg.Validate refuses. Draws of small shapes may underflow to 0, where
// LogDensity is +Inf for shape < 1 (the density's pole), never NaN.
func NewGamma(cfg GammaConfig) (*Gamma, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Gamma{cfg.Shape, cfg.Scale}, nil
}

// Sample draws from Gamma(shape, scale).
func (d *Gamma) Sample(r *rand.Rand) float64 { return variate.Gamma(r, d.shape, d.scale) }

// LogDensity is the gamma log density; −Inf for x < 0 and x = +Inf; at 0
// it is +Inf, −log(scale) or −Inf for shape <, = or > 1.
func (d *Gamma) LogDensity(x float64) float64 { return variate.GammaLogPdf(x, d.shape, d.scale) }

// CDF is the regularised lower incomplete gamma function P(shape, x/scale).
func (d *Gamma) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return special.GammaP(d.shape, x/d.scale)
}

// Quantile is scale·P⁻¹(shape, p).
func (d *Gamma) Quantile(p float64) float64 { return d.scale * special.GammaPInv(d.shape, p) }

// Support is [0, +Inf).
func (d *Gamma) Support() (float64, float64) { return 0, math.Inf(1) }

// Beta is the beta distribution on [0, 1].
type Beta struct{ a, b float64 }

// BetaConfig configures NewBeta: the beta distribution with density
// x^(Alpha−1) (1−x)^(Beta−1) / B(Alpha, Beta) on [0, 1], mean
// Alpha/(Alpha+Beta). Both fields are required (their zero values are
// refused).
type BetaConfig struct {
	// Alpha is the first shape α: finite, normal (not subnormal), > 0 and
	// ≤ 1e20.
	Alpha float64
	// Beta is the second shape β, constrained as Alpha.
	Beta float64
}

// Validate reports whether c describes a beta distribution, with an error
// wrapping ErrInvalid that names the offending field.
func (c BetaConfig) Validate() error {
	for _, f := range [2]struct {
		name string
		v    float64
	}{{"Alpha", c.Alpha}, {"Beta", c.Beta}} {
		if err := checkScale("BetaConfig."+f.name+": beta", "shape", f.v); err != nil {
			return err
		}
		if f.v > maxShape {
			return invalidf("BetaConfig.%s: beta shape must be <= %g, got %v", f.name, maxShape, f.v)
		}
	}
	return nil
}

// NewBeta returns Beta(cfg.Alpha, cfg.Beta), refusing what cfg.Validate
// refuses. Draws of small shapes may round to 0 or 1, where LogDensity is
// +Inf (the density's pole), never NaN.
func NewBeta(cfg BetaConfig) (*Beta, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Beta{cfg.Alpha, cfg.Beta}, nil
}

// Sample draws from Beta(a, b).
func (d *Beta) Sample(r *rand.Rand) float64 { return variate.Beta(r, d.a, d.b) }

// LogDensity is the beta log density; −Inf outside [0, 1].
func (d *Beta) LogDensity(x float64) float64 { return variate.BetaLogPdf(x, d.a, d.b) }

// CDF is the regularised incomplete beta function I_x(a, b).
func (d *Beta) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	return special.BetaInc(d.a, d.b, x)
}

// Quantile is I⁻¹_p(a, b).
func (d *Beta) Quantile(p float64) float64 { return special.BetaIncInv(d.a, d.b, p) }

// Support is [0, 1].
func (d *Beta) Support() (float64, float64) { return 0, 1 }

// maxCount bounds Poisson means and binomial trial counts: every count up
// to it is exact in float64.
const maxCount = 1 << 52

// Poisson is the Poisson distribution with mean λ.
type Poisson struct{ lambda float64 }

// NewPoisson returns Poisson(lambda) with 0 ≤ lambda ≤ 2^52 (lambda = 0
// is the point mass at 0).
func NewPoisson(lambda float64) (*Poisson, error) {
	if !(lambda >= 0 && lambda <= maxCount) {
		return nil, invalidf("Poisson mean must be in [0, 2^52], got %v", lambda)
	}
	return &Poisson{lambda}, nil
}

// SampleInt draws a count (exact: inversion for λ < 10, Hörmann's PTRS
// otherwise).
func (d *Poisson) SampleInt(r *rand.Rand) int64 { return variate.Poisson(r, d.lambda) }

// Sample draws a count as a float64 (exact below 2^53).
func (d *Poisson) Sample(r *rand.Rand) float64 { return float64(d.SampleInt(r)) }

// LogDensity is the log mass log P(X = x) for integer x ≥ 0 and −Inf for
// other x, accurate for large counts (Loader's saddle-point form).
func (d *Poisson) LogDensity(x float64) float64 {
	k, ok := count(x)
	if !ok {
		return k
	}
	return variate.PoissonLogPmf(int64(k), d.lambda)
}

// Support is [0, +Inf).
func (d *Poisson) Support() (float64, float64) { return 0, math.Inf(1) }

// count checks that x is a non-negative integer count ≤ 2^62. It returns
// (x, true) for a count, and otherwise (NaN or −Inf, false): the value
// LogDensity should return.
func count(x float64) (float64, bool) {
	switch {
	case math.IsNaN(x):
		return x, false
	case x < 0 || x != math.Trunc(x) || x > 1<<62:
		return math.Inf(-1), false
	}
	return x, true
}

// Binomial is the binomial distribution of the number of successes in n
// trials with success probability p.
type Binomial struct {
	n int64
	p float64
}

// BinomialConfig sets a Binomial(N, P) distribution. The zero value is
// the point mass at 0 (N = 0).
type BinomialConfig struct {
	// N is the number of trials, in [0, 2^52].
	N int64
	// P is the success probability, in [0, 1].
	P float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// naming the field at fault.
func (c BinomialConfig) Validate() error {
	_, err := NewBinomial(c)
	return err
}

// NewBinomial returns Binomial(cfg.N, cfg.P) with 0 ≤ N ≤ 2^52 and P in
// [0, 1].
func NewBinomial(cfg BinomialConfig) (*Binomial, error) {
	n, p := cfg.N, cfg.P
	if n < 0 || n > maxCount {
		return nil, invalidf("BinomialConfig.N must be in [0, 2^52], got %d", n)
	}
	if !(p >= 0 && p <= 1) {
		return nil, invalidf("BinomialConfig.P must be in [0, 1], got %v", p)
	}
	return &Binomial{n, p}, nil
}

// SampleInt draws a count (exact: inversion for small n·min(p, 1−p),
// BTPE otherwise).
func (d *Binomial) SampleInt(r *rand.Rand) int64 { return variate.Binomial(r, d.n, d.p) }

// Sample draws a count as a float64.
func (d *Binomial) Sample(r *rand.Rand) float64 { return float64(d.SampleInt(r)) }

// LogDensity is the log mass log P(X = x) for integer x in [0, n] and −Inf
// for other x.
func (d *Binomial) LogDensity(x float64) float64 {
	k, ok := count(x)
	if !ok {
		return k
	}
	if k > float64(d.n) {
		return math.Inf(-1)
	}
	return variate.BinomialLogPmf(int64(k), d.n, d.p)
}

// Support is [0, n].
func (d *Binomial) Support() (float64, float64) { return 0, float64(d.n) }

// Categorical is the distribution on {0, …, K−1} with P(X = k) ∝ w_k.
type Categorical struct{ a *variate.Alias }

// NewCategorical returns the categorical distribution with probabilities
// proportional to weights: at least one weight, all finite and ≥ 0, with
// a positive finite sum.
func NewCategorical(weights []float64) (*Categorical, error) {
	if len(weights) == 0 {
		return nil, invalidf("categorical needs at least one weight")
	}
	s := 0.0
	for i, w := range weights {
		if !(w >= 0) || math.IsInf(w, 1) {
			return nil, invalidf("categorical weight %d must be finite and >= 0, got %v", i, w)
		}
		s += w
	}
	if !(s > 0) || math.IsInf(s, 1) {
		return nil, invalidf("categorical weights must have a positive finite sum, got %v", s)
	}
	a, err := variate.NewAlias(weights)
	if err != nil {
		return nil, invalidf("categorical weights: %v", err)
	}
	return &Categorical{a}, nil
}

// Len returns the number of categories K (0 for the zero value).
func (d *Categorical) Len() int {
	if d.a == nil {
		return 0
	}
	return d.a.Len()
}

// SampleInt draws a category in O(1) (Walker's alias method); −1 for the
// zero value.
func (d *Categorical) SampleInt(r *rand.Rand) int64 {
	if d.a == nil {
		return -1
	}
	return int64(d.a.Sample(r))
}

// Sample draws a category as a float64; NaN for the zero value.
func (d *Categorical) Sample(r *rand.Rand) float64 {
	if d.a == nil {
		return math.NaN()
	}
	return float64(d.a.Sample(r))
}

// LogDensity is log P(X = x) for x in {0, …, K−1} and −Inf for other x;
// NaN for the zero value.
func (d *Categorical) LogDensity(x float64) float64 {
	if d.a == nil {
		return math.NaN()
	}
	k, ok := count(x)
	if !ok {
		return k
	}
	if k >= float64(d.a.Len()) {
		return math.Inf(-1)
	}
	return d.a.LogPmf(int(k))
}

// Support is [0, K−1].
func (d *Categorical) Support() (float64, float64) { return 0, float64(d.Len() - 1) }

// Multinomial is the distribution of the counts of n trials over K
// categories with probabilities proportional to weights.
type Multinomial struct {
	n int64
	p []float64
}

func (d *Multinomial) valid() bool { return len(d.p) > 0 }

// NewMultinomial returns Multinomial(n, p) with 0 ≤ n ≤ 2^52 trials and
// probabilities proportional to weights (at least one, all finite and
// ≥ 0, with a positive finite sum).
func NewMultinomial(n int64, weights []float64) (*Multinomial, error) {
	if n < 0 || n > maxCount {
		return nil, invalidf("multinomial n must be in [0, 2^52], got %d", n)
	}
	if _, err := NewCategorical(weights); err != nil {
		return nil, err
	}
	return &Multinomial{n, append([]float64(nil), weights...)}, nil
}

// Dim is the number of categories K.
func (d *Multinomial) Dim() int { return len(d.p) }

// SampleInt writes a draw of the K counts into dst (length K). It draws
// sequential conditional binomials (exact) and allocates nothing; it
// returns an error wrapping ErrInvalid if len(dst) ≠ K.
func (d *Multinomial) SampleInt(r *rand.Rand, dst []int64) error {
	if !d.valid() || len(dst) != len(d.p) {
		return invalidf("multinomial dst has length %d, want %d", len(dst), len(d.p))
	}
	if err := variate.Multinomial(r, d.n, d.p, dst); err != nil {
		return invalidf("multinomial: %v", err)
	}
	return nil
}

// smallK is the number of categories for which Sample and LogDensity
// work on the stack and allocate nothing.
const smallK = 32

// Sample writes a draw of the counts as float64 into dst (length K); a
// dst of the wrong length is filled with NaN.
func (d *Multinomial) Sample(r *rand.Rand, dst []float64) {
	var buf [smallK]int64
	k := buf[:0]
	if len(d.p) <= smallK {
		k = buf[:len(d.p)]
	} else {
		k = make([]int64, len(d.p))
	}
	if d.SampleInt(r, k) != nil {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	for i, v := range k {
		dst[i] = float64(v)
	}
}

// LogDensity is the log mass of the counts x (length K) when they are
// non-negative integers summing to n, −Inf for other counts, and NaN if
// len(x) ≠ K or x has a NaN.
func (d *Multinomial) LogDensity(x []float64) float64 {
	if !d.valid() || len(x) != len(d.p) {
		return math.NaN()
	}
	var buf [smallK]int64
	k := buf[:0]
	if len(x) <= smallK {
		k = buf[:len(x)]
	} else {
		k = make([]int64, len(x))
	}
	sum := 0.0
	for i, v := range x {
		c, ok := count(v)
		if !ok {
			return c
		}
		k[i] = int64(c)
		sum += c
	}
	if sum != float64(d.n) {
		return math.Inf(-1)
	}
	return variate.MultinomialLogPmf(k, d.p)
}
