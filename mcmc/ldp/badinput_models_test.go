package ldp

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestBadInputModels feeds the report models' constructors invalid
// arguments, labelled by category, and requires an
// error wrapping ErrInvalid and no panic.
func TestBadInputModels(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	sub := 0x1p-1070
	newG := func(a, b, eps float64) func() error {
		return func() error {
			_, err := NewClippedGaussian(ClippedGaussianConfig{A: a, B: b, Epsilon: eps})
			return err
		}
	}
	newE := func(b, eps float64) func() error {
		return func() error {
			_, err := NewClippedExponential(ClippedExponentialConfig{B: b, Epsilon: eps})
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
		{"inf", "Gaussian b", newG(0, inf, 1)},
		{"inf", "Gaussian epsilon", newG(0, 1, inf)},
		{"inf", "exponential b", newE(inf, 1)},
		{"nonpositive", "Gaussian a = b", newG(1, 1, 1)},
		{"nonpositive", "Gaussian a > b", newG(2, 1, 1)},
		{"nonpositive", "Gaussian epsilon 0", newG(0, 1, 0)},
		{"nonpositive", "exponential b 0", newE(0, 1)},
		{"nonpositive", "exponential epsilon −1", newE(1, -1)},
		{"huge", "Gaussian bounds ±1e308", newG(-1e308, 1e308, 1)},
		{"huge", "Gaussian epsilon 1e308", newG(0, 1, 1e308)},
		{"huge", "exponential epsilon 1e308", newE(1, 1e308)},
		{"subnormal", "Gaussian epsilon", newG(0, 1, sub)},
		{"subnormal", "Gaussian width", newG(0, sub, 1)},
		{"subnormal", "exponential b", newE(sub, 1)},
		{"subnormal", "exponential epsilon", newE(1, sub)},
		{"huge", "Gaussian rate ε/(b−a) overflows", newG(0, 3.3e-306, 2070)},
		{"huge", "exponential rate ε/b overflows", newE(3.3e-306, 2070)},
		{"zerovalue", "ClippedGaussianConfig{}", func() error { _, err := NewClippedGaussian(ClippedGaussianConfig{}); return err }},
		{"zerovalue", "ClippedExponentialConfig{}", func() error { _, err := NewClippedExponential(ClippedExponentialConfig{}); return err }},
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
	for _, cat := range []string{"nan", "inf", "nonpositive", "huge", "subnormal", "zerovalue"} {
		t.Logf("%-12s %d cases, 0 panics", cat, perCat[cat])
		if perCat[cat] == 0 {
			t.Errorf("category %s has no passing case", cat)
		}
	}
}
