package clipped

import (
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/internal/testutil/simcheck"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInputSeams runs the generic record-model rows (simcheck) for both
// clipped models and the constructors' bounds.
func TestBadInputSeams(t *testing.T) {
	g, err := NewGaussian(GaussianConfig{A: -1, B: 2})
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewExponential(3)
	if err != nil {
		t.Fatal(err)
	}
	cs := simcheck.RecordModel("Gaussian", g, []float64{0.5, 1}, &Gaussian{}, (*Gaussian)(nil))
	cs = append(cs, simcheck.RecordModel("Exponential", e, []float64{1.5}, &Exponential{}, (*Exponential)(nil))...)
	type B = testutil.BadInput
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e308} {
		c := "huge"
		if math.IsNaN(v) {
			c = "nan"
		} else if math.IsInf(v, 0) {
			c = "inf"
		}
		cs = append(cs,
			B{Category: c, Name: fmt.Sprintf("NewGaussian a %v", v), Err: func() error { _, err := NewGaussian(GaussianConfig{A: v, B: v + 1}); return err }},
			B{Category: c, Name: fmt.Sprintf("NewGaussian (-b, b) b %v", v), Err: func() error { _, err := NewGaussian(GaussianConfig{A: -v, B: v}); return err }},
		)
		if c != "huge" {
			cs = append(cs, B{Category: c, Name: fmt.Sprintf("NewExponential b %v", v), Err: func() error { _, err := NewExponential(v); return err }})
		}
	}
	cs = append(cs,
		B{Category: "mismatched", Name: "NewGaussian a = b", Err: func() error { _, err := NewGaussian(GaussianConfig{A: 1, B: 1}); return err }},
		B{Category: "nonpositive", Name: "NewExponential b -1", Err: func() error { _, err := NewExponential(-1); return err }},
		B{Category: "nonpositive", Name: "Exponential rate 0", Err: func() error { return e.CheckParam([]float64{0}) }},
		B{Category: "nonpositive", Name: "Exponential rate -1", Err: func() error { return e.CheckParam([]float64{-1}) }},
		B{Category: "nonpositive", Name: "Gaussian σ -1", Err: func() error { return g.CheckParam([]float64{0, -1}) }},
		B{Category: "nil", Name: "nil Gaussian.Bounds and Exponential.Bound", Check: func() error {
			a, b := (*Gaussian)(nil).Bounds()
			if !math.IsNaN(a) || !math.IsNaN(b) || !math.IsNaN((*Exponential)(nil).Bound()) {
				return fmt.Errorf("bounds %v %v %v, want the documented NaN", a, b, (*Exponential)(nil).Bound())
			}
			return nil
		}},
	)
	testutil.RunBadInput(t, simulate.ErrInvalid, cs)
}
