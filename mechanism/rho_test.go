package mechanism

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestRhoFromEpsilonDeltaRoundTrip(t *testing.T) {
	for _, eps := range []float64{1e-3, 0.1, 0.5, 1, 3, 10, 50} {
		for _, delta := range []float64{1e-12, 1e-6, 1e-3, 0.1, 0.5} {
			rho, err := RhoFromEpsilonDelta(eps, delta)
			if err != nil {
				t.Fatalf("ε=%v δ=%v: %v", eps, delta, err)
			}
			back, err := ZCDPEpsilon(rho, delta)
			if err != nil {
				t.Fatal(err)
			}
			if back > eps || math.Abs(back-eps) > 1e-12*eps {
				t.Errorf("ε=%v δ=%v: ρ=%v gives ε=%v (relative error %.3g; must be ≤ ε and within 1e-12)", eps, delta, rho, back, (back-eps)/eps)
			}
			// Tightest: 1e-9 more ρ exceeds ε.
			if e2, _ := ZCDPEpsilon(rho*(1+1e-9), delta); !(e2 > eps) {
				t.Errorf("ε=%v δ=%v: ρ(1+1e-9) still gives ε=%v ≤ %v", eps, delta, e2, eps)
			}
			// Never below the classical conversion's ρ.
			l := -math.Log(delta)
			bs := math.Pow(math.Sqrt(l+eps)-math.Sqrt(l), 2)
			if rho < bs*(1-1e-12) {
				t.Errorf("ε=%v δ=%v: ρ=%v below the classical conversion's %v", eps, delta, rho, bs)
			}
		}
	}
}

func TestRhoFromEpsilonDeltaBadInput(t *testing.T) {
	for _, c := range [][2]float64{{0, 1e-6}, {-1, 1e-6}, {math.NaN(), 1e-6}, {math.Inf(1), 1e-6}, {1, 0}, {1, 1}, {1, math.NaN()}, {1, -0.1}} {
		if _, err := RhoFromEpsilonDelta(c[0], c[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("RhoFromEpsilonDelta(%v, %v): error %v, want ErrInvalid", c[0], c[1], err)
		}
	}
}

func TestAccountantRemainingRho(t *testing.T) {
	type spend struct {
		b   Budget
		rho float64
	}
	cases := []struct {
		total  Budget
		before []spend
	}{
		{Budget{Epsilon: 1, Delta: 1e-6}, nil},
		{Budget{Epsilon: 1, Delta: 1e-6}, []spend{{rho: 0.01}}},
		{Budget{Epsilon: 2, Delta: 1e-5}, []spend{{b: Budget{Epsilon: 0.5}}}},                           // pure spend, then zCDP
		{Budget{Epsilon: 2, Delta: 1e-5}, []spend{{b: Budget{Epsilon: 0.3, Delta: 5e-6}}, {rho: 0.02}}}, // approximate DP spend
		{Budget{Epsilon: 0.3, Delta: 1e-9}, []spend{{rho: 1e-4}, {rho: 2e-4}}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			mk := func() *Accountant {
				a, err := NewAccountant(c.total)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range c.before {
					var err error
					if s.rho > 0 {
						err = a.SpendRho(s.rho)
					} else {
						err = a.Spend(s.b)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				return a
			}
			a := mk()
			rem := a.RemainingRho()
			if !(rem > 0) {
				t.Fatalf("RemainingRho = %v, want > 0", rem)
			}
			if err := a.SpendRho(rem); err != nil {
				t.Fatalf("spending RemainingRho = %v refused: %v", rem, err)
			}
			if g := a.Guarantee(); math.Abs(g.Epsilon-c.total.Epsilon) > 1e-9*c.total.Epsilon {
				t.Errorf("after spending RemainingRho the guarantee is %v, want ε = %v", g, c.total.Epsilon)
			}
			if r := a.RemainingRho(); r > 1e-12*rem {
				t.Errorf("RemainingRho after spending it all = %v", r)
			}
			b := mk()
			if err := b.SpendRho(rem * (1 + 1e-6)); !errors.Is(err, ErrBudgetExceeded) {
				t.Errorf("spending RemainingRho·(1+1e-6) = %v: error %v, want ErrBudgetExceeded", rem*(1+1e-6), err)
			}
		})
	}
}

func TestAccountantRemainingRhoNone(t *testing.T) {
	pure, _ := NewAccountant(Budget{Epsilon: 1})
	if r := pure.RemainingRho(); r != 0 {
		t.Errorf("pure total: RemainingRho = %v, want 0", r)
	}
	// δ used up by an approximate-DP spend: no δ left for zCDP.
	a, _ := NewAccountant(Budget{Epsilon: 1, Delta: 1e-6})
	if err := a.Spend(Budget{Epsilon: 0.5, Delta: 1e-6}); err != nil {
		t.Fatal(err)
	}
	if r := a.RemainingRho(); r != 0 {
		t.Errorf("δ used up: RemainingRho = %v, want 0", r)
	}
	var nilAcc *Accountant
	if r := nilAcc.RemainingRho(); r != 0 {
		t.Errorf("nil accountant: RemainingRho = %v", r)
	}
	if r := (&Accountant{}).RemainingRho(); r != 0 {
		t.Errorf("zero accountant: RemainingRho = %v", r)
	}
}

func TestBudgetString(t *testing.T) {
	for _, c := range []struct {
		b    Budget
		want string
	}{
		{Budget{Epsilon: 0.1 + 0.2}, "ε=0.3"},
		{Budget{Epsilon: 1}, "ε=1"},
		{Budget{Epsilon: 0.3, Delta: 1e-6}, "(ε=0.3, δ=1e-06)"},
		{Budget{Epsilon: 0.1 * 3, Delta: 1e-7 + 2e-7}, "(ε=0.3, δ=3e-07)"},
		{Budget{Epsilon: 1.23456789012345}, "ε=1.23456789012"},
		{Budget{Epsilon: 1.5e-20}, "ε=1.5e-20"},
		{Budget{Epsilon: 123456789}, "ε=1.23456789e+08"},
		{Budget{Epsilon: math.Inf(1)}, "ε=+Inf"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.b, got, c.want)
		}
	}
}
