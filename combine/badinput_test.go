package combine

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds invalid estimates, variances, options and
// unconstructed results to the exported API: every call returns an error
// wrapping ErrInvalid (or the documented NaN) and never panics.
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
	}
	pv := func(r Result, null float64) func() error {
		return func() error { _, err := r.PValue(null); return err }
	}
	cases = append(cases,
		B{Category: "zerovalue", Name: "Result{}.PValue", Err: pv(Result{}, 0)},
		B{Category: "nan", Name: "PValue null NaN", Err: pv(good, nan)},
		B{Category: "inf", Name: "PValue null +Inf", Err: pv(good, inf)},
		B{Category: "inf", Name: "PValue null -Inf", Err: pv(good, -inf)},
		B{Category: "nan", Name: "PValue NaN mean", Err: pv(Result{M: 3, Mean: nan, Var: 1, DF: 3}, 0)},
		B{Category: "nan", Name: "PValue NaN DF", Err: pv(Result{M: 3, Mean: 1, Var: 1, DF: nan}, 0)},
		B{Category: "inf", Name: "PValue infinite Var", Err: pv(Result{M: 3, Mean: 1, Var: inf, DF: 3}, 0)},
		B{Category: "nonpositive", Name: "PValue negative Var", Err: pv(Result{M: 3, Mean: 1, Var: -1, DF: 3}, 0)},
		B{Category: "nonpositive", Name: "PValue DF 0", Err: pv(Result{M: 3, Mean: 1, Var: 1, DF: 0}, 0)},
		B{Category: "nonpositive", Name: "Interval negative Var", Err: func() error {
			_, _, err := Result{M: 3, Mean: 1, Var: -1, DF: 3}.Interval(0.9)
			return err
		}},
		B{Category: "nonpositive", Name: "Interval DF 0", Err: func() error { _, _, err := Result{M: 3, Mean: 1, Var: 1, DF: 0}.Interval(0.9); return err }},
		B{Category: "huge", Name: "PValue null -1e308 far from the mean", Check: func() error {
			if p, err := good.PValue(-1e308); p != 0 || err != nil {
				return fmt.Errorf("p-value %v, %v", p, err)
			}
			return nil
		}},
		B{Category: "nan", Name: "SE of a negative variance is the documented NaN", Check: func() error {
			if !math.IsNaN(Result{Var: -1}.SE()) {
				return errors.New("not NaN")
			}
			return nil
		}},
		B{Category: "zerovalue", Name: "NestedResult{}.SanitizationShare is the documented NaN", Check: func() error {
			if !math.IsNaN(NestedResult{}.SanitizationShare()) {
				return errors.New("not NaN")
			}
			return nil
		}},
		B{Category: "huge", Name: "Rule(99).String", Check: func() error {
			if Rule(99).String() != "Rule(99)" {
				return fmt.Errorf("%q", Rule(99).String())
			}
			return nil
		}},
	)
	for _, a := range [][2]float64{{nan, 3}, {0.5, nan}, {-0.5, 3}, {1.5, 3}, {0.5, 0}, {0.5, -2}, {inf, 3}, {0.5, -inf}} {
		cases = append(cases, B{Category: "nan", Name: fmt.Sprintf("Quantile(%v, %v)", a[0], a[1]), Err: func() error { _, err := Quantile(a[0], a[1]); return err }})
	}
	nq := func(tt int, q, u []float64) func() error {
		return func() error { _, err := PoolNested(tt, q, u, Options{}); return err }
	}
	four := []float64{1, 2, 3, 4}
	cases = append(cases,
		B{Category: "nonpositive", Name: "PoolNested t 1", Err: nq(1, four, four)},
		B{Category: "nonpositive", Name: "PoolNested t 0", Err: nq(0, four, four)},
		B{Category: "nonpositive", Name: "PoolNested t -1", Err: nq(-1, four, four)},
		B{Category: "huge", Name: "PoolNested t MaxInt", Err: nq(math.MaxInt, four, four)},
		B{Category: "mismatched", Name: "PoolNested 3 values for t 2", Err: nq(2, four[:3], four[:3])},
		B{Category: "mismatched", Name: "PoolNested q and u lengths", Err: nq(2, four, four[:2])},
		B{Category: "empty", Name: "PoolNested empty", Err: nq(2, nil, nil)},
		B{Category: "nan", Name: "PoolNested NaN estimate", Err: nq(2, []float64{1, nan, 3, 4}, four)},
		B{Category: "inf", Name: "PoolNested Inf variance", Err: nq(2, four, []float64{1, 2, inf, 4})},
		B{Category: "nonpositive", Name: "PoolNested negative variance", Err: nq(2, four, []float64{1, -2, 3, 4})},
		B{Category: "huge", Name: "PoolNested estimates overflow", Err: nq(2, []float64{1e308, 1e308, -1e308, -1e308}, four)},
		B{Category: "mismatched", Name: "PoolNested with CompleteDF", Err: func() error { _, err := PoolNested(2, four, four, Options{CompleteDF: 10}); return err }},
	)
	testutil.RunBadInput(t, ErrInvalid, cases)
}
