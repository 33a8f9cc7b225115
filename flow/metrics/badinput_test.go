package metrics

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput is the package's bad-input table: every function with NaN,
// ±Inf, huge, empty and mismatched samples, bad dimensions and bad
// options; each returns an error wrapping ErrInvalid (or, for KDE.LogDensity,
// its documented NaN).
func TestBadInput(t *testing.T) {
	type B = testutil.BadInput
	nan, inf := math.NaN(), math.Inf(1)
	x := []float64{0.1, 0.2, 0.5, 0.1, 0.9, 0.4, 0.3, 0.8, 0.2, 0.6, 0.7, 0.05}
	ref := []float64{0.2, 0.1, 0.4, 0.3, 0.8, 0.5, 0.35, 0.7, 0.25, 0.65, 0.6, 0.15}
	with := func(s []float64, v float64) []float64 { c := append([]float64(nil), s...); c[3] = v; return c }
	fns := []struct {
		name string
		f    func(x, ref []float64, d int) error
	}{
		{"MMD", func(x, ref []float64, d int) error { _, err := MMD(x, ref, d, MMDOptions{}); return err }},
		{"C2ST", func(x, ref []float64, d int) error {
			_, err := C2ST(x, ref, d, C2STOptions{MaxEpochs: 2, Folds: 2})
			return err
		}},
		{"MarginalKS", func(x, ref []float64, d int) error { _, _, err := MarginalKS(x, ref, d); return err }},
		{"LMD", func(x, ref []float64, d int) error { _, err := LMD(x, d, obsOf(ref, d)); return err }},
		{"NLOGSamples", func(x, ref []float64, d int) error { _, err := NLOGSamples(x, d, obsOf(ref, d)); return err }},
		{"Moments", func(x, ref []float64, d int) error { _, _, _, err := Moments(x, d, 0.1); return err }},
		{"NewKDE", func(x, ref []float64, d int) error { _, err := NewKDE(x, d); return err }},
	}
	var cs []B
	for _, fn := range fns {
		cs = append(cs,
			B{Category: "nan", Name: fn.name + " NaN sample", Err: func() error { return fn.f(with(x, nan), ref, 2) }},
			B{Category: "inf", Name: fn.name + " +Inf sample", Err: func() error { return fn.f(with(x, inf), ref, 2) }},
			B{Category: "inf", Name: fn.name + " -Inf sample", Err: func() error { return fn.f(with(x, -inf), ref, 2) }},
			B{Category: "empty", Name: fn.name + " empty sample", Err: func() error { return fn.f(nil, ref, 2) }},
			B{Category: "mismatched", Name: fn.name + " ragged sample", Err: func() error { return fn.f(x[:5], ref, 2) }},
			B{Category: "nonpositive", Name: fn.name + " d 0", Err: func() error { return fn.f(x, ref, 0) }},
			B{Category: "nonpositive", Name: fn.name + " d -1", Err: func() error { return fn.f(x, ref, -1) }},
			B{Category: "huge", Name: fn.name + " d MaxInt", Err: func() error { return fn.f(x, ref, math.MaxInt) }},
		)
		if fn.name == "LMD" || fn.name == "NLOGSamples" {
			cs = append(cs,
				B{Category: "nan", Name: fn.name + " NaN observation", Err: func() error { return fn.f(x, []float64{0, nan}, 2) }},
				B{Category: "inf", Name: fn.name + " infinite observation", Err: func() error { return fn.f(x, []float64{inf, 0}, 2) }},
				B{Category: "empty", Name: fn.name + " empty observation", Err: func() error { return fn.f(x, nil, 2) }},
			)
		} else if fn.name != "Moments" && fn.name != "NewKDE" {
			cs = append(cs,
				B{Category: "nan", Name: fn.name + " NaN reference", Err: func() error { return fn.f(x, with(ref, nan), 2) }},
				B{Category: "empty", Name: fn.name + " empty reference", Err: func() error { return fn.f(x, ref[:0:0], 2) }},
			)
		}
	}
	cs = append(cs,
		B{Category: "nan", Name: "MMD Bandwidth NaN", Err: func() error { _, err := MMD(x, ref, 2, MMDOptions{Bandwidth: nan}); return err }},
		B{Category: "nonpositive", Name: "MMD Bandwidth -1", Err: func() error { _, err := MMD(x, ref, 2, MMDOptions{Bandwidth: -1}); return err }},
		B{Category: "inf", Name: "MMD Bandwidth Inf", Err: func() error { _, err := MMD(x, ref, 2, MMDOptions{Bandwidth: inf}); return err }},
		B{Category: "nonpositive", Name: "C2ST Folds 1", Err: func() error { _, err := C2ST(x, ref, 2, C2STOptions{Folds: 1}); return err }},
		B{Category: "nonpositive", Name: "C2ST Hidden -1", Err: func() error { _, err := C2ST(x, ref, 2, C2STOptions{Hidden: -1}); return err }},
		B{Category: "nan", Name: "C2ST LearningRate NaN", Err: func() error { _, err := C2ST(x, ref, 2, C2STOptions{LearningRate: nan}); return err }},
		B{Category: "nan", Name: "C2ST Tol NaN", Err: func() error { _, err := C2ST(x, ref, 2, C2STOptions{Tol: nan}); return err }},
		B{Category: "nan", Name: "C2ST L2 NaN", Err: testutil.Naming(func() error { _, err := C2ST(x, ref, 2, C2STOptions{L2: nan}); return err }, "C2STOptions.L2", "must be finite (0 for the default, negative for no penalty)")},
		B{Category: "huge", Name: "C2ST Hidden MaxInt", Err: func() error { _, err := C2ST(x, ref, 2, C2STOptions{Hidden: math.MaxInt}); return err }},
		B{Category: "huge", Name: "C2ST BatchSize MaxInt is one full batch", Check: func() error {
			v, err := C2ST(x, ref, 2, C2STOptions{BatchSize: math.MaxInt, MaxEpochs: 1, Folds: 2})
			if err != nil || !(v >= 0 && v <= 1) {
				return fmt.Errorf("accuracy %v, %v", v, err)
			}
			return nil
		}},
		B{Category: "nan", Name: "Moments α NaN", Err: func() error { _, _, _, err := Moments(x, 2, nan); return err }},
		B{Category: "nonpositive", Name: "Moments α 0", Err: func() error { _, _, _, err := Moments(x, 2, 0); return err }},
		B{Category: "huge", Name: "Moments α 1", Err: func() error { _, _, _, err := Moments(x, 2, 1); return err }},
		B{Category: "mismatched", Name: "NLOGSamples θ length", Err: func() error { _, err := NLOGSamples(x, 2, []float64{0}); return err }},
		B{Category: "nan", Name: "NLOGSamples NaN θ", Err: func() error { _, err := NLOGSamples(x, 2, []float64{0, nan}); return err }},
		B{Category: "mismatched", Name: "LMD obs length", Err: func() error { _, err := LMD(x, 2, []float64{0}); return err }},
		B{Category: "nonpositive", Name: "NewKDE n <= d", Err: func() error { _, err := NewKDE(x[:4], 2); return err }},
		B{Category: "nonpositive", Name: "NewKDE singular sample", Err: func() error { _, err := NewKDE(make([]float64, 12), 2); return err }},
		B{Category: "mismatched", Name: "KDE.LogDensity wrong length is NaN", Check: func() error {
			k, err := NewKDE(x, 2)
			if err != nil {
				return err
			}
			if v := k.LogDensity([]float64{0}); !math.IsNaN(v) {
				return fmt.Errorf("%v", v)
			}
			return nil
		}},
		B{Category: "nan", Name: "KDE.LogDensity NaN θ is NaN", Check: func() error {
			k, _ := NewKDE(x, 2)
			if v := k.LogDensity([]float64{0, nan}); !math.IsNaN(v) {
				return fmt.Errorf("%v", v)
			}
			return nil
		}},
		B{Category: "nil", Name: "nil KDE.LogDensity is NaN", Check: func() error {
			if v := (*KDE)(nil).LogDensity([]float64{0, 0}); !math.IsNaN(v) {
				return errors.New("not NaN")
			}
			return nil
		}},
	)
	testutil.RunBadInput(t, ErrInvalid, cs)
}

// obsOf returns the first d values of ref, or ref itself when d is out of
// its range (the call then fails on d).
func obsOf(ref []float64, d int) []float64 {
	if d < 0 || d > len(ref) {
		return ref
	}
	return ref[:d]
}
