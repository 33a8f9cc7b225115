package special

import (
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput evaluates the special functions outside their domains: each
// returns its documented NaN and nothing panics (the package has no error
// returns).
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	isNaN := func(name string, vs ...float64) func() error {
		return func() error {
			for _, v := range vs {
				if !math.IsNaN(v) {
					return fmt.Errorf("%s: got %v, want NaN", name, vs)
				}
			}
			return nil
		}
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nan", Name: "NaN arguments", Check: isNaN("NaN", Erfinv(nan), LogGamma(nan), Digamma(nan), BetaInc(nan, 1, 0.5),
			StudentTCDF(nan, 3), StudentTQuantile(0.5, nan), GammaP(nan, 1), GammaPInv(1, nan), ChiSquareQuantile(nan, 2), NormQuantile(nan), LogSumExp([]float64{nan, 1}))},
		{Category: "huge", Name: "probabilities above 1", Check: isNaN("p > 1", Erfinv(2), BetaIncInv(1, 1, 1.5), StudentTQuantile(1.5, 3), GammaPInv(1, 2), GammaQInv(1, 2), ChiSquareQuantile(2, 3), NormQuantile(1.5))},
		{Category: "nonpositive", Name: "non-positive shapes", Check: isNaN("shape ≤ 0", BetaInc(0, 1, 0.5), BetaInc(1, -1, 0.5), GammaP(-1, 1), GammaQ(0, 1), StudentTCDF(0, 0), StudentTQuantile(0.5, -1), ChiSquareCDF(1, 0))},
		{Category: "inf", Name: "infinite shapes", Check: isNaN("shape Inf", BetaInc(inf, 1, 0.5), GammaP(inf, 1), BetaIncInv(inf, 1, 0.5))},
		{Category: "subnormal", Name: "subnormal arguments are finite", Check: func() error {
			for _, v := range []float64{LogGamma(5e-324), BetaInc(5e-324, 1, 0.5), GammaP(5e-324, 1), NormQuantile(5e-324), Log1pExp(5e-324)} {
				if math.IsNaN(v) {
					return fmt.Errorf("subnormal argument gives NaN")
				}
			}
			return nil
		}},
		{Category: "empty", Name: "LogSumExp of nothing", Check: func() error {
			if v := LogSumExp(nil); !math.IsInf(v, -1) {
				return fmt.Errorf("LogSumExp(nil) = %v, want -Inf", v)
			}
			return nil
		}},
		{Category: "mismatched", Name: "LogDiffExp with b > a", Check: isNaN("LogDiffExp", LogDiffExp(0, 1), Log1mExp(1))},
	}
	testutil.RunBadInput(t, nil, cases)
}
