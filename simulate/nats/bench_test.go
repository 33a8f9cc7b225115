package nats

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/privinfer/privinfer/simulate"
)

// BenchmarkExecutor measures the cost of one block through the server
// with a simulator that does nothing: one row per block, one worker in
// this process. With MaxInFlight 1 an op is a block's round trip (publish,
// delivery, result, acknowledgements); with 32 blocks in flight it is the
// pipelined cost per block. BenchmarkInProcess is the same block without
// the server.
func BenchmarkExecutor(b *testing.B) {
	s := startServer(b, embeddedOpts())
	for _, c := range []struct{ inflight, conc int }{{1, 1}, {32, 1}, {32, 2}, {32, 4}} {
		inflight := c.inflight
		b.Run(fmt.Sprintf("inflight=%d/concurrency=%d", c.inflight, c.conc), func(b *testing.B) {
			prefix := fmt.Sprintf("bench%d-%d", c.inflight, c.conc)
			reg := testRegistry(nil)
			startWorker(b, s.ClientURL(), reg, ServeOptions{Streams: Streams{Prefix: prefix}, Parallelism: 1, Concurrency: c.conc})
			e := newExecutor(b, s.ClientURL(), Config{Streams: Streams{Prefix: prefix}, Name: "noop", BlockRows: 1, MaxInFlight: inflight, SkipCheck: true})
			sim := spin{}
			const per = 256
			blk := simulate.Block{Seed: 1, Dim: 1, Theta: make([]float64, per), Stats: make([]float64, per)}
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; done += per {
				n := min(per, b.N-done)
				if err := e.Execute(context.Background(), sim, simulate.Block{Seed: 1, First: uint64(done), Dim: 1, Theta: blk.Theta[:n], Stats: blk.Stats[:n]}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInProcess is BenchmarkExecutor's block run by
// simulate.InProcess.
func BenchmarkInProcess(b *testing.B) {
	blk := simulate.Block{Seed: 1, Dim: 1, Theta: make([]float64, 1), Stats: make([]float64, 1)}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		blk.First = uint64(i)
		if err := (simulate.InProcess{}).Execute(context.Background(), spin{}, blk); err != nil {
			b.Fatal(err)
		}
	}
}

// TestThroughputTable measures simulations per second in process and
// with 1, 2 and 4 worker processes (Parallelism 1 each) on this machine,
// for simulators of 1 µs (CPU-bound), 1 ms and 100 ms per call (sleeping,
// so that each worker process stands for a machine of its own rather than
// competing for this machine's cores), and the overhead per block: the
// worker time not spent simulating. A no-op simulator in blocks of one row
// measures the most blocks per second the server and the executor pass.
// With PRIVINFER_LONG=1 only (about a minute and a half).
func TestThroughputTable(t *testing.T) {
	if os.Getenv("PRIVINFER_LONG") != "1" {
		t.Skip("set PRIVINFER_LONG=1 to measure throughput")
	}
	type load struct {
		name  string
		sim   simulate.Simulator
		d     time.Duration
		rows  int
		block int
	}
	loads := []load{
		{"noop", spin{}, 0, 4000, 1},
		{"spin-1us", spin{time.Microsecond}, time.Microsecond, 200000, 1024},
		{"sleep-1ms", sleeper{time.Millisecond}, time.Millisecond, 4000, 64},
		{"sleep-100ms", sleeper{100 * time.Millisecond}, 100 * time.Millisecond, 120, 2},
	}
	block := func(n int, seed uint64) simulate.Block {
		return simulate.Block{Seed: seed, Dim: 1, Theta: make([]float64, n), Stats: make([]float64, n)}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "GOMAXPROCS %d, %d CPUs\n", runtime.GOMAXPROCS(0), runtime.NumCPU())
	inproc := map[string]float64{}
	for _, l := range loads {
		b := block(l.rows, 1)
		start := time.Now()
		if err := (simulate.InProcess{}).Execute(context.Background(), l.sim, b); err != nil {
			t.Fatal(err)
		}
		inproc[l.name] = float64(l.rows) / time.Since(start).Seconds()
		fmt.Fprintf(&out, "in-process %-11s %10.0f sims/s\n", l.name, inproc[l.name])
	}
	fmt.Fprintf(&out, "%-11s %-7s %-6s %12s %10s %12s %14s\n", "simulator", "workers", "block", "sims/s", "vs inproc", "blocks/s", "overhead/block")
	for _, w := range []int{1, 2, 4} {
		s := startServer(t, embeddedOpts())
		for range w {
			spawnWorker(t, s.ClientURL(), 30*time.Second, 1)
		}
		for _, l := range loads {
			e := newExecutor(t, s.ClientURL(), Config{Name: l.name, BlockRows: l.block, MaxInFlight: 4 * w, SkipCheck: true})
			// Warm up: every worker connected and pulling.
			if err := execute(t, e, l.sim, block(4*w*l.block, 2), time.Minute); err != nil {
				t.Fatal(err)
			}
			b := block(l.rows, 1)
			start := time.Now()
			if err := execute(t, e, l.sim, b, 10*time.Minute); err != nil {
				t.Fatal(err)
			}
			wall := time.Since(start)
			rate := float64(l.rows) / wall.Seconds()
			blocks := float64((l.rows + l.block - 1) / l.block)
			// Worker time not spent simulating, per block (a spinning
			// worker has at most a core of its own).
			slots := float64(w)
			if _, ok := l.sim.(spin); ok {
				slots = float64(min(w, runtime.NumCPU()))
			}
			over := (slots*wall.Seconds() - float64(l.rows)*l.d.Seconds()) / blocks
			fmt.Fprintf(&out, "%-11s %-7d %-6d %12.0f %9.2fx %12.0f %12.3fms\n", l.name, w, l.block, rate, rate/inproc[l.name], blocks/wall.Seconds(), 1e3*over)
		}
	}
	t.Log("\n" + out.String())
}
