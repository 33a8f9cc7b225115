package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// maxLinRegDim bounds the number of coefficients p+1 handled on the stack.
const maxLinRegDim = 8

// LinRegConjugate is the θ-step of Bayesian linear regression with known
// noise variance σ² and independent normal priors β_j ~ N(μ_j, v_j): given
// raw records (x_1..x_p, y) it draws β from the exact conjugate posterior
// N(P⁻¹b, P⁻¹), P = XᵀX/σ² + diag(1/v), b = Xᵀy/σ² + μ/v, with X the design
// matrix including the intercept. It matches linreg.Model (whose β has
// length p+1 and whose predictors are parameter-free) and the SBI paper's
// prior N(0, I). It is safe for concurrent use and allocates nothing for
// p+1 ≤ 8.
type LinRegConjugate struct {
	p            int
	sigma2       float64
	mean, invVar []float64
}

// LinRegConjugateConfig configures NewLinRegConjugate. Every field is
// required: the zero value is refused.
type LinRegConjugateConfig struct {
	// P is the number of predictors p, 1 ≤ p ≤ 7; β = (β_0, …, β_p).
	P int
	// Sigma2 is the known noise variance σ², finite and > 0.
	Sigma2 float64
	// PriorMean holds the prior means μ_j of β_0..β_p (length p+1,
	// finite).
	PriorMean []float64
	// PriorVar holds the prior variances v_j of β_0..β_p (length p+1,
	// finite and > 0).
	PriorVar []float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c LinRegConjugateConfig) Validate() error {
	p := c.P
	if p < 1 || p+1 > maxLinRegDim {
		return fmt.Errorf("mcmc: LinRegConjugateConfig.P must be in [1, %d], got %d: %w", maxLinRegDim-1, p, ErrInvalid)
	}
	if !(c.Sigma2 > 0) || math.IsInf(c.Sigma2, 0) {
		return fmt.Errorf("mcmc: LinRegConjugateConfig.Sigma2 must be finite and > 0, got %v: %w", c.Sigma2, ErrInvalid)
	}
	if len(c.PriorMean) != p+1 || len(c.PriorVar) != p+1 {
		return fmt.Errorf("mcmc: LinRegConjugateConfig.PriorMean and PriorVar must have length P+1 = %d, got %d and %d: %w", p+1, len(c.PriorMean), len(c.PriorVar), ErrInvalid)
	}
	for j := range p + 1 {
		if math.IsNaN(c.PriorMean[j]) || math.IsInf(c.PriorMean[j], 0) {
			return fmt.Errorf("mcmc: LinRegConjugateConfig.PriorMean[%d] must be finite, got %v: %w", j, c.PriorMean[j], ErrInvalid)
		}
		if !(c.PriorVar[j] > 0) || math.IsInf(c.PriorVar[j], 0) {
			return fmt.Errorf("mcmc: LinRegConjugateConfig.PriorVar[%d] must be finite and > 0, got %v: %w", j, c.PriorVar[j], ErrInvalid)
		}
	}
	return nil
}

// NewLinRegConjugate returns the θ-step for the model and prior of cfg.
func NewLinRegConjugate(cfg LinRegConjugateConfig) (*LinRegConjugate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	iv := make([]float64, cfg.P+1)
	for j, v := range cfg.PriorVar {
		iv[j] = 1 / v
	}
	return &LinRegConjugate{p: cfg.P, sigma2: cfg.Sigma2, mean: append([]float64(nil), cfg.PriorMean...), invVar: iv}, nil
}

// gram accumulates XᵀX (k×k, k = p+1) and Xᵀy and yᵀy from records (x, y).
func gram(records []float64, n, p int, xtx, xty []float64) (yty float64) {
	k := p + 1
	clear(xtx[:k*k])
	clear(xty[:k])
	var row [maxLinRegDim]float64
	for i := range n {
		rec := records[i*k : (i+1)*k]
		row[0] = 1
		copy(row[1:k], rec[:p])
		y := rec[p]
		for a := range k {
			xty[a] += row[a] * y
			for b := a; b < k; b++ {
				xtx[a*k+b] += row[a] * row[b]
			}
		}
		yty += y * y
	}
	for a := range k {
		for b := range a {
			xtx[a*k+b] = xtx[b*k+a]
		}
	}
	return yty
}

