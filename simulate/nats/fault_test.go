package nats

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	natsio "github.com/nats-io/nats.go"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/nats/internal/embedded"
)

// serveOn runs Serve on nc in a goroutine until cleanup.
func serveOn(t testing.TB, nc *natsio.Conn, reg *Registry, opt ServeOptions) chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, nc, reg, opt) }()
	t.Cleanup(func() { cancel(); <-done })
	return done
}

// TestWorkerConnectionClosedMidBlock closes a worker's connection while it
// simulates a block: the server redelivers the block after AckWait (the
// executor's own resending is off) and the run completes with the
// in-process bits, every row merged exactly once.
func TestWorkerConnectionClosedMidBlock(t *testing.T) {
	s := startServer(t, embeddedOpts())
	url := s.ClientURL()
	streams := Streams{AckWait: 500 * time.Millisecond}
	var survivorCalls, victimCalls atomic.Int64

	// The victim serves alone until it dies in the middle of its first
	// block; then the survivor starts.
	victim := connect(t, url)
	var closeOnce sync.Once
	var vreg Registry
	must(vreg.Register("gauss", &gauss{calls: &victimCalls, delay: 2 * time.Millisecond, hook: func([]float64) {
		if victimCalls.Load() == 3 {
			closeOnce.Do(victim.Close)
		}
	}}))
	done := serveOn(t, victim, &vreg, ServeOptions{Streams: streams, Parallelism: 1})

	e := newExecutor(t, url, Config{Streams: streams, Name: "gauss", BlockRows: 8, Resend: -1, SkipCheck: true})
	sim := &gauss{}
	const n = 200
	b := testBlock(n, 5, 0)
	errc := make(chan error, 1)
	go func() { errc <- execute(t, e, sim, b, 30*time.Second) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrConnClosed) {
			t.Fatalf("victim's Serve returned %v, want ErrConnClosed", err)
		}
		done <- nil
	case err := <-errc:
		t.Fatalf("the run ended (%v) before the victim died", err)
	}
	startWorker(t, url, testRegistry(&survivorCalls), ServeOptions{Streams: streams, Parallelism: 1})
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if i := sameBits(b.Stats, localStats(t, sim, b)); i >= 0 {
		t.Fatalf("summary %d differs from the in-process one", i)
	}
	st := e.Stats()
	if st.Rows != n || st.Blocks != n/8 || st.Resent != 0 {
		t.Fatalf("stats %+v, want %d rows in %d blocks, none resent", st, n, n/8)
	}
	// The victim delivered nothing: the survivor simulated every row,
	// including those of the block the victim held, redelivered.
	if v, s := victimCalls.Load(), survivorCalls.Load(); v < 3 || s < n {
		t.Fatalf("victim simulated %d rows, survivor %d, want the survivor to simulate all %d", v, s, n)
	}
}

// TestWorkerProcessKilled kills a worker process with SIGKILL in the middle
// of a round; the other process takes over its block after AckWait and
// the run completes with the in-process bits.
func TestWorkerProcessKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	s := startServer(t, embeddedOpts())
	url := s.ClientURL()
	ack := 500 * time.Millisecond
	victim := spawnWorker(t, url, ack, 1)
	spawnWorker(t, url, ack, 1)
	const n = 240
	var killed atomic.Bool
	e := newExecutor(t, url, Config{Streams: Streams{AckWait: ack}, Name: "gauss-5ms", BlockRows: 4, Resend: -1,
		ProgressEvery: time.Millisecond, Progress: func(p privinfer.Progress) {
			if p.Step >= n/4 && !killed.Swap(true) {
				_ = victim.Process.Signal(syscall.SIGKILL)
			}
		}})
	sim := &gauss{delay: 5 * time.Millisecond}
	b := testBlock(n, 11, 1<<40)
	if err := execute(t, e, sim, b, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	if !killed.Load() {
		t.Fatal("the worker was not killed")
	}
	if err := victim.Wait(); err == nil {
		t.Fatal("the victim exited normally")
	}
	if i := sameBits(b.Stats, localStats(t, sim, b)); i >= 0 {
		t.Fatalf("summary %d differs from the in-process one", i)
	}
	if st := e.Stats(); st.Rows != n || st.Blocks != n/4 || st.Resent != 0 {
		t.Fatalf("stats %+v, want %d rows in %d blocks, none resent", st, n, n/4)
	}
}

