package spline

import (
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput is the package's bad-input table: New's arguments (errors
// wrapping ErrInvalid), the hot-path methods' documented panics on short
// slices and their documented NaN for a NaN input.
func TestBadInput(t *testing.T) {
	type B = testutil.BadInput
	nan, inf := math.NaN(), math.Inf(1)
	var cs []B
	newS := func(bins int, tb, w, h, d float64) func() error {
		return func() error {
			_, err := New(Config{Bins: bins, TailBound: tb, MinWidth: w, MinHeight: h, MinDerivative: d})
			return err
		}
	}
	for _, b := range []int{1, 0, -1, 1<<16 + 1, math.MaxInt} {
		c := map[bool]string{true: "nonpositive", false: "huge"}[b < 2]
		cs = append(cs, B{Category: c, Name: fmt.Sprintf("New bins %d", b), Err: newS(b, 3, 1e-3, 1e-3, 1e-3)})
	}
	for _, v := range []float64{nan, inf, -inf, 0, -1} {
		c := "nonpositive"
		if math.IsNaN(v) {
			c = "nan"
		} else if math.IsInf(v, 0) {
			c = "inf"
		}
		cs = append(cs,
			B{Category: c, Name: fmt.Sprintf("New tail bound %v", v), Err: newS(4, v, 1e-3, 1e-3, 1e-3)},
			B{Category: c, Name: fmt.Sprintf("New min width %v", v), Err: newS(4, 3, v, 1e-3, 1e-3)},
			B{Category: c, Name: fmt.Sprintf("New min height %v", v), Err: newS(4, 3, 1e-3, v, 1e-3)},
			B{Category: c, Name: fmt.Sprintf("New min derivative %v", v), Err: newS(4, 3, 1e-3, 1e-3, v)},
		)
	}
	cs = append(cs,
		B{Category: "huge", Name: "New min width 0.25 with 4 bins", Err: newS(4, 3, 0.25, 1e-3, 1e-3)},
		B{Category: "huge", Name: "New min height 1", Err: newS(4, 3, 1e-3, 1, 1e-3)},
	)
	s, err := New(Config{Bins: 4, TailBound: 3, MinWidth: 1e-3, MinHeight: 1e-3, MinDerivative: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	k := s.NewKnots()
	s.SetKnots(k, make([]float64, s.NumParams()))
	isNaN := func(name string, v float64) error {
		if !math.IsNaN(v) {
			return fmt.Errorf("%s: %v, want the documented NaN", name, v)
		}
		return nil
	}
	cs = append(cs,
		B{Category: "mismatched", Name: "SetKnots short raw", Panics: func() { s.SetKnots(s.NewKnots(), make([]float64, s.NumParams()-1)) }},
		B{Category: "empty", Name: "SetKnots empty raw", Panics: func() { s.SetKnots(s.NewKnots(), nil) }},
		B{Category: "nil", Name: "SetKnots nil knots", Panics: func() { s.SetKnots(nil, make([]float64, s.NumParams())) }},
		B{Category: "mismatched", Name: "KnotsBackward short graw", Panics: func() {
			g := make([]float64, 5)
			s.KnotsBackward(k, g, g, g, make([]float64, s.NumParams()-1))
		}},
		B{Category: "nil", Name: "Forward nil knots", Panics: func() { s.Forward(nil, 0.5) }},
		B{Category: "nan", Name: "Forward NaN is NaN", Check: func() error { y, _ := s.Forward(k, nan); return isNaN("y", y) }},
		B{Category: "nan", Name: "Inverse NaN is NaN", Check: func() error { x, _ := s.Inverse(k, nan); return isNaN("x", x) }},
		B{Category: "inf", Name: "Forward +Inf is the identity tail", Check: func() error {
			if y, ld := s.Forward(k, inf); !math.IsInf(y, 1) || ld != 0 {
				return fmt.Errorf("Forward(+Inf) = %v, %v", y, ld)
			}
			return nil
		}},
		B{Category: "huge", Name: "Forward 1e300 is the identity tail", Check: func() error {
			if y, ld := s.Forward(k, 1e300); y != 1e300 || ld != 0 {
				return fmt.Errorf("Forward(1e300) = %v, %v", y, ld)
			}
			return nil
		}},
		B{Category: "nan", Name: "SetKnots NaN parameter gives NaN knots", Check: func() error {
			kk := s.NewKnots()
			raw := make([]float64, s.NumParams())
			raw[0] = nan
			s.SetKnots(kk, raw)
			y, _ := s.Forward(kk, 0.5)
			return isNaN("y", y)
		}},
	)
	testutil.RunBadInput(t, ErrInvalid, cs)
}
