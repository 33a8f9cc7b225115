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

// ErrInvalid is wrapped by every error of NewAdamW and
// AdamWConfig.Validate; their messages read
// "optim: invalid argument: <argument>: <constraint>".
var ErrInvalid = errors.New("optim: invalid argument")

// maxParams bounds n (two float64 moments per parameter: 4 GiB at the
// limit).
const maxParams = 1 << 28

// AdamWConfig holds the settings of an AdamW optimiser. LearningRate must
// be set; the zero values of the other fields mean no weight decay and
// the usual Adam constants β₁ = 0.9, β₂ = 0.999 and ε = 10⁻⁸.
type AdamWConfig struct {
	LearningRate float64 // step size, > 0 and finite
	WeightDecay  float64 // decoupled weight decay, ≥ 0 and finite; 0 disables it
	Beta1        float64 // first-moment decay, in [0, 1); 0 means 0.9
	Beta2        float64 // second-moment decay, in [0, 1); 0 means 0.999
	Eps          float64 // denominator offset, ≥ 0 and finite; 0 means 1e-8
}

// invalid formats an error wrapping ErrInvalid that names the argument
// and the constraint it breaks.
func invalid(arg, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, arg, fmt.Sprintf(format, a...))
}

// Validate checks the ranges documented on each field (zero values
// included). Errors wrap ErrInvalid and name the field.
func (c AdamWConfig) Validate() error {
	switch {
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return invalid("AdamWConfig.LearningRate", "must be > 0 and finite, got %v", c.LearningRate)
	case !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0):
		return invalid("AdamWConfig.WeightDecay", "must be >= 0 and finite, got %v", c.WeightDecay)
	case !(c.Beta1 >= 0 && c.Beta1 < 1):
		return invalid("AdamWConfig.Beta1", "must be in [0, 1), got %v", c.Beta1)
	case !(c.Beta2 >= 0 && c.Beta2 < 1):
		return invalid("AdamWConfig.Beta2", "must be in [0, 1), got %v", c.Beta2)
	case !(c.Eps >= 0) || math.IsInf(c.Eps, 0):
		return invalid("AdamWConfig.Eps", "must be >= 0 and finite, got %v", c.Eps)
	}
	return nil
}

// NewAdamW returns an optimiser for n parameters (0 ≤ n ≤ 2^28) with the
// settings of cfg. Errors wrap ErrInvalid and name the argument.
func NewAdamW(n int, cfg AdamWConfig) (*AdamW, error) {
	if n < 0 || n > maxParams {
		return nil, invalid("n", "the number of parameters must be in [0, 2^28], got %d", n)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &AdamW{LR: cfg.LearningRate, Beta1: cfg.Beta1, Beta2: cfg.Beta2, Eps: cfg.Eps, WeightDecay: cfg.WeightDecay,
		m: make([]float64, n), v: make([]float64, n)}
	if a.Beta1 == 0 {
		a.Beta1 = 0.9
	}
	if a.Beta2 == 0 {
		a.Beta2 = 0.999
	}
	if a.Eps == 0 {
		a.Eps = 1e-8
	}
	return a, nil
}

// Step updates p in place given its gradient g (both of the length given
// to NewAdamW). It does not allocate. It panics (a programmer error on
// the training hot path) on a nil or zero-value AdamW with n > 0 and on
// other lengths, rather than updating part of p.
func (a *AdamW) Step(p, g []float64) {
	if len(p) != len(a.m) || len(g) != len(p) {
		panic(fmt.Sprintf("optim: AdamW.Step needs p and g of %d values, got %d and %d", len(a.m), len(p), len(g)))
	}
	a.Next().Update(p, g, 0, len(p))
}

// AdamWStep is one step of an AdamW optimiser (see AdamW.Next), to be
// applied to the parameters in parts by Update.
type AdamWStep struct {
	a                         *AdamW
	b1, b2, c1, c2, lr, decay float64
}

// Next advances a by one step and returns that step, for updating the
// parameters in parts, possibly concurrently: Update on ranges covering
// every parameter once gives, bit for bit, what Step gives. It panics on
// a nil AdamW.
func (a *AdamW) Next() AdamWStep {
	a.t++
	b1, b2 := a.Beta1, a.Beta2
	return AdamWStep{a: a, b1: b1, b2: b2,
		c1: 1 - math.Pow(b1, float64(a.t)), c2: 1 - math.Pow(b2, float64(a.t)),
		lr: a.LR, decay: 1 - a.LR*a.WeightDecay}
}

// Update applies the step to p[lo:hi] given its gradient g[lo:hi] (p and
// g of the length given to NewAdamW). Updates of disjoint ranges may run
// concurrently. It does not allocate, and panics on other lengths or a
// range outside [0, len(p)].
func (s AdamWStep) Update(p, g []float64, lo, hi int) {
	a := s.a
	if len(p) != len(a.m) || len(g) != len(p) || lo < 0 || hi > len(p) || lo > hi {
		panic(fmt.Sprintf("optim: AdamWStep.Update needs p and g of %d values and 0 ≤ lo ≤ hi ≤ %d, got %d, %d, [%d, %d)", len(a.m), len(a.m), len(p), len(g), lo, hi))
	}
	b1, b2, c1, c2, lr, decay := s.b1, s.b2, s.c1, s.c2, s.lr, s.decay
	m, v := a.m[lo:hi], a.v[lo:hi]
	g, p = g[lo:hi], p[lo:hi]
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
