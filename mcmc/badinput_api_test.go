package mcmc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInputAPI completes TestBadInput so that every exported function
// and method of the package has bad-input cases: the configurations'
// Validate, the target adapters, the DAChain accessors, the basic R̂ and
// the result summaries. Calls with no error return give their documented
// value or documented panic.
func TestBadInputAPI(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	nan := math.NaN()
	_, nig := nigProblem(t, 3)
	type B = testutil.BadInput
	cases := []B{
		// Configurations' Validate.
		{Category: "zerovalue", Name: "DAConfig{}.Validate", Err: func() error { return DAConfig{}.Validate() }},
		{Category: "zerovalue", Name: "CouplingConfig{}.Validate", Err: func() error { return CouplingConfig{}.Validate() }},
		{Category: "nonpositive", Name: "CouplingConfig.Validate Pairs -1", Err: func() error {
			return CouplingConfig{Pairs: -1, MaxIter: 5, InitPair: priorPair(nig)}.Validate()
		}},
		// (TestBadInput); called directly it is a programmer error.
		{Category: "nil", Name: "TargetFunc{N: 2}.LogDensity nil Fn", Panics: func() { TargetFunc{N: 2}.LogDensity([]float64{0, 0}) }},
		{Category: "nil", Name: "GradTargetFunc{N: 2}.Gradient nil Fn", Panics: func() { GradTargetFunc{N: 2}.Gradient([]float64{0, 0}, make([]float64, 2)) }},
		{Category: "nil", Name: "GradTargetFunc{N: 2}.LogDensity nil Fn", Panics: func() { GradTargetFunc{N: 2}.LogDensity([]float64{0, 0}) }},
		{Category: "nonpositive", Name: "GradTargetFunc{N: -1}.LogDensity", Panics: func() {
			GradTargetFunc{N: -1, Fn: func(x, g []float64) float64 { return 0 }}.LogDensity(nil)
		}},
		{Category: "zerovalue", Name: "TargetFunc{}.Dim and GradTargetFunc{}.Dim", Check: func() error {
			if (TargetFunc{}).Dim() != 0 || (GradTargetFunc{}).Dim() != 0 {
				return errors.New("zero adapters have a dimension")
			}
			return nil
		}},
		// DAChain accessors on a nil chain.
		{Category: "nil", Name: "nil DAChain accessors", Check: func() error {
			var c *DAChain
			c.ResetAcceptance()
			a, n := c.Acceptance()
			if c.Theta() != nil || c.Records() != nil || c.Stat() != nil || !math.IsNaN(c.LogEta()) || a != 0 || n != 0 {
				return errors.New("a nil DAChain reports a state")
			}
			return nil
		}},
		{Category: "nil", Name: "nil DAChain.Step", Err: func() error { return (*DAChain)(nil).Step(r) }},
		// Diagnostics.
		{Category: "empty", Name: "RHatBasic no chains", Check: func() error {
			if v, err := RHatBasic(nil); !math.IsNaN(v) || !errors.Is(err, ErrDegenerate) {
				return fmt.Errorf("got %v, %v; want NaN and ErrDegenerate", v, err)
			}
			return nil
		}},
		{Category: "nan", Name: "RHatBasic NaN draw", Check: func() error {
			if v, err := RHatBasic([][]float64{{1, 2, nan, 4}, {1, 2, 3, 4}}); !math.IsNaN(v) || !errors.Is(err, ErrDegenerate) {
				return fmt.Errorf("got %v, %v; want NaN and ErrDegenerate", v, err)
			}
			return nil
		}},
		{Category: "nonpositive", Name: "Autocorrelation maxLag -1", Check: func() error {
			if _, err := Autocorrelation([]float64{1, 2, 3, 4}, -1); err == nil {
				return errors.New("no error")
			}
			return nil
		}},
		{Category: "huge", Name: "RecordStep(99).String", Check: func() error {
			if s := RecordStep(99).String(); s != "RecordStep(99)" {
				return fmt.Errorf("got %q", s)
			}
			return nil
		}},
		{Category: "nil", Name: "nil CouplingResult summaries", Check: func() error {
			var c *CouplingResult
			q1, q3 := c.Quartiles()
			if !math.IsNaN(c.Mean()) || !math.IsNaN(c.Rate()) || !math.IsNaN(q1) || !math.IsNaN(q3) {
				return errors.New("a nil CouplingResult has summaries")
			}
			return nil
		}},
	}
	tl := testutil.RunBadInput(t, ErrInvalid, cases)
	if tl.UndocumentedPanics+tl.SilentGarbage+tl.DataDependent != 0 {
		t.Errorf("tally %+v", tl)
	}
}

// TestNilReceivers calls every exported pointer-receiver method of the
// package on a nil pointer with zero-valued arguments: none may panic and
// those returning an error must return one wrapping ErrInvalid. The list
// of types is checked against the source.
func TestNilReceivers(t *testing.T) {
	ptrs := []any{(*CouplingResult)(nil), (*DAChain)(nil), (*MetropolisTheta)(nil), (*Result)(nil)}
	want, err := testutil.PointerReceiverTypes(".")
	if err != nil {
		t.Fatal(err)
	}
	if got := testutil.TypeNames(ptrs); !slices.Equal(got, want) {
		t.Fatalf("the test covers %v, the package declares pointer-receiver methods on %v", got, want)
	}
	for _, f := range testutil.NilReceiverFailures(ptrs, ErrInvalid) {
		t.Error(f)
	}
}
