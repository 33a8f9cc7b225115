// Package optim implements the stochastic optimiser used to train flows:
// Adam with decoupled weight decay (AdamW, Loshchilov and Hutter 2019) over
// a flat parameter vector, and gradient-norm clipping.
package optim

import (
	"errors"
	"fmt"
	"math"
)

// AdamW is Adam (Kingma and Ba 2015) with decoupled weight decay: each Step
// shrinks the parameters by the factor 1 − LR·WeightDecay and then takes
// the bias-corrected Adam step
//
//	m ← β₁m + (1−β₁)g,  v ← β₂v + (1−β₂)g²
//	p ← p − LR · (m/(1−β₁ᵗ)) / (√(v/(1−β₂ᵗ)) + Eps).
type AdamW struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64

	m, v []float64
	t    int
}

// ErrInvalid is wrapped by every error of NewAdamW.
var ErrInvalid = errors.New("optim: invalid argument")

// maxParams bounds n (two float64 moments per parameter: 4 GiB at the
// limit).
const maxParams = 1 << 28

// NewAdamW returns an optimiser for n parameters (0 ≤ n ≤ 2^28) with
// learning rate lr > 0, weight decay wd ≥ 0, β₁ = 0.9, β₂ = 0.999 and
// ε = 1e-8. Errors wrap ErrInvalid and name the argument.
func NewAdamW(n int, lr, wd float64) (*AdamW, error) {
	switch {
	case n < 0 || n > maxParams:
		return nil, fmt.Errorf("optim: number of parameters must be in [0, 2^28], got %d: %w", n, ErrInvalid)
	case !(lr > 0) || math.IsInf(lr, 0):
		return nil, fmt.Errorf("optim: learning rate must be > 0 and finite, got %v: %w", lr, ErrInvalid)
	case !(wd >= 0) || math.IsInf(wd, 0):
		return nil, fmt.Errorf("optim: weight decay must be >= 0 and finite, got %v: %w", wd, ErrInvalid)
	}
	return &AdamW{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: wd,
		m: make([]float64, n), v: make([]float64, n)}, nil
}

// Step updates p in place given its gradient g (both of the length given
// to NewAdamW). It does not allocate. It panics (a programmer error on
// the training hot path) on a nil or zero-value AdamW with n > 0 and on
// other lengths, rather than updating part of p.
func (a *AdamW) Step(p, g []float64) {
	if len(p) != len(a.m) || len(g) != len(p) {
		panic(fmt.Sprintf("optim: AdamW.Step needs p and g of %d values, got %d and %d", len(a.m), len(p), len(g)))
	}
	a.t++
	b1, b2 := a.Beta1, a.Beta2
	c1 := 1 - math.Pow(b1, float64(a.t))
	c2 := 1 - math.Pow(b2, float64(a.t))
	lr := a.LR
	decay := 1 - lr*a.WeightDecay
	m, v := a.m[:len(p)], a.v[:len(p)]
	g = g[:len(p)]
	for i := range p {
		gi := g[i]
		m[i] = b1*m[i] + (1-b1)*gi
		v[i] = b2*v[i] + (1-b2)*gi*gi
		p[i] = p[i]*decay - lr*(m[i]/c1)/(math.Sqrt(v[i]/c2)+a.Eps)
	}
}

// hasInf reports whether some g_i is ±Inf.
func hasInf(g []float64) bool {
	for _, v := range g {
		if math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

// ClipNorm rescales g in place so that its Euclidean norm is at most
// maxNorm (when maxNorm > 0; 0, a negative or a NaN maxNorm disables
// clipping) and returns the norm before clipping, computed without
// overflow while the entries are finite. A NaN entry makes the norm NaN
// and leaves g unchanged, an infinite one makes it +Inf; callers test the
// returned norm (the trainer refuses a non-finite one).
func ClipNorm(g []float64, maxNorm float64) float64 {
	s := 0.0
	for _, v := range g {
		s += v * v
	}
	n := math.Sqrt(s)
	if math.IsInf(s, 1) && !hasInf(g) {
		// The sum of squares overflowed: rescale by the largest entry
		// (the norm itself is finite while every entry is).
		mx := 0.0
		for _, v := range g {
			mx = math.Max(mx, math.Abs(v))
		}
		s = 0
		for _, v := range g {
			s += (v / mx) * (v / mx)
		}
		n = mx * math.Sqrt(s)
	}
	if maxNorm > 0 && n > maxNorm {
		f := maxNorm / n
		for i := range g {
			g[i] *= f
		}
	}
	return n
}
