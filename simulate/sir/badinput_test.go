package sir

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid settings, parameters, sizes, nil values and
// unconstructed values to the SIR simulators and the paper's SIR data: every call returns an error
// wrapping simulate.ErrInvalid and never panics.
func TestBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	nan, inf := math.NaN(), math.Inf(1)
	sir, _ := New(Config{K: 100})
	tau, _ := NewTauLeap(Config{K: 100}, 0.1)
	ode, _ := NewODE(Config{K: 100}, 0)
	sim := func(s simulate.Simulator, r *rand.Rand, theta []float64, n int) func() error {
		return func() error { return s.Simulate(r, theta, make([]float64, n)) }
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "zerovalue", Name: "New Config{}", Err: func() error { _, err := New(Config{}); return err }},
		{Category: "nonpositive", Name: "New K -5", Err: func() error { _, err := New(Config{K: -5}); return err }},
		{Category: "huge", Name: "New K MaxInt64", Err: func() error { _, err := New(Config{K: math.MaxInt64}); return err }},
		{Category: "huge", Name: "New I0 > K", Err: func() error { _, err := New(Config{K: 10, I0: 11}); return err }},
		{Category: "nonpositive", Name: "New I0 -1", Err: func() error { _, err := New(Config{K: 10, I0: -1}); return err }},
		{Category: "huge", Name: "New Param 7", Err: func() error { _, err := New(Config{K: 10, Param: 7}); return err }},
		{Category: "huge", Name: "New Output 7", Err: func() error { _, err := New(Config{K: 10, Output: 7}); return err }},
		{Category: "empty", Name: "New empty times", Err: func() error { _, err := New(Config{K: 10, Times: []float64{}}); return err }},
		{Category: "nan", Name: "New time NaN", Err: func() error { _, err := New(Config{K: 10, Times: []float64{1, nan}}); return err }},
		{Category: "inf", Name: "New time Inf", Err: func() error { _, err := New(Config{K: 10, Times: []float64{inf}}); return err }},
		{Category: "nonpositive", Name: "New time -1", Err: func() error { _, err := New(Config{K: 10, Times: []float64{-1}}); return err }},
		{Category: "mismatched", Name: "New unsorted times", Err: func() error { _, err := New(Config{K: 10, Times: []float64{2, 1}}); return err }},
		{Category: "zerovalue", Name: "Exact{}.Simulate", Err: func() error { var s Exact; return s.Simulate(r, []float64{0, 0}, nil) }},
		{Category: "zerovalue", Name: "TauLeap{}.Simulate", Err: func() error { var s TauLeap; return s.Simulate(r, []float64{0, 0}, nil) }},
		{Category: "zerovalue", Name: "ODE{}.Simulate", Err: func() error { var s ODE; return s.Simulate(r, []float64{0, 0}, nil) }},
		{Category: "nil", Name: "SIR.Simulate nil rand", Err: sim(sir, nil, []float64{0, -1}, 10)},
		{Category: "nil", Name: "TauLeap.Simulate nil rand", Err: sim(tau, nil, []float64{0, -1}, 10)},
		{Category: "nan", Name: "SIR.Simulate θ NaN", Err: sim(sir, r, []float64{nan, 0}, 10)},
		{Category: "huge", Name: "SIR.Simulate log-rate 1e308", Err: sim(sir, r, []float64{1e308, 0}, 10)},
		{Category: "inf", Name: "ODE.Simulate θ Inf", Err: sim(ode, r, []float64{0, inf}, 10)},
		{Category: "mismatched", Name: "SIR.Simulate dst length", Err: sim(sir, r, []float64{0, -1}, 3)},
		{Category: "mismatched", Name: "TauLeap.Simulate θ length", Err: sim(tau, r, []float64{0}, 10)},
		{Category: "nonpositive", Name: "SIR Rates β < 0", Err: func() error {
			s, _ := New(Config{K: 10, Param: Rates})
			return s.Simulate(r, []float64{-1, 1}, make([]float64, s.StatDim()))
		}},
		{Category: "subnormal", Name: "NewTauLeap step 5e-324", Err: func() error { _, err := NewTauLeap(Config{K: 10}, 5e-324); return err }},
		{Category: "subnormal", Name: "NewTauLeap step 1e-310", Err: func() error { _, err := NewTauLeap(Config{K: 10}, 1e-310); return err }},
		{Category: "huge", Name: "NewTauLeap time 1e308", Err: func() error { _, err := NewTauLeap(Config{K: 10, Times: []float64{1e308}}, 1); return err }},
		{Category: "nan", Name: "NewTauLeap step NaN", Err: func() error { _, err := NewTauLeap(Config{K: 10}, nan); return err }},
		{Category: "nonpositive", Name: "NewTauLeap step 0", Err: func() error { _, err := NewTauLeap(Config{K: 10}, 0); return err }},
		{Category: "nan", Name: "NewODE rtol NaN", Err: func() error { _, err := NewODE(Config{K: 10}, nan); return err }},
		{Category: "huge", Name: "NewODE rtol 1", Err: func() error { _, err := NewODE(Config{K: 10}, 1); return err }},
		{Category: "nonpositive", Name: "NewODE rtol -1", Err: func() error { _, err := NewODE(Config{K: 10}, -1); return err }},
		{Category: "subnormal", Name: "NewODE rtol 5e-324 (no step meets it)", Err: func() error { _, err := NewODE(Config{K: 10}, 5e-324); return err }},
		{Category: "subnormal", Name: "NewODE rtol 1e-20 (below float64 precision)", Err: func() error { _, err := NewODE(Config{K: 10}, 1e-20); return err }},
		{Category: "nan", Name: "SyntheticM ε NaN", Err: func() error { _, err := SyntheticM(nan); return err }},
		{Category: "inf", Name: "SyntheticRelease ε Inf", Err: func() error { _, err := SyntheticRelease(inf); return err }},
		{Category: "empty", Name: "OutbreakByName empty", Err: func() error { _, err := OutbreakByName(""); return err }},
		{Category: "nan", Name: "R0 θ NaN", Check: func() error {
			if v := R0([]float64{nan, 0}, LogRates); !math.IsNaN(v) {
				return errors.New("R0 of NaN θ is not NaN")
			}
			return nil
		}},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
