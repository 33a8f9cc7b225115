package linreg

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestConjugateBadInput feeds invalid settings, records, sizes and
// unconstructed values to the conjugate θ-steps: every call returns an
// error wrapping simulate.ErrInvalid and never panics.
func TestConjugateBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	nan, inf := math.NaN(), math.Inf(1)
	conj := func() *Conjugate {
		l, err := NewConjugate(ConjugateConfig{P: 2, Sigma2: 1, PriorMean: []float64{0, 0, 0}, PriorVar: []float64{1, 1, 1}})
		if err != nil {
			panic(err)
		}
		return l
	}
	nigModel := func() *NIG {
		l, err := NewNIG(NIGConfig{PredictorMean: []float64{0.9, -1.17}, A0: 10, B0: 10, G: 2, Clamp: 6})
		if err != nil {
			panic(err)
		}
		return l
	}
	recs := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nonpositive", Name: "NewConjugate p 0", Err: func() error {
			_, err := NewConjugate(ConjugateConfig{P: 0, Sigma2: 1, PriorMean: nil, PriorVar: nil})
			return err
		}},
		{Category: "huge", Name: "NewConjugate p 1<<40", Err: func() error {
			_, err := NewConjugate(ConjugateConfig{P: 1 << 40, Sigma2: 1, PriorMean: nil, PriorVar: nil})
			return err
		}},
		{Category: "nan", Name: "NewConjugate sigma2 NaN", Err: func() error {
			_, err := NewConjugate(ConjugateConfig{P: 1, Sigma2: nan, PriorMean: []float64{0, 0}, PriorVar: []float64{1, 1}})
			return err
		}},
		{Category: "inf", Name: "NewConjugate sigma2 Inf", Err: func() error {
			_, err := NewConjugate(ConjugateConfig{P: 1, Sigma2: inf, PriorMean: []float64{0, 0}, PriorVar: []float64{1, 1}})
			return err
		}},
		{Category: "nonpositive", Name: "NewConjugate prior variance 0", Err: func() error {
			_, err := NewConjugate(ConjugateConfig{P: 1, Sigma2: 1, PriorMean: []float64{0, 0}, PriorVar: []float64{1, 0}})
			return err
		}},
		{Category: "nan", Name: "NewConjugate prior mean NaN", Err: func() error {
			_, err := NewConjugate(ConjugateConfig{P: 1, Sigma2: 1, PriorMean: []float64{nan, 0}, PriorVar: []float64{1, 1}})
			return err
		}},
		{Category: "mismatched", Name: "NewConjugate prior length", Err: func() error {
			_, err := NewConjugate(ConjugateConfig{P: 2, Sigma2: 1, PriorMean: []float64{0, 0}, PriorVar: []float64{1, 1}})
			return err
		}},
		{Category: "zerovalue", Name: "Conjugate{}.SampleTheta", Err: func() error { var l Conjugate; return l.SampleTheta(r, recs, 2, make([]float64, 3)) }},
		{Category: "zerovalue", Name: "Conjugate{}.PosteriorMoments", Err: func() error {
			var l Conjugate
			return l.PosteriorMoments(recs, 2, make([]float64, 3), make([]float64, 9))
		}},
		{Category: "nil", Name: "Conjugate.SampleTheta nil rand", Err: func() error { return conj().SampleTheta(nil, recs, 2, make([]float64, 3)) }},
		{Category: "nan", Name: "Conjugate.SampleTheta NaN record", Err: func() error {
			return conj().SampleTheta(r, []float64{0.1, nan, 0.3, 0.4, 0.5, 0.6}, 2, make([]float64, 3))
		}},
		{Category: "inf", Name: "Conjugate.PosteriorMoments Inf record", Err: func() error {
			return conj().PosteriorMoments([]float64{0.1, 0.2, inf, 0.4, 0.5, 0.6}, 2, make([]float64, 3), make([]float64, 9))
		}},
		{Category: "nonpositive", Name: "Conjugate.SampleTheta n -2", Err: func() error { return conj().SampleTheta(r, nil, -2, make([]float64, 3)) }},
		{Category: "mismatched", Name: "Conjugate.SampleTheta theta short", Err: func() error { return conj().SampleTheta(r, recs, 2, make([]float64, 2)) }},
		{Category: "empty", Name: "NewNIG no predictors", Err: func() error {
			_, err := NewNIG(NIGConfig{PredictorMean: nil, A0: 1, B0: 1, G: 1, Clamp: 1})
			return err
		}},
		{Category: "nan", Name: "NewNIG a0 NaN", Err: func() error {
			_, err := NewNIG(NIGConfig{PredictorMean: []float64{0}, A0: nan, B0: 1, G: 1, Clamp: 1})
			return err
		}},
		{Category: "inf", Name: "NewNIG g Inf", Err: func() error {
			_, err := NewNIG(NIGConfig{PredictorMean: []float64{0}, A0: 1, B0: 1, G: inf, Clamp: 1})
			return err
		}},
		{Category: "nonpositive", Name: "NewNIG clamp 0", Err: func() error {
			_, err := NewNIG(NIGConfig{PredictorMean: []float64{0}, A0: 1, B0: 1, G: 1, Clamp: 0})
			return err
		}},
		{Category: "nan", Name: "NewNIG predictor mean NaN", Err: func() error {
			_, err := NewNIG(NIGConfig{PredictorMean: []float64{nan}, A0: 1, B0: 1, G: 1, Clamp: 1})
			return err
		}},
		{Category: "zerovalue", Name: "NIG{}.CheckParam", Err: func() error { var l NIG; return l.CheckParam([]float64{0, 1}) }},
		{Category: "zerovalue", Name: "NIG{}.SampleTheta", Err: func() error { var l NIG; return l.SampleTheta(r, nil, 0, make([]float64, 2)) }},
		{Category: "zerovalue", Name: "NIG{}.SampleThetaPair", Err: func() error {
			var l NIG
			return l.SampleThetaPair(r, nil, nil, 0, make([]float64, 2), make([]float64, 2))
		}},
		{Category: "mismatched", Name: "NIG.SampleThetaPair records short", Err: func() error {
			nig := nigModel()
			return nig.SampleThetaPair(r, recs[:3], recs, 2, make([]float64, 4), make([]float64, 4))
		}},
		{Category: "nil", Name: "NIG.SampleTheta nil rand", Err: func() error {
			nig := nigModel()
			return nig.SampleTheta(nil, recs, 2, make([]float64, 4))
		}},
		{Category: "nan", Name: "NIG.SampleTheta NaN record", Err: func() error {
			nig := nigModel()
			return nig.SampleTheta(r, []float64{0.1, 0.2, nan, 0.4, 0.5, 0.6}, 2, make([]float64, 4))
		}},
		{Category: "zerovalue", Name: "NIG{} as a prior", Check: func() error {
			var l NIG
			th := []float64{1, 2}
			l.Sample(r, th)
			if l.Dim() != 0 || !math.IsNaN(l.LogDensity(th)) || th[0] != 1 || th[1] != 2 {
				return errors.New("zero-value NIG has a dimension, a density or writes a sample")
			}
			return nil
		}},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
