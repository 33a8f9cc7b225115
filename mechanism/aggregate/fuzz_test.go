package aggregate

import (
	"errors"
	"math"
	"testing"
)

// FuzzAggregations drives every aggregation with arbitrary bounds, budget,
// level and records: each call returns an error wrapping ErrInvalid or a
// finite release with the documented shape (on the lattice for the sum, a
// candidate for the quantile, inside [lo, hi] for the add/remove mean).
func FuzzAggregations(f *testing.F) {
	f.Add(-1.5, 2.25, 1.0, 0.5, 0.3, 7.0, -2.0, uint8(0))
	f.Add(0.0, 1e-300, 1e-9, 1.0, 1e308, -1e308, 0.0, uint8(1))
	f.Add(-1e6, 1e6, 100.0, 0.0, math.NaN(), 3.0, 4.0, uint8(2))
	f.Fuzz(func(t *testing.T, lo, hi, eps, q, a, b, c float64, nb uint8) {
		cfg := Config{Epsilon: eps, Neighbour: Neighbour(nb % 3), Reproducible: true}
		x := []float64{a, b, c}
		r := newRand(1)
		check := func(name string, v float64, err error) {
			if err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("%s: error %v does not wrap ErrInvalid", name, err)
				}
				return
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: release %v", name, v)
			}
		}
		s, err := BoundedSum(r, x, within(cfg, lo, hi))
		check("sum", s.Value, err)
		if err == nil && !onLattice(s.Value, int(math.Round(math.Log2(s.Grid)))) {
			t.Fatalf("sum %v off its lattice %v", s.Value, s.Grid)
		}
		m, err := BoundedMean(r, x, within(cfg, lo, hi))
		check("mean", m.Value, err)
		if err == nil && cfg.Neighbour == AddRemove && !(m.Value >= lo && m.Value <= hi) {
			t.Fatalf("add/remove mean %v outside [%v, %v]", m.Value, lo, hi)
		}
		qr, err := Quantile(r, x, q, withK(cfg, lo, hi, 5))
		check("quantile", qr.Value, err)
		if err == nil {
			cand, _ := Candidates(withK(Config{}, lo, hi, 5))
			if cand[qr.Index] != qr.Value {
				t.Fatalf("quantile %v is not candidate %d", qr.Value, qr.Index)
			}
		}
		n := int(math.Mod(math.Abs(a), 1e6))
		cr, err := Count(r, n, cfg)
		check("count", cr.Value, err)
		h, err := Histogram(r, []int{int(nb % 4), 1}, int(nb%5)+1, cfg)
		if err == nil {
			for _, v := range h.Counts {
				check("histogram", v, nil)
			}
		} else if !errors.Is(err, ErrInvalid) {
			t.Fatalf("histogram: %v", err)
		}
	})
}

// FuzzAccumulatorBinary feeds arbitrary bytes to the accumulators'
// UnmarshalBinary: each either refuses them with an error wrapping
// ErrInvalid or yields an accumulator that marshals back to the same
// bytes, merges with itself and releases a finite value, without panics.
func FuzzAccumulatorBinary(f *testing.F) {
	p := Params{Epsilon: 1, Lo: -1, Hi: 3, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 1, Reproducible: true}
	c, _ := NewCountAccumulator(p)
	s, _ := NewSumAccumulator(p)
	m, _ := NewMeanAccumulator(p)
	for _, a := range []Accumulator{c, s, m} {
		a.Add(2.5)
		b, _ := a.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte("PIA1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range []Accumulator{new(CountAccumulator), new(SumAccumulator), new(MeanAccumulator)} {
			if err := a.UnmarshalBinary(data); err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("%T: error %v does not wrap ErrInvalid", a, err)
				}
				continue
			}
			back, err := a.MarshalBinary()
			if err != nil || string(back) != string(data) {
				t.Fatalf("%T: round trip changed the bytes", a)
			}
			var err2 error
			switch v := a.(type) {
			case *CountAccumulator:
				err2 = v.Merge(v)
			case *SumAccumulator:
				err2 = v.Merge(v)
			case *MeanAccumulator:
				err2 = v.Merge(v)
			}
			if err2 != nil {
				t.Fatalf("%T: self-merge: %v", a, err2)
			}
			res, err := a.Release(newRand(1))
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("%T: release error %v", a, err)
			}
			if err == nil && (math.IsNaN(res.Value) || math.IsInf(res.Value, 0)) {
				t.Fatalf("%T: release %v", a, res.Value)
			}
		}
	})
}