// PosteriorMoments writes the conjugate posterior mean and covariance
// (row-major (p+1)×(p+1)) of β given the records.
func (l *LinRegConjugate) PosteriorMoments(records []float64, n int, mean, cov []float64) error {
	if err := l.check(records, n); err != nil {
		return err
	}
	k := l.p + 1
	if len(records) != n*k || len(mean) != k || len(cov) != k*k {
		return fmt.Errorf("mcmc: linear regression posterior moments: wrong lengths (records %d for n=%d, mean %d, cov %d): %w", len(records), n, len(mean), len(cov), ErrInvalid)
	}
	var prec, ch [maxLinRegDim * maxLinRegDim]float64
	l.precision(records, n, prec[:k*k], mean)
	if err := linalg.Cholesky(prec[:k*k], k, ch[:k*k]); err != nil {
		return err
	}
	linalg.CholSolve(ch[:k*k], k, mean)
	return linalg.InvSPD(prec[:k*k], k, cov)
}

// check reports a LinRegConjugate used without its constructor, a
// negative n and non-finite records.
func (l *LinRegConjugate) check(records []float64, n int) error {
	if l == nil || l.p < 1 {
		return fmt.Errorf("mcmc: LinRegConjugate used without NewLinRegConjugate (nil or zero value): %w", ErrInvalid)
	}
	return checkRecords(records, n)
}

// checkRecords reports a negative record count and non-finite records.
func checkRecords(records []float64, n int) error {
	if n < 0 {
		return fmt.Errorf("mcmc: number of records must be >= 0, got %d: %w", n, ErrInvalid)
	}
	for i, v := range records {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("mcmc: records[%d] must be finite, got %v: %w", i, v, ErrInvalid)
		}
	}
	return nil
}

func (l *LinRegConjugate) precision(records []float64, n int, prec, b []float64) {
	k := l.p + 1
	gram(records, n, l.p, prec, b)
	for a := range k {
		for c := range k {
			prec[a*k+c] /= l.sigma2
		}
		prec[a*k+a] += l.invVar[a]
		b[a] = b[a]/l.sigma2 + l.mean[a]*l.invVar[a]
	}
}

// SampleTheta draws β | records into theta (length p+1).
func (l *LinRegConjugate) SampleTheta(r *rand.Rand, records []float64, n int, theta []float64) error {
	if err := l.check(records, n); err != nil {
		return err
	}
	if r == nil {
		return fmt.Errorf("mcmc: linear regression θ-step: random source is nil: %w", ErrInvalid)
	}
	k := l.p + 1
	if len(theta) != k || len(records) != n*k {
		return fmt.Errorf("mcmc: linear regression θ-step: theta must have length %d and records %d, got %d and %d: %w", k, n*k, len(theta), len(records), ErrInvalid)
	}
	var prec, ch [maxLinRegDim * maxLinRegDim]float64
	var mu [maxLinRegDim]float64
	l.precision(records, n, prec[:k*k], mu[:k])
	if err := linalg.Cholesky(prec[:k*k], k, ch[:k*k]); err != nil {
		return err
	}
	linalg.CholSolve(ch[:k*k], k, mu[:k])
	drawNormalPrec(r, ch[:k*k], mu[:k], 1, theta)
	return nil
}

// drawNormalPrec writes μ + sd·L⁻ᵀz into dst (length k ≤ maxLinRegDim)
// with z standard normal: a draw from N(μ, sd²·P⁻¹) given the lower
// Cholesky factor L (k×k) of the precision P = LLᵀ.
func drawNormalPrec(r *rand.Rand, chol, mu []float64, sd float64, dst []float64) {
	k := len(dst)
	var z [maxLinRegDim]float64
	for j := range k {
		z[j] = r.NormFloat64()
	}
	linalg.SolveUpperT(chol, k, z[:k])
	for j := range k {
		dst[j] = mu[j] + sd*z[j]
	}
}

// LinRegNIG is Bayesian linear regression with unknown noise variance and
// the normal-inverse-gamma prior σ² ~ InvGamma(a0, b0), β | σ² ~
// N(0, g·σ²·I): it is both the record model (θ = (β_0..β_p, σ²); record
// (x_1..x_p, y) with x ~ N(m, I) and y | x ~ N(β_0 + xᵀβ_{1:p}, σ²); the
// clamped statistic of linreg.Model with clamp C) and its exact
// conjugate θ-step. With m = (0.90, −1.17), a0 = b0 = 10, g = 2 and C = 6
// it is the setting of the slides' n = 10 SOMA table.
type LinRegNIG struct {
	p      int
	m      []float64
	a0, b0 float64
	g      float64
	stat   *linreg.Model
}

