package diag

import (
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds invalid chains, levels and weights to the diagnostics:
// every error wraps ErrDegenerate (this package's one sentinel) with a NaN
// value, the weighted summaries return their documented NaN, and nothing
// panics.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ok := [][]float64{{1, 2, 3, 4, 5, 6, 7, 8}, {2, 3, 1, 5, 4, 8, 6, 7}}
	val := func(f func() (float64, error)) func() error {
		return func() error {
			v, err := f()
			if err != nil && !math.IsNaN(v) {
				return fmt.Errorf("error %v with value %v, want NaN", err, v)
			}
			return err
		}
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "empty", Name: "RHat no chains", Err: val(func() (float64, error) { return RHat(nil) })},
		{Category: "empty", Name: "RHatBasic empty chain", Err: val(func() (float64, error) { return RHatBasic([][]float64{{}}) })},
		{Category: "mismatched", Name: "ESSBulk unequal chains", Err: val(func() (float64, error) { return ESSBulk([][]float64{ok[0], ok[1][:7]}) })},
		{Category: "nan", Name: "ESSTail NaN draw", Err: val(func() (float64, error) { return ESSTail([][]float64{{1, 2, nan, 4, 5, 6, 7, 8}}) })},
		{Category: "inf", Name: "ESSMean Inf draw", Err: val(func() (float64, error) { return ESSMean([][]float64{{1, 2, inf, 4, 5, 6, 7, 8}}) })},
		{Category: "nonpositive", Name: "MCSEMean constant chains", Err: val(func() (float64, error) { return MCSEMean([][]float64{{1, 1, 1, 1, 1, 1}}) })},
		{Category: "nil", Name: "MCSESD nil chain", Err: val(func() (float64, error) { return MCSESD([][]float64{nil}) })},
		{Category: "nan", Name: "ESSQuantile p NaN", Err: val(func() (float64, error) { return ESSQuantile(ok, nan) })},
		{Category: "huge", Name: "ESSQuantile p 1", Err: val(func() (float64, error) { return ESSQuantile(ok, 1) })},
		{Category: "huge", Name: "Autocorrelation maxLag too large", Err: func() error { _, err := Autocorrelation(ok[0], 100); return err }},
		{Category: "nonpositive", Name: "Autocorrelation maxLag -1", Err: func() error { _, err := Autocorrelation(ok[0], -1); return err }},
		{Category: "empty", Name: "Autocorrelation empty", Err: func() error { _, err := Autocorrelation(nil, 0); return err }},
		{Category: "mismatched", Name: "Sorted weights length", Err: func() error { _, _, err := Sorted([]float64{1, 2}, []float64{1}); return err }},
		{Category: "nonpositive", Name: "Sorted negative weight", Err: func() error { _, _, err := Sorted([]float64{1, 2}, []float64{1, -1}); return err }},
		{Category: "inf", Name: "Sorted Inf weight", Err: func() error { _, _, err := Sorted([]float64{1, 2}, []float64{1, inf}); return err }},
		{Category: "empty", Name: "Sorted only NaN values", Err: func() error { _, _, err := Sorted([]float64{nan}, nil); return err }},
		{Category: "nan", Name: "Quantile p NaN", Check: func() error {
			if v := Quantile([]float64{1, 2}, nil, nan); !math.IsNaN(v) {
				return fmt.Errorf("got %v, want NaN", v)
			}
			return nil
		}},
		{Category: "empty", Name: "HDI empty", Check: func() error {
			if lo, hi := HDI(nil, nil, 0.9); !math.IsNaN(lo) || !math.IsNaN(hi) {
				return fmt.Errorf("got [%v, %v], want NaN", lo, hi)
			}
			return nil
		}},
		{Category: "huge", Name: "HDI prob 1", Check: func() error {
			if lo, hi := HDI([]float64{1, 2, 3}, nil, 1); !math.IsNaN(lo) || !math.IsNaN(hi) {
				return fmt.Errorf("got [%v, %v], want NaN", lo, hi)
			}
			return nil
		}},
	}
	testutil.RunBadInput(t, ErrDegenerate, cases)
}
