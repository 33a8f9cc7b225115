package aggregate

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestBadInput feeds every aggregation invalid arguments, labelled by
// category, and requires an error wrapping ErrInvalid and no panic.
// Invalid arguments are public ones (budgets, bounds, sizes of public
// sets, generators) or data the caller cannot have (a negative count, an
// empty data set whose size is public): records themselves are never an
// error (TestErrorsIndependentOfData).
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	sub := 0x1p-1070
	ok := Config{Epsilon: 1, Reproducible: true}
	b := func(lo, hi float64) Config { return within(ok, lo, hi) }
	r := newRand(1)
	type call func() error
	sum := func(x []float64, c Config) call {
		return func() error { _, err := BoundedSum(r, x, c); return err }
	}
	mean := func(x []float64, c Config) call {
		return func() error { _, err := BoundedMean(r, x, c); return err }
	}
	quant := func(x []float64, q float64, c Config) call {
		return func() error { _, err := Quantile(r, x, q, c); return err }
	}
	hist := func(x []int, k int, c Config) call {
		return func() error { _, err := Histogram(r, x, k, c); return err }
	}
	count := func(n int, c Config) call {
		return func() error { _, err := Count(r, n, c); return err }
	}
	cand := func(c Config) call {
		return func() error { _, err := Candidates(c); return err }
	}
	x := []float64{0, 1, 2}
	k4 := withK(ok, 0, 1, 4)
	sub01 := Config{Epsilon: 1, Neighbour: Substitute, Lo: 0, Hi: 1, Reproducible: true}
	// field is the argument the error must name: a Config field, or the
	// positional argument ("q", "count", "categories", "generator").
	cases := []struct {
		cat, name, field string
		f                call
	}{
		{"nan", "sum lo", "Config.Lo", sum(x, b(nan, 1))},
		{"nan", "sum hi", "Config.Hi", sum(x, b(0, nan))},
		{"nan", "epsilon", "Config.Epsilon", count(3, Config{Epsilon: nan})},
		{"nan", "quantile level", "q:", quant(x, nan, k4)},
		{"nan", "quantile lo", "Config.Lo", quant(x, 0.5, withK(ok, nan, 1, 4))},
		{"nan", "rho", "Config.Rho", count(3, Config{Rho: nan})},
		{"nan", "candidates lo", "Config.Lo", cand(withK(Config{}, nan, 1, 4))},
		{"inf", "sum hi", "Config.Hi", sum(x, b(0, inf))},
		{"inf", "mean lo", "Config.Lo", mean(x, b(-inf, 1))},
		{"inf", "epsilon", "Config.Epsilon", count(3, Config{Epsilon: inf})},
		{"inf", "quantile hi", "Config.Hi", quant(x, 0.5, withK(ok, 0, inf, 4))},
		{"inf", "rho", "Config.Rho", sum(x, Config{Rho: inf, Lo: 0, Hi: 1})},
		{"nonpositive", "epsilon 0", "Config.Epsilon", count(3, Config{Epsilon: 0})},
		{"nonpositive", "epsilon -1", "Config.Epsilon", sum(x, Config{Epsilon: -1, Lo: 0, Hi: 1})},
		{"nonpositive", "count -1", "count", count(-1, ok)},
		{"nonpositive", "lo = hi", "Config.Lo", sum(x, b(1, 1))},
		{"nonpositive", "lo > hi", "Config.Lo", mean(x, b(2, 1))},
		{"nonpositive", "categories 0", "categories", hist([]int{}, 0, ok)},
		{"nonpositive", "categories -3", "categories", hist([]int{0}, -3, ok)},
		{"nonpositive", "candidates 1", "Config.Candidates", quant(x, 0.5, withK(ok, 0, 1, 1))},
		{"nonpositive", "candidates -4", "Config.Candidates", cand(withK(Config{}, 0, 1, -4))},
		{"nonpositive", "quantile level -0.1", "q:", quant(x, -0.1, k4)},
		{"nonpositive", "rho -1", "Config.Rho", hist([]int{0}, 1, Config{Rho: -1})},
		{"huge", "epsilon 1e308", "Config.Epsilon", count(3, Config{Epsilon: 1e308})},
		{"huge", "bounds ±1e308", "Config.Lo", sum(x, b(-1e308, 1e308))},
		{"huge", "bounds far from 0", "Config.Lo", sum(x, b(1e300, 1e300*(1+1e-15)))},
		{"huge", "mean bounds far from 0", "Config.Lo", mean(x, b(1e300, 1e300*(1+1e-15)))},
		{"huge", "categories 2^40", "categories", hist([]int{0}, 1<<40, ok)},
		{"huge", "candidates 2^40", "Config.Candidates", quant(x, 0.5, withK(ok, 0, 1, 1<<40))},
		{"huge", "quantile level 2", "q:", quant(x, 2, k4)},
		{"huge", "rho 1e308", "Config.Rho", count(3, Config{Rho: 1e308})},
		{"huge", "mean bounds ±1e308", "Config.Lo", mean(x, within(sub01, -1e308, 1e308))},
		{"huge", "candidate bounds ±1e308", "Config.Lo", cand(withK(Config{}, -1e308, 1e308, 4))},
		{"subnormal", "epsilon", "Config.Epsilon", count(3, Config{Epsilon: sub})},
		{"subnormal", "epsilon below 2^-30", "Config.Epsilon", sum(x, Config{Epsilon: 1e-12, Lo: 0, Hi: 1})},
		{"subnormal", "bounds width", "", sum(x, Config{Epsilon: 1e-9, Lo: 0, Hi: sub})},
		{"subnormal", "rho", "Config.Rho", count(3, Config{Rho: sub})},
		{"subnormal", "add/remove mean at ε = 2^-30", "epsilon", mean(x, Config{Epsilon: 0x1p-30, Lo: 0, Hi: 1})},
		{"empty", "mean substitute", "", mean([]float64{}, sub01)},
		{"empty", "quantile substitute", "", quant(nil, 0.5, withK(sub01, 0, 1, 4))},
		{"mismatched", "neighbour relation", "Config.Neighbour", count(3, Config{Epsilon: 1, Neighbour: Neighbour(7)})},
		{"mismatched", "lo/hi swapped", "Config.Lo", quant(x, 0.5, withK(ok, 1, 0, 4))},
		{"mismatched", "both epsilon and rho", "Config.Rho", count(3, Config{Epsilon: 1, Rho: 1})},
		{"mismatched", "quantile with rho", "Config.Rho", quant(x, 0.5, Config{Rho: 1, Lo: 0, Hi: 1, Reproducible: true})},
		{"nil", "seeded without a generator", "r: a Reproducible release needs a non-nil *rand.Rand", func() error { _, err := Count(nil, 3, ok); return err }},
		{"nil", "seeded sum without a generator", "r: a Reproducible release needs a non-nil *rand.Rand", func() error { _, err := BoundedSum(nil, x, b(0, 1)); return err }},
		{"nil", "seeded quantile without a generator", "r: a Reproducible release needs a non-nil *rand.Rand", func() error { _, err := Quantile(nil, x, 0.5, k4); return err }},
		{"zerovalue", "count", "Config.Epsilon", count(3, Config{})},
		{"zerovalue", "sum", "Config.Epsilon", sum(x, Config{Lo: 0, Hi: 1})},
		{"zerovalue", "mean", "Config.Epsilon", mean(x, Config{Lo: 0, Hi: 1})},
		{"zerovalue", "histogram", "Config.Epsilon", hist([]int{0}, 1, Config{})},
		{"zerovalue", "quantile", "Config.Epsilon", quant(x, 0.5, Config{Lo: 0, Hi: 1})},
		{"zerovalue", "sum bounds", "Config.Lo, Config.Hi", sum(x, ok)},
		{"zerovalue", "mean bounds", "Config.Lo, Config.Hi", mean(x, ok)},
		{"zerovalue", "quantile bounds", "Config.Lo, Config.Hi", quant(x, 0.5, ok)},
		{"zerovalue", "candidate bounds", "Config.Lo, Config.Hi", cand(Config{Candidates: 4})},
	}
	perCat := map[string]int{}
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			return c.f()
		}()
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s/%s: got %v, want an error wrapping ErrInvalid", c.cat, c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s/%s: error %q does not name %s", c.cat, c.name, err, c.field)
		}
		perCat[c.cat]++
	}
	for _, cat := range []string{"nan", "inf", "nonpositive", "huge", "subnormal", "empty", "mismatched", "nil", "zerovalue"} {
		t.Logf("%-12s %d cases, 0 panics", cat, perCat[cat])
		if perCat[cat] == 0 {
			t.Errorf("category %s has no passing case", cat)
		}
	}
}
