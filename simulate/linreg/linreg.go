// Package linreg provides the SBI paper's Bayesian linear regression
// model (§4.2, App. E.2): the record model with its clamped sufficient
// statistic, the paper's setting (Paper, PaperN, PaperTheta, Prior) and
// its observed releases (Release), and the statistic computed from a
// curator's normalised data (Stats) with its ℓ1 sensitivity (Sensitivity);
// and the conjugate posteriors given raw records that data-augmentation
// MCMC uses as exact θ-steps: Conjugate (known noise variance) and NIG
// (the normal-inverse-gamma model, also its own prior, record model and
// coupling for mcmc.CoupleDA).
// Errors wrap simulate.ErrInvalid
// (simulate.ErrInvalidTheta for a bad θ).
package linreg

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Config describes the SBI paper's Bayesian linear regression data
// model (§4.2, App. E.2, the setting of Ju et al. 2022): predictors
// x_{0,i} ~ N_p(m, Σ), responses y_i | x_{0,i} ~ N(β_0 + x_{0,i}ᵀβ_{1:p}, σ²),
// θ = β of length p + 1.
type Config struct {
	// PredictorMean is m; its length is p ≥ 1.
	PredictorMean []float64
	// PredictorCov is Σ, row-major p×p symmetric positive definite; nil
	// means the identity.
	PredictorCov []float64
	// Sigma2 is the noise variance σ² > 0.
	Sigma2 float64
	// Clamp is the bound C > 0: before release every predictor and the
	// response are clamped to [−C, C] and divided by C, so they lie in
	// [−1, 1]. Zero means 10, the authors' choice.
	Clamp float64
}

// Model is the record model of the linear regression experiment. A raw
// record is (x_1, …, x_p, y) (RecordDim = p + 1). Its contribution t is,
// with x̃ = (1, x̃_1, …, x̃_p) the clamped-and-scaled predictors including
// the intercept and ỹ the clamped-and-scaled response,
//
//	t = (x̃ ỹ [p+1], ỹ² [1], upper triangle of x̃ x̃ᵀ without the constant
//	     (0,0) entry, row by row [(p+1)(p+2)/2 − 1])
//
// so that the mean over records is the paper's vector form of
// s̃ = (x̃ᵀỹ/n, ỹᵀỹ/n, x̃ᵀx̃/n); for p = 2 that is the 9-vector
// (x̃ᵀỹ/n [3], ỹᵀỹ/n, (x̃ᵀx̃/n)_{01}, _{02}, _{11}, _{12}, _{22}).
type Model struct {
	p      int
	x      *simulate.MVNormal // the predictors' law N(m, Σ)
	sigma  float64
	sigma2 float64
	c      float64
}

// New validates cfg and returns the record model.
func New(cfg Config) (*Model, error) {
	p := len(cfg.PredictorMean)
	if p > maxP {
		return nil, fmt.Errorf("%w: linear regression takes at most 2^12 predictors, got %d", simulate.ErrInvalid, p)
	}
	if p < 1 {
		return nil, fmt.Errorf("%w: linear regression needs at least one predictor (PredictorMean is empty)", simulate.ErrInvalid)
	}
	for i, v := range cfg.PredictorMean {
		if !modelutil.Finite(v) {
			return nil, fmt.Errorf("%w: linear regression PredictorMean[%d] must be finite, got %v", simulate.ErrInvalid, i, v)
		}
	}
	x, err := modelutil.Gaussian("linear regression PredictorMean and PredictorCov", cfg.PredictorMean, cfg.PredictorCov)
	if err != nil {
		return nil, err
	}
	if !modelutil.Finite(cfg.Sigma2) || cfg.Sigma2 <= 0 {
		return nil, fmt.Errorf("%w: linear regression Sigma2 must be finite and > 0, got %v", simulate.ErrInvalid, cfg.Sigma2)
	}
	c := cfg.Clamp
	if c == 0 {
		c = 10
	}
	if !modelutil.Finite(c) || c <= 0 {
		return nil, fmt.Errorf("%w: linear regression Clamp must be finite and > 0, got %v", simulate.ErrInvalid, cfg.Clamp)
	}
	return &Model{p: p, x: x, sigma: math.Sqrt(cfg.Sigma2), sigma2: cfg.Sigma2, c: c}, nil
}

// Paper returns the paper's model: p = 2, m = (0.9, −1.17), Σ = I,
// σ² = 2, clamping to [−10, 10]. Use it with n = PaperN records.
func Paper() *Model {
	l, err := New(Config{PredictorMean: []float64{0.9, -1.17}, Sigma2: 2, Clamp: 10})
	if err != nil {
		panic(err) // constants: cannot fail
	}
	return l
}

// PaperN is the paper's number of records n = 100.
const PaperN = 100

// P is the number of predictors p.
func (l *Model) P() int { return l.p }

// Config returns the model's settings (fresh slices): the predictors' mean
// and covariance (PredictorCov always set, the identity when it was nil),
// σ² and the clamping bound in effect (10 when it was 0). It returns the
// zero Config for a Model not built by New.
func (l *Model) Config() Config {
	if !l.valid() {
		return Config{}
	}
	return Config{PredictorMean: l.x.Mean(), PredictorCov: l.x.Cov(), Sigma2: l.sigma2, Clamp: l.c}
}

// valid reports whether l was built by New.
func (l *Model) valid() bool { return l != nil && l.p >= 1 }

// Validate returns an error wrapping simulate.ErrInvalid when the Model is
// nil or was not built by its constructor; simulate.NewMeanStat and
// simulate.MeanContribution call it.
func (l *Model) Validate() error {
	if !l.valid() {
		return modelutil.ErrUnbuilt("linreg.Model")
	}
	return nil
}

