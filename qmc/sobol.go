package qmc

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// Scramble selects the randomization of a Sobol sequence.
type Scramble int

const (
	// NoScramble gives the deterministic Sobol sequence, equal to
	// scipy.stats.qmc.Sobol(d, scramble=False).
	NoScramble Scramble = iota
	// DigitalShift XORs every coordinate with a uniform random 64-bit word
	// (one per dimension). Each point is uniform on [0,1)^d up to the 2^-53
	// output grid and the (t, m, s)-net structure is preserved, but the
	// variance does not improve beyond that of the unscrambled digits:
	// expect RMSE ≈ O(M^-1) rather than O(M^-3/2) on smooth integrands.
	DigitalShift
	// LinearMatrixShift is Matoušek's (1998) random linear matrix
	// scrambling followed by a random digital shift: each coordinate's
	// digits are multiplied by a random lower-triangular binary matrix with
	// unit diagonal (64 output digits) and XORed with a random 64-bit shift.
	// It preserves the net's t, makes each point uniform, and has the same
	// variance as nested uniform scrambling (Owen 2003, "Variance with
	// alternative scramblings of digital nets"). scipy's
	// Sobol(scramble=True) uses this construction ("LMS + digital shift").
	// The matrices are folded into the direction numbers, so generation
	// costs the same as NoScramble.
	LinearMatrixShift
	// Owen is nested scrambling in the style of Owen (1995) implemented with
	// a hash, as proposed by Laine and Karras (2011) and Burley (2020,
	// "Practical Hash-based Owen Scrambling"): the 64-bit digit word of each
	// coordinate is bit-reversed, passed through a per-dimension keyed hash
	// made only of operations whose output bit k depends on input bits 0..k
	// (addition of a random key, multiplication by a random odd key, and
	// x ^= x·c for even constants c), and reversed back.
	//
	// What this guarantees, for every key: each digit is flipped by a
	// function of the digits before it, so the map is a nested permutation
	// of the digit tree; elementary intervals map to elementary intervals
	// and the net's t is preserved exactly. Because the first operation adds
	// a uniform random 64-bit key, each point is exactly uniform on the
	// 2^-64 grid (so uniform on [0,1) up to the 2^-53 output precision).
	// What it does not guarantee: in Owen's nested uniform scrambling the
	// flips at different nodes of the digit tree are independent fair coins;
	// here they are deterministic functions of two 64-bit keys, so the
	// variance formula of nested uniform scrambling (and its O(M^-3/2) rate
	// for smooth integrands) is not a theorem for this construction. It is
	// checked empirically in the package's convergence tests. OwenTree is
	// the closer (and slower) approximation.
	Owen
	// OwenTree is nested scrambling with one pseudo-random flip per node of
	// the digit tree, as in pbrt-v4's OwenScrambler: digit k (k = 1..53) of
	// a coordinate is flipped by the top bit of a 64-bit mix (splitmix64
	// finalizer) of the node — the k−1 preceding digits and the level — and
	// a per-dimension key; the result is then XORed with a uniform random
	// digital shift. If the mix were a random function this would be
	// exactly Owen's nested uniform scrambling of the first 53 digits (the
	// digital shift does not change that law, and makes each point exactly
	// uniform on the 2^-53 grid whatever the hash); with a fixed mixer the
	// node flips are pseudo-random rather than independent. Like Owen it
	// preserves t exactly. It costs 53 hash evaluations per coordinate.
	OwenTree
)

// String returns the scramble's name.
func (s Scramble) String() string {
	switch s {
	case NoScramble:
		return "none"
	case DigitalShift:
		return "digital-shift"
	case LinearMatrixShift:
		return "lms+shift"
	case Owen:
		return "owen-hash"
	case OwenTree:
		return "owen-tree"
	}
	return fmt.Sprintf("Scramble(%d)", int(s))
}

// SobolConfig configures NewSobol. The zero value gives an unscrambled
// 32-bit sequence.
type SobolConfig struct {
	// Dim is the dimension of the points, 1 ≤ Dim ≤ MaxSobolDim
	// (required: the zero value is refused).
	Dim int
	// Scramble selects the randomization (default NoScramble).
	Scramble Scramble
	// Bits is the digit resolution of the generator matrices, 32 or 64
	// (0 means 32). It bounds the number of points, MaxPoints: 2^32 at 32
	// bits, and 2^53 at 64 bits — points beyond 2^53 would no longer be
	// distinct after rounding to float64's 53-bit significand. The first
	// 2^32 points are the same at both resolutions. Scrambled coordinates
	// always carry 64 random digits, of which the top 53 reach the float64.
	Bits int
}

