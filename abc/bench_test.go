package abc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate/sir"
)

// BenchmarkMMD5000 evaluates the biased MMD between two sets of N = 5000
// one-dimensional points (3·N² kernel evaluations, half of the two
// within-set sums skipped by symmetry) on all cores.
func BenchmarkMMD5000(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x := randPoints(r, 5000, 1, 0)
	y := randPoints(r, 5000, 1, 0.2)
	m, _ := NewMMD(MMDConfig{Dim: 1, Bandwidth: 1, Unbiased: false})
	b.ReportAllocs()
	for b.Loop() {
		_ = m.Distance(x, y)
	}
}

// BenchmarkSMCSimulations measures SMC-ABC throughput in simulations per
// second on 1 and 2 cores, with the private SIR simulator at K = 10⁴ (the
// synthetic experiment's mechanism with n = m = 1000): two rounds of 200
// particles at a tolerance every simulation meets.
func BenchmarkSMCSimulations(b *testing.B) {
	epi, _ := sir.New(sir.Config{K: 10000})
	mech, _ := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 10000, Times: 10})
	obs, _ := sir.SyntheticRelease(10)
	p := privinfer.Problem{Prior: sir.Prior(), Simulator: epi, Mechanism: mech, Observed: obs}
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			prev := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(prev)
			b.ReportAllocs()
			var sims int64
			for b.Loop() {
				res, err := SMC(context.Background(), p, SMCConfig{Distance: Euclidean{}, Particles: 200, Schedule: ToleranceList{1e9, 1e9}, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				sims += res.Simulations
			}
			b.ReportMetric(float64(sims)/b.Elapsed().Seconds(), "sims/s")
		})
	}
}
