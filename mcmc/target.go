package mcmc

import (
	"fmt"

	"github.com/privinfer/privinfer/internal/argcheck"
)

// Target is an unnormalised log density on R^Dim.
//
// LogDensity returns log π(x) up to an additive constant; it may return
// math.Inf(-1) outside the support. A NaN return is treated as an error by the
// samplers and reported, never silently accepted. Implementations must not
// retain or modify x.
type Target interface {
	Dim() int
	LogDensity(x []float64) float64
}

// GradTarget is a Target that also supplies the gradient of its log density.
//
// Gradient writes ∇ log π(x) into grad (length Dim) and returns log π(x).
type GradTarget interface {
	Target
	Gradient(x, grad []float64) float64
}

// TargetFunc adapts a dimension and a log-density function to a Target.
type TargetFunc struct {
	N  int
	Fn func(x []float64) float64
}

// Dim returns N.
func (t TargetFunc) Dim() int { return t.N }

// LogDensity returns Fn(x).
func (t TargetFunc) LogDensity(x []float64) float64 { return t.Fn(x) }

// GradTargetFunc adapts a dimension and a log-density-with-gradient function to
// a GradTarget.
type GradTargetFunc struct {
	N int
	// Fn writes the gradient of log π at x into grad and returns log π(x).
	Fn func(x, grad []float64) float64
}

// Dim returns N.
func (t GradTargetFunc) Dim() int { return t.N }

// LogDensity returns log π(x), computing the gradient into scratch space.
func (t GradTargetFunc) LogDensity(x []float64) float64 {
	g := make([]float64, t.N)
	return t.Fn(x, g)
}

// Gradient writes ∇ log π(x) into grad and returns log π(x).
func (t GradTargetFunc) Gradient(x, grad []float64) float64 { return t.Fn(x, grad) }

// checkTarget validates a Target passed to a sampler: non-nil, with a
// positive dimension and, for the function adapters, a non-nil function.
func checkTarget(t Target) error {
	if argcheck.Nil(t) {
		return fmt.Errorf("%w: target is nil", ErrInvalid)
	}
	switch f := t.(type) {
	case TargetFunc:
		if f.Fn == nil {
			return fmt.Errorf("%w: TargetFunc.Fn is nil", ErrInvalid)
		}
	case *TargetFunc:
		if f.Fn == nil {
			return fmt.Errorf("%w: TargetFunc.Fn is nil", ErrInvalid)
		}
	case GradTargetFunc:
		if f.Fn == nil {
			return fmt.Errorf("%w: GradTargetFunc.Fn is nil", ErrInvalid)
		}
	case *GradTargetFunc:
		if f.Fn == nil {
			return fmt.Errorf("%w: GradTargetFunc.Fn is nil", ErrInvalid)
		}
	}
	if d := t.Dim(); d < 1 || d > maxValues {
		return fmt.Errorf("%w: target dimension must be in [1, %d], got %d", ErrInvalid, maxValues, d)
	}
	return nil
}
