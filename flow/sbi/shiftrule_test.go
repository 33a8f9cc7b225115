package sbi

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// boxPrior returns U[lo, hi]ᵈ.
func boxPrior(t *testing.T, d int, lo, hi float64) simulate.Prior {
	t.Helper()
	c := make([]simulate.Univariate, d)
	for i := range c {
		u, err := simulate.NewUniform(simulate.UniformConfig{Lo: lo, Hi: hi})
		if err != nil {
			t.Fatal(err)
		}
		c[i] = u
	}
	p, err := simulate.NewIndependent(c...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// unstated is a prior that does not implement simulate.Bounded (its
// support, [0, 1], is not stated).
type unstated struct{}

func (unstated) Dim() int                         { return 1 }
func (unstated) Sample(r *rand.Rand, x []float64) { x[0] = r.Float64() }
func (unstated) LogDensity(x []float64) float64 {
	if len(x) != 1 {
		return math.NaN()
	}
	if x[0] < 0 || x[0] > 1 {
		return math.Inf(-1)
	}
	return 0
}

// badBounds is a box prior whose Bounds break simulate.Bounded's contract.
type badBounds struct{ unstated }

func (badBounds) Bounds() (lo, hi []float64) { return []float64{1}, []float64{0} }

// TestUsesRegressionShift checks the rule of Config.RegressionShift on
// every mode, one and several rounds, and priors bounded in every
// coordinate (at and above the rule's dimension and below it), in some, in none and
// not stating their support, and its refusals.
func TestUsesRegressionShift(t *testing.T) {
	box := boxPrior(t, boxNoShiftMinDim, -1, 1)
	small := boxPrior(t, boxNoShiftMinDim-1, -1, 1) // below the rule's dimensions
	large := boxPrior(t, 20, -1, 1)
	g, _ := simulate.NewGamma(simulate.GammaConfig{Shape: 2, Scale: 1})
	u, _ := simulate.NewUniform(simulate.UniformConfig{Lo: 0, Hi: 1})
	half, _ := simulate.NewIndependent(u, g) // bounded above in one coordinate only
	normal := testProblem().Prior
	dir, _ := simulate.NewDirichlet([]float64{1, 1})
	cat, _ := simulate.NewConcat(small, boxPrior(t, 1, 0, 5))
	halfCat, _ := simulate.NewConcat(box, simulate.Prior(half))
	priors := []struct {
		name    string
		p       simulate.Prior
		bounded bool
	}{
		{"box", box, true}, {"large box", large, true}, {"concat of boxes", cat, true},
		{"small box", small, false},
		{"half-bounded", half, false}, {"box and half-bounded", halfCat, false},
		{"normal", normal, false}, {"dirichlet", dir, false}, {"unstated", unstated{}, false},
	}
	for _, pr := range priors {
		for _, rounds := range []int{0, 1, 2, 4} {
			for _, mode := range []ShiftMode{ShiftAuto, ShiftOn, ShiftOff} {
				want := mode == ShiftOn || (mode == ShiftAuto && !(rounds == 1 && pr.bounded))
				got, err := Config{Rounds: rounds, RegressionShift: mode}.UsesRegressionShift(pr.p)
				if err != nil || got != want {
					t.Errorf("%s, Rounds %d, %v: %v, %v; want %v", pr.name, rounds, mode, got, err, want)
				}
			}
		}
	}
	bad := []struct {
		name string
		c    Config
		p    simulate.Prior
	}{
		{"nil prior", Config{Rounds: 1}, nil},
		{"nil prior, sequential", Config{Rounds: 3}, nil},
		{"broken Bounds", Config{Rounds: 1}, badBounds{}},
		{"unknown mode", Config{Rounds: 1, RegressionShift: ShiftOff + 1}, box},
		{"negative mode", Config{Rounds: 1, RegressionShift: -1}, box},
	}
	for _, b := range bad {
		_, err := b.c.UsesRegressionShift(b.p)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", b.name, err)
		} else if strings.Count(err.Error(), "invalid argument") != 1 {
			t.Errorf("%s: %q repeats the argument-error prefix", b.name, err)
		}
	}
	for _, m := range []ShiftMode{-1, ShiftOff + 1} {
		c := Config{RegressionShift: m}
		if err := c.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("Validate with mode %d: %v, want ErrInvalid", int(m), err)
		}
	}
	// SPPE refuses a box prior whose Bounds break the contract when the
	// rule has to look at them.
	p := privinfer.Problem{Prior: badBounds{}, Simulator: normalSim{tau: 0.1}, Observed: []float64{0.5}}
	if _, err := SPPE(t.Context(), p, Config{Rounds: 1, SimsPerRound: 50}); !errors.Is(err, ErrInvalid) {
		t.Errorf("SPPE with broken Bounds: %v, want ErrInvalid", err)
	}
	if s := ShiftAuto.String() + ShiftOn.String() + ShiftOff.String(); s != "autoonoff" {
		t.Errorf("String: %q", s)
	}
}

// TestShiftRuleRuns checks that the rule changes nothing but the shift:
// amortized NPE under a Gaussian prior, or a box prior of fewer
// dimensions than the rule's, gives bit for bit the draws it gave with the
// shift always on (the rule does not apply), and under a box prior of the
// rule's dimensions those of ShiftOff; sequential SPPE under a box prior
// keeps the shift.
func TestShiftRuleRuns(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	normal := testProblem()
	d := boxNoShiftMinDim
	box := privinfer.Problem{Prior: boxPrior(t, d, -1, 1), Simulator: noisy{d: d, sd: 0.3}, Observed: make([]float64, d)}
	smallBox := testProblem()
	smallBox.Prior = boxPrior(t, 1, -2, 2)
	run := func(p privinfer.Problem, rounds int, mode ShiftMode) *SPPEResult {
		t.Helper()
		cfg := quickConfig()
		cfg.Rounds, cfg.RegressionShift = rounds, mode
		if rounds > 1 {
			cfg.SimsPerRound = 150
		}
		res, err := SPPE(t.Context(), p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, c := range []struct {
		name   string
		p      privinfer.Problem
		rounds int
		same   ShiftMode
		shift  bool
	}{
		{"normal prior, amortized", normal, 1, ShiftOn, true},
		{"box prior, amortized", box, 1, ShiftOff, false},
		{"box prior, sequential", box, 2, ShiftOn, true},
		{"box prior below the rule's dimensions, amortized", smallBox, 1, ShiftOn, true},
	} {
		auto, want := run(c.p, c.rounds, ShiftAuto), run(c.p, c.rounds, c.same)
		if (auto.Posterior.shift != nil) != c.shift {
			t.Errorf("%s: regression shift %v, want %v", c.name, auto.Posterior.shift != nil, c.shift)
		}
		if !slices.Equal(auto.Draws.Theta, want.Draws.Theta) {
			t.Errorf("%s: ShiftAuto's draws differ from %v's", c.name, c.same)
		}
	}
	// And the rule does change the box prior's amortized run.
	if on, off := run(box, 1, ShiftOn), run(box, 1, ShiftOff); slices.Equal(on.Draws.Theta, off.Draws.Theta) {
		t.Error("box prior: the draws with and without the shift are the same")
	}
}

// noisy simulates x = θ + N(0, sd²·I) in d dimensions.
type noisy struct {
	d  int
	sd float64
}

func (m noisy) StatDim() int { return m.d }

func (m noisy) Simulate(r *rand.Rand, theta, dst []float64) error {
	for i := range m.d {
		dst[i] = theta[i] + m.sd*r.NormFloat64()
	}
	return nil
}
