// Package polynomial provides the ABCDP paper's COVID-19 model, a cubic
// polynomial observed at fixed times (ABCDP paper eq. 11), with its prior.
// Errors wrap simulate.ErrInvalid (simulate.ErrInvalidTheta for a bad θ).
package polynomial

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Cubic is the ABCDP COVID-19 model (ABCDP paper eq. 11):
// y(t) = a3 + a2 t + a1 t² + a0 t³ at fixed times, θ = (a0, a1, a2, a3)
// with prior a_i ~ N(0, 1) (Prior). The paper's model is
// deterministic; NoiseSD > 0 adds independent N(0, NoiseSD²) errors.
type Cubic struct {
	times   []float64
	noiseSD float64
}

// NewCubic returns the model at the given finite times (at least
// one) with observation noise sd noiseSD ≥ 0.
func NewCubic(times []float64, noiseSD float64) (*Cubic, error) {
	if len(times) == 0 {
		return nil, fmt.Errorf("%w: cubic polynomial needs at least one time", simulate.ErrInvalid)
	}
	for i, t := range times {
		if !modelutil.Finite(t) {
			return nil, fmt.Errorf("%w: cubic polynomial time %d must be finite, got %v", simulate.ErrInvalid, i, t)
		}
	}
	if !modelutil.Finite(noiseSD) || noiseSD < 0 {
		return nil, fmt.Errorf("%w: cubic polynomial noiseSD must be finite and >= 0, got %v", simulate.ErrInvalid, noiseSD)
	}
	return &Cubic{append([]float64(nil), times...), noiseSD}, nil
}

// Prior returns the paper's N(0, I_4) prior.
func Prior() *simulate.MVNormal {
	p, err := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: make([]float64, 4), Variances: []float64{1, 1, 1, 1}})
	if err != nil {
		panic(err)
	}
	return p
}

// StatDim is the number of times.
func (m *Cubic) StatDim() int { return len(m.times) }

// Simulate writes y(t_j) (plus noise) for θ = (a0, a1, a2, a3).
func (m *Cubic) Simulate(r *rand.Rand, theta, dst []float64) error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("polynomial.Cubic")
	}
	if m.noiseSD > 0 {
		if err := modelutil.CheckRand(r); err != nil {
			return err
		}
	}
	if err := modelutil.CheckFinite("cubic polynomial", theta, 4); err != nil {
		return err
	}
	if len(dst) != len(m.times) {
		return fmt.Errorf("%w: cubic polynomial dst must have length %d, got %d", simulate.ErrInvalid, len(m.times), len(dst))
	}
	a0, a1, a2, a3 := theta[0], theta[1], theta[2], theta[3]
	for j, t := range m.times {
		dst[j] = a3 + t*(a2+t*(a1+t*a0))
		if m.noiseSD > 0 {
			dst[j] += m.noiseSD * r.NormFloat64()
		}
	}
	return nil
}

// valid reports whether m was built by NewCubic.
func (m *Cubic) valid() bool { return m != nil && len(m.times) > 0 }
