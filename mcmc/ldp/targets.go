package ldp

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/mcmc"
)

// Compile-time checks that the posteriors are mcmc targets.
var (
	_ mcmc.GradTarget = (*GaussianPosterior)(nil)
	_ mcmc.GradTarget = (*ExponentialPosterior)(nil)
	_ mcmc.GradTarget = (*HistogramPosterior)(nil)
	_ mcmc.GradTarget = (*LinRegPosterior)(nil)
	_ mcmc.GradTarget = (*LogRegPosterior)(nil)
	_ mcmc.GradTarget = (*SuffStatLogRegPosterior)(nil)
	_ mcmc.GradTarget = (*SuffStatLogRegCovPosterior)(nil)
	_ mcmc.Target     = (*SuffStatPosterior)(nil)
	_ mcmc.GradTarget = (*SuffStatCovPosterior)(nil)
	_ mcmc.GradTarget = (*LinRegCovPosterior)(nil)
)

// GaussianPrior is the prior of the LDP paper's Gaussian model (Fig. 8):
// μ ~ N(Mu0, Sd0²) and σ ~ Gamma(Shape, Rate) (rate parametrisation, mean
// Shape/Rate).
type GaussianPrior struct {
	Mu0, Sd0    float64
	Shape, Rate float64
}

// Validate reports whether p is a usable prior, with an error wrapping
// ErrInvalid that names the offending field.
func (p GaussianPrior) Validate() error { return p.check() }

func (p GaussianPrior) check() error {
	if !finite(p.Mu0) || !(p.Sd0 > 0) || math.IsInf(p.Sd0, 1) {
		return fmt.Errorf("ldp: GaussianPrior.Mu0 must be finite and GaussianPrior.Sd0 finite and > 0, got %v, %v: %w", p.Mu0, p.Sd0, ErrInvalid)
	}
	if !(p.Shape > 0) || !(p.Rate > 0) || math.IsInf(p.Shape, 1) || math.IsInf(p.Rate, 1) {
		return fmt.Errorf("ldp: GaussianPrior.Shape and .Rate must be finite and > 0, got %v, %v: %w", p.Shape, p.Rate, ErrInvalid)
	}
	return nil
}

// GaussianPosterior is the posterior of (μ, σ) given clipped-Gaussian
// Laplace reports, as an mcmc.GradTarget on the unconstrained coordinates
// x = (μ, log σ) (the log-Jacobian log σ is included).
type GaussianPosterior struct {
	m     *ClippedGaussian
	z     []float64
	prior GaussianPrior
}

// NewGaussianPosterior validates the reports and the prior.
func NewGaussianPosterior(m *ClippedGaussian, z []float64, prior GaussianPrior) (*GaussianPosterior, error) {
	if !m.valid() {
		return nil, fmt.Errorf("ldp: model is nil or was not built by NewClippedGaussian: %w", ErrInvalid)
	}
	if err := checkReports(z); err != nil {
		return nil, err
	}
	if err := prior.check(); err != nil {
		return nil, err
	}
	return &GaussianPosterior{m: m, z: append([]float64(nil), z...), prior: prior}, nil
}

// Dim returns 2.
func (g *GaussianPosterior) Dim() int { return 2 }

// LogDensity returns the unnormalised log posterior density of x = (μ, log σ).
func (g *GaussianPosterior) LogDensity(x []float64) float64 {
	return g.Gradient(x, nil)
}

// Gradient writes ∇ log π(x) into grad (if non-nil) and returns log π(x).
func (g *GaussianPosterior) Gradient(x, grad []float64) float64 {
	if g == nil || g.m == nil || len(x) != 2 {
		return math.NaN()
	}
	mu, ls := x[0], x[1]
	sigma := math.Exp(ls)
	if !(sigma > 0) || math.IsInf(sigma, 1) || !finite(mu) {
		if grad != nil {
			grad[0], grad[1] = 0, 0
		}
		return math.Inf(-1)
	}
	p := g.prior
	var ll, dmu, dls float64
	if grad != nil {
		ll, dmu, dls = g.m.sumGradLog(g.z, mu, sigma)
	} else {
		ll = g.m.LogDensitySum(g.z, mu, sigma)
	}
	u := (mu - p.Mu0) / p.Sd0
	lp := ll - 0.5*u*u + p.Shape*ls - p.Rate*sigma // Gamma(σ) · σ (Jacobian)
	if grad != nil {
		grad[0] = dmu - u/p.Sd0
		grad[1] = dls + p.Shape - p.Rate*sigma
	}
	return lp
}

