package aggregate

import (
	"errors"
	"fmt"
	"math"
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
	r := newRand(1)
	type call func() error
	sum := func(x []float64, lo, hi float64, c Config) call {
		return func() error { _, err := BoundedSum(r, x, lo, hi, c); return err }
	}
	mean := func(x []float64, lo, hi float64, c Config) call {
		return func() error { _, err := BoundedMean(r, x, lo, hi, c); return err }
	}
	quant := func(x []float64, q, lo, hi float64, k int, c Config) call {
		return func() error { _, err := Quantile(r, x, q, lo, hi, k, c); return err }
	}
	hist := func(x []int, k int, c Config) call {
		return func() error { _, err := Histogram(r, x, k, c); return err }
	}
	count := func(n int, c Config) call {
		return func() error { _, err := Count(r, n, c); return err }
	}
	x := []float64{0, 1, 2}
	cases := []struct {
		cat, name string
		f         call
	}{
		{"nan", "sum lo", sum(x, nan, 1, ok)},
		{"nan", "sum hi", sum(x, 0, nan, ok)},
		{"nan", "epsilon", count(3, Config{Epsilon: nan})},
		{"nan", "quantile level", quant(x, nan, 0, 1, 4, ok)},
		{"nan", "quantile lo", quant(x, 0.5, nan, 1, 4, ok)},
		{"nan", "rho", count(3, Config{Rho: nan})},
		{"inf", "sum hi", sum(x, 0, inf, ok)},
		{"inf", "mean lo", mean(x, -inf, 1, ok)},
		{"inf", "epsilon", count(3, Config{Epsilon: inf})},
		{"inf", "quantile hi", quant(x, 0.5, 0, inf, 4, ok)},
		{"inf", "rho", sum(x, 0, 1, Config{Rho: inf})},
		{"nonpositive", "epsilon 0", count(3, Config{Epsilon: 0})},
		{"nonpositive", "epsilon -1", sum(x, 0, 1, Config{Epsilon: -1})},
		{"nonpositive", "count -1", count(-1, ok)},
		{"nonpositive", "lo = hi", sum(x, 1, 1, ok)},
		{"nonpositive", "lo > hi", mean(x, 2, 1, ok)},
		{"nonpositive", "categories 0", hist([]int{}, 0, ok)},
		{"nonpositive", "categories -3", hist([]int{0}, -3, ok)},
		{"nonpositive", "candidates 1", quant(x, 0.5, 0, 1, 1, ok)},
		{"nonpositive", "quantile level -0.1", quant(x, -0.1, 0, 1, 4, ok)},
		{"nonpositive", "rho -1", hist([]int{0}, 1, Config{Rho: -1})},
		{"huge", "epsilon 1e308", count(3, Config{Epsilon: 1e308})},
		{"huge", "bounds ±1e308", sum(x, -1e308, 1e308, ok)},
		{"huge", "bounds far from 0", sum(x, 1e300, 1e300*(1+1e-15), ok)},
		{"huge", "categories 2^40", hist([]int{0}, 1<<40, ok)},
		{"huge", "candidates 2^40", quant(x, 0.5, 0, 1, 1<<40, ok)},
		{"huge", "quantile level 2", quant(x, 2, 0, 1, 4, ok)},
		{"huge", "rho 1e308", count(3, Config{Rho: 1e308})},
		{"huge", "mean bounds ±1e308", mean(x, -1e308, 1e308, Config{Epsilon: 1, Neighbour: Substitute, Reproducible: true})},
		{"subnormal", "epsilon", count(3, Config{Epsilon: sub})},
		{"subnormal", "epsilon below 2^-30", sum(x, 0, 1, Config{Epsilon: 1e-12})},
		{"subnormal", "bounds width", sum(x, 0, sub, Config{Epsilon: 1e-9})},
		{"subnormal", "rho", count(3, Config{Rho: sub})},
		{"subnormal", "add/remove mean at ε = 2^-30", mean(x, 0, 1, Config{Epsilon: 0x1p-30})},
		{"empty", "mean substitute", mean([]float64{}, 0, 1, Config{Epsilon: 1, Neighbour: Substitute, Reproducible: true})},
		{"empty", "quantile substitute", quant(nil, 0.5, 0, 1, 4, Config{Epsilon: 1, Neighbour: Substitute, Reproducible: true})},
		{"mismatched", "neighbour relation", count(3, Config{Epsilon: 1, Neighbour: Neighbour(7)})},
		{"mismatched", "lo/hi swapped", quant(x, 0.5, 1, 0, 4, ok)},
		{"mismatched", "both epsilon and rho", count(3, Config{Epsilon: 1, Rho: 1})},
		{"mismatched", "quantile with rho", quant(x, 0.5, 0, 1, 4, Config{Rho: 1, Reproducible: true})},
		{"nil", "seeded without a generator", func() error { _, err := Count(nil, 3, ok); return err }},
		{"nil", "seeded sum without a generator", func() error { _, err := BoundedSum(nil, x, 0, 1, ok); return err }},
		{"nil", "seeded quantile without a generator", func() error { _, err := Quantile(nil, x, 0.5, 0, 1, 4, ok); return err }},
		{"zerovalue", "count", count(3, Config{})},
		{"zerovalue", "sum", sum(x, 0, 1, Config{})},
		{"zerovalue", "mean", mean(x, 0, 1, Config{})},
		{"zerovalue", "histogram", hist([]int{0}, 1, Config{})},
		{"zerovalue", "quantile", quant(x, 0.5, 0, 1, 4, Config{})},
		{"zerovalue", "bounds", sum(x, 0, 0, ok)},
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
		perCat[c.cat]++
	}
	for _, cat := range []string{"nan", "inf", "nonpositive", "huge", "subnormal", "empty", "mismatched", "nil", "zerovalue"} {
		t.Logf("%-12s %d cases, 0 panics", cat, perCat[cat])
		if perCat[cat] == 0 {
			t.Errorf("category %s has no passing case", cat)
		}
	}
}
