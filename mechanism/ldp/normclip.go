package ldp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

var _ mechanism.Composite = (*NormClippedGaussian)(nil)

// NormClippedGaussianConfig configures NewNormClippedGaussian. The zero
// value is refused.
type NormClippedGaussianConfig struct {
	// Epsilon and Delta are each person's budget (ε > 0, δ ∈ (0, 1)).
	Epsilon, Delta float64
	// Clip is the ℓ2 clipping norm C (finite, > 0).
	Clip float64
	// Dim is the length d of a record (≥ 1).
	Dim int
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c NormClippedGaussianConfig) Validate() error {
	if err := checkPositive("NormClippedGaussianConfig.Epsilon", c.Epsilon); err != nil {
		return err
	}
	if !(c.Delta > 0 && c.Delta < 1) {
		return invalidf("NormClippedGaussianConfig.Delta must be in (0, 1), got %v", c.Delta)
	}
	if err := checkPositive("NormClippedGaussianConfig.Clip", c.Clip); err != nil {
		return err
	}
	if c.Dim < 1 {
		return invalidf("NormClippedGaussianConfig.Dim must be >= 1, got %d", c.Dim)
	}
	return nil
}

// NormClippedGaussian is a person's release of a d-vector (the gradient
// of LDP-SGD, package sgd): clip to ℓ2 norm C, then the analytic Gaussian
// mechanism at (ε, δ) for ℓ2 sensitivity 2C (any two clipped vectors are
// at most 2C apart), on mechanism.Gaussian's secure lattice. It is
// (ε, δ)-LDP. Release draws from the operating system's generator;
// mechanism.Reproducible(m) is the reproducible opt-out for simulation
// studies and tests.
type NormClippedGaussian struct {
	g    *mechanism.Gaussian
	clip float64
	d    int
}

// NewNormClippedGaussian returns the mechanism of cfg, refusing what
// cfg.Validate refuses.
func NewNormClippedGaussian(cfg NormClippedGaussianConfig) (*NormClippedGaussian, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g, err := mechanism.NewAnalyticGaussian(mechanism.GaussianConfig{Epsilon: cfg.Epsilon, Delta: cfg.Delta, Sensitivity: 2 * cfg.Clip, Dim: cfg.Dim})
	if err != nil {
		return nil, fmt.Errorf("mechanism/ldp: %w: %w", ErrInvalid, err)
	}
	return &NormClippedGaussian{g: g, clip: cfg.Clip, d: cfg.Dim}, nil
}

// Budget returns the (ε, δ) of one release.
func (m *NormClippedGaussian) Budget() mechanism.Budget {
	if m == nil || m.g == nil {
		return mechanism.Budget{}
	}
	return m.g.Budget()
}

// NoiseSigma returns the standard deviation of the released noise per
// coordinate.
func (m *NormClippedGaussian) NoiseSigma() float64 {
	if m == nil || m.g == nil {
		return math.NaN()
	}
	return m.g.NoiseSigma()
}

// Clip returns the clipping norm C.
func (m *NormClippedGaussian) Clip() float64 {
	if m == nil {
		return math.NaN()
	}
	return m.clip
}

// Dim returns d.
func (m *NormClippedGaussian) Dim() int {
	if m == nil {
		return 0
	}
	return m.d
}

// Release writes into dst (length d; it may alias x) the record x clipped
// to norm C plus Gaussian noise drawn from the operating system's
// generator (r is not used). It returns an error wrapping ErrInvalid for
// wrong lengths or a non-finite record.
func (m *NormClippedGaussian) Release(r *rand.Rand, x, dst []float64) error {
	return m.ReleaseVia(mechanism.SecureVia(r), x, dst)
}

// ReleaseVia implements mechanism.Composite: the clipped record goes
// through v with the inner Gaussian mechanism.
func (m *NormClippedGaussian) ReleaseVia(v *mechanism.Via, x, dst []float64) error {
	if m == nil || m.g == nil {
		return invalidf("NormClippedGaussian is nil or was not built by NewNormClippedGaussian")
	}
	if v == nil {
		return invalidf("ReleaseVia needs a non-nil *mechanism.Via")
	}
	if len(x) != m.d || len(dst) != m.d {
		return invalidf("record and destination must have length %d, got %d and %d", m.d, len(x), len(dst))
	}
	if err := clipNorm(x, dst, m.clip); err != nil {
		return err
	}
	if err := v.Release(m.g, dst, dst); err != nil {
		return fmt.Errorf("mechanism/ldp: %w: %w", ErrInvalid, err)
	}
	return nil
}

// SimulateRelease draws from the law of Release using r (reproducible,
// floating point): for simulation studies and inference only.
func (m *NormClippedGaussian) SimulateRelease(r *rand.Rand, x, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	return m.ReleaseVia(mechanism.SimulateVia(r), x, dst)
}

// clipNorm writes x scaled to ℓ2 norm at most c into dst (which may alias
// x), refusing non-finite coordinates before writing.
func clipNorm(x, dst []float64, c float64) error {
	nrm := 0.0
	for j, v := range x {
		if !finite(v) {
			return invalidf("record must be finite, got x[%d] = %v", j, v)
		}
		nrm = math.Hypot(nrm, v)
	}
	scale := 1.0
	if nrm > c {
		scale = c / nrm
	}
	for j, v := range x {
		dst[j] = v * scale
	}
	// The clipped vector must lie in the ball of radius C after rounding.
	if n2 := norm(dst); n2 > c {
		for j := range dst {
			dst[j] *= c / n2 * (1 - 1e-15)
		}
	}
	return nil
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s = math.Hypot(s, x)
	}
	return s
}
