package mcmc

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate/linreg"
)

func benchStep(b *testing.B, k XKernel, n int) {
	model := linreg.Paper()
	sens, _ := mechanism.LinRegSensitivity(model.P(), n)
	lap, _ := mechanism.NewLaplace(sens, 10, 9)
	sdp, _ := linreg.Release(10)
	th, _ := NewLinRegConjugate(2, 2, []float64{0, 0, 0}, []float64{1, 1, 1})
	m := &DAModel{Records: model, Theta: th, Mech: lap, SDP: sdp, N: n}
	r := rand.New(rand.NewPCG(1, 2))
	c, err := NewDAChain(m, k, r, []float64{-0.6, -2.6, 0.6})
	if err != nil {
		b.Fatal(err)
	}
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

// BenchmarkStep compares one x-kernel attempt (one fresh record offered)
// of SOMA with IMwG at n = 100 and 1000 on the paper's linear regression.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, k := range []XKernel{SOMA, RandomScanIMwG, SystematicScanIMwG} {
			b.Run(k.String()+"/n="+itoa(n), func(b *testing.B) { benchStep(b, k, n) })
		}
	}
}

// BenchmarkSweep times one DA iteration (n attempts and the θ-step) at n = 100.
func BenchmarkSweep(b *testing.B) {
	for _, k := range []XKernel{SOMA, RandomScanIMwG} {
		b.Run(k.String(), func(b *testing.B) {
			model := linreg.Paper()
			sens, _ := mechanism.LinRegSensitivity(model.P(), 100)
			lap, _ := mechanism.NewLaplace(sens, 10, 9)
			sdp, _ := linreg.Release(10)
			th, _ := NewLinRegConjugate(2, 2, []float64{0, 0, 0}, []float64{1, 1, 1})
			m := &DAModel{Records: model, Theta: th, Mech: lap, SDP: sdp, N: 100}
			r := rand.New(rand.NewPCG(1, 2))
			c, _ := NewDAChain(m, k, r, []float64{-0.6, -2.6, 0.6})
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
// SBI paper's ε = 10 linear-regression release for each x-kernel: one
// benchmark op is one run of 2 chains (each sweep = n = 100 attempts and
// the θ-step).
func BenchmarkDALinRegESS(b *testing.B) {
	for _, k := range []XKernel{SOMA, RandomScanIMwG, SystematicScanIMwG} {
		b.Run(k.String(), func(b *testing.B) {
			m := paperLinReg(b, 10)
			draws := 20000
			if k == SOMA {
				draws = 2000
			}
			b.ReportAllocs()
			ess, sweeps := 0.0, 0
			for i := range b.N {
				res, err := RunDA(context.Background(), m, k, Config{Chains: 2, Warmup: 200, Draws: draws, Seed: uint64(i), Init: farInits[:2]})
				if err != nil {
					b.Fatal(err)
				}
				e := math.Inf(1)
				for j := range 3 {
					v, _ := ESSBulk(res.Param(j))
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
