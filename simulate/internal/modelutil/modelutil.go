// Package modelutil holds the parameter checks and small helpers shared by
// the model packages under simulate.
package modelutil

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate"
)

// LogSqrt2Pi is log √(2π).
const LogSqrt2Pi = 0.91893853320467274178032973640562

// Finite reports whether x is neither NaN nor infinite.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// CheckSimplex validates a probability vector of length k (entries finite
// and ≥ 0, summing to 1 within simulate.SimplexTol); errors wrap
// simulate.ErrInvalidTheta and name the model.
func CheckSimplex(name string, theta []float64, k int) error {
	if len(theta) != k {
		return fmt.Errorf("%w: %s θ must have length %d, got %d", simulate.ErrInvalidTheta, name, k, len(theta))
	}
	s := 0.0
	for i, v := range theta {
		if !Finite(v) || v < 0 {
			return fmt.Errorf("%w: %s θ[%d] must be finite and >= 0, got %v", simulate.ErrInvalidTheta, name, i, v)
		}
		s += v
	}
	if math.Abs(s-1) > simulate.SimplexTol {
		return fmt.Errorf("%w: %s θ must sum to 1, sums to %v", simulate.ErrInvalidTheta, name, s)
	}
	return nil
}

// CheckFinite validates a parameter vector of length k with finite
// entries; errors wrap simulate.ErrInvalidTheta and name the model.
func CheckFinite(name string, theta []float64, k int) error {
	if len(theta) != k {
		return fmt.Errorf("%w: %s θ must have length %d, got %d", simulate.ErrInvalidTheta, name, k, len(theta))
	}
	for i, v := range theta {
		if !Finite(v) {
			return fmt.Errorf("%w: %s θ[%d] must be finite, got %v", simulate.ErrInvalidTheta, name, i, v)
		}
	}
	return nil
}

// Gaussian returns N(mean, cov) for a model's inputs, with cov row-major
// d×d (d = len(mean)) and nil meaning the identity; errors wrap
// simulate.ErrInvalid and name the input as what.
func Gaussian(what string, mean, cov []float64) (*simulate.MVNormal, error) {
	if cov == nil {
		d := len(mean)
		cov = make([]float64, d*d)
		for i := range d {
			cov[i*d+i] = 1
		}
	}
	g, err := simulate.NewMVNormal(simulate.MVNormalConfig{Mean: mean, Cov: cov})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return g, nil
}

// Categorical draws an index with probabilities p (which sum to 1) by
// inversion; it allocates nothing.
func Categorical(r *rand.Rand, p []float64) int {
	u := r.Float64()
	c := 0.0
	for j, v := range p {
		c += v
		if u < c {
			return j
		}
	}
	return len(p) - 1
}

// MaxValues bounds the number of values a simulator may write or hold,
// refusing sizes that cannot be allocated.
const MaxValues = 1 << 31

// ErrUnbuilt reports a simulator or model used without its constructor;
// it wraps simulate.ErrInvalid.
func ErrUnbuilt(what string) error {
	return fmt.Errorf("%w: %s used without its constructor (nil or zero value)", simulate.ErrInvalid, what)
}

// CheckRand refuses a nil random source with an error wrapping
// simulate.ErrInvalid.
func CheckRand(r *rand.Rand) error {
	if r == nil {
		return fmt.Errorf("%w: random source is nil", simulate.ErrInvalid)
	}
	return nil
}
