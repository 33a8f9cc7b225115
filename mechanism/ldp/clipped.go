package ldp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// Compile-time checks.
var (
	_ mechanism.Composite = (*ClippedLaplace)(nil)
	_ mechanism.Simulator = (*ClippedLaplace)(nil)
	_ mechanism.Density   = (*ClippedLaplace)(nil)
)

// ClippedLaplaceConfig configures NewClippedLaplace. The zero value is
// refused (it has no clipping interval and no budget).
type ClippedLaplaceConfig struct {
	// Lo and Hi are the clipping interval [Lo, Hi] of each record:
	// finite, Lo < Hi, with Hi − Lo finite and not subnormal. The
	// clipped-exponential model of the LDP paper clips to [0, b].
	Lo, Hi float64
	// Epsilon is each person's budget ε, in [2^-30, 2^20].
	Epsilon float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c ClippedLaplaceConfig) Validate() error {
	if !finite(c.Lo) || !finite(c.Hi) || !(c.Lo < c.Hi) {
		return invalidf("ClippedLaplaceConfig.Lo and .Hi must be finite with Lo < Hi, got [%v, %v]", c.Lo, c.Hi)
	}
	if w := c.Hi - c.Lo; math.IsInf(w, 0) || w < 0x1p-1022 {
		return invalidf("ClippedLaplaceConfig.Hi − .Lo = %v must be finite and not subnormal", w)
	}
	if !(c.Epsilon >= 0x1p-30 && c.Epsilon <= 0x1p20) {
		return invalidf("ClippedLaplaceConfig.Epsilon must be in [2^-30, 2^20], got %v", c.Epsilon)
	}
	return nil
}

// ClippedLaplace is the local mechanism of the LDP paper's clipped
// Gaussian and clipped exponential models (eqs. 28 and 30): each person
// clips the record x to [Lo, Hi] and reports z = clip(x) + Laplace noise
// of scale (Hi − Lo)/ε, which is ε-LDP (sensitivity Hi − Lo).
//
// A statistic of length n is n persons' records, released independently
// into n reports: every person's report is ε-LDP, and Budget reports that
// per-person ε (each person contributes one coordinate).
//
// Release is a mechanism.Composite over a one-dimensional
// mechanism.Laplace: the noise comes from its secure lattice release and
// the operating system's generator, whatever *rand.Rand is passed, so the
// reports lie on the lattice of spacing Grid, which every clipped record
// reaches. mechanism.Reproducible(m) is the one reproducible opt-out (for
// simulation studies and tests, never for a real person's record), and
// SimulateRelease (or mechanism.Simulate) the simulation path.
type ClippedLaplace struct {
	lo, hi, eps float64
	lap         *mechanism.Laplace
}

// NewClippedLaplace returns the mechanism of cfg, refusing what
// cfg.Validate refuses.
func NewClippedLaplace(cfg ClippedLaplaceConfig) (*ClippedLaplace, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: cfg.Hi - cfg.Lo, Epsilon: cfg.Epsilon, Dim: 1})
	if err != nil {
		return nil, fmt.Errorf("mechanism/ldp: %w: %w", ErrInvalid, err)
	}
	return &ClippedLaplace{lo: cfg.Lo, hi: cfg.Hi, eps: cfg.Epsilon, lap: lap}, nil
}

// Config returns the configuration m was built from.
func (m *ClippedLaplace) Config() ClippedLaplaceConfig {
	if m == nil {
		return ClippedLaplaceConfig{}
	}
	return ClippedLaplaceConfig{Lo: m.lo, Hi: m.hi, Epsilon: m.eps}
}

// NoiseScale returns the scale of the Laplace noise actually released
// (the nominal (Hi − Lo)/ε rounded up to the lattice's representable
// scales).
func (m *ClippedLaplace) NoiseScale() float64 {
	if !m.valid() {
		return math.NaN()
	}
	return m.lap.NoiseScale(0)
}

// Grid returns the spacing of the lattice the reports lie on.
func (m *ClippedLaplace) Grid() float64 {
	if !m.valid() {
		return math.NaN()
	}
	return m.lap.Grid(0)
}

// Budget returns each person's (ε, 0).
func (m *ClippedLaplace) Budget() mechanism.Budget {
	if !m.valid() {
		return mechanism.Budget{}
	}
	return m.lap.Budget()
}

func (m *ClippedLaplace) valid() bool { return m != nil && m.lap != nil }

// check validates records x and reports z.
func (m *ClippedLaplace) check(x, z []float64) error {
	if !m.valid() {
		return invalidf("ClippedLaplace is nil or was not built by NewClippedLaplace")
	}
	if len(x) == 0 || len(z) != len(x) {
		return invalidf("records and reports must have equal lengths >= 1, got %d and %d", len(x), len(z))
	}
	for i, v := range x {
		if !finite(v) {
			return invalidf("record %d must be finite, got %v", i, v)
		}
	}
	return nil
}

// Release writes into z (length len(x); it may alias x) the reports of
// the records x: each record clipped to [Lo, Hi] plus Laplace noise from
// the operating system's generator (r is not used). It returns an error
// wrapping ErrInvalid for a nil mechanism, wrong lengths or a non-finite
// record, writing nothing.
func (m *ClippedLaplace) Release(r *rand.Rand, x, z []float64) error {
	return m.ReleaseVia(mechanism.SecureVia(r), x, z)
}

// ReleaseVia implements mechanism.Composite: each clipped record goes
// through via with the inner one-dimensional Laplace mechanism. Release
// calls it with mechanism.SecureVia, and mechanism.Reproducible(m) with
// the inner mechanism's reproducible release.
func (m *ClippedLaplace) ReleaseVia(via *mechanism.Via, x, z []float64) error {
	if err := m.check(x, z); err != nil {
		return err
	}
	if via == nil {
		return invalidf("ReleaseVia needs a non-nil *mechanism.Via")
	}
	var s, d [1]float64
	for i, v := range x {
		s[0] = mechanism.Clamp(v, m.lo, m.hi)
		if err := via.Release(m.lap, s[:], d[:]); err != nil {
			return fmt.Errorf("mechanism/ldp: record %d: %w: %w", i, ErrInvalid, err)
		}
		z[i] = d[0]
	}
	return nil
}

// SimulateRelease draws simulated reports of x from r with the law of
// Release (floating point, reproducible): the path for simulation
// studies and inference, never for confidential records.
func (m *ClippedLaplace) SimulateRelease(r *rand.Rand, x, z []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	if err := m.check(x, z); err != nil {
		return err
	}
	var s, d [1]float64
	for i, v := range x {
		s[0] = mechanism.Clamp(v, m.lo, m.hi)
		if err := m.lap.SimulateRelease(r, s[:], d[:]); err != nil {
			return fmt.Errorf("mechanism/ldp: record %d: %w: %w", i, ErrInvalid, err)
		}
		z[i] = d[0]
	}
	return nil
}

// LogDensity returns log η(z | x) = Σ_i log Laplace(z_i; clip(x_i),
// NoiseScale), NaN for a nil mechanism or lengths that differ.
func (m *ClippedLaplace) LogDensity(z, x []float64) float64 {
	if !m.valid() || len(z) != len(x) {
		return math.NaN()
	}
	sc := m.lap.NoiseScale(0)
	lp := 0.0
	for i, v := range x {
		lp += -math.Log(2*sc) - math.Abs(z[i]-mechanism.Clamp(v, m.lo, m.hi))/sc
	}
	return lp
}
