package linreg

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/internal/testutil/simcheck"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInputSeams runs the generic record-model and prior rows
// (simcheck) and the constructors' limits.
func TestBadInputSeams(t *testing.T) {
	m := Paper()
	p, err := Prior(m.P())
	if err != nil {
		t.Fatal(err)
	}
	cs := simcheck.RecordModel("Model", m, PaperTheta(), &Model{}, (*Model)(nil))
	cs = append(cs, simcheck.Prior("Prior", p)...)
	type B = testutil.BadInput
	for _, v := range []int{-1, 1 << 31, math.MaxInt} {
		c := "huge"
		if v < 0 {
			c = "nonpositive"
		}
		cs = append(cs, B{Category: c, Name: "Prior p " + map[bool]string{true: "-1", false: "huge"}[v < 0], Err: func() error { _, err := Prior(v); return err }})
	}
	for _, e := range []float64{math.NaN(), math.Inf(1), 0, -1, 1e300, 3} {
		cs = append(cs, B{Category: "huge", Name: "Release ε not in the paper's table", Err: func() error { _, err := Release(e); return err }})
	}
	cs = append(cs,
		B{Category: "nan", Name: "New PredictorCov NaN", Err: func() error {
			_, err := New(Config{PredictorMean: []float64{0}, PredictorCov: []float64{math.NaN()}, Sigma2: 1})
			return err
		}},
		B{Category: "nonpositive", Name: "New PredictorCov not positive definite", Err: func() error {
			_, err := New(Config{PredictorMean: []float64{0, 0}, PredictorCov: []float64{1, 2, 2, 1}, Sigma2: 1})
			return err
		}},
		B{Category: "nan", Name: "New Clamp NaN", Err: func() error {
			_, err := New(Config{PredictorMean: []float64{0}, Sigma2: 1, Clamp: math.NaN()})
			return err
		}},
		B{Category: "inf", Name: "New Clamp Inf", Err: func() error {
			_, err := New(Config{PredictorMean: []float64{0}, Sigma2: 1, Clamp: math.Inf(1)})
			return err
		}},
		B{Category: "nan", Name: "New Sigma2 NaN", Err: func() error { _, err := New(Config{PredictorMean: []float64{0}, Sigma2: math.NaN()}); return err }},
		B{Category: "huge", Name: "New predictor mean 1e300", Err: func() error {
			m, err := New(Config{PredictorMean: []float64{1e300}, Sigma2: 1})
			if err != nil {
				return err
			}
			return m.CheckParam([]float64{0, 0, 1}) // accepted: clamping bounds the release
		}},
		B{Category: "nonpositive", Name: "CheckParam σ² ≤ 0 where θ has one", Err: func() error { return m.CheckParam(make([]float64, m.ParamDim()+5)) }},
	)
	testutil.RunBadInput(t, simulate.ErrInvalid, cs)
}
