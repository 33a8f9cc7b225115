package nats

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/simulate"
)

// TestExecuteMatchesLocal checks that summaries simulated by 1 and 3
// workers, in blocks of 1, 7 and 64 rows, have the bits of the in-process
// row-by-row simulation, and that every row is merged exactly once.
func TestExecuteMatchesLocal(t *testing.T) {
	s := startServer(t, embeddedOpts())
	url := s.ClientURL()
	var calls atomic.Int64
	reg := testRegistry(&calls)
	sim, _ := reg.Lookup("gauss")
	for _, workers := range []int{1, 3} {
		for _, rows := range []int{1, 7, 64} {
			t.Run(fmt.Sprintf("workers=%d/block=%d", workers, rows), func(t *testing.T) {
				prefix := fmt.Sprintf("w%db%d", workers, rows)
				for range workers {
					startWorker(t, url, reg, ServeOptions{Streams: Streams{Prefix: prefix}, Parallelism: 2})
				}
				e := newExecutor(t, url, Config{Streams: Streams{Prefix: prefix}, Registry: reg, BlockRows: rows, MaxInFlight: 8, Resend: -1})
				calls.Store(0)
				const n = 150
				b := testBlock(n, 42, 1000)
				if err := execute(t, e, sim, b, 30*time.Second); err != nil {
					t.Fatal(err)
				}
				remote := calls.Load()
				if i := sameBits(b.Stats, localStats(t, sim, b)); i >= 0 {
					t.Fatalf("summary %d differs from the in-process one", i)
				}
				st := e.Stats()
				nb := int64((n + rows - 1) / rows)
				if st.Rows != n || st.Blocks != nb || st.Duplicates != 0 {
					t.Fatalf("stats %+v, want %d rows in %d blocks, no duplicates", st, n, nb)
				}
				// The workers simulated every row once, plus the check's
				// local first row.
				if got := remote; got != n+1 {
					t.Fatalf("%d simulations, want %d", got, n+1)
				}
			})
		}
	}
}

// TestExecuteProgress checks the progress events of a call: Stage
// "simulate", Step non-decreasing, the last one Step == Total == rows.
func TestExecuteProgress(t *testing.T) {
	s := startServer(t, embeddedOpts())
	reg := testRegistry(nil)
	startWorker(t, s.ClientURL(), reg, ServeOptions{})
	var evs []privinfer.Progress
	e := newExecutor(t, s.ClientURL(), Config{Registry: reg, BlockRows: 4, ProgressEvery: time.Millisecond,
		Progress: func(p privinfer.Progress) { evs = append(evs, p) }})
	sim, _ := reg.Lookup("gauss-5ms")
	b := testBlock(40, 1, 0)
	if err := execute(t, e, sim, b, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if len(evs) < 2 {
		t.Fatalf("%d progress events, want at least 2", len(evs))
	}
	for i, p := range evs {
		if p.Stage != "simulate" || p.Total != 40 || (i > 0 && p.Step < evs[i-1].Step) {
			t.Fatalf("event %d: %+v", i, p)
		}
	}
	if last := evs[len(evs)-1]; last.Step != 40 {
		t.Fatalf("last event %+v, want Step 40", last)
	}
}

// TestExecuteEmptyAndRepeated checks an empty block and several calls on
// one executor with overlapping row indices.
func TestExecuteEmptyAndRepeated(t *testing.T) {
	s := startServer(t, embeddedOpts())
	reg := testRegistry(nil)
	startWorker(t, s.ClientURL(), reg, ServeOptions{})
	e := newExecutor(t, s.ClientURL(), Config{Name: "gauss", BlockRows: 5})
	sim, _ := reg.Lookup("gauss")
	if err := execute(t, e, sim, simulate.Block{Seed: 1, Dim: 2}, 5*time.Second); err != nil {
		t.Fatalf("empty block: %v", err)
	}
	for call := range 3 {
		b := testBlock(23, uint64(call), 7)
		if err := execute(t, e, sim, b, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		if i := sameBits(b.Stats, localStats(t, sim, b)); i >= 0 {
			t.Fatalf("call %d: summary %d differs", call, i)
		}
	}
	if st := e.Stats(); st.Calls != 3 || st.Rows != 69 {
		t.Fatalf("stats %+v", st)
	}
}

// errorsAs is errors.As returning the target.
func errorsAs[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}