// ParamDim is p + 1 (intercept and slopes); 0 for a Model not built by
// New.
func (l *Model) ParamDim() int {
	if !l.valid() {
		return 0
	}
	return l.p + 1
}

// RecordDim is p + 1: the predictors followed by the response.
func (l *Model) RecordDim() int { return l.p + 1 }

// ContribDim is (p + 1) + 1 + (p + 1)(p + 2)/2 − 1; 9 for p = 2.
func (l *Model) ContribDim() int { return l.p + 1 + (l.p+1)*(l.p+2)/2 }

// CheckParam checks that θ = β has length p + 1 and finite entries.
func (l *Model) CheckParam(theta []float64) error {
	if !l.valid() {
		return modelutil.ErrUnbuilt("linreg.Model")
	}
	if len(theta) != l.p+1 {
		return fmt.Errorf("%w: linear regression β must have length %d, got %d", simulate.ErrInvalidTheta, l.p+1, len(theta))
	}
	for i, v := range theta {
		if !modelutil.Finite(v) {
			return fmt.Errorf("%w: linear regression β[%d] must be finite, got %v", simulate.ErrInvalidTheta, i, v)
		}
	}
	return nil
}

// SampleRecord draws x_0 ~ N(m, Σ) and y ~ N(β_0 + x_0ᵀβ_{1:p}, σ²) into
// rec = (x_0, y). It allocates nothing.
func (l *Model) SampleRecord(r *rand.Rand, theta, rec []float64) {
	p := l.p
	x := rec[:p]
	l.x.Sample(r, x)
	mu := theta[0]
	for i, v := range x {
		mu += theta[i+1] * v
	}
	rec[p] = mu + l.sigma*r.NormFloat64()
}

func (l *Model) clampScale(v float64) float64 {
	if v > l.c {
		v = l.c
	} else if v < -l.c {
		v = -l.c
	}
	return v / l.c
}

// Contribution writes t(rec) (see Model) into dst.
func (l *Model) Contribution(rec, dst []float64) {
	p := l.p
	y := l.clampScale(rec[p])
	dst[0] = y
	for j := range p {
		dst[j+1] = l.clampScale(rec[j]) * y
	}
	dst[p+1] = y * y
	o := p + 2
	// Upper triangle of x̃x̃ᵀ, row by row, without (0,0): row 0 is x̃_j.
	for j := range p {
		dst[o] = l.clampScale(rec[j])
		o++
	}
	for i := range p {
		xi := l.clampScale(rec[i])
		for j := i; j < p; j++ {
			dst[o] = xi * l.clampScale(rec[j])
			o++
		}
	}
}

// RecordLogLik returns log N(x_0; m, Σ) + log N(y; β_0 + x_0ᵀβ_{1:p}, σ²)
// for the raw (unclamped) record.
func (l *Model) RecordLogLik(theta, rec []float64) float64 {
	p := l.p
	mu := theta[0]
	for i, v := range rec[:p] {
		mu += theta[i+1] * v
	}
	e := (rec[p] - mu) / l.sigma
	return l.x.LogDensity(rec[:p]) - 0.5*e*e - math.Log(l.sigma) - modelutil.LogSqrt2Pi
}

// maxP bounds the number of predictors (see Prior).
const maxP = 1 << 12

// PaperTheta returns the paper's data-generating β* =
// (−1.79, −2.89, −0.66).
func PaperTheta() []float64 { return []float64{-1.79, -2.89, -0.66} }

// Prior returns the paper's prior on β: independent N(0, 1) for the
// p + 1 coefficients, 1 ≤ p ≤ 2^12 (the model's statistic has
// (p+1)(p+2)/2 − 1 + p + 1 entries, about 8·10^6 at the limit).
func Prior(p int) (*simulate.MVNormal, error) {
	if p < 1 || p > maxP {
		return nil, fmt.Errorf("%w: linear regression prior needs 1 <= p <= 2^12, got %d", simulate.ErrInvalid, p)
	}
	mean := make([]float64, p+1)
	v := make([]float64, p+1)
	for i := range v {
		v[i] = 1
	}
	return simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: mean, Variances: v})
}

// ConfidentialStat returns the paper's clamped confidential
// statistic s̃_vec at β* (App. E.2, unrounded values of the authors' code;
// the paper prints four decimals). A fresh slice is returned.
func ConfidentialStat() []float64 {
	return []float64{-0.374211, -0.062943, 0.02995, 0.249949, 0.093791, -0.126974, 0.017999, -0.009352, 0.028001}
}

// Release returns the paper's observed private statistic s_dp for
// ε ∈ {10, 1, 0.1}: s̃_vec plus Laplace noise of scale Δ/ε, Δ = 13/100, on
// each of the 9 coordinates (App. E.2; ε = 10 printed in the paper, all
// three from paper-values.json). A fresh slice is returned.
func Release(eps float64) ([]float64, error) {
	switch eps {
	case 10:
		return []float64{-0.38244, -0.066783, 0.031997, 0.271985, 0.098835, -0.138503, 0.021882, -0.022884, 0.034092}, nil
	case 1:
		return []float64{-0.5514, -0.06, 0.1504, 0.2378, 0.413, -0.1621, -0.0946, -0.1133, 0.3595}, nil
	case 0.1:
		return []float64{-3.3384, -1.0651, -0.0131, 3.9993, 2.2998, 0.1967, 0.8459, -0.5541, 0.889}, nil
	}
	return nil, fmt.Errorf("%w: the paper's linear regression release exists for epsilon 10, 1, 0.1, got %v", simulate.ErrInvalid, eps)
}
