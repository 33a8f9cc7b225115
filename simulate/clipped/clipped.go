// Package clipped provides the LDP paper's clipped data models: a
// Gaussian clipped to [A, B] (§3.2.1) and an exponential clipped to
// [0, B] (Supp. 10.2), as simulate.RecordModel values. Errors wrap
// simulate.ErrInvalid (simulate.ErrInvalidTheta for a bad θ).
package clipped

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Gaussian is the LDP paper's one-dimensional Gaussian data model
// (§3.2.1, Supp. 10.1): x ~ N(μ, σ²) clipped to [A, B] (values outside are
// mapped to the nearer bound before privatisation), θ = (μ, σ), σ > 0.
type Gaussian struct{ a, b float64 }

// GaussianConfig sets the clipping interval [A, B] of the Gaussian model.
// It has no usable zero value: A < B are required.
type GaussianConfig struct {
	// A and B are the clipping bounds, finite with A < B and B − A finite.
	A, B float64
}

// Validate reports whether c is usable, with an error wrapping
// simulate.ErrInvalid naming the fields at fault.
func (c GaussianConfig) Validate() error {
	_, err := NewGaussian(c)
	return err
}

// NewGaussian returns the model with clipping bounds cfg.A < cfg.B.
func NewGaussian(cfg GaussianConfig) (*Gaussian, error) {
	a, b := cfg.A, cfg.B
	if !modelutil.Finite(a) || !modelutil.Finite(b) || !(a < b) || math.IsInf(b-a, 0) {
		return nil, fmt.Errorf("%w: clipped GaussianConfig bounds A, B must be finite with A < B and b − a finite (the sensitivity), got [%v, %v]", simulate.ErrInvalid, a, b)
	}
	return &Gaussian{a, b}, nil
}

// Bounds returns the clipping interval (NaN, NaN for a nil model).
func (m *Gaussian) Bounds() (a, b float64) {
	if m == nil {
		return math.NaN(), math.NaN()
	}
	return m.a, m.b
}

// ParamDim is 2.
func (m *Gaussian) ParamDim() int { return 2 }

// RecordDim is 1.
func (m *Gaussian) RecordDim() int { return 1 }

// ContribDim is 1.
func (m *Gaussian) ContribDim() int { return 1 }

// CheckParam checks θ = (μ, σ) finite with σ > 0.
func (m *Gaussian) CheckParam(theta []float64) error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("clipped.Gaussian")
	}
	if err := modelutil.CheckFinite("clipped Gaussian", theta, 2); err != nil {
		return err
	}
	if theta[1] <= 0 {
		return fmt.Errorf("%w: clipped Gaussian σ must be > 0, got %v", simulate.ErrInvalidTheta, theta[1])
	}
	return nil
}

// SampleRecord draws the clipped value.
func (m *Gaussian) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = math.Min(m.b, math.Max(m.a, theta[0]+theta[1]*r.NormFloat64()))
}

// Contribution copies the record.
func (m *Gaussian) Contribution(rec, dst []float64) { dst[0] = rec[0] }

// RecordLogLik is the log of the rectified density (LDP paper eq. 6): log
// Φ((a−μ)/σ) at a, log(1 − Φ((b−μ)/σ)) at b (point masses), the normal
// log density inside, −Inf outside [a, b].
func (m *Gaussian) RecordLogLik(theta, rec []float64) float64 {
	x, mu, s := rec[0], theta[0], theta[1]
	switch {
	case x < m.a || x > m.b || math.IsNaN(x):
		return math.Inf(-1)
	case x == m.a:
		return math.Log(0.5 * math.Erfc(-(m.a-mu)/(s*math.Sqrt2)))
	case x == m.b:
		return math.Log(0.5 * math.Erfc((m.b-mu)/(s*math.Sqrt2)))
	}
	z := (x - mu) / s
	return -0.5*z*z - math.Log(s) - modelutil.LogSqrt2Pi
}

// Exponential is the LDP paper's exponential data model (Supp.
// 10.2): x ~ Exp(rate λ) clipped to [0, B], θ = (λ), λ > 0.
type Exponential struct{ b float64 }

// NewExponential returns the model with clipping bound b > 0.
func NewExponential(b float64) (*Exponential, error) {
	if !modelutil.Finite(b) || b <= 0 {
		return nil, fmt.Errorf("%w: clipped exponential bound must be finite and > 0, got %v", simulate.ErrInvalid, b)
	}
	return &Exponential{b}, nil
}

// Bound returns B.
func (m *Exponential) Bound() float64 {
	if m == nil {
		return math.NaN()
	}
	return m.b
}

// ParamDim is 1.
func (m *Exponential) ParamDim() int { return 1 }

// RecordDim is 1.
func (m *Exponential) RecordDim() int { return 1 }

// ContribDim is 1.
func (m *Exponential) ContribDim() int { return 1 }

// CheckParam checks λ finite and > 0.
func (m *Exponential) CheckParam(theta []float64) error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("clipped.Exponential")
	}
	if err := modelutil.CheckFinite("clipped exponential", theta, 1); err != nil {
		return err
	}
	if theta[0] <= 0 {
		return fmt.Errorf("%w: clipped exponential rate must be > 0, got %v", simulate.ErrInvalidTheta, theta[0])
	}
	return nil
}

// SampleRecord draws min(Exp(λ), B).
func (m *Exponential) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = math.Min(m.b, r.ExpFloat64()/theta[0])
}

// Contribution copies the record.
func (m *Exponential) Contribution(rec, dst []float64) { dst[0] = rec[0] }

// RecordLogLik is log λ − λx on [0, B) and −λB (the point mass) at B.
func (m *Exponential) RecordLogLik(theta, rec []float64) float64 {
	x, l := rec[0], theta[0]
	switch {
	case !(x >= 0 && x <= m.b):
		return math.Inf(-1)
	case x == m.b:
		return -l * m.b
	}
	return math.Log(l) - l*x
}

// valid reports whether m was built by NewGaussian.
func (m *Gaussian) valid() bool { return m != nil && m.a < m.b }

// Validate returns an error wrapping simulate.ErrInvalid when the Gaussian is
// nil or was not built by its constructor; simulate.NewMeanStat and
// simulate.MeanContribution call it.
func (m *Gaussian) Validate() error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("clipped.Gaussian")
	}
	return nil
}

// valid reports whether m was built by NewExponential.
func (m *Exponential) valid() bool { return m != nil && m.b > 0 }

// Validate returns an error wrapping simulate.ErrInvalid when the Exponential is
// nil or was not built by its constructor; simulate.NewMeanStat and
// simulate.MeanContribution call it.
func (m *Exponential) Validate() error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("clipped.Exponential")
	}
	return nil
}
