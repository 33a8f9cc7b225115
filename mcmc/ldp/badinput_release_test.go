package ldp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestBadInputRelease feeds the local-DP report constructors and report
// functions invalid arguments, labelled by category, and requires an
// error wrapping ErrInvalid and no panic.
func TestBadInputRelease(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	sub := 0x1p-1070
	r := rand.New(rand.NewPCG(1, 2))
	g, _ := NewClippedGaussian(ClippedGaussianConfig{A: -1, B: 1, Eps: 1})
	e, _ := NewClippedExponential(ClippedExponentialConfig{B: 2, Eps: 1})
	newG := func(a, b, eps float64) func() error {
		return func() error { _, err := NewClippedGaussian(ClippedGaussianConfig{A: a, B: b, Eps: eps}); return err }
	}
	newE := func(b, eps float64) func() error {
		return func() error { _, err := NewClippedExponential(ClippedExponentialConfig{B: b, Eps: eps}); return err }
	}
	relG := func(m *ClippedGaussian, seeded bool, r *rand.Rand, x float64) func() error {
		return func() error {
			var err error
			if seeded {
				_, err = m.ReleaseSeeded(r, x)
			} else {
				_, err = m.Release(r, x)
			}
			return err
		}
	}
	relE := func(m *ClippedExponential, seeded bool, r *rand.Rand, x float64) func() error {
		return func() error {
			var err error
			if seeded {
				_, err = m.ReleaseSeeded(r, x)
			} else {
				_, err = m.Release(r, x)
			}
			return err
		}
	}
	cases := []struct {
		cat, name string
		f         func() error
	}{
		{"nan", "Gaussian a", newG(nan, 1, 1)},
		{"nan", "Gaussian epsilon", newG(0, 1, nan)},
		{"nan", "exponential b", newE(nan, 1)},
		{"nan", "exponential epsilon", newE(1, nan)},
		{"nan", "Gaussian report", relG(g, false, r, nan)},
		{"nan", "Gaussian seeded report", relG(g, true, r, nan)},
		{"nan", "exponential report", relE(e, false, r, nan)},
		{"inf", "Gaussian b", newG(0, inf, 1)},
		{"inf", "Gaussian epsilon", newG(0, 1, inf)},
		{"inf", "exponential b", newE(inf, 1)},
		{"inf", "Gaussian report", relG(g, false, r, inf)},
		{"inf", "Gaussian report −Inf", relG(g, true, r, -inf)},
		{"inf", "exponential report", relE(e, true, r, inf)},
		{"nonpositive", "Gaussian a = b", newG(1, 1, 1)},
		{"nonpositive", "Gaussian a > b", newG(2, 1, 1)},
		{"nonpositive", "Gaussian epsilon 0", newG(0, 1, 0)},
		{"nonpositive", "exponential b 0", newE(0, 1)},
		{"nonpositive", "exponential epsilon −1", newE(1, -1)},
		{"nonpositive", "exponential report −1", relE(e, false, r, -1)},
		{"huge", "Gaussian bounds ±1e308", newG(-1e308, 1e308, 1)},
		{"huge", "Gaussian epsilon 1e308", newG(0, 1, 1e308)},
		{"huge", "exponential epsilon 1e308", newE(1, 1e308)},
		{"subnormal", "Gaussian epsilon", newG(0, 1, sub)},
		{"subnormal", "Gaussian width", newG(0, sub, 1)},
		{"subnormal", "exponential b", newE(sub, 1)},
		{"subnormal", "exponential epsilon", newE(1, sub)},
		{"nil", "seeded Gaussian report without a generator", relG(g, true, nil, 0.5)},
		{"nil", "seeded exponential report without a generator", relE(e, true, nil, 0.5)},
		{"nil", "nil Gaussian model", relG(nil, false, r, 0.5)},
		{"nil", "nil exponential model", relE(nil, true, r, 0.5)},
		{"zerovalue", "Gaussian model", relG(&ClippedGaussian{}, false, r, 0.5)},
		{"zerovalue", "Gaussian model seeded", relG(&ClippedGaussian{}, true, r, 0.5)},
		{"zerovalue", "exponential model", relE(&ClippedExponential{}, false, r, 0.5)},
	}
	perCat := map[string]int{}
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			return c.f()
		}()
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s/%s: got %v, want an error wrapping ErrInvalid", c.cat, c.name, err)
			continue
		}
		perCat[c.cat]++
	}
	for _, cat := range []string{"nan", "inf", "nonpositive", "huge", "subnormal", "nil", "zerovalue"} {
		t.Logf("%-12s %d cases, 0 panics", cat, perCat[cat])
		if perCat[cat] == 0 {
			t.Errorf("category %s has no passing case", cat)
		}
	}
	// The default path ignores r: a nil generator is fine there.
	if _, err := g.Release(nil, 0.5); err != nil {
		t.Errorf("default report with a nil generator: %v", err)
	}
}
