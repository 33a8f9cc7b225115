package abc

import (
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/mechanism"
)

// TestNoAllocs checks that the privacy loop allocates nothing per decision:
// a sparse vector session started in caller-owned storage answers queries
// without allocating, and Select allocates its result only (three
// allocations whatever the number of distances).
func TestNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	a, err := NewABCDPSelector(ABCDPConfig{EpsTotal: 1, EpsABC: 0.2, C: 50, Sensitivity: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var s mechanism.SVTSession
	for _, start := range []struct {
		name string
		f    func()
	}{
		{"operating system's generator", func() { a.svt.StartInto(&s) }},
		{"reproducible", func() { a.svt.StartReproducibleInto(r, &s) }},
	} {
		if n := testing.AllocsPerRun(100, func() {
			start.f()
			for i := 0; i < 100; i++ {
				if _, err := s.Test(0.5); err != nil {
					break
				}
			}
		}); n != 0 {
			t.Errorf("sparse vector session (%s): %v allocations per run", start.name, n)
		}
	}
	for _, T := range []int{10, 10000} {
		d := make([]float64, T)
		for i := range d {
			d[i] = 0.3 + 0.001*float64(i%7)
		}
		if n := testing.AllocsPerRun(20, func() {
			if _, err := a.Select(r, d); err != nil {
				t.Fatal(err)
			}
		}); n > 3 {
			t.Errorf("Select over %d distances: %v allocations, want at most 3", T, n)
		}
	}
}

// BenchmarkABCDPSelect measures the data owner's selection over 10⁴
// distances (one sparse vector decision per distance).
func BenchmarkABCDPSelect(b *testing.B) {
	a, _ := NewABCDPSelector(ABCDPConfig{EpsTotal: 1, EpsABC: 0.2, C: 50, Sensitivity: 0.01})
	r := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, 10000)
	for i := range d {
		d[i] = 0.3 + 0.001*float64(i%7)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Select(r, d); err != nil {
			b.Fatal(err)
		}
	}
}