// Validate checks the config: 1 ≤ Dim ≤ MaxSobolDim, Bits 0, 32 or 64
// and a known Scramble. Errors wrap ErrInvalid and name the field.
func (c SobolConfig) Validate() error {
	if c.Dim < 1 || c.Dim > MaxSobolDim {
		return fmt.Errorf("%w: SobolConfig.Dim must be in [1, %d], got %d", ErrInvalid, MaxSobolDim, c.Dim)
	}
	if c.Bits != 0 && c.Bits != 32 && c.Bits != 64 {
		return fmt.Errorf("%w: SobolConfig.Bits must be 0, 32 or 64, got %d", ErrInvalid, c.Bits)
	}
	switch c.Scramble {
	case NoScramble, DigitalShift, LinearMatrixShift, Owen, OwenTree:
		return nil
	}
	return fmt.Errorf("%w: SobolConfig.Scramble: unknown scramble %d", ErrInvalid, int(c.Scramble))
}

// Sobol generates Sobol points in Gray-code order. It is not safe for
// concurrent use; give each goroutine its own Sobol (Clone is cheap).
type Sobol struct {
	dim      int
	nbits    int
	scramble Scramble
	max      uint64   // number of points available
	base     []uint64 // unscrambled direction words, [nbits][dim], top-aligned
	v        []uint64 // direction words in use (== base unless LMS)
	shift    []uint64 // digital shift per dimension (zero if none)
	keys     []uint64 // Owen: two hash keys per dimension
	x        []uint64 // digit words of the point at index (before Owen hashing)
	index    uint64   // index of the next point
}

// NewSobol returns a Sobol sequence in cfg.Dim dimensions, 1 ≤ Dim ≤
// MaxSobolDim. For a scrambled configuration r draws the first
// randomization and must not be nil; for NoScramble r is ignored.
func NewSobol(cfg SobolConfig, r *rand.Rand) (*Sobol, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Scramble != NoScramble && r == nil {
		return nil, fmt.Errorf("%w: scramble %v needs a non-nil *rand.Rand", ErrInvalid, cfg.Scramble)
	}
	dim, nb := cfg.Dim, cfg.Bits
	if nb == 0 {
		nb = 32
	}
	recs, err := directionTable()
	if err != nil {
		return nil, err
	}
	s := &Sobol{dim: dim, nbits: nb, scramble: cfg.Scramble}
	if nb == 32 {
		s.max = 1 << 32
	} else {
		s.max = 1 << 53
	}
	s.base = make([]uint64, nb*dim)
	m := make([]uint64, nb)
	for j := 0; j < dim; j++ {
		directionNumbers(recs, j, m)
		for k := 0; k < nb; k++ {
			// v_{k+1} = m_{k+1} / 2^{k+1}, as a 64-bit binary fraction.
			s.base[k*dim+j] = m[k] << uint(63-k)
		}
	}
	s.v = s.base
	s.x = make([]uint64, dim)
	switch cfg.Scramble {
	case DigitalShift:
		s.shift = make([]uint64, dim)
	case LinearMatrixShift:
		s.shift = make([]uint64, dim)
		s.v = make([]uint64, len(s.base))
	case Owen, OwenTree:
		s.keys = make([]uint64, 2*dim)
	}
	s.Randomize(r)
	return s, nil
}

// Dim returns the dimension.
func (s *Sobol) Dim() int {
	if s == nil {
		return 0
	}
	return s.dim
}

// Bits returns the digit resolution, 32 or 64.
func (s *Sobol) Bits() int {
	if s == nil {
		return 0
	}
	return s.nbits
}

// Scramble returns the randomization in use.
func (s *Sobol) Scramble() Scramble {
	if s == nil {
		return NoScramble
	}
	return s.scramble
}

// MaxPoints returns the number of points the sequence provides.
func (s *Sobol) MaxPoints() uint64 {
	if s == nil {
		return 0
	}
	return s.max
}

