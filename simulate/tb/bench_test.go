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
