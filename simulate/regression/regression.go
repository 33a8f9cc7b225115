// Package regression provides the LDP paper's data model for linear and
// logistic regression with perturbed inputs (§3.2.3, Supp. 12), as a
// simulate.RecordModel. Errors wrap simulate.ErrInvalid
// (simulate.ErrInvalidTheta for a bad θ).
package regression

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/linalg"
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
	chol     []float64
	logDet   float64
	logistic bool
	sigma    float64
}

// NewLinear returns the linear-regression input model with
// covariance cov (row-major d×d, nil for I_d when d is given by dim) and
// noise variance sigma2 > 0.
func NewLinear(dim int, cov []float64, sigma2 float64) (*Inputs, error) {
	if !modelutil.Finite(sigma2) || sigma2 <= 0 {
		return nil, fmt.Errorf("%w: linear inputs sigma2 must be finite and > 0, got %v", simulate.ErrInvalid, sigma2)
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
	if d < 1 {
		return nil, fmt.Errorf("%w: regression inputs need dim >= 1, got %d", simulate.ErrInvalid, d)
	}
	if cov == nil {
		cov = make([]float64, d*d)
		for i := range d {
			cov[i*d+i] = 1
		}
	}
	if len(cov) != d*d {
		return nil, fmt.Errorf("%w: regression inputs cov must have length %d, got %d", simulate.ErrInvalid, d*d, len(cov))
	}
	for i := range d {
		for j := range d {
			if !modelutil.Finite(cov[i*d+j]) || cov[i*d+j] != cov[j*d+i] {
				return nil, fmt.Errorf("%w: regression inputs cov must be finite and symmetric (entry %d,%d)", simulate.ErrInvalid, i, j)
			}
		}
	}
	l := make([]float64, d*d)
	if err := linalg.Cholesky(cov, d, l); err != nil {
		return nil, fmt.Errorf("regression inputs cov: %v: %w", err, simulate.ErrInvalid)
	}
	ld := 0.0
	for i := range d {
		ld += 2 * math.Log(l[i*d+i])
	}
	return &Inputs{d: d, chol: l, logDet: ld}, nil
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
	for i := range d {
		rec[i] = r.NormFloat64()
	}
	eta := 0.0
	for i := d - 1; i >= 0; i-- {
		s := 0.0
		for k := 0; k <= i; k++ {
			s += m.chol[i*d+k] * rec[k]
		}
		rec[i] = s
		eta += theta[i] * s
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
func (m *Inputs) Contribution(rec, dst []float64) { copy(dst, rec[:m.d+1]) }

// RecordLogLik is log N(x; 0, Σ) + log p(y | x, θ).
func (m *Inputs) RecordLogLik(theta, rec []float64) float64 {
	d := m.d
	var buf [16]float64
	var z []float64
	if d <= len(buf) {
		z = buf[:d]
	} else {
		z = make([]float64, d)
	}
	q, eta := 0.0, 0.0
	for i := range d {
		s := rec[i]
		for k := range i {
			s -= m.chol[i*d+k] * z[k]
		}
		z[i] = s / m.chol[i*d+i]
		q += z[i] * z[i]
		eta += theta[i] * rec[i]
	}
	ll := -0.5*q - 0.5*m.logDet - float64(d)*modelutil.LogSqrt2Pi
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
func (m *Inputs) valid() bool { return m != nil && m.d >= 1 && len(m.chol) == m.d*m.d }
