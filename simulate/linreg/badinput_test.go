package linreg

import (
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
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
