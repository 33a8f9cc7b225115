package variate

import (
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds invalid parameters to the samplers and densities:
// error-returning functions wrap ErrInvalid, the others return their
// documented NaN (TestInvalidParameters covers every sampler), and nothing
// panics. A nil *rand.Rand is a programmer error of these internal
// samplers and is not tested.
func TestBadInput(t *testing.T) {
	r := newRand(77)
	nan, inf := math.NaN(), math.Inf(1)
	isNaN := func(vs ...float64) error {
		for _, v := range vs {
			if !math.IsNaN(v) {
				return fmt.Errorf("got %v, want NaN", vs)
			}
		}
		return nil
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "empty", Name: "NewAlias no weights", Err: func() error { _, err := NewAlias(nil); return err }},
		{Category: "nan", Name: "NewAlias NaN weight", Err: func() error { _, err := NewAlias([]float64{1, nan}); return err }},
		{Category: "inf", Name: "NewAlias Inf weight", Err: func() error { _, err := NewAlias([]float64{1, inf}); return err }},
		{Category: "nonpositive", Name: "NewAlias negative weight", Err: func() error { _, err := NewAlias([]float64{1, -1}); return err }},
		{Category: "nonpositive", Name: "NewAlias zero total", Err: func() error { _, err := NewAlias([]float64{0, 0}); return err }},
		{Category: "huge", Name: "NewAlias total overflows", Err: func() error { _, err := NewAlias([]float64{1e308, 1e308}); return err }},
		{Category: "nonpositive", Name: "Multinomial n -1", Err: func() error { return Multinomial(r, -1, []float64{0.5, 0.5}, make([]int64, 2)) }},
		{Category: "mismatched", Name: "Multinomial dst length", Err: func() error { return Multinomial(r, 3, []float64{0.5, 0.5}, make([]int64, 3)) }},
		{Category: "nan", Name: "Multinomial NaN p", Err: func() error { return Multinomial(r, 3, []float64{nan, 0.5}, make([]int64, 2)) }},
		{Category: "empty", Name: "Multinomial empty p", Err: func() error { return Multinomial(r, 3, nil, nil) }},
		{Category: "nan", Name: "Gamma shape NaN", Check: func() error { return isNaN(Gamma(r, nan, 1), GammaLogPdf(1, nan, 1)) }},
		{Category: "nonpositive", Name: "Gamma scale 0", Check: func() error { return isNaN(Gamma(r, 1, 0)) }},
		{Category: "inf", Name: "Beta a Inf", Check: func() error { return isNaN(Beta(r, inf, 1)) }},
		{Category: "nonpositive", Name: "Laplace b -1", Check: func() error { return isNaN(Laplace(r, 0, -1), LaplaceLogPdf(0, 0, -1)) }},
		{Category: "nan", Name: "NormalLogPdf σ NaN", Check: func() error { return isNaN(NormalLogPdf(0, 0, nan)) }},
		{Category: "nonpositive", Name: "StudentT df 0", Check: func() error { return isNaN(StudentT(r, 0), StudentTLogPdf(0, 0)) }},
		{Category: "mismatched", Name: "TruncNormal lo > hi", Check: func() error { return isNaN(TruncNormal(r, 0, 1, 1, -1)) }},
		{Category: "nan", Name: "Dirichlet NaN α", Check: func() error {
			dst := make([]float64, 2)
			Dirichlet(r, []float64{nan, 1}, dst)
			return isNaN(dst[0], DirichletLogPdf([]float64{0.5, 0.5}, []float64{nan, 1}))
		}},
		{Category: "mismatched", Name: "MultinomialLogPmf lengths", Check: func() error { return isNaN(MultinomialLogPmf([]int64{1}, []float64{0.5, 0.5})) }},
		{Category: "nan", Name: "BinomialLogPmf p NaN", Check: func() error { return isNaN(BinomialLogPmf(1, 3, nan)) }},
		{Category: "nonpositive", Name: "PoissonLogPmf λ -1", Check: func() error { return isNaN(PoissonLogPmf(1, -1)) }},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