// ExponentialPosterior is the posterior of the rate θ given clipped
// exponential Laplace reports with a Gamma(Shape, Rate) prior (Fig. 8), as
// an mcmc.GradTarget on x = (log θ).
type ExponentialPosterior struct {
	m           *ClippedExponential
	z           []float64
	shape, rate float64
}

// ExponentialPosteriorConfig configures NewExponentialPosterior: the
// Gamma(Shape, Rate) prior of the rate θ (rate parametrisation, mean
// Shape/Rate). The zero value is refused.
type ExponentialPosteriorConfig struct {
	// Shape is the prior's shape (finite, > 0).
	Shape float64
	// Rate is the prior's rate (finite, > 0).
	Rate float64
}

// Validate reports whether c is a usable prior, with an error wrapping
// ErrInvalid that names the offending field.
func (c ExponentialPosteriorConfig) Validate() error {
	if !(c.Shape > 0) || math.IsInf(c.Shape, 1) {
		return fmt.Errorf("ldp: ExponentialPosteriorConfig.Shape must be finite and > 0, got %v: %w", c.Shape, ErrInvalid)
	}
	if !(c.Rate > 0) || math.IsInf(c.Rate, 1) {
		return fmt.Errorf("ldp: ExponentialPosteriorConfig.Rate must be finite and > 0, got %v: %w", c.Rate, ErrInvalid)
	}
	return nil
}

// NewExponentialPosterior validates the model, the reports z and the
// prior in cfg.
func NewExponentialPosterior(m *ClippedExponential, z []float64, cfg ExponentialPosteriorConfig) (*ExponentialPosterior, error) {
	if !m.valid() {
		return nil, fmt.Errorf("ldp: model is nil or was not built by NewClippedExponential: %w", ErrInvalid)
	}
	if err := checkReports(z); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	shape, rate := cfg.Shape, cfg.Rate
	return &ExponentialPosterior{m: m, z: append([]float64(nil), z...), shape: shape, rate: rate}, nil
}

// Dim returns 1.
func (e *ExponentialPosterior) Dim() int { return 1 }

// LogDensity returns the unnormalised log posterior of x = (log θ).
func (e *ExponentialPosterior) LogDensity(x []float64) float64 { return e.Gradient(x, nil) }

// Gradient writes d log π/d log θ into grad[0] (if grad is non-nil) and
// returns log π(x).
func (e *ExponentialPosterior) Gradient(x, grad []float64) float64 {
	if e == nil || e.m == nil || len(x) != 1 {
		return math.NaN()
	}
	th := math.Exp(x[0])
	if !(th > 0) || math.IsInf(th, 1) {
		if grad != nil {
			grad[0] = 0
		}
		return math.Inf(-1)
	}
	var ll, d float64
	if grad != nil {
		ll, d = e.m.LogDensitySumGrad(e.z, th)
		grad[0] = th*d + e.shape - e.rate*th
	} else {
		ll = e.m.LogDensitySum(e.z, th)
	}
	return ll + e.shape*x[0] - e.rate*th
}

// HistogramPosterior is the posterior of the category probabilities θ
// given OUE reports with a Dirichlet(alpha) prior (Fig. 8 uses alpha = 1),
// as an mcmc.GradTarget on the additive log-ratio coordinates
// x ∈ R^{d−1}: θ_k = e^{x_k}/(1 + Σ_j e^{x_j}) for k < d−1 and
// θ_{d−1} = 1/(1 + Σ_j e^{x_j}). Prior and Jacobian together contribute
// Σ_k alpha_k log θ_k.
type HistogramPosterior struct {
	data  *OUEData
	alpha []float64
	asum  float64
}