// LinRegNIGConfig configures NewLinRegNIG. Every field is required: the
// zero value is refused.
type LinRegNIGConfig struct {
	// PredictorMean is m, the mean of the predictors x ~ N(m, I); its
	// length is the number of predictors p, 1 ≤ p ≤ 7 (finite entries).
	PredictorMean []float64
	// A0 and B0 are the shape and scale of the prior σ² ~ InvGamma(A0,
	// B0), finite and > 0.
	A0, B0 float64
	// G scales the prior β | σ² ~ N(0, G·σ²·I), finite and > 0.
	G float64
	// Clamp is the bound C of the released statistic (linreg.Model's
	// clamp), finite and > 0.
	Clamp float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c LinRegNIGConfig) Validate() error {
	if p := len(c.PredictorMean); p < 1 || p+1 > maxLinRegDim {
		return fmt.Errorf("mcmc: LinRegNIGConfig.PredictorMean must have 1 to %d entries, got %d: %w", maxLinRegDim-1, p, ErrInvalid)
	}
	for _, v := range [4]struct {
		name string
		x    float64
	}{{"A0", c.A0}, {"B0", c.B0}, {"G", c.G}, {"Clamp", c.Clamp}} {
		if !(v.x > 0) || math.IsInf(v.x, 0) {
			return fmt.Errorf("mcmc: LinRegNIGConfig.%s must be finite and > 0, got %v: %w", v.name, v.x, ErrInvalid)
		}
	}
	return nil
}

// NewLinRegNIG returns the model of cfg.
func NewLinRegNIG(cfg LinRegNIGConfig) (*LinRegNIG, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	st, err := linreg.New(linreg.Config{PredictorMean: cfg.PredictorMean, Sigma2: 1, Clamp: cfg.Clamp})
	if err != nil {
		return nil, fmt.Errorf("mcmc: LinRegNIGConfig.PredictorMean: %w: %w", ErrInvalid, err)
	}
	return &LinRegNIG{p: len(cfg.PredictorMean), m: append([]float64(nil), cfg.PredictorMean...), a0: cfg.A0, b0: cfg.B0, g: cfg.G, stat: st}, nil
}

// Dim is p + 2, the length of θ = (β, σ²) (0 for a LinRegNIG used
// without its constructor): the model is also its own prior, a
// simulate.Prior.
func (l *LinRegNIG) Dim() int {
	if l == nil || l.stat == nil {
		return 0
	}
	return l.p + 2
}

// Sample draws θ = (β, σ²) from the normal-inverse-gamma prior into theta
// (length p + 2). A LinRegNIG used without its constructor writes nothing.
func (l *LinRegNIG) Sample(r *rand.Rand, theta []float64) {
	if l == nil || l.stat == nil || r == nil || len(theta) != l.p+2 {
		return
	}
	s2 := l.b0 / variate.Gamma(r, l.a0, 1)
	sd := math.Sqrt(l.g * s2)
	for j := range l.p + 1 {
		theta[j] = sd * r.NormFloat64()
	}
	theta[l.p+1] = s2
}

// LogDensity returns the log prior density log InvGamma(σ²; a0, b0) +
// Σ_j log N(β_j; 0, g·σ²): −Inf for σ² ≤ 0 and NaN for θ of the wrong
// length or a LinRegNIG used without its constructor.
func (l *LinRegNIG) LogDensity(theta []float64) float64 {
	if l == nil || l.stat == nil || len(theta) != l.p+2 {
		return math.NaN()
	}
	s2 := theta[l.p+1]
	if math.IsNaN(s2) {
		return math.NaN()
	}
	if !(s2 > 0) {
		return math.Inf(-1)
	}
	lg, _ := math.Lgamma(l.a0)
	lp := l.a0*math.Log(l.b0) - lg - (l.a0+1)*math.Log(s2) - l.b0/s2
	v := l.g * s2
	for _, b := range theta[:l.p+1] {
		lp -= 0.5*math.Log(2*math.Pi*v) + 0.5*b*b/v
	}
	return lp
}

// ParamDim is p + 2: the coefficients and σ².
func (l *LinRegNIG) ParamDim() int { return l.p + 2 }

// RecordDim is p + 1.
func (l *LinRegNIG) RecordDim() int { return l.p + 1 }

// ContribDim is the length of the clamped linear-regression statistic (0
// for a LinRegNIG used without its constructor).
func (l *LinRegNIG) ContribDim() int {
	if l.stat == nil {
		return 0
	}
	return l.stat.ContribDim()
}

// check reports a LinRegNIG used without NewLinRegNIG.
func (l *LinRegNIG) check() error {
	if l == nil || l.stat == nil {
		return fmt.Errorf("mcmc: LinRegNIG used without NewLinRegNIG (nil or zero value): %w", ErrInvalid)
	}
	return nil
}

