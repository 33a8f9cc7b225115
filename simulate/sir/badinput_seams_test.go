package sir

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/internal/testutil/simcheck"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInputSeams runs the generic simulator and prior rows (simcheck)
// for the three SIR simulators and the two priors, and the constructors'
// limits.
func TestBadInputSeams(t *testing.T) {
	cfg := Config{K: 100, Times: []float64{1, 5, 10}}
	ex, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ode, err := NewODE(cfg, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := NewTauLeap(cfg, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	th := SyntheticTheta()
	cs := simcheck.Simulator("Exact", ex, th, &Exact{}, (*Exact)(nil))
	cs = append(cs, simcheck.Simulator("ODE", ode, th, &ODE{}, (*ODE)(nil))...)
	cs = append(cs, simcheck.Simulator("TauLeap", tl, th, &TauLeap{}, (*TauLeap)(nil))...)
	cs = append(cs, simcheck.Prior("Prior", Prior())...)
	cs = append(cs, simcheck.Prior("OutbreakPrior", OutbreakPrior())...)
	type B = testutil.BadInput
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		cat, name string
		cfg       Config
	}{
		{"nonpositive", "K 0", Config{K: 0}},
		{"nonpositive", "K -1", Config{K: -1}},
		{"huge", "K MaxInt64", Config{K: math.MaxInt64}},
		{"huge", "I0 > K", Config{K: 10, I0: 11}},
		{"nonpositive", "I0 -1", Config{K: 10, I0: -1}},
		{"nan", "Times NaN", Config{K: 10, Times: []float64{1, nan}}},
		{"inf", "Times Inf", Config{K: 10, Times: []float64{1, inf}}},
		{"nonpositive", "Times negative", Config{K: 10, Times: []float64{-1, 2}}},
		{"mismatched", "Times unsorted", Config{K: 10, Times: []float64{2, 1}}},
		{"empty", "Times empty", Config{K: 10, Times: []float64{}}},
		{"huge", "Param 99", Config{K: 10, Param: 99}},
		{"huge", "Output 99", Config{K: 10, Output: 99}},
		{"zerovalue", "zero Config", Config{}},
	} {
		cs = append(cs,
			B{Category: c.cat, Name: "New " + c.name, Err: func() error { _, err := New(c.cfg); return err }},
			B{Category: c.cat, Name: "NewODE " + c.name, Err: func() error { _, err := NewODE(c.cfg, 1e-6); return err }},
			B{Category: c.cat, Name: "NewTauLeap " + c.name, Err: func() error { _, err := NewTauLeap(c.cfg, 0.1); return err }},
		)
	}
	for _, v := range []float64{nan, inf, 0, -1, 1e300} {
		cat := map[bool]string{true: "nonpositive", false: "huge"}[v <= 0]
		if math.IsNaN(v) {
			cat = "nan"
		} else if math.IsInf(v, 0) {
			cat = "inf"
		}
		if v != 0 { // rtol 0 selects the default
			cs = append(cs, B{Category: cat, Name: "NewODE rtol bad", Err: func() error { _, err := NewODE(cfg, v); return err }})
		}
		if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) { // a step beyond the horizon is one leap
			cs = append(cs, B{Category: cat, Name: "NewTauLeap step bad", Err: func() error { _, err := NewTauLeap(cfg, v); return err }})
		}
		cs = append(cs,
			B{Category: cat, Name: "SyntheticM ε bad", Err: func() error { _, err := SyntheticM(v); return err }},
			B{Category: cat, Name: "SyntheticRelease ε bad", Err: func() error { _, err := SyntheticRelease(v); return err }},
			B{Category: cat, Name: "SyntheticSimulator ε bad", Err: func() error { _, err := SyntheticSimulator(v); return err }},
		)
	}
	cs = append(cs,
		B{Category: "empty", Name: "OutbreakByName unknown", Err: func() error { _, err := OutbreakByName("no such outbreak"); return err }},
		B{Category: "empty", Name: "OutbreakByName empty", Err: func() error { _, err := OutbreakByName(""); return err }},
		B{Category: "nan", Name: "R0 NaN θ is NaN", Check: func() error {
			if v := R0([]float64{nan, 0}, LogRates); !math.IsNaN(v) {
				return errf(v)
			}
			return nil
		}},
		B{Category: "mismatched", Name: "R0 short θ is NaN", Check: func() error {
			if v := R0([]float64{0}, LogRates); !math.IsNaN(v) {
				return errf(v)
			}
			return nil
		}},
		B{Category: "nil", Name: "Exact.SimulateEvents nil receiver", Err: func() error {
			_, err := (*Exact)(nil).SimulateEvents(nil, th, make([]float64, 3))
			return err
		}},
		B{Category: "nan", Name: "Exact.SimulateEvents NaN θ", Err: func() error {
			_, err := ex.SimulateEvents(rnd(), []float64{nan, 0}, make([]float64, 3))
			return err
		}},
	)
	testutil.RunBadInput(t, simulate.ErrInvalid, cs)
}

func errf(v float64) error { return &valErr{v} }

type valErr struct{ v float64 }

func (e *valErr) Error() string { return "got a value, want the documented NaN" }

func rnd() *rand.Rand { return rand.New(rand.NewPCG(21, 22)) }
