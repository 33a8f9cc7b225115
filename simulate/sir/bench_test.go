package sir

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// BenchmarkGillespieK1e6 runs the paper's synthetic setting, K = 1e6,
// θ = (−0.5, −3) on the log scale, and reports events per second.
func BenchmarkGillespieK1e6(b *testing.B) {
	sim, err := New(Config{K: 1_000_000})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	theta := []float64{-0.5, -3}
	dst := make([]float64, sim.StatDim())
	b.ReportAllocs()
	var events int64
	b.ResetTimer()
	for b.Loop() {
		n, err := sim.SimulateEvents(r, theta, dst)
		if err != nil {
			b.Fatal(err)
		}
		events += n
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkBatchSIR simulates 64 prior draws at K = 1e5 through simulate.Batch;
// run with -cpu 1,2 to compare throughput on one and two cores.
func BenchmarkBatchSIR(b *testing.B) {
	sim, _ := New(Config{K: 100_000})
	const n = 64
	thetas := make([]float64, 2*n)
	for i := range n {
		thetas[2*i], thetas[2*i+1] = -0.5, -3
	}
	dst := make([]float64, n*sim.StatDim())
	b.ReportAllocs()
	for b.Loop() {
		if err := simulate.Batch(context.Background(), nil, sim, thetas, 2, 1, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "sims/s")
}

func BenchmarkPrivateSIRK1e6(b *testing.B) {
	sim, _ := New(Config{K: 1_000_000})
	mech, _ := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 1_000_000, Times: 10})
	p, _ := simulate.Private(sim, mech)
	r := rand.New(rand.NewPCG(1, 2))
	theta := []float64{-0.5, -3}
	dst := make([]float64, 10)
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Simulate(r, theta, dst)
	}
}

func BenchmarkTauLeapK1e6(b *testing.B) {
	sim, _ := NewTauLeap(Config{K: 1_000_000}, 0.1)
	r := rand.New(rand.NewPCG(1, 2))
	theta := []float64{-0.5, -3}
	dst := make([]float64, 10)
	b.ReportAllocs()
	for b.Loop() {
		_ = sim.Simulate(r, theta, dst)
	}
}

func BenchmarkODE(b *testing.B) {
	sim, _ := NewODE(Config{K: 1_000_000}, 0)
	theta := []float64{-0.5, -3}
	dst := make([]float64, 10)
	b.ReportAllocs()
	for b.Loop() {
		_ = sim.Simulate(nil, theta, dst)
	}
}