// TestServerRestart shuts the server down in the middle of a run and
// starts it again on the same port and file store: the run resumes and
// completes with the in-process bits.
func TestServerRestart(t *testing.T) {
	dir := t.TempDir()
	s1, err := embedded.Start(embedded.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	url := s1.ClientURL()
	t.Cleanup(func() { s1.Shutdown() })
	reg := testRegistry(nil)
	w1 := startWorker(t, url, reg, ServeOptions{Parallelism: 1})
	w2 := startWorker(t, url, reg, ServeOptions{Parallelism: 1})
	const n = 240
	half := make(chan struct{})
	var once sync.Once
	e := newExecutor(t, url, Config{Name: "gauss-5ms", BlockRows: 4, ProgressEvery: time.Millisecond,
		Progress: func(p privinfer.Progress) {
			if p.Step >= n/3 {
				once.Do(func() { close(half) })
			}
		}})
	sim := &gauss{delay: 5 * time.Millisecond}
	b := testBlock(n, 3, 0)
	errc := make(chan error, 1)
	go func() { errc <- execute(t, e, sim, b, 60*time.Second) }()
	select {
	case <-half:
	case err := <-errc:
		t.Fatalf("run ended before the restart: %v", err)
	}
	s1.Shutdown()
	s1.WaitForShutdown()
	time.Sleep(200 * time.Millisecond)
	s2 := startServer(t, embedded.Options{Dir: dir, Port: tcpPort(t, url)})
	if s2.ClientURL() != url {
		t.Fatalf("restarted on %s, want %s", s2.ClientURL(), url)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if i := sameBits(b.Stats, localStats(t, sim, b)); i >= 0 {
		t.Fatalf("summary %d differs from the in-process one", i)
	}
	if st := e.Stats(); st.Rows != n || st.Blocks != n/4 {
		t.Fatalf("stats %+v, want %d rows in %d blocks", st, n, n/4)
	}
	t.Logf("stats after the restart: %+v", e.Stats())
	// Stop the clients before the server (cleanups run in reverse).
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	w1.stop()
	w2.stop()
}

// TestSlowWorkerCannotHoldRound gives one worker a simulator that stalls
// on its first block: once every block is out, the executor resends the
// stalled block to the other worker and the run completes.
func TestSlowWorkerCannotHoldRound(t *testing.T) {
	s := startServer(t, embeddedOpts())
	url := s.ClientURL()
	startWorker(t, url, testRegistry(nil), ServeOptions{Parallelism: 1})
	release := make(chan struct{})
	var stalled atomic.Bool
	var sreg Registry
	must(sreg.Register("gauss", &gauss{hook: func([]float64) {
		if !stalled.Swap(true) {
			<-release // a worker that takes forever on one row
		}
	}}))
	startWorker(t, url, &sreg, ServeOptions{Parallelism: 1})
	t.Cleanup(func() { close(release) })
	e := newExecutor(t, url, Config{Name: "gauss", BlockRows: 4, Resend: 300 * time.Millisecond, SkipCheck: true})
	sim := &gauss{}
	const n = 80
	b := testBlock(n, 8, 0)
	if err := execute(t, e, sim, b, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if !stalled.Load() {
		t.Skip("the stalling worker received no block")
	}
	if i := sameBits(b.Stats, localStats(t, sim, b)); i >= 0 {
		t.Fatalf("summary %d differs from the in-process one", i)
	}
	if st := e.Stats(); st.Rows != n || st.Resent < 1 {
		t.Fatalf("stats %+v, want %d rows and a resent block", st, n)
	}
}

// TestHeartbeatsKeepLongBlocks runs blocks that take several AckWaits:
// the worker's heartbeats keep the server from redelivering them, so each
// row is simulated exactly once.
func TestHeartbeatsKeepLongBlocks(t *testing.T) {
	s := startServer(t, embeddedOpts())
	streams := Streams{AckWait: time.Second}
	var calls atomic.Int64
	startWorker(t, s.ClientURL(), testRegistry(&calls), ServeOptions{Streams: streams, Parallelism: 1})
	startWorker(t, s.ClientURL(), testRegistry(&calls), ServeOptions{Streams: streams, Parallelism: 1})
	e := newExecutor(t, s.ClientURL(), Config{Streams: streams, Name: "gauss-5ms", BlockRows: 300, Resend: -1, SkipCheck: true})
	b := testBlock(600, 2, 0) // two blocks of 300 rows × 5 ms = 1.5 s = 1.5 AckWaits
	if err := execute(t, e, &gauss{}, b, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := calls.Load(); got != 600 {
		t.Fatalf("%d simulations for 600 rows: blocks were redelivered despite heartbeats", got)
	}
	if st := e.Stats(); st.Duplicates != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestCancel cancels a run in the middle: Execute returns the context's
// error promptly, the run's blocks are purged from the stream and the
// worker stops simulating them.
func TestCancel(t *testing.T) {
	s := startServer(t, embeddedOpts())
	var calls atomic.Int64
	startWorker(t, s.ClientURL(), testRegistry(&calls), ServeOptions{Parallelism: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := newExecutor(t, s.ClientURL(), Config{Name: "gauss-5ms", BlockRows: 8, MaxInFlight: 64, SkipCheck: true,
		ProgressEvery: time.Millisecond, Progress: func(p privinfer.Progress) {
			if p.Step > 0 {
				cancel()
			}
		}})
	b := testBlock(800, 4, 0)
	start := time.Now()
	err := e.Execute(ctx, &gauss{}, b)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute returned %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Execute took %v after cancellation", d)
	}
	// The worker may finish the rows it holds; then its count must stay
	// put. It is sampled every 300 ms until two samples agree (a slow
	// machine may need more than one interval for the worker to notice),
	// for at most 20 s: a worker that went on simulating would reach all
	// 800 rows (4 s of simulation) long before.
	before, after := calls.Load(), int64(-1)
	for deadline := time.Now().Add(20 * time.Second); ; before = after {
		time.Sleep(300 * time.Millisecond)
		if after = calls.Load(); after == before || time.Now().After(deadline) {
			break
		}
	}
	if after != before || after >= 800 {
		t.Fatalf("the worker went on simulating the cancelled run: %d then %d rows", before, after)
	}
	info, err := e.work.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 0 {
		t.Fatalf("%d blocks left in the work stream", info.State.Msgs)
	}
}

// tcpPort returns the port of a nats://host:port URL.
func tcpPort(t testing.TB, url string) int {
	t.Helper()
	var host string
	var port int
	for i := len(url) - 1; i >= 0; i-- {
		if url[i] == ':' {
			host = url[:i]
			for _, c := range url[i+1:] {
				port = port*10 + int(c-'0')
			}
			break
		}
	}
	if host == "" || port == 0 {
		t.Fatalf("no port in %q", url)
	}
	return port
}

var _ simulate.Executor = (*Executor)(nil)
