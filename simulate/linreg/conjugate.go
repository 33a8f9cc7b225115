package linreg

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/simulate"
)

// This file holds the conjugate posteriors of Bayesian linear regression
// given raw records: the exact θ-steps of data-augmentation MCMC
// (mcmc.DAConfig.ThetaStep) for the known-variance model (Conjugate) and
// the normal-inverse-gamma model (NIG, which is also its own prior, record
// model and coupling for mcmc.CoupleDA). They satisfy package mcmc's
// interfaces structurally, so this package does not import it.

// maxLinRegDim bounds the number of coefficients p+1 handled on the stack.
const maxLinRegDim = 8

// Conjugate is the θ-step of Bayesian linear regression with known
// noise variance σ² and independent normal priors β_j ~ N(μ_j, v_j): given
// raw records (x_1..x_p, y) it draws β from the exact conjugate posterior
// N(P⁻¹b, P⁻¹), P = XᵀX/σ² + diag(1/v), b = Xᵀy/σ² + μ/v, with X the design
// matrix including the intercept. It matches Model (whose β has
// length p+1 and whose predictors are parameter-free) and the SBI paper's
// prior N(0, I). It is safe for concurrent use and allocates nothing for
// p+1 ≤ 8.
type Conjugate struct {
	p            int
	sigma2       float64
	mean, invVar []float64
}

