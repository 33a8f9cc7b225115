package stats

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds invalid arguments to the package: error-returning
// functions wrap ErrInvalid, the others return their documented NaN, and
// nothing panics.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	isNaN := func(vs ...float64) error {
		for _, v := range vs {
			if !math.IsNaN(v) {
				return fmt.Errorf("got %v, want NaN", vs)
			}
		}
		return nil
	}
	x := []float64{1, 2, 3, 4}
	type B = testutil.BadInput
	cases := []B{
		{Category: "mismatched", Name: "WeightedMean weights length", Err: func() error { return WeightedMean(x, 1, []float64{1}, make([]float64, 1)) }},
		{Category: "mismatched", Name: "WeightedMean x not a multiple of d", Err: func() error { return WeightedMean(x, 3, nil, make([]float64, 3)) }},
		{Category: "nonpositive", Name: "WeightedMean d 0", Err: func() error { return WeightedMean(x, 0, nil, nil) }},
		{Category: "nan", Name: "WeightedMean NaN weight", Err: func() error { return WeightedMean(x, 1, []float64{1, nan, 1, 1}, make([]float64, 1)) }},
		{Category: "inf", Name: "WeightedCov Inf weight", Err: func() error {
			return WeightedCov(x, 1, []float64{1, inf, 1, 1}, make([]float64, 1), make([]float64, 1))
		}},
		{Category: "nonpositive", Name: "WeightedCov negative weight", Err: func() error { return WeightedCov(x, 1, []float64{1, -1, 1, 1}, make([]float64, 1), make([]float64, 1)) }},
		{Category: "nonpositive", Name: "WeightedCov zero weights", Err: func() error { return WeightedCov(x, 1, make([]float64, 4), make([]float64, 1), make([]float64, 1)) }},
		{Category: "empty", Name: "WeightedCov no samples", Err: func() error { return WeightedCov(nil, 1, nil, make([]float64, 1), make([]float64, 1)) }},
		{Category: "mismatched", Name: "WeightedCov cov length", Err: func() error { return WeightedCov(x, 2, nil, make([]float64, 2), make([]float64, 3)) }},
		{Category: "mismatched", Name: "Quantiles dst length", Err: func() error { return Quantiles(x, []float64{0.5}, nil) }},
		{Category: "nan", Name: "NewHistogram lo NaN", Err: func() error { _, err := NewHistogram(nan, 1, 3); return err }},
		{Category: "inf", Name: "NewHistogram hi Inf", Err: func() error { _, err := NewHistogram(0, inf, 3); return err }},
		{Category: "nonpositive", Name: "NewHistogram bins 0", Err: func() error { _, err := NewHistogram(0, 1, 0); return err }},
		{Category: "mismatched", Name: "NewHistogram lo > hi", Err: func() error { _, err := NewHistogram(1, 0, 3); return err }},
		{Category: "empty", Name: "Histogram.Density empty", Err: func() error { h, _ := NewHistogram(0, 1, 2); return h.Density(make([]float64, 2)) }},
		{Category: "mismatched", Name: "Histogram.Density dst length", Err: func() error { h, _ := NewHistogram(0, 1, 2); h.Add(0.5); return h.Density(nil) }},
		{Category: "empty", Name: "Mean and Variance empty", Check: func() error { return isNaN(Mean(nil), Variance(nil)) }},
		{Category: "nan", Name: "Quantile p NaN", Check: func() error { return isNaN(Quantile(x, nan)) }},
		{Category: "huge", Name: "Quantile p 2", Check: func() error { return isNaN(Quantile(x, 2)) }},
		{Category: "empty", Name: "Quantile empty", Check: func() error { return isNaN(Quantile(nil, 0.5)) }},
		{Category: "empty", Name: "ESS empty", Check: func() error { return isNaN(ESS(nil), ESSLog(nil)) }},
		{Category: "nan", Name: "ESS NaN weight", Check: func() error { return isNaN(ESS([]float64{1, nan}), ESSLog([]float64{0, nan})) }},
		{Category: "nonpositive", Name: "ESS negative weight", Check: func() error { return isNaN(ESS([]float64{1, -1})) }},
		{Category: "empty", Name: "KSOneSample empty", Check: func() error { d, p := KSOneSample(nil, func(float64) float64 { return 0.5 }); return isNaN(d, p) }},
		{Category: "nan", Name: "KSOneSample NaN sample", Check: func() error {
			d, p := KSOneSample([]float64{nan}, func(float64) float64 { return 0.5 })
			return isNaN(d, p)
		}},
		{Category: "huge", Name: "KSOneSample cdf outside [0, 1]", Check: func() error { d, p := KSOneSample(x, func(float64) float64 { return 2 }); return isNaN(d, p) }},
		{Category: "empty", Name: "KSTwoSample empty", Check: func() error { d, p := KSTwoSample(nil, x); return isNaN(d, p) }},
		{Category: "nonpositive", Name: "KolmogorovSF n 0", Check: func() error { return isNaN(KolmogorovSF(0, 0.5)) }},
		{Category: "nan", Name: "KolmogorovSF d NaN", Check: func() error { return isNaN(KolmogorovSF(5, nan)) }},
		{Category: "mismatched", Name: "ChiSquareGOF lengths", Check: func() error { s, p, _ := ChiSquareGOF([]float64{1, 2}, []float64{1}, 0); return isNaN(s, p) }},
		{Category: "nonpositive", Name: "ChiSquareGOF negative count", Check: func() error { s, p, _ := ChiSquareGOF([]float64{1, -2}, []float64{1, 1}, 0); return isNaN(s, p) }},
		{Category: "nan", Name: "ChiSquareGOF NaN expected", Check: func() error { s, p, _ := ChiSquareGOF([]float64{1, 2}, []float64{1, nan}, 0); return isNaN(s, p) }},
		{Category: "huge", Name: "ClopperPearson k > n", Check: func() error { lo, hi := ClopperPearson(5, 3, 0.05); return isNaN(lo, hi) }},
		{Category: "nonpositive", Name: "ClopperPearson n 0", Check: func() error { lo, hi := ClopperPearson(0, 0, 0.05); return isNaN(lo, hi) }},
		{Category: "nan", Name: "ClopperPearson alpha NaN", Check: func() error { lo, hi := ClopperPearson(1, 3, nan); return isNaN(lo, hi) }},
		{Category: "zerovalue", Name: "Histogram{} methods", Check: func() error {
			var h Histogram
			h.Add(0.5)
			if h.Total() != 0 {
				return errors.New("zero Histogram counted an observation")
			}
			if err := h.Density(nil); !errors.Is(err, ErrInvalid) {
				return fmt.Errorf("Density: %v", err)
			}
			return nil
		}},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
