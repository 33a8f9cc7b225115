package aggregate

import (
	"math"
	"testing"
)

// TestClampValue checks Params.ClampValue against mechanism.Clamp's rule:
// values limited to [Lo, Hi], ±Inf to the nearer bound, and NaN records,
// bounds with no interval or unset bounds reported as not usable.
func TestClampValue(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		v, lo, hi, want float64
		ok              bool
	}{
		{0.5, 0, 1, 0.5, true},
		{-3, 0, 1, 0, true},
		{3, 0, 1, 1, true},
		{inf, 0, 1, 1, true},
		{-inf, 0, 1, 0, true},
		{nan, 0, 1, 0, false},
		{0.5, 1, 0, 0, false},
		{0.5, nan, 1, 0, false},
		{0.5, 0, nan, 0, false},
		{0.5, 0, 0, 0, false},
		{0.5, 1, 1, 0, false},
	} {
		got, ok := Params{Lo: c.lo, Hi: c.hi}.ClampValue(c.v)
		if got != c.want || ok != c.ok {
			t.Errorf("Params{Lo: %v, Hi: %v}.ClampValue(%v) = %v, %v; want %v, %v", c.lo, c.hi, c.v, got, ok, c.want, c.ok)
		}
	}
}
