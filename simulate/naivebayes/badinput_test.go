package naivebayes

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid settings, parameters, sizes, nil values and
// unconstructed values to the naive Bayes model: every call returns an error
// wrapping simulate.ErrInvalid and never panics.
func TestBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	nan := math.NaN()
	nb := Paper()
	sim := func(s simulate.Simulator, r *rand.Rand, theta []float64, n int) func() error {
		return func() error { return s.Simulate(r, theta, make([]float64, n)) }
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nonpositive", Name: "New classes 1", Err: func() error { _, err := New(Config{Classes: 1, Levels: []int{2}, N: 10}); return err }},
		{Category: "empty", Name: "New no features", Err: func() error { _, err := New(Config{Classes: 2, Levels: nil, N: 10}); return err }},
		{Category: "nonpositive", Name: "New n 0", Err: func() error { _, err := New(Config{Classes: 2, Levels: []int{2}, N: 0}); return err }},
		{Category: "nonpositive", Name: "New levels 1", Err: func() error { _, err := New(Config{Classes: 2, Levels: []int{1}, N: 10}); return err }},
		{Category: "zerovalue", Name: "Model{}.Simulate", Err: func() error { var m Model; return m.Simulate(r, nil, nil) }},
		{Category: "nil", Name: "Model.Simulate nil rand", Err: sim(nb, nil, PaperTheta(), nb.StatDim())},
		{Category: "mismatched", Name: "Model.Simulate dst length", Err: sim(nb, r, PaperTheta(), 1)},
		{Category: "nan", Name: "Model.Simulate θ NaN", Err: func() error {
			th := PaperTheta()
			th[0] = nan
			return nb.Simulate(r, th, make([]float64, nb.StatDim()))
		}},
		{Category: "nonpositive", Name: "LaplaceScale K 0", Err: func() error { _, err := LaplaceScale(0, 10, 1); return err }},
		{Category: "nonpositive", Name: "LaplaceScale n 0", Err: func() error { _, err := LaplaceScale(2, 0, 1); return err }},
		{Category: "nonpositive", Name: "LaplaceScale ε 0", Err: func() error { _, err := LaplaceScale(2, 10, 0); return err }},
		{Category: "nonpositive", Name: "LaplaceScale ε −1", Err: func() error { _, err := LaplaceScale(2, 10, -1); return err }},
		{Category: "nan", Name: "LaplaceScale ε NaN", Err: func() error { _, err := LaplaceScale(2, 10, nan); return err }},
		{Category: "inf", Name: "LaplaceScale ε Inf", Err: func() error { _, err := LaplaceScale(2, 10, math.Inf(1)); return err }},
		{Category: "subnormal", Name: "LaplaceScale overflows (ε 5e-324)", Err: func() error { _, err := LaplaceScale(2, 10, 5e-324); return err }},
		{Category: "huge", Name: "LaplaceScale underflows (ε 1e308, n 2^40)", Err: func() error { _, err := LaplaceScale(1, 1<<40, 1e308); return err }},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
