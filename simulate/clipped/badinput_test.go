package clipped

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid settings, parameters, sizes, nil values and
// unconstructed values to the clipped models: every call returns an error
// wrapping simulate.ErrInvalid and never panics.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	type B = testutil.BadInput
	cases := []B{
		{Category: "nan", Name: "NewGaussian a NaN", Err: func() error { _, err := NewGaussian(GaussianConfig{A: nan, B: 1}); return err }},
		{Category: "mismatched", Name: "NewGaussian a > b", Err: func() error { _, err := NewGaussian(GaussianConfig{A: 2, B: 1}); return err }},
		{Category: "inf", Name: "NewGaussian b Inf", Err: func() error { _, err := NewGaussian(GaussianConfig{A: 0, B: inf}); return err }},
		{Category: "zerovalue", Name: "Gaussian{}.CheckParam", Err: func() error { var m Gaussian; return m.CheckParam([]float64{0, 1}) }},
		{Category: "nonpositive", Name: "Gaussian σ 0", Err: func() error { m, _ := NewGaussian(GaussianConfig{A: 0, B: 1}); return m.CheckParam([]float64{0, 0}) }},
		{Category: "nonpositive", Name: "NewExponential b 0", Err: func() error { _, err := NewExponential(0); return err }},
		{Category: "nan", Name: "NewExponential b NaN", Err: func() error { _, err := NewExponential(nan); return err }},
		{Category: "zerovalue", Name: "Exponential{}.CheckParam", Err: func() error { var m Exponential; return m.CheckParam([]float64{1}) }},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
