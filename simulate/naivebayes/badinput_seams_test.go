package naivebayes

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/internal/testutil/simcheck"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInputSeams runs the generic record-model, simulator and prior
// rows (simcheck), the documented panics of the log-ratio transforms and
// the constructors' limits.
func TestBadInputSeams(t *testing.T) {
	m := Paper()
	th := PaperTheta()
	p, err := m.Prior(1)
	if err != nil {
		t.Fatal(err)
	}
	cs := simcheck.RecordModel("Model", m, th, &Model{}, (*Model)(nil))
	cs = append(cs, simcheck.Simulator("Model", m, th, &Model{}, (*Model)(nil))...)
	cs = append(cs, simcheck.Prior("Prior", p)...)
	type B = testutil.BadInput
	nan := math.NaN()
	for _, a := range []float64{nan, math.Inf(1), 0, -1} {
		cs = append(cs, B{Category: "nonpositive", Name: "Model.Prior α bad", Err: func() error { _, err := m.Prior(a); return err }})
	}
	cs = append(cs,
		B{Category: "zerovalue", Name: "zero Model.Prior", Err: func() error { _, err := (&Model{}).Prior(1); return err }},
		B{Category: "huge", Name: "New classes MaxInt", Err: func() error { _, err := New(Config{Classes: math.MaxInt, Levels: []int{2}, N: 10}); return err }},
		B{Category: "huge", Name: "New levels 2^31", Err: func() error { _, err := New(Config{Classes: 2, Levels: []int{1 << 31}, N: 10}); return err }},
		B{Category: "huge", Name: "New n MaxInt", Err: func() error { _, err := New(Config{Classes: 2, Levels: []int{2}, N: math.MaxInt}); return err }},
		B{Category: "nonpositive", Name: "New classes -1", Err: func() error { _, err := New(Config{Classes: -1, Levels: []int{2}, N: 10}); return err }},
		B{Category: "mismatched", Name: "ALR phi of J", Panics: func() { ALR([]float64{0.5, 0.5}, make([]float64, 2)) }},
		B{Category: "empty", Name: "ALR empty", Panics: func() { ALR(nil, nil) }},
		B{Category: "mismatched", Name: "InvALR p of J − 1", Panics: func() { InvALR([]float64{0.1}, make([]float64, 1)) }},
		B{Category: "empty", Name: "InvALR empty", Panics: func() { InvALR(nil, nil) }},
		B{Category: "mismatched", Name: "ToUnconstrained short φ", Panics: func() { m.ToUnconstrained(th, make([]float64, m.UnconstrainedDim()-1)) }},
		B{Category: "mismatched", Name: "FromUnconstrained short θ", Panics: func() { m.FromUnconstrained(make([]float64, m.UnconstrainedDim()), th[:1]) }},
		B{Category: "zerovalue", Name: "zero Model.ToUnconstrained", Panics: func() { (&Model{}).ToUnconstrained(th, nil) }},
		B{Category: "nil", Name: "nil Model.FromUnconstrained", Panics: func() { (*Model)(nil).FromUnconstrained(nil, th) }},
		B{Category: "nan", Name: "ALR NaN probability is NaN", Check: func() error {
			phi := make([]float64, 1)
			ALR([]float64{nan, 0.5}, phi)
			if !math.IsNaN(phi[0]) {
				return errNotNaN
			}
			return nil
		}},
	)
	testutil.RunBadInput(t, simulate.ErrInvalid, cs)
}

var errNotNaN = simulate.ErrInvalid
