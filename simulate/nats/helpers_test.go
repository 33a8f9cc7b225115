package nats

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	natsio "github.com/nats-io/nats.go"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/nats/internal/embedded"
)

// Environment of a worker process started by spawnWorker: the test binary
// re-executed as a worker.
const (
	envWorkerURL     = "PRIVINFER_NATS_TEST_WORKER_URL"
	envWorkerAckWait = "PRIVINFER_NATS_TEST_WORKER_ACKWAIT"
	envWorkerPar     = "PRIVINFER_NATS_TEST_WORKER_PAR"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(envWorkerURL); url != "" {
		os.Exit(workerProcess(url))
	}
	os.Exit(m.Run())
}

// workerProcess is the body of a worker process: it serves the test
// registry until killed.
func workerProcess(url string) int {
	nc, err := natsio.Connect(url, natsio.MaxReconnects(-1), natsio.ReconnectWait(100*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer nc.Close()
	ack, _ := time.ParseDuration(os.Getenv(envWorkerAckWait))
	par, _ := strconv.Atoi(os.Getenv(envWorkerPar))
	fmt.Println("ready")
	if err := Serve(context.Background(), nc, testRegistry(nil), ServeOptions{Streams: Streams{AckWait: ack}, Parallelism: par}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// gauss is a test simulator: θ has dim 2, the summary has 3 entries,
// s_j = θ_j + N(0,1)·(1+j) for j < 2 and s_2 = U(0,1) + θ_0·θ_1, after an
// optional delay.
type gauss struct {
	delay time.Duration
	calls *atomic.Int64 // counts Simulate calls when not nil
	// hook, when not nil, runs before each simulation.
	hook func(theta []float64)
}

func (g *gauss) StatDim() int { return 3 }

func (g *gauss) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != 2 || len(dst) != 3 {
		return fmt.Errorf("gauss: θ length %d, dst length %d", len(theta), len(dst))
	}
	if g.hook != nil {
		g.hook(theta)
	}
	if g.calls != nil {
		g.calls.Add(1)
	}
	if g.delay > 0 {
		time.Sleep(g.delay)
	}
	dst[0] = theta[0] + r.NormFloat64()
	dst[1] = theta[1] + 2*r.NormFloat64()
	dst[2] = r.Float64() + theta[0]*theta[1]
	return nil
}

// Markers: θ_0 values on which the faulty simulators misbehave.
const (
	panicMarker = 1234.5
	nanMarker   = -999.25
	errMarker   = 777.75
)

// faulty is gauss that panics, returns NaN or an error on marked rows.
type faulty struct{ gauss }

func (f *faulty) Simulate(r *rand.Rand, theta, dst []float64) error {
	switch theta[0] {
	case panicMarker:
		panic(fmt.Sprintf("faulty: cannot simulate θ = %v", theta))
	case errMarker:
		return fmt.Errorf("faulty: θ = %v is outside the model: %w", theta, simulate.ErrInvalidTheta)
	}
	if err := f.gauss.Simulate(r, theta, dst); err != nil {
		return err
	}
	if theta[0] == nanMarker {
		dst[1] = math.NaN()
	}
	return nil
}

// testRegistry returns the registry every test worker serves; calls, when
// not nil, counts the simulations of "gauss".
func testRegistry(calls *atomic.Int64) *Registry {
	var reg Registry
	must(reg.Register("gauss", &gauss{calls: calls}))
	must(reg.Register("gauss-5ms", &gauss{delay: 5 * time.Millisecond, calls: calls}))
	must(reg.Register("faulty", &faulty{}))
	for name, d := range spinDelays {
		must(reg.Register(name, spin{d}))
	}
	for name, d := range sleepDelays {
		must(reg.Register(name, sleeper{d}))
	}
	return &reg
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// startServer starts an embedded server with JetStream storage in dir
// (a fresh temporary directory when empty) and stops it at cleanup.
func startServer(t testing.TB, o embedded.Options) *server.Server {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	s, err := embedded.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// connect opens a connection that reconnects forever, closed at cleanup.
func connect(t testing.TB, url string) *natsio.Conn {
	t.Helper()
	nc, err := natsio.Connect(url, natsio.MaxReconnects(-1), natsio.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// goWorker runs Serve in a goroutine on its own connection; stop ends it
// and waits. The connection is returned so a test can close it.
type goWorker struct {
	nc     *natsio.Conn
	cancel context.CancelFunc
	done   chan error
}

func startWorker(t testing.TB, url string, reg *Registry, opt ServeOptions) *goWorker {
	t.Helper()
	nc := connect(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	w := &goWorker{nc: nc, cancel: cancel, done: make(chan error, 1)}
	go func() { w.done <- Serve(ctx, nc, reg, opt) }()
	t.Cleanup(w.stop)
	return w
}

func (w *goWorker) stop() {
	w.cancel()
	<-w.done
	w.done <- nil
}

// spawnWorker starts the test binary as a worker process on url and
// waits until it is serving; it is killed at cleanup.
func spawnWorker(t testing.TB, url string, ackWait time.Duration, par int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envWorkerURL+"="+url, envWorkerAckWait+"="+ackWait.String(), envWorkerPar+"="+strconv.Itoa(par))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || string(buf) != "ready\n" {
		t.Fatalf("worker process did not start: %q %v", buf, err)
	}
	return cmd
}

// newExecutor returns an executor on its own connection, closed at
// cleanup.
func newExecutor(t testing.TB, url string, cfg Config) *Executor {
	t.Helper()
	nc := connect(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := New(ctx, nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// testBlock returns a block of n rows of dim-2 parameters from seed.
func testBlock(n int, seed, first uint64) simulate.Block {
	r := rand.New(rand.NewPCG(seed, 99))
	th := make([]float64, 2*n)
	for i := range th {
		th[i] = r.NormFloat64()
	}
	return simulate.Block{Seed: seed, First: first, Dim: 2, Theta: th, Stats: make([]float64, 3*n)}
}

// localStats simulates b in this process, row by row, as the in-process
// executor does.
func localStats(t testing.TB, sim simulate.Simulator, b simulate.Block) []float64 {
	t.Helper()
	sd := sim.StatDim()
	n := len(b.Theta) / b.Dim
	out := make([]float64, n*sd)
	for k := range n {
		idx := b.First + uint64(k)
		if err := sim.Simulate(simulate.Stream(b.Seed, idx), b.Theta[k*b.Dim:(k+1)*b.Dim], out[k*sd:(k+1)*sd]); err != nil {
			t.Fatalf("row %d: %v", idx, err)
		}
	}
	return out
}

// sameBits reports the first index where a and b differ in bits, or -1.
func sameBits(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// execute runs e.Execute with a deadline, failing the test if it hangs.
func execute(t testing.TB, e *Executor, sim simulate.Simulator, b simulate.Block, limit time.Duration) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	err := e.Execute(ctx, sim, b)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Execute hung for %v", limit)
	}
	return err
}

// embeddedOpts is the default embedded server.
func embeddedOpts() embedded.Options { return embedded.Options{} }

// spin is a CPU-bound simulator that computes for d per call, as a real
// simulator does (a sleeping one would not compete for cores).
type spin struct{ d time.Duration }

// spinDelays are the spin simulators every test worker registers.
var spinDelays = map[string]time.Duration{"noop": 0, "spin-1us": time.Microsecond, "spin-1ms": time.Millisecond, "spin-100ms": 100 * time.Millisecond}

func (spin) StatDim() int { return 1 }

func (s spin) Simulate(r *rand.Rand, theta, dst []float64) error {
	start := time.Now()
	x := r.Float64()
	for time.Since(start) < s.d {
		x = x*1.0000001 + 1e-9
	}
	dst[0] = x + theta[0]
	return nil
}

// sleeper is a simulator that waits d per call without using a core: it
// stands for a simulator running on a machine of its own.
type sleeper struct{ d time.Duration }

// sleepDelays are the sleeping simulators every test worker registers.
var sleepDelays = map[string]time.Duration{"sleep-1ms": time.Millisecond, "sleep-100ms": 100 * time.Millisecond}

func (sleeper) StatDim() int { return 1 }

func (s sleeper) Simulate(r *rand.Rand, theta, dst []float64) error {
	time.Sleep(s.d)
	dst[0] = r.Float64() + theta[0]
	return nil
}
