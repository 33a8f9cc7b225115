package qmc

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/argcheck"
)

// Sequence is a point set in [0,1)^Dim() read in order.
type Sequence interface {
	// Dim returns the dimension of the points.
	Dim() int
	// Fill writes the next n points into dst[:n*Dim()], row-major, and
	// returns an error (writing nothing) if n < 0, dst is shorter than
	// n*Dim() or the sequence has fewer than n points left.
	Fill(dst []float64, n int) error
	// Reset rewinds to the first point, keeping any randomization.
	Reset()
}

// Randomized is a Sequence whose randomization can be redrawn; independent
// randomizations give independent unbiased RQMC estimates.
type Randomized interface {
	Sequence
	// Randomize draws a new randomization from r and rewinds.
	Randomize(r *rand.Rand)
}

// Rotation applies a Cranley–Patterson rotation to any Sequence: every
// point u becomes (u + Δ) mod 1 for one uniform random shift Δ ∈ [0,1)^d
// per randomization. Each rotated point is uniform on [0,1)^d whatever the
// base points, so averages over a rotated point set are unbiased. Digital
// nets lose their net structure under rotation; for Sobol points prefer the
// digital scrambles (DigitalShift is the base-2 analogue).
type Rotation struct {
	base  Sequence
	shift []float64
}

// NewRotation returns a Cranley–Patterson rotation of base with a first
// shift drawn from r. base is owned by the Rotation afterwards: Randomize
// and Reset rewind it.
func NewRotation(base Sequence, r *rand.Rand) (*Rotation, error) {
	if argcheck.Nil(base) || r == nil {
		return nil, fmt.Errorf("%w: NewRotation needs a non-nil base sequence and *rand.Rand", ErrInvalid)
	}
	if base.Dim() < 1 {
		return nil, fmt.Errorf("%w: rotation base dimension must be ≥ 1, got %d", ErrInvalid, base.Dim())
	}
	c := &Rotation{base: base, shift: make([]float64, base.Dim())}
	c.Randomize(r)
	return c, nil
}

// Dim returns the dimension.
func (c *Rotation) Dim() int {
	if c == nil {
		return 0
	}
	return len(c.shift)
}

// Shift returns the current shift Δ (read-only).
func (c *Rotation) Shift() []float64 {
	if c == nil {
		return nil
	}
	return c.shift
}

// Randomize draws a new shift from r and rewinds the base sequence. The
// base sequence's own randomization, if any, is left unchanged. A nil r is
// a programmer error and panics; on the zero value it does nothing.
func (c *Rotation) Randomize(r *rand.Rand) {
	if c == nil || c.base == nil {
		return
	}
	if r == nil {
		panic("qmc: Rotation.Randomize needs a non-nil *rand.Rand")
	}
	for j := range c.shift {
		c.shift[j] = r.Float64()
	}
	c.base.Reset()
}

// Reset rewinds the base sequence, keeping the shift. On the zero value it
// does nothing.
func (c *Rotation) Reset() {
	if c != nil && c.base != nil {
		c.base.Reset()
	}
}

// Fill writes the next n rotated points into dst (see Sequence).
func (c *Rotation) Fill(dst []float64, n int) error {
	if c == nil || c.base == nil || len(c.shift) < 1 {
		return errUnbuilt("Rotation")
	}
	if c.base.Dim() != len(c.shift) {
		return fmt.Errorf("%w: rotation base dimension changed from %d to %d", ErrInvalid, len(c.shift), c.base.Dim())
	}
	if err := c.base.Fill(dst, n); err != nil {
		return err
	}
	d := len(c.shift)
	for p := 0; p < n; p++ {
		row := dst[p*d : p*d+d : p*d+d]
		for j, s := range c.shift {
			row[j] = addMod1(row[j], s)
		}
	}
	return nil
}

// addMod1 returns (u + s) mod 1 for u, s ∈ [0,1), always in [0,1): if the
// rounded sum reaches 1 the subtraction is exact (Sterbenz) and ≥ 0.
func addMod1(u, s float64) float64 {
	v := u + s
	if v >= 1 {
		v -= 1
	}
	return v
}

// MonteCarlo is a Randomized sequence of independent uniform points on
// [0,1)^d: plain Monte Carlo behind the same interface as the QMC point
// sets, for comparisons. Each randomization seeds an internal PCG stream
// from r; Reset replays the same points.
type MonteCarlo struct {
	dim    int
	s1, s2 uint64
	pcg    rand.PCG
	rng    *rand.Rand
}

// NewMonteCarlo returns a Monte Carlo point source in dim ≥ 1 dimensions
// seeded from r.
func NewMonteCarlo(dim int, r *rand.Rand) (*MonteCarlo, error) {
	if dim < 1 {
		return nil, fmt.Errorf("%w: MonteCarlo dimension must be ≥ 1, got %d", ErrInvalid, dim)
	}
	if r == nil {
		return nil, fmt.Errorf("%w: NewMonteCarlo needs a non-nil *rand.Rand", ErrInvalid)
	}
	m := &MonteCarlo{dim: dim}
	m.rng = rand.New(&m.pcg)
	m.Randomize(r)
	return m, nil
}

// Dim returns the dimension.
func (m *MonteCarlo) Dim() int {
	if m == nil {
		return 0
	}
	return m.dim
}

// Randomize draws a new stream seed from r and rewinds. A nil r is a
// programmer error and panics.
func (m *MonteCarlo) Randomize(r *rand.Rand) {
	if m == nil {
		return
	}
	if r == nil {
		panic("qmc: MonteCarlo.Randomize needs a non-nil *rand.Rand")
	}
	m.s1, m.s2 = r.Uint64(), r.Uint64()
	m.Reset()
}

// Reset restarts the current stream.
func (m *MonteCarlo) Reset() {
	if m == nil {
		return
	}
	m.pcg.Seed(m.s1, m.s2)
}

// Fill writes n independent uniform points into dst (see Sequence); the
// stream never runs out.
func (m *MonteCarlo) Fill(dst []float64, n int) error {
	if m == nil || m.rng == nil {
		return errUnbuilt("MonteCarlo")
	}
	if err := checkFill(dst, n, m.dim); err != nil {
		return err
	}
	for i := range dst[:n*m.dim] {
		dst[i] = m.rng.Float64()
	}
	return nil
}

var (
	_ Randomized = (*Sobol)(nil)
	_ Randomized = (*Halton)(nil)
	_ Randomized = (*Rotation)(nil)
	_ Randomized = (*MonteCarlo)(nil)
)
