package regression

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid settings, parameters, sizes, nil values and
// unconstructed values to the regression input models: every call returns an error
// wrapping simulate.ErrInvalid and never panics.
func TestBadInput(t *testing.T) {
	nan := math.NaN()
	type B = testutil.BadInput
	cases := []B{
		{Category: "nonpositive", Name: "NewLinear dim 0", Err: func() error { _, err := NewLinear(LinearConfig{Dim: 0, Cov: nil, Sigma2: 1}); return err }},
		{Category: "nonpositive", Name: "NewLinear σ² 0", Err: func() error { _, err := NewLinear(LinearConfig{Dim: 2, Cov: nil, Sigma2: 0}); return err }},
		{Category: "mismatched", Name: "NewLogistic cov length", Err: func() error { _, err := NewLogistic(2, []float64{1, 0, 1}); return err }},
		{Category: "nonpositive", Name: "NewLogistic cov not positive definite", Err: func() error { _, err := NewLogistic(2, []float64{1, 2, 2, 1}); return err }},
		{Category: "nan", Name: "NewLogistic cov NaN", Err: func() error { _, err := NewLogistic(1, []float64{nan}); return err }},
		{Category: "zerovalue", Name: "Inputs{}.CheckParam", Err: func() error { var m Inputs; return m.CheckParam(nil) }},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
