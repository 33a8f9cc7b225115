// Package regression provides the LDP paper's data model for linear and
// logistic regression with perturbed inputs (§3.2.3, Supp. 12), as a
// simulate.RecordModel. Errors wrap simulate.ErrInvalid
// (simulate.ErrInvalidTheta for a bad θ).
package regression

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Inputs is the LDP paper's data model for linear and logistic
// regression with perturbed inputs (§3.2.3, Supp. 12): x ~ N(0, Σ) in R^d
// and either y ~ N(θᵀx, σ²) (linear) or y ~ Bernoulli(1/(1 + e^{−θᵀx}))
// (logistic, y ∈ {0, 1}); θ ∈ R^d. A record is (x, y).
type Inputs struct {
	d        int
	x        *simulate.MVNormal // N(0, Σ)
	logistic bool
	sigma    float64
}

// LinearConfig sets the linear-regression input model. It has no usable
// zero value: Sigma2 > 0 and a dimension (Dim or Cov) are required.
type LinearConfig struct {
	// Dim is the number of inputs d, in [1, 2^12].
	Dim int
	// Cov is the inputs' covariance, row-major d×d; nil means I_d.
	Cov []float64
	// Sigma2 is the noise variance, finite and > 0.
	Sigma2 float64
}

// NewLinear returns the linear-regression input model of cfg.
func NewLinear(cfg LinearConfig) (*Inputs, error) {
	dim, cov, sigma2 := cfg.Dim, cfg.Cov, cfg.Sigma2
	if !modelutil.Finite(sigma2) || sigma2 <= 0 {
		return nil, fmt.Errorf("%w: LinearConfig.Sigma2 must be finite and > 0, got %v", simulate.ErrInvalid, sigma2)
	}
	m, err := newInputs(dim, cov)
	if err != nil {
		return nil, err
	}
	m.sigma = math.Sqrt(sigma2)
	return m, nil
}

// NewLogistic returns the logistic-regression input model.
func NewLogistic(dim int, cov []float64) (*Inputs, error) {
	m, err := newInputs(dim, cov)
	if err != nil {
		return nil, err
	}
	m.logistic = true
	return m, nil
}

func newInputs(d int, cov []float64) (*Inputs, error) {
	if d < 1 || d > 1<<12 {
		return nil, fmt.Errorf("%w: regression inputs need 1 <= dim <= 2^12 (the covariance has dim² entries), got %d", simulate.ErrInvalid, d)
	}
	x, err := modelutil.Gaussian("regression inputs cov", make([]float64, d), cov)
	if err != nil {
		return nil, err
	}
	return &Inputs{d: d, x: x}, nil
}

// Logistic reports whether y is binary (logistic regression).
func (m *Inputs) Logistic() bool { return m.logistic }

// ParamDim is d.
func (m *Inputs) ParamDim() int { return m.d }

// RecordDim is d + 1.
func (m *Inputs) RecordDim() int { return m.d + 1 }

// ContribDim is d + 1 (the record itself).
func (m *Inputs) ContribDim() int { return m.d + 1 }

// CheckParam checks θ ∈ R^d finite.
func (m *Inputs) CheckParam(theta []float64) error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("regression.Inputs")
	}
	return modelutil.CheckFinite("regression inputs", theta, m.d)
}

// SampleRecord draws x ~ N(0, Σ) and then y.
func (m *Inputs) SampleRecord(r *rand.Rand, theta, rec []float64) {
	d := m.d
	m.x.Sample(r, rec[:d])
	eta := 0.0
	for i, v := range rec[:d] {
		eta += theta[i] * v
	}
	if m.logistic {
		y := 0.0
		if r.Float64() < 1/(1+math.Exp(-eta)) {
			y = 1
		}
		rec[d] = y
		return
	}
	rec[d] = eta + m.sigma*r.NormFloat64()
}

// Contribution copies the record.
func (m *Inputs) Contribution(rec, dst []float64) { copy(dst[:m.d+1], rec[:m.d+1]) }

// RecordLogLik is log N(x; 0, Σ) + log p(y | x, θ).
func (m *Inputs) RecordLogLik(theta, rec []float64) float64 {
	d := m.d
	eta := 0.0
	for i, v := range rec[:d] {
		eta += theta[i] * v
	}
	ll := m.x.LogDensity(rec[:d])
	y := rec[d]
	if m.logistic {
		switch y {
		case 1:
			return ll - special.Log1pExp(-eta)
		case 0:
			return ll - special.Log1pExp(eta)
		}
		return math.Inf(-1)
	}
	e := (y - eta) / m.sigma
	return ll - 0.5*e*e - math.Log(m.sigma) - modelutil.LogSqrt2Pi
}

// valid reports whether m was built by NewLinear or NewLogistic.
func (m *Inputs) valid() bool { return m != nil && m.d >= 1 && m.x != nil }

// Validate returns an error wrapping simulate.ErrInvalid when the Inputs is
// nil or was not built by its constructor; simulate.NewMeanStat and
// simulate.MeanContribution call it.
func (m *Inputs) Validate() error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("regression.Inputs")
	}
	return nil
}
