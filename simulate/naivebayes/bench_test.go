package naivebayes

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkSimulate(b *testing.B) {
	m := Paper()
	r := rand.New(rand.NewPCG(1, 2))
	theta := PaperTheta()
	dst := make([]float64, 8)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.Simulate(r, theta, dst)
	}
}
