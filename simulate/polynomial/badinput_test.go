package polynomial

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid settings, parameters, sizes, nil values and
// unconstructed values to the cubic polynomial: every call returns an error
// wrapping simulate.ErrInvalid and never panics.
func TestBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	nan, inf := math.NaN(), math.Inf(1)
	cubic, _ := NewCubic([]float64{0, 1, 2}, 0.5)
	sim := func(s simulate.Simulator, r *rand.Rand, theta []float64, n int) func() error {
		return func() error { return s.Simulate(r, theta, make([]float64, n)) }
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "empty", Name: "NewCubic no times", Err: func() error { _, err := NewCubic(nil, 1); return err }},
		{Category: "nan", Name: "NewCubic time NaN", Err: func() error { _, err := NewCubic([]float64{nan}, 1); return err }},
		{Category: "nonpositive", Name: "NewCubic noise -1", Err: func() error { _, err := NewCubic([]float64{1}, -1); return err }},
		{Category: "zerovalue", Name: "Cubic{}.Simulate", Err: func() error { var m Cubic; return m.Simulate(r, []float64{0, 0, 0, 0}, nil) }},
		{Category: "nil", Name: "Cubic.Simulate nil rand", Err: sim(cubic, nil, []float64{0, 0, 0, 0}, 3)},
		{Category: "inf", Name: "Cubic.Simulate θ Inf", Err: sim(cubic, r, []float64{0, inf, 0, 0}, 3)},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
