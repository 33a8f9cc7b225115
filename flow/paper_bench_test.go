package flow

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// denseMACs returns the multiply-adds per row of the dense layers of the
// conditioners of a flow with configuration c: forward (one evaluation of
// every conditioner) and backward (weight gradients plus the input
// gradients back-propagation needs: none for the context gates, only the
// untouched coordinates for the first layer).
func denseMACs(c Config) (fwd, bwd int) {
	P := 3*c.Bins - 1
	H := c.Hidden
	for l := 0; l < c.Layers; l++ {
		nt := 0
		for d := 0; d < c.Dim; d++ {
			if c.Dim == 1 || d%2 == l%2 {
				nt++
			}
		}
		ni := c.Dim - nt
		f := (ni+c.ContextDim)*H + c.Blocks*2*H*H + H*nt*P
		dx := ni*H + c.Blocks*2*H*H + H*nt*P
		if c.ContextGating && c.ContextDim > 0 {
			f += c.Blocks * c.ContextDim * H
		}
		fwd += f
		bwd += f + dx
	}
	return fwd, bwd
}

// BenchmarkPaperFlow measures the SBI paper's flow (8 coupling layers, 2
// residual blocks of 50 units, context gating, LU, 10 bins; dim 2,
// context 10): one AdamW step on a batch, LogDensityBatch and Sample, at
// 1,600 and 16,000 rows. It reports wall ns/row, CPU ns/row and the
// dense-layer arithmetic rate per core (2 flops per multiply-add of
// denseMACs, divided by CPU time). The step is timed twice: with float64
// products and with TrainConfig.Float32 (step-f32).
func BenchmarkPaperFlow(b *testing.B) {
	cfg := DefaultConfig(2, 10)
	fwd, bwd := denseMACs(cfg)
	for _, n := range []int{1600, 16000} {
		r := rand.New(rand.NewPCG(1, 2))
		f, err := New(cfg, r)
		if err != nil {
			b.Fatal(err)
		}
		y, z := randData(r, n, 2, 1), randData(r, n, 10, 1)
		if err := f.SetStandardization(y, z, n); err != nil {
			b.Fatal(err)
		}
		report := func(b *testing.B, c0 int64, macs int) {
			cpu := float64(cpuTime().Nanoseconds() - c0)
			rows := float64(n) * float64(b.N)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rows, "ns/row")
			b.ReportMetric(cpu/rows, "cpu-ns/row")
			b.ReportMetric(2*float64(macs)*rows/cpu, "GFLOP/s/core")
		}
		for _, f32 := range []bool{false, true} {
			name := "step"
			if f32 {
				name = "step-f32"
			}
			b.Run(fmt.Sprintf("%s/rows=%d", name, n), func(b *testing.B) {
				tc := DefaultTrainConfig()
				tc.BatchSize, tc.Float32 = n, f32
				tr, err := newTrainer(f.Clone(), tc)
				if err != nil {
					b.Fatal(err)
				}
				defer tr.Close()
				if _, err := tr.Step(y, z, n); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				c0 := cpuTime().Nanoseconds()
				for b.Loop() {
					if _, err := tr.Step(y, z, n); err != nil {
						b.Fatal(err)
					}
				}
				report(b, c0, fwd+bwd)
			})
		}
		b.Run(fmt.Sprintf("logprob/rows=%d", n), func(b *testing.B) {
			dst := make([]float64, n)
			if err := f.LogDensityBatch(y, z, n, dst); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime().Nanoseconds()
			for b.Loop() {
				if err := f.LogDensityBatch(y, z, n, dst); err != nil {
					b.Fatal(err)
				}
			}
			report(b, c0, fwd)
		})
		b.Run(fmt.Sprintf("sample/rows=%d", n), func(b *testing.B) {
			dst := make([]float64, n*2)
			if err := f.Sample(r, z[:10], n, dst); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime().Nanoseconds()
			for b.Loop() {
				if err := f.Sample(r, z[:10], n, dst); err != nil {
					b.Fatal(err)
				}
			}
			report(b, c0, fwd)
		})
	}
}

// BenchmarkAtomicStep compares one StepLoss on 16,000 rows whose contexts
// come in groups of 10 identical rows (the atomic loss of SPPE with 10
// atoms) with StepLossShared on the same batch, which computes each
// context's contribution once per group, and StepGroupLoss, which also
// evaluates the batch forward once instead of twice; grouped-f32 is
// grouped with TrainConfig.Float32.
func BenchmarkAtomicStep(b *testing.B) {
	cfg := DefaultConfig(2, 10)
	const n, na = 16000, 10
	r := rand.New(rand.NewPCG(3, 4))
	f, err := New(cfg, r)
	if err != nil {
		b.Fatal(err)
	}
	y, zg := randData(r, n, 2, 1), randData(r, n/na, 10, 1)
	z := make([]float64, n*10)
	for i := 0; i < n; i++ {
		copy(z[i*10:(i+1)*10], zg[(i/na)*10:(i/na+1)*10])
	}
	loss := func(logq, dlogq []float64) float64 {
		s := 0.0
		for i, v := range logq {
			s -= v
			dlogq[i] = -1 / float64(n)
		}
		return s / float64(n)
	}
	part := func(lo int, logq, dlogq []float64) float64 { return loss(logq, dlogq) }
	for _, mode := range []string{"expanded", "shared", "grouped", "grouped-f32"} {
		b.Run(mode, func(b *testing.B) {
			tc := DefaultTrainConfig()
			tc.BatchSize, tc.Float32 = 100, mode == "grouped-f32"
			tr, err := newTrainer(f.Clone(), tc)
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			step := func() {
				var err error
				switch mode {
				case "expanded":
					_, err = tr.StepLoss(y, z, n, loss)
				case "shared":
					_, err = tr.StepLossShared(y, zg, n, na, loss)
				default:
					_, err = tr.StepGroupLoss(y, zg, n, na, part)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			step()
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime().Nanoseconds()
			for b.Loop() {
				step()
			}
			b.ReportMetric(float64(cpuTime().Nanoseconds()-c0)/float64(n*b.N), "cpu-ns/row")
		})
	}
}