// CheckParam checks θ = (β, σ²) for length, finiteness and σ² > 0.
func (l *LinRegNIG) CheckParam(theta []float64) error {
	if err := l.check(); err != nil {
		return err
	}
	if len(theta) != l.p+2 {
		return fmt.Errorf("%w: NIG linear regression θ must have length %d, got %d", simulate.ErrInvalidTheta, l.p+2, len(theta))
	}
	for i, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: NIG linear regression θ[%d] must be finite, got %v", simulate.ErrInvalidTheta, i, v)
		}
	}
	if theta[l.p+1] <= 0 {
		return fmt.Errorf("%w: NIG linear regression σ² must be > 0, got %v", simulate.ErrInvalidTheta, theta[l.p+1])
	}
	return nil
}

// SampleRecord draws x ~ N(m, I) and y | x into rec.
func (l *LinRegNIG) SampleRecord(r *rand.Rand, theta, rec []float64) {
	mu := theta[0]
	for j := range l.p {
		rec[j] = l.m[j] + r.NormFloat64()
		mu += theta[j+1] * rec[j]
	}
	rec[l.p] = mu + math.Sqrt(theta[l.p+1])*r.NormFloat64()
}

func (l *LinRegNIG) mean(theta, rec []float64) float64 {
	mu := theta[0]
	for j := range l.p {
		mu += theta[j+1] * rec[j]
	}
	return mu
}

// Contribution writes the clamped statistic contribution of linreg.Model.
func (l *LinRegNIG) Contribution(rec, dst []float64) { l.stat.Contribution(rec, dst) }

// RecordLogLik returns log N(x; m, I) + log N(y; β_0 + xᵀβ_{1:p}, σ²).
func (l *LinRegNIG) RecordLogLik(theta, rec []float64) float64 {
	ll := 0.0
	for j := range l.p {
		ll += variate.NormalLogPdf(rec[j], l.m[j], 1)
	}
	return ll + variate.NormalLogPdf(rec[l.p], l.mean(theta, rec), math.Sqrt(theta[l.p+1]))
}

// nigPost holds the conjugate posterior: β | σ² ~ N(mu, σ² Λ⁻¹), σ² ~ IG(a, b).
type nigPost struct {
	k    int
	chol [maxLinRegDim * maxLinRegDim]float64 // Cholesky factor of Λ
	mu   [maxLinRegDim]float64
	a, b float64
}

// drawBeta draws β ~ N(μ, s·Λ⁻¹) into b (length k).
func (p *nigPost) drawBeta(r *rand.Rand, s float64, b []float64) {
	drawNormalPrec(r, p.chol[:p.k*p.k], p.mu[:p.k], math.Sqrt(s), b)
}

func (l *LinRegNIG) posterior(records []float64, n int, post *nigPost) error {
	k := l.p + 1
	var lam [maxLinRegDim * maxLinRegDim]float64
	yty := gram(records, n, l.p, lam[:k*k], post.mu[:k])
	for a := range k {
		lam[a*k+a] += 1 / l.g
	}
	if err := linalg.Cholesky(lam[:k*k], k, post.chol[:k*k]); err != nil {
		return err
	}
	var xty [maxLinRegDim]float64
	copy(xty[:k], post.mu[:k])
	linalg.CholSolve(post.chol[:k*k], k, post.mu[:k])
	quad := 0.0 // μᵀΛμ = μᵀXᵀy
	for a := range k {
		quad += post.mu[a] * xty[a]
	}
	post.k = k
	post.a = l.a0 + float64(n)/2
	post.b = l.b0 + 0.5*math.Max(yty-quad, 0)
	return nil
}

// SampleTheta draws σ² and then β from their exact conjugate posterior
// given the raw (unclamped) records.
func (l *LinRegNIG) SampleTheta(r *rand.Rand, records []float64, n int, theta []float64) error {
	if err := l.check(); err != nil {
		return err
	}
	if err := checkRecords(records, n); err != nil {
		return err
	}
	if r == nil {
		return fmt.Errorf("mcmc: NIG θ-step: random source is nil: %w", ErrInvalid)
	}
	k := l.p + 1
	if len(theta) != k+1 || len(records) != n*k {
		return fmt.Errorf("mcmc: NIG θ-step: theta must have length %d and records %d, got %d and %d: %w", k+1, n*k, len(theta), len(records), ErrInvalid)
	}
	var post nigPost
	if err := l.posterior(records, n, &post); err != nil {
		return err
	}
	s2 := post.b / variate.Gamma(r, post.a, 1)
	post.drawBeta(r, s2, theta[:k])
	theta[k] = s2
	return nil
}
