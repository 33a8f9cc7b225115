package mechanism

import (
	"errors"
	"math"
	"testing"
)

// TestNewDiscreteLaplace: the mass function of the integer-lattice
// mechanism with rational scale 7/3 sums to one, Apply reproduces it on a
// fine grid of uniforms (to 10^-3), and invalid scales are refused.
func TestNewDiscreteLaplace(t *testing.T) {
	m, err := NewDiscreteLaplace([]uint64{7}, []uint64{3}, Budget{Epsilon: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := []float64{4}
	tot := 0.0
	pmf := map[float64]float64{}
	for z := -200.0; z <= 200; z++ {
		p := math.Exp(m.LogDensity([]float64{4 + z}, s))
		pmf[4+z] = p
		tot += p
		if want := math.Exp(-math.Abs(z)*3/7) * math.Tanh(3.0/14); math.Abs(p-want) > 1e-14 {
			t.Fatalf("P(Z = %v) = %v, want %v", z, p, want)
		}
	}
	if math.Abs(tot-1) > 1e-12 {
		t.Errorf("mass sums to %v", tot)
	}
	const n = 100000
	got := map[float64]float64{}
	var out [1]float64
	for i := range n {
		m.Apply([]float64{(float64(i) + 0.5) / n}, s, out[:])
		got[out[0]] += 1.0 / n
	}
	for y, p := range pmf {
		if math.Abs(got[y]-p) > 1e-3 {
			t.Errorf("Apply: P(%v) = %v, want %v", y, got[y], p)
		}
	}
	for _, c := range []struct{ num, den []uint64 }{
		{nil, nil}, {[]uint64{1}, []uint64{1, 2}}, {[]uint64{0}, []uint64{1}}, {[]uint64{1}, []uint64{0}},
		{[]uint64{1}, []uint64{1 << 30}}, {[]uint64{1 << 50}, []uint64{1}},
	} {
		if _, err := NewDiscreteLaplace(c.num, c.den, Budget{Epsilon: 1}); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewDiscreteLaplace(%v, %v): %v", c.num, c.den, err)
		}
	}
}

// TestSpendJoint: an (ε, δ) and a ρ spend are recorded together or not
// at all.
func TestSpendJoint(t *testing.T) {
	a, _ := NewAccountant(Budget{Epsilon: 2, Delta: 1e-6})
	if err := a.SpendJoint(Budget{Epsilon: 1}, 0.01); err != nil {
		t.Fatal(err)
	}
	spent, rho := a.Spent(), a.Rho()
	if spent != (Budget{Epsilon: 1}) || rho != 0.01 {
		t.Fatalf("spent %v, ρ %v", spent, rho)
	}
	// ε fits alone, the ρ part does not: nothing is recorded.
	if err := a.SpendJoint(Budget{Epsilon: 0.1}, 1); !errors.Is(err, ErrBudgetExceeded) {
		t.Errorf("over budget: %v", err)
	}
	if a.Spent() != spent || a.Rho() != rho {
		t.Errorf("refused joint spend recorded: %v, ρ %v", a.Spent(), a.Rho())
	}
	for _, c := range []struct {
		b   Budget
		rho float64
	}{{Budget{}, 0}, {Budget{Epsilon: -1}, 0}, {Budget{}, math.NaN()}} {
		if err := a.SpendJoint(c.b, c.rho); !errors.Is(err, ErrInvalid) {
			t.Errorf("SpendJoint(%v, %v): %v", c.b, c.rho, err)
		}
	}
	var nilAcct *Accountant
	if err := nilAcct.SpendJoint(Budget{Epsilon: 1}, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil accountant: %v", err)
	}
}
