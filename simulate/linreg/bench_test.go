package linreg

import (
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/simulate"
)

func BenchmarkMeanStat(b *testing.B) {
	sim, _ := simulate.NewMeanStat(Paper(), PaperN)
	r := rand.New(rand.NewPCG(1, 2))
	theta := PaperTheta()
	dst := make([]float64, 9)
	b.ReportAllocs()
	for b.Loop() {
		_ = sim.Simulate(r, theta, dst)
	}
}
