package linreg

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid settings, parameters, sizes, nil values and
// unconstructed values to the linear regression model, prior and releases: every call returns an error
// wrapping simulate.ErrInvalid and never panics.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	lr := Paper()
	type B = testutil.BadInput
	cases := []B{
		{Category: "empty", Name: "New no predictors", Err: func() error { _, err := New(Config{Sigma2: 1}); return err }},
		{Category: "nan", Name: "New predictor mean NaN", Err: func() error { _, err := New(Config{PredictorMean: []float64{nan}, Sigma2: 1}); return err }},
		{Category: "nonpositive", Name: "New σ² 0", Err: func() error { _, err := New(Config{PredictorMean: []float64{0}}); return err }},
		{Category: "inf", Name: "New σ² Inf", Err: func() error { _, err := New(Config{PredictorMean: []float64{0}, Sigma2: inf}); return err }},
		{Category: "nonpositive", Name: "New clamp -1", Err: func() error {
			_, err := New(Config{PredictorMean: []float64{0}, Sigma2: 1, Clamp: -1})
			return err
		}},
		{Category: "mismatched", Name: "New cov length", Err: func() error {
			_, err := New(Config{PredictorMean: []float64{0, 0}, PredictorCov: []float64{1}, Sigma2: 1})
			return err
		}},
		{Category: "zerovalue", Name: "Model{}.CheckParam", Err: func() error { var m Model; return m.CheckParam([]float64{0}) }},
		{Category: "nan", Name: "Model.CheckParam θ NaN", Err: func() error { return lr.CheckParam([]float64{nan, 0, 0}) }},
		{Category: "nonpositive", Name: "Prior p 0", Err: func() error { _, err := Prior(0); return err }},
		{Category: "nan", Name: "Release ε NaN", Err: func() error { _, err := Release(nan); return err }},
		{Category: "mismatched", Name: "Stats y length", Err: func() error { return Stats([]float64{0, 0}, []float64{0}, 1, make([]float64, StatDim(1))) }},
		{Category: "mismatched", Name: "Stats dst length", Err: func() error { return Stats([]float64{0}, []float64{0}, 1, make([]float64, 2)) }},
		{Category: "empty", Name: "Stats no records", Err: func() error { return Stats(nil, nil, 1, make([]float64, StatDim(1))) }},
		{Category: "nan", Name: "Stats NaN predictor", Err: func() error { return Stats([]float64{nan}, []float64{0}, 1, make([]float64, StatDim(1))) }},
		{Category: "nan", Name: "Stats NaN response", Err: func() error { return Stats([]float64{0}, []float64{nan}, 1, make([]float64, StatDim(1))) }},
		{Category: "huge", Name: "Stats predictor outside [-1, 1]", Err: func() error { return Stats([]float64{1e308}, []float64{0}, 1, make([]float64, StatDim(1))) }},
		{Category: "nonpositive", Name: "Stats p 0", Err: func() error { return Stats([]float64{0}, []float64{0}, 0, make([]float64, 1)) }},
		{Category: "huge", Name: "Sensitivity p 1<<40", Check: sane(func() (float64, error) { return Sensitivity(1<<40, 10) })},
		{Category: "huge", Name: "Sensitivity p MaxInt", Check: sane(func() (float64, error) { return Sensitivity(math.MaxInt, 1) })},
		{Category: "huge", Name: "SensitivityConservative p MaxInt", Check: sane(func() (float64, error) { return SensitivityConservative(math.MaxInt, 1) })},
	}
	for _, pn := range [][2]int{{0, 10}, {-1, 10}, {2, 0}, {2, -5}} {
		cases = append(cases,
			B{Category: "nonpositive", Name: fmt.Sprintf("Sensitivity p %d n %d", pn[0], pn[1]), Err: func() error { _, err := Sensitivity(pn[0], pn[1]); return err }},
			B{Category: "nonpositive", Name: fmt.Sprintf("SensitivityConservative p %d n %d", pn[0], pn[1]), Err: func() error {
				_, err := SensitivityConservative(pn[0], pn[1])
				return err
			}})
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}

// sane accepts an error wrapping simulate.ErrInvalid or a positive finite
// value: a sensitivity never overflows to +Inf or underflows to 0 silently.
func sane(f func() (float64, error)) func() error {
	return func() error {
		v, err := f()
		switch {
		case err != nil && !errors.Is(err, simulate.ErrInvalid):
			return fmt.Errorf("error %v does not wrap simulate.ErrInvalid", err)
		case err == nil && !(v > 0 && !math.IsInf(v, 0)):
			return fmt.Errorf("returned %v without an error", v)
		}
		return nil
	}
}
