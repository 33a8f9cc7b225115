package mechanism

import (
	"fmt"
	"math"
)

// maxDiscreteScale bounds the scale of NewDiscreteLaplace: noise at or
// beyond 2^52 is redrawn (maxNoise), an event of probability below
// exp(−2^52/2^45) = e^-128 at this scale.
const maxDiscreteScale = 1 << 45

// NewDiscreteLaplace returns the Laplace mechanism on the integer lattice
// (γ = 1) whose coordinate i receives discrete Laplace noise of the exact
// rational scale t_i = num[i]/den[i], P(Z = z) ∝ exp(−|z|/t_i), and
// reports budget. It is for releases that calibrate their own integer
// noise (the curator's aggregations, which carry the law they drew as a
// mechanism): the caller is responsible for budget, as with
// NewLaplaceScales. A statistic is rounded to the nearest integer before
// the noise is added, so Release, SimulateRelease, Apply and LogDensity
// describe exactly the law of s + Z for an integer s; LogDensity is the
// discrete Laplace log probability mass (the grid cell has width 1).
// Scales must lie in [2^-20, 2^45]; num and den must be positive.
func NewDiscreteLaplace(num, den []uint64, budget Budget) (*Laplace, error) {
	if len(num) == 0 || len(num) != len(den) {
		return nil, invalidf("NewDiscreteLaplace needs as many numerators (%d) as denominators (%d), at least one", len(num), len(den))
	}
	if err := budget.Validate(); err != nil {
		return nil, err
	}
	d := len(num)
	m := &Laplace{
		scales: make([]float64, d), budget: budget,
		grid: make([]int, d), t: make([]ratScale, d),
		lam: make([]float64, d), l1a: make([]float64, d), logNorm: make([]float64, d),
		unit: make([]float64, d), gridLn2: make([]float64, d),
		laws: make([]*geoLaw, d),
	}
	for i := range num {
		if num[i] == 0 || den[i] == 0 {
			return nil, invalidf("NewDiscreteLaplace: scale %d/%d of coordinate %d must have a positive numerator and denominator", num[i], den[i], i)
		}
		t := ratScale{num: num[i], den: den[i]}
		if v := t.value(); !(v >= 0x1p-20) || v > maxDiscreteScale {
			return nil, invalidf("NewDiscreteLaplace: scale %v of coordinate %d is outside [2^-20, 2^45]", v, i)
		}
		lam := float64(t.den) / float64(t.num)
		m.scales[i] = t.value()
		m.t[i] = t
		m.laws[i] = newGeoLaw(t.num, t.den, i < maxTabled)
		m.lam[i] = lam
		m.l1a[i] = math.Log1p(math.Exp(-lam))
		m.logNorm[i] = math.Log(-math.Expm1(-lam)) - m.l1a[i]
		m.unit[i] = 1
	}
	return m, nil
}

// SpendJoint records an (ε, δ) spend b and a ρ-zCDP spend rho together,
// or neither: it returns an error wrapping ErrBudgetExceeded, and records
// nothing, if the composed guarantee (see Accountant) would exceed the
// total. Either part may be zero (b the zero Budget, or rho 0), not both.
// It is how a plan of several releases is charged once, before any of
// them runs.
func (a *Accountant) SpendJoint(b Budget, rho float64) error {
	if err := a.usable(); err != nil {
		return err
	}
	if b == (Budget{}) && rho == 0 {
		return invalidf("SpendJoint needs a budget or a rho")
	}
	if b != (Budget{}) {
		if err := b.Validate(); err != nil {
			return err
		}
	}
	if rho != 0 {
		if err := checkRho(rho); err != nil {
			return err
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	spent := Budget{Epsilon: a.spent.Epsilon + b.Epsilon, Delta: a.spent.Delta + b.Delta}
	sq := a.pureSq
	if b.Delta == 0 {
		sq += b.Epsilon * b.Epsilon
	}
	if err := a.admit(spent, sq, a.rho+rho, func() string { return fmt.Sprintf("%v with ρ=%g", b, rho) }); err != nil {
		return err
	}
	a.spent, a.pureSq, a.rho = spent, sq, a.rho+rho
	return nil
}
