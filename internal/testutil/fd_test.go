package testutil

import (
	"math"
	"testing"
)

// TestFD5 checks that the difference is exact (to rounding) for a quartic,
// that its error on sin shrinks like h⁴ (halving h divides it by about
// 16), and that x is restored.
func TestFD5(t *testing.T) {
	x := []float64{7, 1.5}
	quartic := func() float64 { v := x[1]; return 3*v*v*v*v - 2*v*v + v + 5 }
	want := 12*1.5*1.5*1.5 - 4*1.5 + 1
	if got := FD5(quartic, x, 1, 0.1); math.Abs(got-want) > 1e-11 {
		t.Errorf("FD5 of a quartic = %.15g, want %.15g", got, want)
	}
	if x[0] != 7 || x[1] != 1.5 {
		t.Errorf("x = %v after FD5, want [7 1.5]", x)
	}
	sin := func() float64 { return math.Sin(x[1]) }
	e1 := math.Abs(FD5(sin, x, 1, 0.1) - math.Cos(1.5))
	e2 := math.Abs(FD5(sin, x, 1, 0.05) - math.Cos(1.5))
	if r := e1 / e2; r < 14 || r > 18 {
		t.Errorf("error ratio for h = 0.1 and 0.05 is %.2f (errors %.3g, %.3g), want about 16", r, e1, e2)
	}
}