// ConjugateConfig configures NewConjugate. Every field is
// required: the zero value is refused.
type ConjugateConfig struct {
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

// minNormal is the smallest positive normal float64: variances and scales
// below it (subnormal) are refused.
const minNormal = 0x1p-1022

// Validate reports whether c is usable, with an error wrapping simulate.ErrInvalid
// that names the offending field.
func (c ConjugateConfig) Validate() error {
	p := c.P
	if p < 1 || p+1 > maxLinRegDim {
		return fmt.Errorf("%w: ConjugateConfig.P must be in [1, %d], got %d", simulate.ErrInvalid, maxLinRegDim-1, p)
	}
	if !(c.Sigma2 >= minNormal) || math.IsInf(c.Sigma2, 0) {
		return fmt.Errorf("%w: ConjugateConfig.Sigma2 must be a finite normal number > 0, got %v", simulate.ErrInvalid, c.Sigma2)
	}
	if len(c.PriorMean) != p+1 || len(c.PriorVar) != p+1 {
		return fmt.Errorf("%w: ConjugateConfig.PriorMean and PriorVar must have length P+1 = %d, got %d and %d", simulate.ErrInvalid, p+1, len(c.PriorMean), len(c.PriorVar))
	}
	for j := range p + 1 {
		if math.IsNaN(c.PriorMean[j]) || math.IsInf(c.PriorMean[j], 0) {
			return fmt.Errorf("%w: ConjugateConfig.PriorMean[%d] must be finite, got %v", simulate.ErrInvalid, j, c.PriorMean[j])
		}
		if !(c.PriorVar[j] >= minNormal) || math.IsInf(c.PriorVar[j], 0) {
			return fmt.Errorf("%w: ConjugateConfig.PriorVar[%d] must be a finite normal number > 0, got %v", simulate.ErrInvalid, j, c.PriorVar[j])
		}
	}
	return nil
}

// NewConjugate returns the θ-step for the model and prior of cfg.
func NewConjugate(cfg ConjugateConfig) (*Conjugate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	iv := make([]float64, cfg.P+1)
	for j, v := range cfg.PriorVar {
		iv[j] = 1 / v
	}
	return &Conjugate{p: cfg.P, sigma2: cfg.Sigma2, mean: append([]float64(nil), cfg.PriorMean...), invVar: iv}, nil
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
func (l *Conjugate) PosteriorMoments(records []float64, n int, mean, cov []float64) error {
	if err := l.check(records, n); err != nil {
		return err
	}
	k := l.p + 1
	if len(records) != n*k || len(mean) != k || len(cov) != k*k {
		return fmt.Errorf("%w: linear regression posterior moments: wrong lengths (records %d for n=%d, mean %d, cov %d)", simulate.ErrInvalid, len(records), n, len(mean), len(cov))
	}
	var prec, ch [maxLinRegDim * maxLinRegDim]float64
	l.precision(records, n, prec[:k*k], mean)
	if err := linalg.Cholesky(prec[:k*k], k, ch[:k*k]); err != nil {
		return err
	}
	linalg.CholSolve(ch[:k*k], k, mean)
	return linalg.InvSPD(prec[:k*k], k, cov)
}

// check reports a Conjugate used without its constructor, a
// negative n and non-finite records.
func (l *Conjugate) check(records []float64, n int) error {
	if l == nil || l.p < 1 {
		return fmt.Errorf("%w: Conjugate used without NewConjugate (nil or zero value)", simulate.ErrInvalid)
	}
	return checkRecords(records, n)
}

// checkRecords reports a negative record count and non-finite records.
func checkRecords(records []float64, n int) error {
	if n < 0 {
		return fmt.Errorf("%w: number of records must be >= 0, got %d", simulate.ErrInvalid, n)
	}
	for i, v := range records {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: records[%d] must be finite, got %v", simulate.ErrInvalid, i, v)
		}
	}
	return nil
}

func (l *Conjugate) precision(records []float64, n int, prec, b []float64) {
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
func (l *Conjugate) SampleTheta(r *rand.Rand, records []float64, n int, theta []float64) error {
	if err := l.check(records, n); err != nil {
		return err
	}
	if r == nil {
		return fmt.Errorf("%w: linear regression θ-step: random source is nil", simulate.ErrInvalid)
	}
	k := l.p + 1
	if len(theta) != k || len(records) != n*k {
		return fmt.Errorf("%w: linear regression θ-step: theta must have length %d and records %d, got %d and %d", simulate.ErrInvalid, k, n*k, len(theta), len(records))
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

// NIG is Bayesian linear regression with unknown noise variance and
// the normal-inverse-gamma prior σ² ~ InvGamma(a0, b0), β | σ² ~
// N(0, g·σ²·I): it is both the record model (θ = (β_0..β_p, σ²); record
// (x_1..x_p, y) with x ~ N(m, I) and y | x ~ N(β_0 + xᵀβ_{1:p}, σ²); the
// clamped statistic of Model with clamp C) and its exact
// conjugate θ-step. With m = (0.90, −1.17), a0 = b0 = 10, g = 2 and C = 6
// it is the setting of the slides' n = 10 SOMA table.
type NIG struct {
	p      int
	m      []float64
	a0, b0 float64
	g      float64
	stat   *Model
}

// NIGConfig configures NewNIG. Every field is required: the
// zero value is refused.
type NIGConfig struct {
	// PredictorMean is m, the mean of the predictors x ~ N(m, I); its
	// length is the number of predictors p, 1 ≤ p ≤ 7 (finite entries).
	PredictorMean []float64
	// A0 and B0 are the shape and scale of the prior σ² ~ InvGamma(A0,
	// B0), finite and > 0.
	A0, B0 float64
	// G scales the prior β | σ² ~ N(0, G·σ²·I), finite and > 0.
	G float64
	// Clamp is the bound C of the released statistic (Model's
	// clamp), finite and > 0.
	Clamp float64
}

// Validate reports whether c is usable, with an error wrapping simulate.ErrInvalid
// that names the offending field.
func (c NIGConfig) Validate() error {
	if p := len(c.PredictorMean); p < 1 || p+1 > maxLinRegDim {
		return fmt.Errorf("%w: NIGConfig.PredictorMean must have 1 to %d entries, got %d", simulate.ErrInvalid, maxLinRegDim-1, p)
	}
	for _, v := range [4]struct {
		name string
		x    float64
	}{{"A0", c.A0}, {"B0", c.B0}, {"G", c.G}, {"Clamp", c.Clamp}} {
		if !(v.x >= minNormal) || math.IsInf(v.x, 0) {
			return fmt.Errorf("%w: NIGConfig.%s must be a finite normal number > 0, got %v", simulate.ErrInvalid, v.name, v.x)
		}
	}
	for j, m := range c.PredictorMean {
		if math.IsNaN(m) || math.IsInf(m, 0) {
			return fmt.Errorf("%w: NIGConfig.PredictorMean[%d] must be finite, got %v", simulate.ErrInvalid, j, m)
		}
	}
	return nil
}

// NewNIG returns the model of cfg.
func NewNIG(cfg NIGConfig) (*NIG, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	st, err := New(Config{PredictorMean: cfg.PredictorMean, Sigma2: 1, Clamp: cfg.Clamp})
	if err != nil {
		return nil, err
	}
	return &NIG{p: len(cfg.PredictorMean), m: append([]float64(nil), cfg.PredictorMean...), a0: cfg.A0, b0: cfg.B0, g: cfg.G, stat: st}, nil
}

// Config returns the model's settings (a fresh PredictorMean slice), or
// the zero NIGConfig for a NIG used without its constructor.
func (l *NIG) Config() NIGConfig {
	if l == nil || l.stat == nil {
		return NIGConfig{}
	}
	return NIGConfig{PredictorMean: append([]float64(nil), l.m...), A0: l.a0, B0: l.b0, G: l.g, Clamp: l.stat.c}
}

// Dim is p + 2, the length of θ = (β, σ²) (0 for a NIG used
// without its constructor): the model is also its own prior, a
// simulate.Prior.
func (l *NIG) Dim() int {
	if l == nil || l.stat == nil {
		return 0
	}
	return l.p + 2
}

// Sample draws θ = (β, σ²) from the normal-inverse-gamma prior into theta
// (length p + 2). As simulate.Prior states for every prior, it panics if
// r is nil or len(theta) < p + 2 (a programmer error). A NIG used without
// its constructor writes nothing.
func (l *NIG) Sample(r *rand.Rand, theta []float64) {
	if l == nil || l.stat == nil {
		return
	}
	if r == nil {
		panic("linreg: NIG.Sample with a nil *rand.Rand")
	}
	if len(theta) < l.p+2 {
		panic(fmt.Sprintf("linreg: NIG.Sample into theta of length %d, need %d", len(theta), l.p+2))
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
// length or a NIG used without its constructor.
func (l *NIG) LogDensity(theta []float64) float64 {
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

// ParamDim is p + 2: the coefficients and σ² (0 for a NIG used without
// its constructor, nil included).
func (l *NIG) ParamDim() int {
	if l == nil || l.stat == nil {
		return 0
	}
	return l.p + 2
}

// RecordDim is p + 1 (0 for a NIG used without its constructor, nil
// included).
func (l *NIG) RecordDim() int {
	if l == nil || l.stat == nil {
		return 0
	}
	return l.p + 1
}

// ContribDim is the length of the clamped linear-regression statistic (0
// for a NIG used without its constructor, nil included).
func (l *NIG) ContribDim() int {
	if l == nil || l.stat == nil {
		return 0
	}
	return l.stat.ContribDim()
}

// check reports a NIG used without NewNIG.
func (l *NIG) check() error {
	if l == nil || l.stat == nil {
		return fmt.Errorf("%w: NIG used without NewNIG (nil or zero value)", simulate.ErrInvalid)
	}
	return nil
}

// CheckParam checks θ = (β, σ²) for length, finiteness and σ² > 0.
func (l *NIG) CheckParam(theta []float64) error {
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

// SampleRecord draws x ~ N(m, I) and y | x into rec. Like Sample, it
// writes nothing for a NIG used without its constructor and panics on a
// nil r or θ and rec shorter than ParamDim and RecordDim (a programmer
// error on a hot path).
func (l *NIG) SampleRecord(r *rand.Rand, theta, rec []float64) {
	if l == nil || l.stat == nil {
		return
	}
	mu := theta[0]
	for j := range l.p {
		rec[j] = l.m[j] + r.NormFloat64()
		mu += theta[j+1] * rec[j]
	}
	rec[l.p] = mu + math.Sqrt(theta[l.p+1])*r.NormFloat64()
}

func (l *NIG) mean(theta, rec []float64) float64 {
	mu := theta[0]
	for j := range l.p {
		mu += theta[j+1] * rec[j]
	}
	return mu
}

// Contribution writes the clamped statistic contribution of Model
// (nothing for a NIG used without its constructor).
func (l *NIG) Contribution(rec, dst []float64) {
	if l == nil || l.stat == nil {
		return
	}
	l.stat.Contribution(rec, dst)
}

// RecordLogLik returns log N(x; m, I) + log N(y; β_0 + xᵀβ_{1:p}, σ²);
// NaN for a NIG used without its constructor or θ and rec of the wrong
// lengths.
func (l *NIG) RecordLogLik(theta, rec []float64) float64 {
	if l == nil || l.stat == nil || len(theta) != l.p+2 || len(rec) != l.p+1 {
		return math.NaN()
	}
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

func (l *NIG) posterior(records []float64, n int, post *nigPost) error {
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
func (l *NIG) SampleTheta(r *rand.Rand, records []float64, n int, theta []float64) error {
	if err := l.check(); err != nil {
		return err
	}
	if err := checkRecords(records, n); err != nil {
		return err
	}
	if r == nil {
		return fmt.Errorf("%w: NIG θ-step: random source is nil", simulate.ErrInvalid)
	}
	k := l.p + 1
	if len(theta) != k+1 || len(records) != n*k {
		return fmt.Errorf("%w: NIG θ-step: theta must have length %d and records %d, got %d and %d", simulate.ErrInvalid, k+1, n*k, len(theta), len(records))
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

// maximalCouple draws (X, Y) with X ~ p, Y ~ q and P(X = Y) = 1 − TV(p, q)
// by the rejection construction (Thorisson 2000; Jacob et al. 2020).
func maximalCouple(r *rand.Rand, sampleP, sampleQ func() float64, logP, logQ func(float64) float64) (float64, float64) {
	x := sampleP()
	if math.Log(r.Float64())+logP(x) <= logQ(x) {
		return x, x
	}
	for {
		y := sampleQ()
		if math.Log(r.Float64())+logQ(y) > logP(y) {
			return x, y
		}
	}
}

// SampleRecordPair draws the two records with shared covariates and
// maximally coupled responses. Like SampleRecord, it writes nothing for a
// NIG used without its constructor and panics on a nil r or short slices.
func (l *NIG) SampleRecordPair(r *rand.Rand, theta1, theta2, y1, y2 []float64) {
	if l == nil || l.stat == nil {
		return
	}
	p := l.p
	for j := range p {
		y1[j] = l.m[j] + r.NormFloat64()
		y2[j] = y1[j]
	}
	m1, m2 := l.mean(theta1, y1), l.mean(theta2, y2)
	s1, s2 := math.Sqrt(theta1[p+1]), math.Sqrt(theta2[p+1])
	if m1 == m2 && s1 == s2 {
		y1[p] = m1 + s1*r.NormFloat64()
		y2[p] = y1[p]
		return
	}
	y1[p], y2[p] = maximalCouple(r,
		func() float64 { return m1 + s1*r.NormFloat64() },
		func() float64 { return m2 + s2*r.NormFloat64() },
		func(v float64) float64 { z := (v - m1) / s1; return -0.5*z*z - math.Log(s1) },
		func(v float64) float64 { z := (v - m2) / s2; return -0.5*z*z - math.Log(s2) })
}

// SampleThetaPair draws (σ², β) for both chains from two successive
// maximal couplings: of the inverse-gamma laws of σ², then of the normal
// laws of β given each σ².
func (l *NIG) SampleThetaPair(r *rand.Rand, rec1, rec2 []float64, n int, theta1, theta2 []float64) error {
	if err := l.check(); err != nil {
		return err
	}
	k := l.p + 1
	if r == nil || len(rec1) != n*k || len(rec2) != n*k || len(theta1) != k+1 || len(theta2) != k+1 {
		return fmt.Errorf("%w: NIG coupled θ-step needs a random source, records of length %d and θ of length %d", simulate.ErrInvalid, n*k, k+1)
	}
	if err := checkRecords(rec1, n); err != nil {
		return err
	}
	if err := checkRecords(rec2, n); err != nil {
		return err
	}
	var p1, p2 nigPost
	if err := l.posterior(rec1, n, &p1); err != nil {
		return err
	}
	if err := l.posterior(rec2, n, &p2); err != nil {
		return err
	}
	logIG := func(a, b float64) func(float64) float64 {
		return func(v float64) float64 { return a*math.Log(b) - (a+1)*math.Log(v) - b/v }
	}
	var s1, s2 float64
	if p1.a == p2.a && p1.b == p2.b {
		s1 = p1.b / variate.Gamma(r, p1.a, 1)
		s2 = s1
	} else {
		s1, s2 = maximalCouple(r,
			func() float64 { return p1.b / variate.Gamma(r, p1.a, 1) },
			func() float64 { return p2.b / variate.Gamma(r, p2.a, 1) },
			logIG(p1.a, p1.b), logIG(p2.a, p2.b))
	}
	// β_c ~ N(μ_c, s_c Λ_c⁻¹): log density up to a shared constant is
	// −k/2 log s_c + log|L_c| − ½ (β−μ_c)ᵀ Λ_c (β−μ_c)/s_c.
	logN := func(p *nigPost, s float64, b []float64) float64 {
		q := 0.0
		ch := p.chol[:k*k]
		for i := range k { // (Lᵀ(β−μ))_i = Σ_{j≥i} L_{ji}(β_j − μ_j)
			v := 0.0
			for j := i; j < k; j++ {
				v += ch[j*k+i] * (b[j] - p.mu[j])
			}
			q += v * v
		}
		return -0.5*float64(k)*math.Log(s) + 0.5*linalg.LogDetChol(ch, k) - 0.5*q/s
	}
	b1, b2 := theta1[:k], theta2[:k]
	p1.drawBeta(r, s1, b1)
	if s1 == s2 && p1.mu == p2.mu && p1.chol == p2.chol ||
		math.Log(r.Float64())+logN(&p1, s1, b1) <= logN(&p2, s2, b1) {
		copy(b2, b1)
	} else {
		for {
			p2.drawBeta(r, s2, b2)
			if math.Log(r.Float64())+logN(&p2, s2, b2) > logN(&p1, s1, b2) {
				break
			}
		}
	}
	theta1[k], theta2[k] = s1, s2
	return nil
}
