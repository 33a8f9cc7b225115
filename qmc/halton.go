package qmc

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MaxHaltonDim is the largest dimension supported by Halton (the first 256
// primes are the bases; Halton points degrade well before that).
const MaxHaltonDim = 256

// haltonMax is the number of Halton points available: indices below 2^53
// keep distinct radical inverses in float64.
const haltonMax = 1 << 53

// Halton is the Halton sequence: coordinate j of point i is the radical
// inverse of i in base p_j, the j-th prime. With random digit permutations
// (NewHalton with scrambled = true) digit k of coordinate j is mapped
// through an independent uniformly random permutation π_{j,k} of
// {0, …, p_j − 1} for every digit position k < K_j, where K_j is the
// smallest number of base-p_j digits with p_j^-K_j ≤ 2^-53; the permuted
// trailing zero digits are included, so each point is exactly uniform on
// the base-p_j grid of spacing p_j^-K_j. This is positional random digit
// permutation (one permutation per digit position, not nested), not Owen's
// nested scrambling.
type Halton struct {
	dim   int
	bases []uint32
	ndig  []int32  // K_j
	off   []int32  // start of dimension j's permutations in perm
	perm  []uint16 // K_j permutations of p_j digits per dimension; nil if unscrambled
	index uint64
}

// HaltonConfig sets a Halton sequence, like SobolConfig a Sobol one.
type HaltonConfig struct {
	// Dim is the dimension of the points, 1 ≤ Dim ≤ MaxHaltonDim
	// (required: the zero value is refused).
	Dim int
	// Scrambled selects random digit permutations (default: the plain
	// sequence).
	Scrambled bool
}

// Validate checks the config: 1 ≤ Dim ≤ MaxHaltonDim. Errors wrap
// ErrInvalid and name the field.
func (c HaltonConfig) Validate() error {
	if c.Dim < 1 || c.Dim > MaxHaltonDim {
		return fmt.Errorf("%w: HaltonConfig.Dim must be in [1, %d], got %d", ErrInvalid, MaxHaltonDim, c.Dim)
	}
	return nil
}

// NewHalton returns a Halton sequence in cfg.Dim dimensions, 1 ≤ Dim ≤
// MaxHaltonDim. If cfg.Scrambled, r draws the first random digit
// permutations and must not be nil; otherwise r is ignored.
func NewHalton(cfg HaltonConfig, r *rand.Rand) (*Halton, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dim, scrambled := cfg.Dim, cfg.Scrambled
	if scrambled && r == nil {
		return nil, fmt.Errorf("%w: scrambled Halton needs a non-nil *rand.Rand", ErrInvalid)
	}
	h := &Halton{dim: dim, bases: firstPrimes(dim), ndig: make([]int32, dim), off: make([]int32, dim)}
	total := 0
	for j, b := range h.bases {
		k := int(math.Ceil(53 * math.Ln2 / math.Log(float64(b))))
		for math.Pow(float64(b), float64(k)) < 0x1p53 {
			k++
		}
		h.ndig[j] = int32(k)
		h.off[j] = int32(total)
		total += k * int(b)
	}
	if scrambled {
		h.perm = make([]uint16, total)
		h.Randomize(r)
	}
	return h, nil
}

// firstPrimes returns the first n primes.
func firstPrimes(n int) []uint32 {
	ps := make([]uint32, 0, n)
	for c := uint32(2); len(ps) < n; c++ {
		prime := true
		for _, p := range ps {
			if p*p > c {
				break
			}
			if c%p == 0 {
				prime = false
				break
			}
		}
		if prime {
			ps = append(ps, c)
		}
	}
	return ps
}

// Dim returns the dimension.
func (h *Halton) Dim() int {
	if h == nil {
		return 0
	}
	return h.dim
}

// Index returns the index of the next point.
func (h *Halton) Index() uint64 {
	if h == nil {
		return 0
	}
	return h.index
}

// Randomize draws new random digit permutations from r and rewinds. It
// only rewinds an unscrambled Halton sequence. A nil r for a scrambled
// sequence is a programmer error and panics.
func (h *Halton) Randomize(r *rand.Rand) {
	if h == nil {
		return
	}
	if h.perm != nil && r == nil {
		panic("qmc: Halton.Randomize needs a non-nil *rand.Rand")
	}
	if h.perm != nil {
		for j, b := range h.bases {
			for k := 0; k < int(h.ndig[j]); k++ {
				p := h.perm[int(h.off[j])+k*int(b):][:b]
				for i := range p {
					p[i] = uint16(i)
				}
				for i := len(p) - 1; i > 0; i-- {
					t := r.IntN(i + 1)
					p[i], p[t] = p[t], p[i]
				}
			}
		}
	}
	h.Reset()
}

// MaxPoints returns the number of points the sequence provides, 2^53.
func (h *Halton) MaxPoints() uint64 {
	if h == nil {
		return 0
	}
	return haltonMax
}

// Reset rewinds to the first point (index 0).
func (h *Halton) Reset() {
	if h == nil {
		return
	}
	h.index = 0
}

// Seek positions the sequence at point index (< 2^53).
func (h *Halton) Seek(index uint64) error {
	if h == nil || h.dim < 1 {
		return errUnbuilt("Halton")
	}
	if index > haltonMax {
		return fmt.Errorf("%w: Halton seek to %d beyond 2^53", ErrInvalid, index)
	}
	h.index = index
	return nil
}

// Fill writes the next n points into dst (see Sequence).
func (h *Halton) Fill(dst []float64, n int) error {
	if h == nil || h.dim < 1 {
		return errUnbuilt("Halton")
	}
	if err := checkFill(dst, n, h.dim); err != nil {
		return err
	}
	if uint64(n) > haltonMax-h.index {
		return fmt.Errorf("%w: Halton request for %d points at index %d exceeds 2^53", ErrInvalid, n, h.index)
	}
	d := h.dim
	for p := 0; p < n; p++ {
		row := dst[p*d : p*d+d : p*d+d]
		idx := h.index
		for j := range row {
			b := uint64(h.bases[j])
			inv := 1 / float64(b)
			scale := inv
			var u float64
			i := idx
			if h.perm == nil {
				for i != 0 {
					q := i / b
					u += float64(i-q*b) * scale
					scale *= inv
					i = q
				}
			} else {
				perm := h.perm[h.off[j]:]
				for k := 0; k < int(h.ndig[j]); k++ {
					q := i / b
					u += float64(perm[uint64(k)*b+i-q*b]) * scale
					scale *= inv
					i = q
				}
			}
			if u >= 1 {
				u = 0x1.fffffffffffffp-1
			}
			row[j] = u
		}
		h.index++
	}
	return nil
}