// NewHistogramPosterior returns the posterior for data with Dirichlet
// parameters alpha (length d, all > 0); nil alpha means all ones.
func NewHistogramPosterior(data *OUEData, alpha []float64) (*HistogramPosterior, error) {
	if data == nil {
		return nil, fmt.Errorf("ldp: data is nil: %w", ErrInvalid)
	}
	d := data.m.d
	if alpha == nil {
		alpha = make([]float64, d)
		for k := range alpha {
			alpha[k] = 1
		}
	}
	if len(alpha) != d {
		return nil, fmt.Errorf("ldp: alpha must have length %d, got %d: %w", d, len(alpha), ErrInvalid)
	}
	h := &HistogramPosterior{data: data, alpha: append([]float64(nil), alpha...)}
	for k, a := range alpha {
		if !(a > 0) || math.IsInf(a, 1) {
			return nil, fmt.Errorf("ldp: alpha[%d] must be finite and > 0, got %v: %w", k, a, ErrInvalid)
		}
		h.asum += a
	}
	return h, nil
}

// Dim returns d − 1.
func (h *HistogramPosterior) Dim() int {
	if h.unbuilt() {
		return 0
	}
	return h.data.m.d - 1
}

// unbuilt reports a HistogramPosterior not returned by its constructor.
func (h *HistogramPosterior) unbuilt() bool { return h == nil || h.data == nil || h.data.m == nil }

// Theta maps x (length d−1) to θ (length d) in dst.
func (h *HistogramPosterior) Theta(x, dst []float64) {
	d := h.data.m.d
	mx := 0.0
	for _, v := range x[:d-1] {
		mx = math.Max(mx, v)
	}
	s := math.Exp(-mx)
	for k := range d - 1 {
		dst[k] = math.Exp(x[k] - mx)
		s += dst[k]
	}
	dst[d-1] = math.Exp(-mx)
	for k := range dst[:d] {
		dst[k] /= s
	}
}

// LogDensity returns the unnormalised log posterior of x.
func (h *HistogramPosterior) LogDensity(x []float64) float64 { return h.Gradient(x, nil) }

// Gradient writes ∇ log π(x) into grad (if non-nil) and returns log π(x).
// It allocates nothing for d ≤ 64.
func (h *HistogramPosterior) Gradient(x, grad []float64) float64 {
	if h.unbuilt() {
		return math.NaN()
	}
	d := h.data.m.d
	if len(x) != d-1 {
		return math.NaN()
	}
	var thb, gb [64]float64
	theta, g := thb[:d], gb[:d]
	for _, v := range x {
		if !finite(v) {
			return math.Inf(-1)
		}
	}
	h.Theta(x, theta)
	// log θ_k = x_k − lse, with x_{d−1} = 0.
	mx := 0.0
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	s := math.Exp(-mx)
	for _, v := range x {
		s += math.Exp(v - mx)
	}
	lse := mx + math.Log(s)
	var ll float64
	if grad != nil {
		ll = h.data.LogDensityGrad(theta, g)
	} else {
		ll = h.data.LogDensity(theta)
	}
	lp := ll - h.asum*lse
	for k := range d - 1 {
		lp += h.alpha[k] * x[k]
	}
	if grad != nil {
		gt := 0.0
		for k := range d {
			gt += g[k] * theta[k]
		}
		for j := range d - 1 {
			grad[j] = theta[j]*(g[j]-gt) + h.alpha[j] - h.asum*theta[j]
		}
	}
	return lp
}

// LinRegPosterior is the posterior of (θ, σ) for the input-perturbation
// linear regression (eq. 41) with the input covariance Σ fixed (for
// example estimated from the released inputs as their empirical covariance
// minus Σ*), with priors θ ~ N(0, SdTheta² I) (the paper uses variance 5)
// and σ ~ Gamma(Shape, Rate), as an mcmc.GradTarget on x = (θ, log σ).
type LinRegPosterior struct {
	f                  *LinRegFixedCov
	sdTheta, sha, rate float64
}

// LinRegPosteriorConfig configures NewLinRegPosterior: the priors
// θ ~ N(0, SDTheta² I) and σ ~ Gamma(Shape, Rate). The zero value is
// refused.
type LinRegPosteriorConfig struct {
	// SDTheta is the prior standard deviation of each θ_j (finite, > 0;
	// the paper uses √5).
	SDTheta float64
	// Shape is the shape of the Gamma prior of σ (finite, > 0).
	Shape float64
	// Rate is the rate of the Gamma prior of σ (finite, > 0).
	Rate float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c LinRegPosteriorConfig) Validate() error {
	return checkPriorScales("LinRegPosteriorConfig", c.SDTheta, c.Shape, c.Rate)
}

