package aggregate

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/mechanism"
)

// TestScaleOutBadInput feeds the scale-out API invalid public arguments
// and requires an error wrapping ErrInvalid that names the argument, and
// no panic.
func TestScaleOutBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ok := Params{Epsilon: 1, Lo: 0, Hi: 1, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 3}
	with := func(f func(p *Params)) Params { p := ok; f(&p); return p }
	sum := func(p Params) func() error { return func() error { _, err := NewSumAccumulator(p); return err } }
	mean := func(p Params) func() error { return func() error { _, err := NewMeanAccumulator(p); return err } }
	count := func(p Params) func() error { return func() error { _, err := NewCountAccumulator(p); return err } }
	sel := func(p SelectionParams) func() error {
		return func() error { _, err := NewPartitionSelector(p); return err }
	}
	okSel := SelectionParams{Epsilon: 1, Delta: 1e-6, MaxPartitionsContributed: 1}
	withSel := func(f func(p *SelectionParams)) SelectionParams { p := okSel; f(&p); return p }
	other, _ := NewSumAccumulator(with(func(p *Params) { p.Epsilon = 2 }))
	a, _ := NewSumAccumulator(ok)
	cases := []struct {
		name, want string
		f          func() error
	}{
		{"zero params", "epsilon", count(Params{})},
		{"NaN epsilon", "epsilon", count(with(func(p *Params) { p.Epsilon = nan }))},
		{"epsilon and rho", "rho", count(with(func(p *Params) { p.Rho = 1 }))},
		{"L0 = 0", "MaxPartitionsContributed", count(with(func(p *Params) { p.MaxPartitionsContributed = 0 }))},
		{"L0 < 0", "MaxPartitionsContributed", sum(with(func(p *Params) { p.MaxPartitionsContributed = -4 }))},
		{"L∞ = 0", "MaxContributionsPerPartition", sum(with(func(p *Params) { p.MaxContributionsPerPartition = 0 }))},
		{"L0·L∞ huge", "MaxPartitionsContributed × MaxContributionsPerPartition", sum(with(func(p *Params) { p.MaxPartitionsContributed, p.MaxContributionsPerPartition = 1<<15, 1<<15 }))},
		{"lo = hi", "bounds", sum(with(func(p *Params) { p.Lo, p.Hi = 1, 1 }))},
		{"lo > hi", "bounds", mean(with(func(p *Params) { p.Lo, p.Hi = 2, 1 }))},
		{"infinite hi", "bounds", mean(with(func(p *Params) { p.Hi = inf }))},
		{"NaN lo", "bounds", sum(with(func(p *Params) { p.Lo = nan }))},
		{"unset bounds", "Lo", sum(with(func(p *Params) { p.Lo, p.Hi = 0, 0 }))},
		{"grid not a power of two", "grid", sum(with(func(p *Params) { p.Grid = 0.3 }))},
		{"grid wider than bounds", "grid", sum(with(func(p *Params) { p.Grid = 2 }))},
		{"grid without bounds", "Grid", count(with(func(p *Params) { p.Lo, p.Hi, p.Grid = 0, 0, 1 }))},
		{"unknown neighbour", "neighbour", count(with(func(p *Params) { p.Neighbour = 9 }))},
		{"sensitivity beyond 2^33", "sensitivity", sum(with(func(p *Params) { p.Lo, p.Hi = 2047, 2048; p.MaxPartitionsContributed = 16 }))},
		{"seeded release without generator", "rand.Rand", func() error {
			s, _ := NewSumAccumulator(with(func(p *Params) { p.Reproducible = true }))
			_, err := s.Release(nil)
			return err
		}},
		{"merge different params", "different parameters", func() error { return a.Merge(other) }},
		{"merge nil", "nil", func() error { return a.Merge(nil) }},
		{"merge zero value", "zero", func() error { return a.Merge(&SumAccumulator{}) }},
		{"unmarshal garbage", "bytes", func() error { return new(SumAccumulator).UnmarshalBinary([]byte("garbage")) }},
		{"unmarshal wrong kind", "kind", func() error {
			b, _ := a.MarshalBinary()
			return new(MeanAccumulator).UnmarshalBinary(append(b, make([]byte, 8)...))
		}},
		{"unmarshal invalid params", "MaxPartitionsContributed", func() error {
			b, _ := a.MarshalBinary()
			b[5+40] = 0 // L0's low byte
			return new(SumAccumulator).UnmarshalBinary(b)
		}},
		{"bound partitions L0 = 0", "L0", func() error { _, err := BoundPartitions([]int{1}, 0, nil); return err }},
		{"cap contributions 0", "MaxContributionsPerPartition", func() error { _, err := CapContributions([]float64{1}, 0, nil); return err }},
		{"selection zero", "Epsilon", sel(SelectionParams{})},
		{"selection δ = 0", "Delta", sel(withSel(func(p *SelectionParams) { p.Delta = 0 }))},
		{"selection δ = 1", "Delta", sel(withSel(func(p *SelectionParams) { p.Delta = 1 }))},
		{"selection NaN ε", "Epsilon", sel(withSel(func(p *SelectionParams) { p.Epsilon = nan }))},
		{"selection L0 = 0", "MaxPartitionsContributed", sel(withSel(func(p *SelectionParams) { p.MaxPartitionsContributed = 0 }))},
		{"selection unknown rule", "Rule", sel(withSel(func(p *SelectionParams) { p.Rule = 7 }))},
		{"selection table too long", "2^22", sel(withSel(func(p *SelectionParams) { p.Epsilon, p.Delta, p.Rule = 0x1p-30, 1e-300, OptimalRule }))},
		{"selection Gaussian ρ too small", "2^-40", sel(withSel(func(p *SelectionParams) { p.Epsilon, p.Rule = 0x1p-30, GaussianThresholdRule }))},
		{"public partitions empty", "empty", func() error { _, err := NewPublicPartitions[string](nil); return err }},
		{"plan invalid total", "total", func() error { _, err := NewPlan(mechanismBudget(nan, 0)); return err }},
		{"plan unnamed share", "name", func() error { p, _ := NewPlan(mechanismBudget(1, 0)); return p.Add("", mechanismBudget(0.1, 0)) }},
		{"plan NaN rho", "rho", func() error { p, _ := NewPlan(mechanismBudget(1, 1e-6)); return p.AddRho("g", nan) }},
		{"plan invalid params", "epsilon", func() error { p, _ := NewPlan(mechanismBudget(1, 0)); return p.AddParams("x", Params{}) }},
		{"plan commit nil accountant", "Accountant", func() error {
			p, _ := NewPlan(mechanismBudget(1, 0))
			_ = p.Add("x", mechanismBudget(0.5, 0))
			return p.Commit(nil)
		}},
		{"plan commit empty", "no shares", func() error {
			p, _ := NewPlan(mechanismBudget(1, 0))
			return p.Commit(newAccountant(1))
		}},
		{"mechanism of a zero result", "noise models", func() error { _, err := Result{}.Mechanism(); return err }},
		{"mechanism of an unknown noise kind", "kind", func() error {
			_, err := Result{Noise: []NoiseModel{{Kind: 9, Grid: 1}}}.Mechanism()
			return err
		}},
	}
	for _, c := range cases {
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			return c.f()
		}()
		if !errors.Is(err, ErrInvalid) && !errors.Is(err, errMechInvalid) {
			t.Errorf("%s: got %v, want an error wrapping ErrInvalid", c.name, err)
			continue
		}
		if !containsFold(err.Error(), c.want) {
			t.Errorf("%s: error %q does not name %q", c.name, err, c.want)
		}
	}
	t.Logf("%d invalid arguments refused, 0 panics", len(cases))
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func mechanismBudget(eps, delta float64) mechanism.Budget {
	return mechanism.Budget{Epsilon: eps, Delta: delta}
}

func newAccountant(eps float64) *mechanism.Accountant {
	a, _ := mechanism.NewAccountant(mechanismBudget(eps, 0))
	return a
}

var errMechInvalid = mechanism.ErrInvalid
