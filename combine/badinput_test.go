package combine

import (
	"errors"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds invalid estimates, variances, options and
// unconstructed results to the exported API: every call returns an error
// wrapping ErrInput (or the documented NaN) and never panics.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	q, u := []float64{1, 2, 3}, []float64{0.1, 0.2, 0.3}
	pool := func(rule Rule, q, u []float64, opt Options) func() error {
		return func() error { _, err := Pool(rule, q, u, opt); return err }
	}
	vec := func(rule Rule, q, u [][]float64) func() error {
		return func() error { _, err := PoolVector(rule, q, u, Options{}); return err }
	}
	mom := func(rule Rule, m int, qbar, wbar, b float64, opt Options) func() error {
		return func() error { _, err := FromMoments(rule, m, qbar, wbar, b, opt); return err }
	}
	good, _ := Pool(Rubin, q, u, Options{})
	type B = testutil.BadInput
	cases := []B{
		{Category: "empty", Name: "Pool no sets", Err: pool(Rubin, nil, nil, Options{})},
		{Category: "empty", Name: "Pool Raab no sets", Err: pool(Raab, []float64{}, []float64{}, Options{})},
		{Category: "nonpositive", Name: "Pool one set, Rubin", Err: pool(Rubin, q[:1], u[:1], Options{})},
		{Category: "mismatched", Name: "Pool 3 estimates 2 variances", Err: pool(Rubin, q, u[:2], Options{})},
		{Category: "mismatched", Name: "Pool 2 estimates 3 variances", Err: pool(DPSynthesis, q[:2], u, Options{})},
		{Category: "nan", Name: "Pool NaN estimate", Err: pool(Rubin, []float64{1, nan}, []float64{1, 1}, Options{})},
		{Category: "inf", Name: "Pool +Inf estimate", Err: pool(Rubin, []float64{1, inf}, []float64{1, 1}, Options{})},
		{Category: "inf", Name: "Pool -Inf estimate", Err: pool(Raab, []float64{math.Inf(-1)}, []float64{1}, Options{})},
		{Category: "nan", Name: "Pool NaN variance", Err: pool(Rubin, []float64{1, 2}, []float64{nan, 1}, Options{})},
		{Category: "inf", Name: "Pool Inf variance", Err: pool(DPSynthesis, []float64{1, 2}, []float64{1, inf}, Options{})},
		{Category: "nonpositive", Name: "Pool negative variance", Err: pool(FullySynthetic, []float64{1, 2}, []float64{-1, 1}, Options{})},
		{Category: "huge", Name: "Pool estimates overflow the mean", Err: pool(Rubin, []float64{1e308, 1e308}, []float64{1, 1}, Options{})},
		{Category: "huge", Name: "Pool estimates overflow the between variance", Err: pool(Rubin, []float64{1e308, -1e308}, []float64{1, 1}, Options{})},
		{Category: "huge", Name: "Pool variances overflow", Err: pool(Raab, []float64{1, 2}, []float64{1e308, 1e308}, Options{})},
		{Category: "huge", Name: "Pool unknown rule", Err: pool(Rule(17), q, u, Options{})},
		{Category: "nonpositive", Name: "Pool negative rule", Err: pool(Rule(-1), q, u, Options{})},
		{Category: "nan", Name: "Pool CompleteDF NaN", Err: pool(Rubin, q, u, Options{CompleteDF: nan})},
		{Category: "nonpositive", Name: "Pool CompleteDF -1", Err: pool(Rubin, q, u, Options{CompleteDF: -1})},
		{Category: "nan", Name: "Pool SynthRatio NaN", Err: pool(FullySynthetic, q, u, Options{SynthRatio: nan})},
		{Category: "inf", Name: "Pool SynthRatio Inf", Err: pool(FullySynthetic, q, u, Options{SynthRatio: inf})},
		{Category: "nonpositive", Name: "Pool SynthRatio -1", Err: pool(FullySynthetic, q, u, Options{SynthRatio: -1})},
		{Category: "nonpositive", Name: "FromMoments m 0", Err: mom(Raab, 0, 1, 1, 1, Options{})},
		{Category: "nonpositive", Name: "FromMoments m -5", Err: mom(Rubin, -5, 1, 1, 1, Options{})},
		{Category: "nan", Name: "FromMoments qbar NaN", Err: mom(Rubin, 3, nan, 1, 1, Options{})},
		{Category: "inf", Name: "FromMoments wbar Inf", Err: mom(Rubin, 3, 1, inf, 1, Options{})},
		{Category: "nonpositive", Name: "FromMoments b -1", Err: mom(Rubin, 3, 1, 1, -1, Options{})},
		{Category: "nan", Name: "FromMoments b NaN", Err: mom(DPSynthesis, 3, 1, 1, nan, Options{})},
		{Category: "huge", Name: "FromMoments wbar 1e308, b 1e308", Err: mom(Rubin, 3, 1, 1e308, 1e308, Options{})},
		{Category: "huge", Name: "FromMoments unknown rule", Err: mom(Rule(9), 3, 1, 1, 1, Options{})},
		{Category: "empty", Name: "PoolVector no sets", Err: vec(Rubin, nil, nil)},
		{Category: "empty", Name: "PoolVector empty estimates", Err: vec(Rubin, [][]float64{{}, {}}, [][]float64{{}, {}})},
		{Category: "nil", Name: "PoolVector nil covariance", Err: vec(Rubin, [][]float64{{1}, {2}}, [][]float64{nil, {1}})},
		{Category: "mismatched", Name: "PoolVector ragged estimates", Err: vec(Rubin, [][]float64{{1, 2}, {2}}, [][]float64{{1, 0, 0, 1}, {1, 0, 0, 1}})},
		{Category: "mismatched", Name: "PoolVector covariance count", Err: vec(Rubin, [][]float64{{1}, {2}}, [][]float64{{1}})},
		{Category: "mismatched", Name: "PoolVector asymmetric covariance", Err: vec(Rubin, [][]float64{{1, 2}, {2, 1}}, [][]float64{{1, 0.5, 0, 1}, {1, 0, 0, 1}})},
		{Category: "nan", Name: "PoolVector NaN estimate", Err: vec(Rubin, [][]float64{{nan}, {2}}, [][]float64{{1}, {1}})},
		{Category: "nan", Name: "PoolVector NaN covariance", Err: vec(Rubin, [][]float64{{1, 2}, {2, 1}}, [][]float64{{1, nan, nan, 1}, {1, 0, 0, 1}})},
		{Category: "inf", Name: "PoolVector Inf covariance", Err: vec(Raab, [][]float64{{1}}, [][]float64{{inf}})},
		{Category: "nonpositive", Name: "PoolVector negative diagonal", Err: vec(Rubin, [][]float64{{1}, {2}}, [][]float64{{-1}, {1}})},
		{Category: "huge", Name: "PoolVector estimates overflow", Err: vec(Rubin, [][]float64{{1e308}, {1e308}}, [][]float64{{1}, {1}})},
		{Category: "huge", Name: "PoolVector unknown rule", Err: vec(Rule(5), [][]float64{{1}, {2}}, [][]float64{{1}, {1}})},
		{Category: "nonpositive", Name: "PoolVector one set, DPSynthesis", Err: vec(DPSynthesis, [][]float64{{1}}, [][]float64{{1}})},
		{Category: "zerovalue", Name: "VectorResult{}.Component", Err: func() error { _, err := VectorResult{}.Component(0); return err }},
		{Category: "mismatched", Name: "VectorResult with K but no matrices", Err: func() error { _, err := VectorResult{K: 2, M: 3}.Component(1); return err }},
		{Category: "huge", Name: "VectorResult.Component out of range", Err: func() error {
			v, err := PoolVector(Rubin, [][]float64{{1}, {2}}, [][]float64{{1}, {1}}, Options{})
			if err != nil {
				return nil
			}
			_, err = v.Component(1)
			return err
		}},
		{Category: "zerovalue", Name: "Result{}.Interval", Err: func() error { _, _, err := Result{}.Interval(0.95); return err }},
		{Category: "nan", Name: "Result with NaN mean Interval", Err: func() error {
			r := good
			r.Mean = nan
			_, _, err := r.Interval(0.95)
			return err
		}},
		{Category: "nan", Name: "Interval level NaN", Err: func() error { _, _, err := good.Interval(nan); return err }},
		{Category: "nonpositive", Name: "Interval level 0", Err: func() error { _, _, err := good.Interval(0); return err }},
		{Category: "huge", Name: "Interval level 1", Err: func() error { _, _, err := good.Interval(1); return err }},
		{Category: "inf", Name: "Interval level Inf", Err: func() error { _, _, err := good.Interval(inf); return err }},
		{Category: "zerovalue", Name: "Result{}.PValue and SE", Check: func() error {
			if !math.IsNaN(Result{}.PValue(0)) {
				return errors.New("zero Result has a p-value")
			}
			return nil
		}},
		{Category: "nan", Name: "PValue null NaN", Check: func() error {
			if !math.IsNaN(good.PValue(nan)) {
				return errors.New("p-value of a NaN null is not NaN")
			}
			return nil
		}},
		{Category: "nan", Name: "Quantile NaN arguments", Check: func() error {
			for _, a := range [][2]float64{{nan, 3}, {0.5, nan}, {-0.5, 3}, {1.5, 3}, {0.5, 0}, {0.5, -2}} {
				if v := Quantile(a[0], a[1]); !math.IsNaN(v) {
					return errors.New("quantile of an invalid argument is not NaN")
				}
			}
			return nil
		}},
	}
	testutil.RunBadInput(t, ErrInput, cases)
}
