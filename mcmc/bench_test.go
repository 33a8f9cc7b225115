package mcmc

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// benchChain returns a chain on the paper's ε = 10 linear regression with
// n records.
func benchChain(b *testing.B, k RecordStep, n int) (*DAChain, *rand.Rand) {
	p, th := paperLinReg(b, 10)
	model := linreg.Paper()
	sens, _ := mechanism.LinRegSensitivity(model.P(), n)
	lap, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: 10, Dim: 9})
	sim, _ := simulate.NewMeanStat(model, n)
	p.Simulator, p.Mechanism = sim, lap
	r := rand.New(rand.NewPCG(1, 2))
	c, err := NewDAChain(p, DAConfig{ThetaStep: th, RecordStep: k}, r, []float64{-0.6, -2.6, 0.6})
	if err != nil {
		b.Fatal(err)
	}
	return c, r
}

func benchStep(b *testing.B, k RecordStep, n int) {
	c, r := benchChain(b, k, n)
	for range 20 {
		_ = c.Sweep(r)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := c.Step(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStep compares one record-step attempt (one fresh record offered)
// of SOMA with IMwG at n = 100 and 1000 on the paper's linear regression.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, k := range []RecordStep{SOMA, RandomScanIMwG, SystematicScanIMwG} {
			b.Run(k.String()+"/n="+itoa(n), func(b *testing.B) { benchStep(b, k, n) })
		}
	}
}

// BenchmarkSweep times one DA iteration (n attempts and the θ-step) at n = 100.
func BenchmarkSweep(b *testing.B) {
	for _, k := range []RecordStep{SOMA, RandomScanIMwG} {
		b.Run(k.String(), func(b *testing.B) {
			c, r := benchChain(b, k, 100)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := c.Sweep(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}

// BenchmarkDALinRegESS reports the bulk effective sample size per second
// (minimum over β0..β2, "ESS/s") and per 1000 sweeps of DA-MCMC on the
// SBI paper's ε = 10 linear-regression release for each record step: one
// benchmark op is one run of 2 chains (each sweep = n = 100 attempts and
// the θ-step).
func BenchmarkDALinRegESS(b *testing.B) {
	for _, k := range []RecordStep{SOMA, RandomScanIMwG, SystematicScanIMwG} {
		b.Run(k.String(), func(b *testing.B) {
			p, th := paperLinReg(b, 10)
			draws := 20000
			if k == SOMA {
				draws = 2000
			}
			b.ReportAllocs()
			ess, sweeps := 0.0, 0
			for i := range b.N {
				res, err := RunDA(context.Background(), p, DAConfig{ThetaStep: th, RecordStep: k, Chains: 2, Warmup: 200, Draws: draws, Seed: uint64(i), Init: farInits[:2]})
				if err != nil {
					b.Fatal(err)
				}
				e := math.Inf(1)
				for j := range 3 {
					v, _ := res.Draws.ESSBulk(j)
					e = math.Min(e, v)
				}
				ess += e
				sweeps += 2 * (draws + 200)
			}
			b.ReportMetric(ess/b.Elapsed().Seconds(), "ESS/s")
			b.ReportMetric(1000*ess/float64(sweeps), "ESS/1000sweeps")
		})
	}
}

// BenchmarkMetropolisTheta times one Metropolis θ-step move on 100
// records of the paper's linear regression.
func BenchmarkMetropolisTheta(b *testing.B) {
	p, _ := paperLinReg(b, 10)
	mt, err := NewMetropolisTheta(p, []float64{0.1, 0.1, 0.1}, 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	rec := testRecords(r, 100)
	theta := []float64{-1.8, -2.9, -0.7}
	b.ReportAllocs()
	for b.Loop() {
		if err := mt.SampleTheta(r, rec, 100, theta); err != nil {
			b.Fatal(err)
		}
	}
}
