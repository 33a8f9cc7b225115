package aggregate

import (
	"testing"
)

// TestAccumulatorSmoke adds, merges, round-trips and releases each
// accumulator with seeded noise and checks the released value lies on
// the release lattice.
func TestAccumulatorSmoke(t *testing.T) {
	p := Params{Epsilon: 1, Lo: 0, Hi: 4, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 3, Reproducible: true}
	c1, err := NewCountAccumulator(p)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := NewCountAccumulator(p)
	s1, err := NewSumAccumulator(p)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := NewSumAccumulator(p)
	for i := range 10 {
		c1.Add(0)
		c2.Add(0)
		s1.Add(float64(i))
		s2.Add(-float64(i))
	}
	if err := c1.Merge(c2); err != nil {
		t.Fatal(err)
	}
	if err := s1.Merge(s2); err != nil {
		t.Fatal(err)
	}
	b, _ := s1.MarshalBinary()
	var s3 SumAccumulator
	if err := s3.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if s3 != *s1 {
		t.Fatalf("round trip %+v != %+v", s3, *s1)
	}
	if c1.n != 20 {
		t.Fatalf("count %d", c1.n)
	}
	l, _ := p.lattice()
	if got := s1.s.clamp(maxStat); got != l.sum([]float64{0, 1, 2, 3, 4, 4, 4, 4, 4, 4}, 0, 4, AddRemove) {
		t.Fatalf("sum index %d", got)
	}
	r := newRand(1)
	res, err := s1.Release(r)
	if err != nil {
		t.Fatal(err)
	}
	if !onLattice(res.Value, l.k) || res.Sensitivity != 2*3*4 {
		t.Fatalf("release %+v", res)
	}
	if _, err := res.Mechanism(); err != nil {
		t.Fatal(err)
	}
}

// TestAddAllocatesNothing: Add of every accumulator, and Merge, allocate
// nothing.
func TestAddAllocatesNothing(t *testing.T) {
	p := Params{Epsilon: 1, Lo: 0, Hi: 4, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1}
	c, _ := NewCountAccumulator(p)
	s, _ := NewSumAccumulator(p)
	m, _ := NewMeanAccumulator(p)
	m2, _ := NewMeanAccumulator(p)
	v := 1.5
	for name, f := range map[string]func(){
		"count add": func() { c.Add(v) },
		"sum add":   func() { s.Add(v) },
		"mean add":  func() { m.Add(v) },
		"mean merge": func() {
			if err := m.Merge(m2); err != nil {
				t.Fatal(err)
			}
		},
	} {
		if a := testing.AllocsPerRun(1000, f); a != 0 {
			t.Errorf("%s: %v allocations per call", name, a)
		}
	}
}
