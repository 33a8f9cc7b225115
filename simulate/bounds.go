package simulate

import (
	"math"

	"github.com/privinfer/privinfer/internal/argcheck"
)

// Bounded is the optional capability of a Prior that states a box
// containing its support: per coordinate i, the lowest and highest value
// θ_i can take. The support lies in the box ∏ [lo_i, hi_i]; a finite
// bound is the end of the closed hull of the coordinate's marginal
// support (a value that θ_i reaches or approaches), and a side on which
// θ_i is unbounded, or on which the prior states no bound, is −Inf or
// +Inf. Engines use it to adapt to a bounded parameter space (flow/sbi's
// regression-shift rule); use SupportBox to read it, checked, from any
// Prior.
//
// Independent implements it with its components' supports (a product of
// Uniform components is the box prior U[lo, hi]ᵈ, whose support is the
// box itself), MVNormal with ±Inf, and Concat with its blocks' boxes (±Inf
// for a block that does not implement it). Dirichlet does not: its
// support is a simplex, not a box.
type Bounded interface {
	Prior
	// Bounds returns two new slices of length Dim: the lower and the
	// upper bound of every coordinate, lo[i] ≤ hi[i] (equal for a
	// coordinate that is a point mass), neither NaN.
	Bounds() (lo, hi []float64)
}

// SupportBox returns a box that contains p's support: p's Bounds if p
// implements Bounded, and otherwise −Inf and +Inf in every coordinate (a
// prior that states nothing about its support is treated as unbounded).
// The slices are the caller's. It returns an error wrapping ErrInvalid for
// a nil prior (a nil pointer of a Prior type too), a prior of dimension below 1, a zero-value prior of this
// package, and Bounds that break the contract of Bounded: slices not of
// length Dim, a NaN bound, lo[i] > hi[i], lo[i] = +Inf or hi[i] = −Inf.
func SupportBox(p Prior) (lo, hi []float64, err error) {
	if argcheck.Nil(p) {
		return nil, nil, invalidf("SupportBox: prior is nil")
	}
	if err := checkBuilt("SupportBox's prior", p); err != nil {
		return nil, nil, err
	}
	d := p.Dim()
	if d < 1 {
		return nil, nil, invalidf("SupportBox: prior %T has dimension %d, want ≥ 1", p, d)
	}
	b, ok := p.(Bounded)
	if !ok {
		lo, hi = make([]float64, d), make([]float64, d)
		for i := range d {
			lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		}
		return lo, hi, nil
	}
	lo, hi = b.Bounds()
	if len(lo) != d || len(hi) != d {
		return nil, nil, invalidf("SupportBox: %T.Bounds returned %d lower and %d upper bounds for dimension %d", p, len(lo), len(hi), d)
	}
	for i := range d {
		l, h := lo[i], hi[i]
		if math.IsNaN(l) || math.IsNaN(h) || !(l <= h) || math.IsInf(l, 1) || math.IsInf(h, -1) {
			return nil, nil, invalidf("SupportBox: %T.Bounds gives coordinate %d the interval [%v, %v], want lo ≤ hi, neither NaN, lo < +Inf and hi > −Inf", p, i, l, h)
		}
	}
	return lo, hi, nil
}

// Bounds returns the closed hulls of the components' supports
// (Univariate.Support): the prior's support is the product of the
// components' supports, so it lies in this box. A nil or zero-value
// Independent returns empty slices.
func (p *Independent) Bounds() (lo, hi []float64) {
	if p == nil {
		return []float64{}, []float64{}
	}
	lo, hi = make([]float64, len(p.c)), make([]float64, len(p.c))
	for i, c := range p.c {
		lo[i], hi[i] = c.Support()
	}
	return lo, hi
}

// Bounds returns −Inf and +Inf in every coordinate: the support of a
// normal distribution is all of ℝᵈ. A nil or zero-value MVNormal returns
// empty slices.
func (p *MVNormal) Bounds() (lo, hi []float64) {
	if p == nil {
		return []float64{}, []float64{}
	}
	d := len(p.mean)
	lo, hi = make([]float64, d), make([]float64, d)
	for i := range d {
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
	}
	return lo, hi
}

// Bounds lays the blocks' boxes end to end: a block's Bounds where it
// implements Bounded and states a valid box (see SupportBox), −Inf and
// +Inf for its coordinates otherwise. A nil or zero-value Concat returns
// empty slices.
func (p *Concat) Bounds() (lo, hi []float64) {
	if p == nil {
		return []float64{}, []float64{}
	}
	lo, hi = make([]float64, 0, p.dim), make([]float64, 0, p.dim)
	for _, b := range p.blocks {
		l, h, err := SupportBox(b)
		if err != nil {
			l, h = make([]float64, b.Dim()), make([]float64, b.Dim())
			for i := range l {
				l[i], h[i] = math.Inf(-1), math.Inf(1)
			}
		}
		lo, hi = append(lo, l...), append(hi, h...)
	}
	return lo, hi
}

var (
	_ Bounded = (*Independent)(nil)
	_ Bounded = (*MVNormal)(nil)
	_ Bounded = (*Concat)(nil)
)
