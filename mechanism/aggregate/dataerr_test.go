package aggregate

import (
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestErrorsIndependentOfData releases every aggregation, under both
// neighbour relations, on a table of data sets that share the public
// parameters (bounds, budget, categories) — empty, one record, NaN, ±Inf,
// extreme and subnormal values, out-of-range categories, counts and sums
// beyond exact arithmetic — and requires that whether a release fails
// depends on the public parameters only: under AddRemove every data set
// of a group must give the same outcome (all succeed), under Substitute
// every data set of the same public size n must (an empty data set may be
// refused, since n = 0 is public there). A release whose success depended
// on the data would tell neighbouring data sets apart with certainty
// (an error for n = 0 and a value for n = 1, say). The logged table gives
// the number of releases tried and failed per group.
func TestErrorsIndependentOfData(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	nan, inf := math.NaN(), math.Inf(1)
	const lo, hi = 0.0, 4.0
	floats := [][]float64{
		nil, {1}, {nan}, {inf}, {-inf}, {0x1p-1074}, {-1e308}, {1e308},
		{1, nan, 3}, {nan, nan, nan}, {inf, -inf, 2}, {0, 4, 2},
	}
	// Bounds far from zero (max(|L|, |H|) = 2^31 lattice steps), with
	// 2^21 + 1 records whose index sum exceeds 2^52.
	const farLo, farHi = 2047.0, 2048.0
	big := make([]float64, 1<<21+1)
	for i := range big {
		big[i] = farHi
	}
	farData := [][]float64{nil, {farHi}, {nan}, big}
	cats := [][]int{nil, {0}, {-1}, {3}, {1e9}, {0, 1, 2}, {2, 2, -5}}
	counts := []int{0, 1, 1 << 52, 1 << 60, math.MaxInt}

	type outcome struct{ tried, failed int }
	groups := map[string]*outcome{}
	var order []string
	record := func(key string, err error) {
		g, ok := groups[key]
		if !ok {
			g = &outcome{}
			groups[key] = g
			order = append(order, key)
		}
		g.tried++
		if err != nil {
			g.failed++
		}
	}
	r := newRand(11)
	for _, nb := range []Neighbour{AddRemove, Substitute} {
		for _, eps := range []float64{1, 0} {
			cfg := Config{Epsilon: eps, Neighbour: nb, Reproducible: true}
			kind := "ε"
			if eps == 0 {
				cfg.Rho, kind = 0.5, "ρ"
			}
			// The public part of a group's key: the relation, the noise and,
			// under Substitute, the number of records.
			key := func(name string, n int) string {
				if nb == Substitute {
					return fmt.Sprintf("%s %v %s n=%d", name, nb, kind, n)
				}
				return fmt.Sprintf("%s %v %s", name, nb, kind)
			}
			for _, n := range counts {
				_, err := Count(r, n, cfg)
				record(key("Count", 0), err)
			}
			for _, x := range floats {
				_, err := BoundedSum(r, x, within(cfg, lo, hi))
				record(key("BoundedSum", len(x)), err)
				_, err = BoundedMean(r, x, within(cfg, lo, hi))
				record(key("BoundedMean", len(x)), err)
				if eps > 0 {
					_, err = Quantile(r, x, 0.5, withK(cfg, lo, hi, 8))
					record(key("Quantile", len(x)), err)
				}
			}
			for _, x := range farData {
				_, err := BoundedSum(r, x, within(cfg, farLo, farHi))
				record(key("BoundedSum far", len(x)), err)
				_, err = BoundedMean(r, x, within(cfg, farLo, farHi))
				record(key("BoundedMean far", len(x)), err)
			}
			for _, x := range cats {
				_, err := Histogram(r, x, 3, cfg)
				record(key("Histogram", 0), err)
			}
			// The accumulators, fed the same records.
			p := Params{Epsilon: cfg.Epsilon, Rho: cfg.Rho, Lo: lo, Hi: hi, MaxPartitionsContributed: 2,
				MaxContributionsPerPartition: 2, Neighbour: nb, Reproducible: true}
			for _, x := range floats {
				for _, mk := range []func() (Accumulator, error){
					func() (Accumulator, error) { return NewCountAccumulator(p) },
					func() (Accumulator, error) { return NewSumAccumulator(p) },
					func() (Accumulator, error) { return NewMeanAccumulator(p) },
				} {
					acc, err := mk()
					if err != nil {
						t.Fatal(err)
					}
					for _, v := range x {
						acc.Add(v)
					}
					_, err = acc.Release(r)
					record(key(fmt.Sprintf("%T", acc), 0), err)
				}
			}
		}
	}
	tried, failed := 0, 0
	for _, k := range order {
		g := groups[k]
		tried += g.tried
		failed += g.failed
		t.Logf("%-52s tried %2d failed %2d", k, g.tried, g.failed)
		if g.failed != 0 && g.failed != g.tried {
			t.Errorf("%s: %d of %d releases failed: failure depends on the data", k, g.failed, g.tried)
		}
		if g.failed != 0 && !(len(k) > 4 && k[len(k)-4:] == " n=0") {
			t.Errorf("%s: only an empty data set of public size may be refused", k)
		}
	}
	t.Logf("total: %d releases in %d groups, %d refused (all empty data sets of public size 0 under Substitute)", tried, len(order), failed)
}
