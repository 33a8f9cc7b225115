package flow

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/privinfer/privinfer/flow/ad"
)

// cpuTime returns the process's user+system CPU time. Benchmarks report
// it per operation ("cpu-ns/op") next to wall time, because wall time on a
// shared machine includes waiting for the CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTrainStep measures one optimiser step (forward, backward, AdamW)
// on a batch of 100 with the default architecture, with one worker per
// core: run with -cpu 1,2 to compare core counts.
func BenchmarkTrainStep(b *testing.B) {
	for _, sh := range [][2]int{{2, 10}, {3, 9}} {
		b.Run(fmt.Sprintf("dim%d-ctx%d", sh[0], sh[1]), func(b *testing.B) {
			benchTrainStep(b, DefaultConfig(sh[0], sh[1]))
		})
	}
}

// benchTrainStep times Trainer.Step with the default training settings on
// a batch of 100 random pairs for a flow built from cfg (PCG seed 1, 2),
// after one untimed warm-up step, and reports CPU time per step beside
// wall time.
func benchTrainStep(b *testing.B, cfg Config) {
	r := rand.New(rand.NewPCG(1, 2))
	f, err := New(cfg, r)
	if err != nil {
		b.Fatal(err)
	}
	n := 100
	y, z := randData(r, n, cfg.Dim, 1), randData(r, n, cfg.ContextDim, 1)
	tr, err := newTrainer(f, DefaultTrainConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.Step(y, z, n); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for b.Loop() {
		if _, err := tr.Step(y, z, n); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkTrainStepEmbedding is BenchmarkTrainStep for a 2-dimensional
// flow whose 100-dimensional context passes through an embedding network
// (an MLP 100→64→64→8 or a CNN with two stride-2 convolutions, 8 and 16
// filters of width 5, then 64 hidden units and 8 outputs), beside the
// same flow on the raw context.
func BenchmarkTrainStepEmbedding(b *testing.B) {
	mlp := ad.Net{In: 100, Hidden: []int{64, 64}, Out: 8}
	cnn := ad.Net{In: 100, Conv: []ad.ConvLayer{{Filters: 8, Kernel: 5, Stride: 2, Pad: 2}, {Filters: 16, Kernel: 5, Stride: 2, Pad: 2}}, Hidden: []int{64}, Out: 8}
	for _, c := range []struct {
		name string
		emb  *ad.Net
	}{{"raw", nil}, {"mlp", &mlp}, {"cnn", &cnn}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := DefaultConfig(2, 100)
			cfg.Embedding = c.emb
			benchTrainStep(b, cfg)
		})
	}
}

// BenchmarkLogDensity reports the throughput of LogDensityBatch (default
// architecture, batches of 1000) in samples per second.
func BenchmarkLogDensity(b *testing.B) {
	for _, sh := range [][2]int{{2, 10}, {3, 9}} {
		b.Run(fmt.Sprintf("dim%d-ctx%d", sh[0], sh[1]), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			f, _ := New(DefaultConfig(sh[0], sh[1]), r)
			n := 1000
			y, z := randData(r, n, sh[0], 1), randData(r, n, sh[1], 1)
			dst := make([]float64, n)
			f.LogDensityBatch(y, z, n, dst)
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for b.Loop() {
				if err := f.LogDensityBatch(y, z, n, dst); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "samples/s")
			b.ReportMetric(float64(n*b.N)/(cpuTime()-c0).Seconds(), "samples/cpu-s")
		})
	}
}

// BenchmarkSample reports the throughput of Sample (default architecture,
// 1000 draws per call) in samples per second.
func BenchmarkSample(b *testing.B) {
	for _, sh := range [][2]int{{2, 10}, {3, 9}} {
		b.Run(fmt.Sprintf("dim%d-ctx%d", sh[0], sh[1]), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			f, _ := New(DefaultConfig(sh[0], sh[1]), r)
			n := 1000
			z := randData(r, 1, sh[1], 1)
			dst := make([]float64, n*sh[0])
			f.Sample(r, z, n, dst)
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for b.Loop() {
				if err := f.Sample(r, z, n, dst); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "samples/s")
			b.ReportMetric(float64(n*b.N)/(cpuTime()-c0).Seconds(), "samples/cpu-s")
		})
	}
}

// BenchmarkLUBackward times the LU layer's backward loop over a 64-row
// chunk for any dimension (luBackCols, which SPLE's flows of the
// summaries' dimension use) against the first general loop.
func BenchmarkLUBackward(b *testing.B) {
	for _, D := range []int{3, 9, 10} {
		r := rand.New(rand.NewPCG(1, 2))
		const n = 64
		W, x, g := randData(r, D, D, 1), randData(r, n, D, 1), randData(r, n, D, 1)
		gW, gb, gc := make([]float64, D*D), make([]float64, D), make([]float64, n*D)
		// Each pass replaces its gradient rows: start every pass from g.
		b.Run(fmt.Sprintf("D=%d/first", D), func(b *testing.B) {
			tmp := make([]float64, D)
			b.ReportAllocs()
			for b.Loop() {
				copy(gc, g)
				luBackRowsAny(D, n, W, x, gc, gW, gb, tmp)
			}
		})
		b.Run(fmt.Sprintf("D=%d/cols", D), func(b *testing.B) {
			wt, tmp := make([]float64, D*D), make([]float64, D)
			b.ReportAllocs()
			for b.Loop() {
				copy(gc, g)
				luBackCols(D, n, W, x, gc, gW, gb, wt, tmp)
			}
		})
	}
}