// checkPriorScales checks the prior scales SDTheta, Shape and Rate of the
// configuration named typ.
func checkPriorScales(typ string, sdTheta, shape, rate float64) error {
	for _, a := range []struct {
		name string
		v    float64
	}{{"SDTheta", sdTheta}, {"Shape", shape}, {"Rate", rate}} {
		if !(a.v > 0) || math.IsInf(a.v, 1) {
			return fmt.Errorf("ldp: %s.%s must be finite and > 0, got %v: %w", typ, a.name, a.v, ErrInvalid)
		}
	}
	return nil
}

// NewLinRegPosterior returns the posterior for the precomputed likelihood
// f with the priors of cfg.
func NewLinRegPosterior(f *LinRegFixedCov, cfg LinRegPosteriorConfig) (*LinRegPosterior, error) {
	if f == nil {
		return nil, fmt.Errorf("ldp: likelihood is nil: %w", ErrInvalid)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sdTheta, shape, rate := cfg.SDTheta, cfg.Shape, cfg.Rate
	return &LinRegPosterior{f: f, sdTheta: sdTheta, sha: shape, rate: rate}, nil
}

// Dim returns d + 1.
func (p *LinRegPosterior) Dim() int {
	if p == nil || p.f == nil {
		return 0
	}
	return p.f.d + 1
}

// LogDensity returns the unnormalised log posterior of x = (θ, log σ).
func (p *LinRegPosterior) LogDensity(x []float64) float64 { return p.Gradient(x, nil) }

// Gradient writes ∇ log π(x) into grad (if non-nil) and returns log π(x).
// It allocates nothing for d ≤ 63.
func (p *LinRegPosterior) Gradient(x, grad []float64) float64 {
	if p == nil || p.f == nil {
		return math.NaN()
	}
	d := p.f.d
	if len(x) != d+1 {
		return math.NaN()
	}
	sigma := math.Exp(x[d])
	if !(sigma > 0) || math.IsInf(sigma, 1) {
		return math.Inf(-1)
	}
	var gb [64]float64
	var g []float64
	if grad != nil {
		g = gb[:d+1]
	}
	ll := p.f.LogDensityGrad(x[:d], sigma, g)
	v2 := p.sdTheta * p.sdTheta
	lp := ll + p.sha*x[d] - p.rate*sigma
	for j := range d {
		lp -= 0.5 * x[j] * x[j] / v2
	}
	if grad != nil {
		for j := range d {
			grad[j] = g[j] - x[j]/v2
		}
		grad[d] = sigma*g[d] + p.sha - p.rate*sigma
	}
	return lp
}

// LogRegPosterior is the posterior of θ for the logistic model (eq. 44)
// with Σ and the Chebyshev coefficients fixed and prior θ ~ N(0, SdTheta² I),
// as an mcmc.GradTarget on x = θ.
type LogRegPosterior struct {
	f       *LogRegFixedCov
	sdTheta float64
}

// LogRegPosteriorConfig configures NewLogRegPosterior: the prior
// θ ~ N(0, SDTheta² I). The zero value is refused.
type LogRegPosteriorConfig struct {
	// SDTheta is the prior standard deviation of each θ_j (finite, > 0;
	// the paper uses √5).
	SDTheta float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c LogRegPosteriorConfig) Validate() error {
	return checkSDTheta("LogRegPosteriorConfig", c.SDTheta)
}

// checkSDTheta checks the prior scale SDTheta of the configuration named
// typ.
func checkSDTheta(typ string, sd float64) error {
	if !(sd > 0) || math.IsInf(sd, 1) {
		return fmt.Errorf("ldp: %s.SDTheta must be finite and > 0, got %v: %w", typ, sd, ErrInvalid)
	}
	return nil
}

// NewLogRegPosterior returns the posterior for the precomputed likelihood
// f with the prior of cfg.
func NewLogRegPosterior(f *LogRegFixedCov, cfg LogRegPosteriorConfig) (*LogRegPosterior, error) {
	if f == nil {
		return nil, fmt.Errorf("ldp: likelihood is nil: %w", ErrInvalid)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &LogRegPosterior{f: f, sdTheta: cfg.SDTheta}, nil
}

// Dim returns d.
func (p *LogRegPosterior) Dim() int {
	if p == nil || p.f == nil || p.f.ld == nil {
		return 0
	}
	return p.f.ld.d
}

// LogDensity returns the unnormalised log posterior of θ.
func (p *LogRegPosterior) LogDensity(x []float64) float64 { return p.Gradient(x, nil) }

// Gradient writes ∇ log π(θ) into grad (if non-nil) and returns log π(θ).
func (p *LogRegPosterior) Gradient(x, grad []float64) float64 {
	if p == nil || p.f == nil || p.f.ld == nil || len(x) != p.f.ld.d {
		return math.NaN()
	}
	ll := p.f.LogDensityGrad(x, grad)
	v2 := p.sdTheta * p.sdTheta
	for j := range x {
		ll -= 0.5 * x[j] * x[j] / v2
		if grad != nil {
			grad[j] -= x[j] / v2
		}
	}
	return ll
}

// SuffStatPosterior is the posterior of (θ, σ) for the sufficient-statistics
// linear regression (§13.1) with Σ fixed, priors θ ~ N(0, SDTheta² I) and
// σ ~ Gamma(Shape, Rate), as an mcmc.Target on x = (θ, log σ) (no gradient:
// use AdaptiveMetropolis or Slice).
type SuffStatPosterior struct {
	s                  *SuffStatLinReg
	sigmaX             []float64
	sdTheta, sha, rate float64
}

// SuffStatPosteriorConfig configures NewSuffStatPosterior: the fixed
// input covariance Σ and the priors θ ~ N(0, SDTheta² I) and
// σ ~ Gamma(Shape, Rate). The zero value is refused.
type SuffStatPosteriorConfig struct {
	// SigmaX is the input covariance Σ (row-major d×d, finite, d the
	// model's dimension).
	SigmaX []float64
	// SDTheta is the prior standard deviation of each θ_j (finite, > 0).
	SDTheta float64
	// Shape is the shape of the Gamma prior of σ (finite, > 0).
	Shape float64
	// Rate is the rate of the Gamma prior of σ (finite, > 0).
	Rate float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field. NewSuffStatPosterior further checks that
// SigmaX is d×d for the model's d.
func (c SuffStatPosteriorConfig) Validate() error {
	if len(c.SigmaX) == 0 {
		return fmt.Errorf("ldp: SuffStatPosteriorConfig.SigmaX must not be empty: %w", ErrInvalid)
	}
	for i, v := range c.SigmaX {
		if !finite(v) {
			return fmt.Errorf("ldp: SuffStatPosteriorConfig.SigmaX[%d] must be finite, got %v: %w", i, v, ErrInvalid)
		}
	}
	return checkPriorScales("SuffStatPosteriorConfig", c.SDTheta, c.Shape, c.Rate)
}

// NewSuffStatPosterior returns the posterior for the released sum in s
// with the covariance and priors of cfg.
func NewSuffStatPosterior(s *SuffStatLinReg, cfg SuffStatPosteriorConfig) (*SuffStatPosterior, error) {
	if s == nil {
		return nil, fmt.Errorf("ldp: model is nil: %w", ErrInvalid)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !checkCov(cfg.SigmaX, s.d) {
		return nil, fmt.Errorf("ldp: SuffStatPosteriorConfig.SigmaX must be a %d×%d matrix, got length %d: %w", s.d, s.d, len(cfg.SigmaX), ErrInvalid)
	}
	sigmaX, sdTheta, shape, rate := cfg.SigmaX, cfg.SDTheta, cfg.Shape, cfg.Rate
	return &SuffStatPosterior{s: s, sigmaX: append([]float64(nil), sigmaX...), sdTheta: sdTheta, sha: shape, rate: rate}, nil
}

// Dim returns d + 1.
func (p *SuffStatPosterior) Dim() int {
	if p == nil || p.s == nil {
		return 0
	}
	return p.s.d + 1
}

// LogDensity returns the unnormalised log posterior of x = (θ, log σ).
func (p *SuffStatPosterior) LogDensity(x []float64) float64 {
	if p == nil || p.s == nil {
		return math.NaN()
	}
	d := p.s.d
	if len(x) != d+1 {
		return math.NaN()
	}
	sigma := math.Exp(x[d])
	if !(sigma > 0) || math.IsInf(sigma, 1) {
		return math.Inf(-1)
	}
	lp := p.s.LogDensity(x[:d], sigma, p.sigmaX) + p.sha*x[d] - p.rate*sigma
	for j := range d {
		lp -= 0.5 * x[j] * x[j] / (p.sdTheta * p.sdTheta)
	}
	return lp
}
