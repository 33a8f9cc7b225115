package tb

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkOutbreak simulates one outbreak at the ABCDP paper's θ (about
// 10,000 events).
func BenchmarkOutbreak(b *testing.B) {
	o, _ := NewOutbreak(Config{})
	r := rand.New(rand.NewPCG(1, 2))
	dst := make([]float64, NumStats)
	th := PaperTheta()
	b.ReportAllocs()
	for b.Loop() {
		if err := o.Simulate(r, th, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBDM grows Tanaka et al.'s process to 10,000 cases and samples
// 473 of them.
func BenchmarkBDM(b *testing.B) {
	m, _ := NewBDM(BDMConfig{})
	r := rand.New(rand.NewPCG(1, 2))
	dst := make([]float64, NumBDMStats)
	th := []float64{1, 0.3, 0.12}
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Simulate(r, th, dst); err != nil {
			b.Fatal(err)
		}
	}
}
