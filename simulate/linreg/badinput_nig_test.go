package linreg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestConjugateBadInputAPI completes TestConjugateBadInput so that every
// exported method of NIG and the configurations' Validate have bad-input
// cases: NIG as a prior (simulate.Prior's documented panics on a nil
// generator or a short θ) and as a record model, and unconstructed values.
func TestConjugateBadInputAPI(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	nan, inf := math.NaN(), math.Inf(1)
	nig, err := NewNIG(NIGConfig{PredictorMean: []float64{0.9, -1.17}, A0: 10, B0: 10, G: 2, Clamp: 6})
	if err != nil {
		t.Fatal(err)
	}
	th := make([]float64, 4)
	nig.Sample(r, th)
	rec := make([]float64, 3)
	nig.SampleRecord(r, th, rec)
	isNaN := func(f func() float64) func() error {
		return func() error {
			if v := f(); !math.IsNaN(v) {
				return fmt.Errorf("got %v, want NaN", v)
			}
			return nil
		}
	}
	unchanged := func(f func(dst []float64)) func() error {
		return func() error {
			dst := []float64{7, 7, 7}
			f(dst)
			if !slices.Equal(dst, []float64{7, 7, 7}) {
				return fmt.Errorf("wrote %v, want nothing written", dst)
			}
			return nil
		}
	}
	// CheckParam reports a θ outside the parameter space with
	// simulate.ErrInvalidTheta, as simulate.RecordModel documents.
	invalidTheta := func(err error) func() error {
		return func() error {
			if !errors.Is(err, simulate.ErrInvalidTheta) {
				return fmt.Errorf("error %v, want one wrapping simulate.ErrInvalidTheta", err)
			}
			return nil
		}
	}
	type B = testutil.BadInput
	cases := []B{
		// Configurations' Validate.
		{Category: "zerovalue", Name: "NIGConfig{}.Validate", Err: func() error { return NIGConfig{}.Validate() }},
		{Category: "nonpositive", Name: "NIGConfig.Validate B0 0", Err: func() error {
			return NIGConfig{PredictorMean: []float64{0}, A0: 1, B0: 0, G: 1, Clamp: 1}.Validate()
		}},
		{Category: "subnormal", Name: "NIGConfig.Validate G subnormal", Err: func() error {
			return NIGConfig{PredictorMean: []float64{0}, A0: 1, B0: 1, G: 5e-324, Clamp: 1}.Validate()
		}},
		{Category: "inf", Name: "NIGConfig.Validate predictor mean +Inf", Err: func() error {
			return NIGConfig{PredictorMean: []float64{inf}, A0: 1, B0: 1, G: 1, Clamp: 1}.Validate()
		}},
		{Category: "zerovalue", Name: "ConjugateConfig{}.Validate", Err: func() error { return ConjugateConfig{}.Validate() }},
		{Category: "subnormal", Name: "ConjugateConfig.Validate Sigma2 subnormal", Err: func() error {
			return ConjugateConfig{P: 1, Sigma2: 5e-324, PriorMean: []float64{0, 0}, PriorVar: []float64{1, 1}}.Validate()
		}},
		// NIG as a prior (simulate.Prior's documented panics).
		{Category: "nil", Name: "NIG.Sample nil rand", Panics: func() { nig.Sample(nil, make([]float64, 4)) }},
		{Category: "mismatched", Name: "NIG.Sample θ length 3", Panics: func() { nig.Sample(r, make([]float64, 3)) }},
		{Category: "empty", Name: "NIG.Sample nil θ", Panics: func() { nig.Sample(r, nil) }},
		{Category: "nil", Name: "nil NIG.Sample", Check: unchanged(func(dst []float64) { (*NIG)(nil).Sample(r, dst) })},
		{Category: "mismatched", Name: "NIG.LogDensity θ length 3", Check: isNaN(func() float64 { return nig.LogDensity(th[:3]) })},
		{Category: "nan", Name: "NIG.LogDensity σ² NaN", Check: isNaN(func() float64 { return nig.LogDensity([]float64{0, 0, 0, nan}) })},
		{Category: "nonpositive", Name: "NIG.LogDensity σ² 0", Check: func() error {
			if v := nig.LogDensity([]float64{0, 0, 0, 0}); !math.IsInf(v, -1) {
				return fmt.Errorf("got %v, want -Inf", v)
			}
			return nil
		}},
		// NIG as a record model.
		{Category: "nan", Name: "NIG.CheckParam NaN", Check: invalidTheta(nig.CheckParam([]float64{0, nan, 0, 1}))},
		{Category: "inf", Name: "NIG.CheckParam +Inf", Check: invalidTheta(nig.CheckParam([]float64{0, 0, inf, 1}))},
		{Category: "nonpositive", Name: "NIG.CheckParam σ² -1", Check: invalidTheta(nig.CheckParam([]float64{0, 0, 0, -1}))},
		{Category: "mismatched", Name: "NIG.CheckParam length 3", Check: invalidTheta(nig.CheckParam([]float64{0, 0, 1}))},
		{Category: "nil", Name: "nil NIG.CheckParam", Err: func() error { return (*NIG)(nil).CheckParam(th) }},
		{Category: "zerovalue", Name: "NIG{} dimensions", Check: func() error {
			var l NIG
			if l.ParamDim() != 0 || l.RecordDim() != 0 || l.ContribDim() != 0 {
				return fmt.Errorf("dimensions %d, %d, %d; want 0", l.ParamDim(), l.RecordDim(), l.ContribDim())
			}
			return nil
		}},
		{Category: "zerovalue", Name: "NIG{}.SampleRecord", Check: unchanged(func(dst []float64) { (&NIG{}).SampleRecord(r, th, dst) })},
		{Category: "zerovalue", Name: "NIG{}.Contribution", Check: unchanged(func(dst []float64) { (&NIG{}).Contribution(rec, dst) })},
		{Category: "zerovalue", Name: "NIG{}.SampleRecordPair", Check: unchanged(func(dst []float64) {
			(&NIG{}).SampleRecordPair(r, th, th, dst, make([]float64, 3))
		})},
		{Category: "zerovalue", Name: "NIG{}.RecordLogLik", Check: isNaN(func() float64 { return (&NIG{}).RecordLogLik(th, rec) })},
		{Category: "mismatched", Name: "NIG.RecordLogLik θ short", Check: isNaN(func() float64 { return nig.RecordLogLik(th[:3], rec) })},
		{Category: "mismatched", Name: "NIG.RecordLogLik record short", Check: isNaN(func() float64 { return nig.RecordLogLik(th, rec[:2]) })},
		{Category: "nan", Name: "NIG.RecordLogLik NaN record", Check: isNaN(func() float64 { return nig.RecordLogLik(th, []float64{0, nan, 0}) })},
		{Category: "nil", Name: "NIG.SampleRecord nil rand", Panics: func() { nig.SampleRecord(nil, th, make([]float64, 3)) }},
		{Category: "mismatched", Name: "NIG.SampleRecord record short", Panics: func() { nig.SampleRecord(r, th, make([]float64, 2)) }},
		{Category: "nil", Name: "NIG.SampleRecordPair nil rand", Panics: func() {
			nig.SampleRecordPair(nil, th, th, make([]float64, 3), make([]float64, 3))
		}},
		{Category: "huge", Name: "NIG.Contribution record 1e308 (clamped)", Check: func() error {
			dst := make([]float64, nig.ContribDim())
			nig.Contribution([]float64{1e308, -1e308, 1e308}, dst)
			for _, v := range dst {
				if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 6*6*6 {
					return fmt.Errorf("contribution %v of a huge record is not clamped", dst)
				}
			}
			return nil
		}},
	}
	tl := testutil.RunBadInput(t, simulate.ErrInvalid, cases)
	if tl.UndocumentedPanics+tl.SilentGarbage+tl.DataDependent != 0 {
		t.Errorf("tally %+v", tl)
	}
}
