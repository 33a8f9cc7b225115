package mcmc

import (
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// benchChain returns a chain on the paper's ε = 10 linear regression with
// n records.
func benchChain(b *testing.B, k RecordStep, n int) (*DAChain, *rand.Rand) {
	p, th := linRegProblem(b, n, 10)
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

// BenchmarkSweep times one DA iteration (n attempts and the θ-step) at
// n = 100 for SOMA and both IMwG scans, and reports it per sweep in wall
// and process CPU time (cpu-ns/sweep, the figure to quote on a loaded
// machine). A SOMA sweep evaluates n² record weights against IMwG's n
// (see "The cost of a SOMA sweep" in the package documentation).
func BenchmarkSweep(b *testing.B) {
	for _, k := range []RecordStep{SOMA, SystematicScanIMwG, RandomScanIMwG} {
		b.Run(k.String(), func(b *testing.B) {
			c, r := benchChain(b, k, 100)
			for range 20 {
				_ = c.Sweep(r)
			}
			b.ReportAllocs()
			cpu0, ok := testutil.ProcessCPU()
			for b.Loop() {
				if err := c.Sweep(r); err != nil {
					b.Fatal(err)
				}
			}
			cpu1, _ := testutil.ProcessCPU()
			if ok {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/sweep")
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

// BenchmarkMetropolisTheta times one Metropolis θ-step move on 100
// records of the paper's linear regression.
func BenchmarkMetropolisTheta(b *testing.B) {
	p, _ := linRegProblem(b, 100, 10)
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

// BenchmarkSOMAWeights times SOMA's weight pass on the 9-dimensional
// Laplace release of the paper's ε = 10 linear regression and reports it
// per record weight: "pass" is one full SOMA attempt (a fresh record, its
// n weights, the slot choice and the acceptance) divided by n; "logw" is
// the n log weights alone. The "direct" variants evaluate every weight
// through the mechanism's LogDensity instead of the lattice path. ns/weight
// is wall time, cpu-ns/weight the process CPU time (the one to quote on a
// loaded machine).
func BenchmarkSOMAWeights(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, direct := range []bool{false, true} {
			name := "/n=" + itoa(n)
			if direct {
				name = "-direct" + name
			}
			chain := func() (*DAChain, *rand.Rand) {
				c, r := benchChain(b, SOMA, n)
				if direct {
					c.lat, c.latOK = nil, false
				}
				for range 5 {
					_ = c.Sweep(r)
				}
				return c, r
			}
			b.Run("pass"+name, func(b *testing.B) {
				c, r := chain()
				perWeight(b, n, func() {
					if err := c.Step(r); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run("logw"+name, func(b *testing.B) {
				c, r := chain()
				c.propose(r)
				perWeight(b, n, func() { c.weights() })
			})
		}
	}
}

// perWeight runs f under b.Loop and reports wall and CPU time per record
// weight, n weights per call.
func perWeight(b *testing.B, n int, f func()) {
	b.ReportAllocs()
	cpu0, ok := testutil.ProcessCPU()
	for b.Loop() {
		f()
	}
	cpu1, _ := testutil.ProcessCPU()
	w := float64(b.N) * float64(n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/w, "ns/weight")
	if ok {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/w, "cpu-ns/weight")
	}
}