// Index returns the index of the next point Fill will produce.
func (s *Sobol) Index() uint64 {
	if s == nil {
		return 0
	}
	return s.index
}

// Randomize draws a new independent randomization from r and rewinds to
// the first point. It is a no-op (apart from rewinding) for NoScramble.
// A nil r for a scrambled sequence is a programmer error and panics.
func (s *Sobol) Randomize(r *rand.Rand) {
	if s == nil {
		return
	}
	if s.scramble != NoScramble && r == nil {
		panic("qmc: Sobol.Randomize needs a non-nil *rand.Rand")
	}
	switch s.scramble {
	case DigitalShift:
		for j := range s.shift {
			s.shift[j] = r.Uint64()
		}
	case LinearMatrixShift:
		s.randomizeLMS(r)
	case Owen, OwenTree:
		for j := range s.keys {
			s.keys[j] = r.Uint64()
		}
	}
	s.Reset()
}

// randomizeLMS draws, per dimension, a lower-triangular 64×nbits binary
// matrix with unit diagonal and a digital shift, and applies the matrix to
// the direction numbers (the scrambling is linear in the digits, so
// scrambling the generator matrix scrambles every point).
func (s *Sobol) randomizeLMS(r *rand.Rand) {
	var cols [64]uint64
	d := s.dim
	for j := 0; j < d; j++ {
		for c := 0; c < s.nbits; c++ {
			// Column c maps input digit c+1 (bit 63−c) to itself plus a
			// random combination of the less significant output digits.
			top := uint64(1) << uint(63-c)
			cols[c] = top | (r.Uint64() & (top - 1))
		}
		for k := 0; k < s.nbits; k++ {
			w := s.base[k*d+j]
			var y uint64
			for w != 0 {
				c := bits.LeadingZeros64(w)
				y ^= cols[c]
				w &^= uint64(1) << uint(63-c)
			}
			s.v[k*d+j] = y
		}
		s.shift[j] = r.Uint64()
	}
}

// Reset rewinds to the first point, keeping the current randomization.
func (s *Sobol) Reset() {
	if s == nil {
		return
	}
	s.index = 0
	if s.shift != nil {
		copy(s.x, s.shift)
	} else {
		clear(s.x)
	}
}

// Seek positions the sequence so that the next point produced is the one
// with the given index (skip-ahead in O(dim·log index)). It returns an
// error wrapping ErrInvalid if index > MaxPoints.
func (s *Sobol) Seek(index uint64) error {
	if s == nil || s.dim < 1 {
		return errUnbuilt("Sobol")
	}
	if index > s.max {
		return fmt.Errorf("%w: Sobol seek to %d beyond MaxPoints %d", ErrInvalid, index, s.max)
	}
	s.Reset()
	s.index = index
	if index == s.max {
		return nil
	}
	g := index ^ index>>1 // Gray code: point index is ⊕ of v_k over bits k of g
	d := s.dim
	for g != 0 {
		k := bits.TrailingZeros64(g)
		vk := s.v[k*d : k*d+d]
		for j := range s.x {
			s.x[j] ^= vk[j]
		}
		g &= g - 1
	}
	return nil
}

// Skip advances the sequence by n points. It returns an error wrapping
// ErrInvalid, leaving the position unchanged, if that passes MaxPoints.
func (s *Sobol) Skip(n uint64) error {
	if s == nil || s.dim < 1 {
		return errUnbuilt("Sobol")
	}
	if n > s.max-s.index {
		return fmt.Errorf("%w: Sobol skip of %d from index %d beyond MaxPoints %d", ErrInvalid, n, s.index, s.max)
	}
	return s.Seek(s.index + n)
}

