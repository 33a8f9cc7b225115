package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Benchmarks of the default (operating-system generator) release path
// against the seeded opt-out and a textbook floating-point Laplace
// release (inverse CDF of a float uniform) of the same 1,000-record sum.
func benchData() []float64 {
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 1000)
	for i := range x {
		x[i] = 4 * r.Float64()
	}
	return x
}

func BenchmarkBoundedSumSecure(b *testing.B) {
	x := benchData()
	cfg := Config{Epsilon: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BoundedSum(nil, x, within(cfg, 0, 4)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBoundedSumSeeded(b *testing.B) {
	x := benchData()
	r := rand.New(rand.NewPCG(2, 2))
	cfg := Config{Epsilon: 1, Reproducible: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BoundedSum(r, x, within(cfg, 0, 4)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBoundedSumTextbook(b *testing.B) {
	x := benchData()
	r := rand.New(rand.NewPCG(3, 3))
	var out float64
	b.ReportAllocs()
	for b.Loop() {
		sum := 0.0
		for _, v := range x {
			sum += max(0, min(4, v))
		}
		u := r.Float64() - 0.5
		out = sum - 4*math.Copysign(math.Log1p(-2*math.Abs(u)), u)
	}
	_ = out
}

func BenchmarkCountSecure(b *testing.B) {
	cfg := Config{Epsilon: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Count(nil, 1000, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHistogram10Secure(b *testing.B) {
	x := make([]int, 1000)
	for i := range x {
		x[i] = i % 10
	}
	cfg := Config{Epsilon: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Histogram(nil, x, 10, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQuantile64Secure(b *testing.B) {
	x := benchData()
	cfg := Config{Epsilon: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Quantile(nil, x, 0.5, withK(cfg, 0, 4, 64)); err != nil {
			b.Fatal(err)
		}
	}
}

// Add and Merge of the scaled-out accumulators: Add allocates nothing
// (TestAddAllocatesNothing).
func BenchmarkSumAccumulatorAdd(b *testing.B) {
	x := benchData()
	acc, _ := NewSumAccumulator(Params{Epsilon: 1, Lo: 0, Hi: 4, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		acc.Add(x[i%len(x)])
		i++
	}
}

func BenchmarkMeanAccumulatorAdd(b *testing.B) {
	x := benchData()
	acc, _ := NewMeanAccumulator(Params{Epsilon: 1, Lo: 0, Hi: 4, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		acc.Add(x[i%len(x)])
		i++
	}
}

func BenchmarkMeanAccumulatorMerge(b *testing.B) {
	p := Params{Epsilon: 1, Lo: 0, Hi: 4, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1}
	a, _ := NewMeanAccumulator(p)
	o, _ := NewMeanAccumulator(p)
	for _, v := range benchData() {
		o.Add(v)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := a.Merge(o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSumAccumulatorMarshal(b *testing.B) {
	acc, _ := NewSumAccumulator(Params{Epsilon: 1, Lo: 0, Hi: 4, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1})
	var back SumAccumulator
	b.ReportAllocs()
	for b.Loop() {
		buf, _ := acc.MarshalBinary()
		if err := back.UnmarshalBinary(buf); err != nil {
			b.Fatal(err)
		}
	}
}