// Fill writes the next n points into dst[:n*Dim()], row-major (point i in
// dst[i*Dim() : (i+1)*Dim()]), each coordinate in [0,1). It allocates
// nothing. It returns an error, writing nothing, if n < 0, dst is too short
// or fewer than n points remain (ErrInvalid).
func (s *Sobol) Fill(dst []float64, n int) error {
	if s == nil || s.dim < 1 {
		return errUnbuilt("Sobol")
	}
	if err := checkFill(dst, n, s.dim); err != nil {
		return err
	}
	if uint64(n) > s.max-s.index {
		return fmt.Errorf("%w: Sobol request for %d points at index %d exceeds MaxPoints %d", ErrInvalid, n, s.index, s.max)
	}
	d := s.dim
	x := s.x
	for p := 0; p < n; p++ {
		row := dst[p*d : p*d+d : p*d+d]
		switch s.scramble {
		case Owen:
			keys := s.keys[:2*d]
			for j := range row {
				row[j] = toUnit(owenHash(x[j], keys[2*j], keys[2*j+1]))
			}
		case OwenTree:
			keys := s.keys[:2*d]
			for j := range row {
				row[j] = toUnit(owenTree(x[j], keys[2*j], keys[2*j+1]))
			}
		default:
			for j := range row {
				row[j] = toUnit(x[j])
			}
		}
		s.index++
		if s.index < s.max {
			// Gray code: the next point differs in direction number c,
			// the position of the lowest set bit of the new index.
			c := bits.TrailingZeros64(s.index)
			vc := s.v[c*d : c*d+d]
			vc = vc[:len(x)]
			for j := range x {
				x[j] ^= vc[j]
			}
		}
	}
	return nil
}

// Clone returns an independent copy of s at the same position and with the
// same randomization.
func (s *Sobol) Clone() *Sobol {
	if s == nil {
		return nil
	}
	c := *s
	c.x = append([]uint64(nil), s.x...)
	if s.scramble == LinearMatrixShift {
		c.v = append([]uint64(nil), s.v...)
	} else {
		c.v = c.base // base is never modified: share it
	}
	if s.shift != nil {
		c.shift = append([]uint64(nil), s.shift...)
	}
	if s.keys != nil {
		c.keys = append([]uint64(nil), s.keys...)
	}
	return &c
}

// toUnit maps a 64-bit binary fraction to a float64 in [0,1) keeping its
// 53 leading bits (exact: no rounding up to 1).
func toUnit(x uint64) float64 { return float64(x>>11) * 0x1p-53 }

// errUnbuilt reports a point set used without its constructor (a nil
// pointer or the zero value).
func errUnbuilt(kind string) error {
	return fmt.Errorf("%w: %s used without its constructor (nil or zero value)", ErrInvalid, kind)
}

// checkFill validates the common arguments of Fill methods.
func checkFill(dst []float64, n, d int) error {
	if d < 1 {
		return fmt.Errorf("%w: point set of dimension %d used without its constructor", ErrInvalid, d)
	}
	if n < 0 {
		return fmt.Errorf("%w: number of points must be ≥ 0, got %d", ErrInvalid, n)
	}
	if n > len(dst)/d {
		return fmt.Errorf("%w: destination holds %d values, need %d×%d", ErrInvalid, len(dst), n, d)
	}
	return nil
}

// owenHash applies the keyed nested scramble described at Owen to the
// 64-bit digit word x (digit 1 in the most significant bit).
func owenHash(x, k0, k1 uint64) uint64 {
	x = bits.Reverse64(x)
	// In the reversed word, bit i holds digit i+1. Every operation below
	// changes bit i only as a function of bits 0..i−1 (carries and products
	// only propagate upwards; the multipliers are odd or the XORed product
	// has an even factor), so digit i+1 is flipped by a function of the
	// digits before it: a nested scramble.
	x += k0
	x ^= x * 0x9e3779b97f4a7c16
	x *= k1 | 1
	x ^= x * 0xbf58476d1ce4e5b8
	x ^= x * 0x94d049bb133111ea
	x ^= x * 0xd6e8feb86659fd92
	return bits.Reverse64(x)
}

// owenTree applies the per-node nested scramble described at OwenTree to
// the 64-bit digit word x: only the 53 leading digits, which are all that
// reach a float64, are scrambled.
func owenTree(x, key, shift uint64) uint64 {
	y := x
	for k := uint(0); k < 53; k++ {
		// Node of digit k+1: its k-digit prefix, made unique across levels
		// by a leading 1 (heap numbering).
		node := x>>1>>(63-k) | uint64(1)<<k
		h := mix64(node*0x9e3779b97f4a7c15 ^ key)
		y ^= h >> 63 << (63 - k)
	}
	return y ^ shift
}

// mix64 is the splitmix64 finalizer, a bijection with strong avalanche.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
