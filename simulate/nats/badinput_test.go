package nats

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	natsio "github.com/nats-io/nats.go"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/nats/internal/embedded"
)

// TestUnknownSimulator: a name the workers do not register ends the run
// with ErrUnknownSimulator, naming what they register.
func TestUnknownSimulator(t *testing.T) {
	s := startServer(t, embeddedOpts())
	startWorker(t, s.ClientURL(), testRegistry(nil), ServeOptions{ID: "w1"})
	e := newExecutor(t, s.ClientURL(), Config{Name: "sir-eps1"})
	err := execute(t, e, &gauss{}, testBlock(10, 1, 0), 10*time.Second)
	if !errors.Is(err, ErrUnknownSimulator) || !strings.Contains(err.Error(), `"sir-eps1"`) || !strings.Contains(err.Error(), "faulty, gauss") {
		t.Fatalf("got %v, want ErrUnknownSimulator naming sir-eps1 and the registered names", err)
	}
	// Through the core's Execute, the error names the executor.
	err = simulate.Execute(context.Background(), e, &gauss{}, testBlock(10, 1, 0))
	if !errors.Is(err, ErrUnknownSimulator) {
		t.Fatalf("simulate.Execute: %v", err)
	}
}

// TestRowFailures: a simulator that panics, returns NaN or returns an
// error on some rows gives a *simulate.RowError for the lowest such row,
// with the cause the in-process executor gives, for every block size.
func TestRowFailures(t *testing.T) {
	s := startServer(t, embeddedOpts())
	reg := testRegistry(nil)
	startWorker(t, s.ClientURL(), reg, ServeOptions{Parallelism: 3})
	startWorker(t, s.ClientURL(), reg, ServeOptions{Parallelism: 1})
	sim, _ := reg.Lookup("faulty")
	cases := []struct {
		name   string
		marks  map[int]float64 // row → marker
		lowest int
		check  func(error) bool
	}{
		{"panic", map[int]float64{37: panicMarker, 80: panicMarker}, 37, func(err error) bool {
			var pe *simulate.PanicError
			return errors.As(err, &pe) && strings.Contains(err.Error(), "cannot simulate")
		}},
		{"nan", map[int]float64{90: nanMarker, 41: nanMarker, 95: panicMarker}, 41, func(err error) bool {
			return errors.Is(err, simulate.ErrNonFinite)
		}},
		{"error", map[int]float64{12: errMarker, 13: panicMarker}, 12, func(err error) bool {
			return errors.Is(err, simulate.ErrInvalidTheta) && strings.Contains(err.Error(), "outside the model")
		}},
	}
	for _, bs := range []int{1, 7, 64} {
		e := newExecutor(t, s.ClientURL(), Config{Name: "faulty", BlockRows: bs, MaxInFlight: 4})
		for _, c := range cases {
			b := testBlock(100, 9, 500)
			for row, m := range c.marks {
				b.Theta[2*row] = m
			}
			inproc := testBlock(100, 9, 500)
			copy(inproc.Theta, b.Theta)
			want := simulate.InProcess{}.Execute(context.Background(), sim, inproc)
			err := execute(t, e, sim, b, 20*time.Second)
			re, ok := errorsAs[*simulate.RowError](err)
			if !ok || re.Index != 500+uint64(c.lowest) || re.Theta[0] != c.marks[c.lowest] || !c.check(err) || !errors.Is(err, ErrRemote) {
				t.Fatalf("block %d, %s: got %v, want the RowError of row %d", bs, c.name, err, 500+c.lowest)
			}
			wre, _ := errorsAs[*simulate.RowError](want)
			if wre == nil || wre.Index != re.Index || !c.check(want) {
				t.Fatalf("block %d, %s: in process %v, remote %v", bs, c.name, want, err)
			}
		}
	}
}

// TestTooLarge: a block or a result over the server's message limit is
// refused before anything is published.
func TestTooLarge(t *testing.T) {
	s := startServer(t, embedded.Options{MaxPayload: 64 << 10})
	startWorker(t, s.ClientURL(), testRegistry(nil), ServeOptions{})
	e := newExecutor(t, s.ClientURL(), Config{Name: "gauss", BlockRows: 10000})
	err := execute(t, e, &gauss{}, testBlock(20000, 1, 0), 5*time.Second)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "BlockRows must be at most") {
		t.Fatalf("got %v, want ErrTooLarge with the largest BlockRows", err)
	}
	// One row of 10⁴ parameters does not fit whatever the block size.
	e2 := newExecutor(t, s.ClientURL(), Config{Name: "wide"})
	b := simulate.Block{Dim: 10000, Theta: make([]float64, 10000), Stats: make([]float64, 3)}
	if err := execute(t, e2, &gauss{}, b, 5*time.Second); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	// The default block size shrinks to fit: 64 rows of 3 statistics do.
	e3 := newExecutor(t, s.ClientURL(), Config{Name: "gauss"})
	b3 := testBlock(500, 1, 0)
	if err := execute(t, e3, &gauss{}, b3, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if e3.Stats().Blocks != 8 {
		t.Fatalf("stats %+v, want 8 blocks of 64 rows", e3.Stats())
	}
}

// TestMismatch: workers holding another simulator under the analyst's name
// (other bits, or another StatDim) end the run with ErrMismatch.
func TestMismatch(t *testing.T) {
	s := startServer(t, embeddedOpts())
	var other Registry
	must(other.Register("gauss", &gauss{hook: func([]float64) {}, delay: 0}))
	must(other.Register("faulty", &gauss{}))
	startWorker(t, s.ClientURL(), &other, ServeOptions{})
	e := newExecutor(t, s.ClientURL(), Config{Name: "gauss"})
	// The analyst's simulator: gauss with another seed use (shifted θ).
	err := execute(t, e, shifted{}, testBlock(10, 1, 0), 10*time.Second)
	if !errors.Is(err, ErrMismatch) {
		t.Fatalf("got %v, want ErrMismatch", err)
	}
	e2 := newExecutor(t, s.ClientURL(), Config{Name: "faulty"})
	b := simulate.Block{Dim: 2, Theta: make([]float64, 4), Stats: make([]float64, 8)}
	if err := execute(t, e2, wideStat{}, b, 10*time.Second); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "StatDim 3") {
		t.Fatalf("got %v, want ErrMismatch naming StatDim 3", err)
	}
}

// shifted is gauss at θ + 1: the same shapes, other bits.
type shifted struct{}

func (shifted) StatDim() int { return 3 }
func (shifted) Simulate(r *randRand, theta, dst []float64) error {
	return (&gauss{}).Simulate(r, []float64{theta[0] + 1, theta[1]}, dst)
}

// wideStat has StatDim 4.
type wideStat struct{}

func (wideStat) StatDim() int                                     { return 4 }
func (wideStat) Simulate(r *randRand, theta, dst []float64) error { return nil }

// TestMaxDeliveries: a simulator that kills every worker it runs on ends
// the run with ErrDeliveries once the block has been delivered MaxDeliver
// times, instead of hanging.
func TestMaxDeliveries(t *testing.T) {
	s := startServer(t, embeddedOpts())
	url := s.ClientURL()
	streams := Streams{AckWait: 200 * time.Millisecond, MaxDeliver: 2}
	var deaths atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	supervised := make(chan struct{})
	go func() { // a supervisor restarting workers as they die
		defer close(supervised)
		for ctx.Err() == nil {
			nc, err := natsio.Connect(url)
			if err != nil {
				return
			}
			var reg Registry
			must(reg.Register("gauss", &gauss{hook: func([]float64) { deaths.Add(1); nc.Close() }}))
			_ = Serve(ctx, nc, &reg, ServeOptions{Streams: streams})
			nc.Close()
		}
	}()
	e := newExecutor(t, url, Config{Streams: streams, Name: "gauss", Resend: -1, SkipCheck: true})
	err := execute(t, e, &gauss{}, testBlock(3, 1, 0), 20*time.Second)
	cancel()
	<-supervised
	if !errors.Is(err, ErrDeliveries) || !strings.Contains(err.Error(), "rows 0..2") {
		t.Fatalf("got %v after %d worker deaths, want ErrDeliveries for rows 0..2", err, deaths.Load())
	}
}

// TestInvalidArguments: bad configurations and arguments are errors
// wrapping ErrInvalid, never panics.
func TestInvalidArguments(t *testing.T) {
	s := startServer(t, embeddedOpts())
	nc := connect(t, s.ClientURL())
	ctx := context.Background()
	reg := testRegistry(nil)
	for _, c := range []struct {
		name string
		err  error
	}{
		{"nil conn", func() error { _, err := New(ctx, nil, Config{Name: "x"}); return err }()},
		{"nil ctx", func() error { _, err := New(nil, nc, Config{Name: "x"}); return err }()}, //nolint:staticcheck // a nil context is the bad input
		{"no name", func() error { _, err := New(ctx, nc, Config{}); return err }()},
		{"bad name", func() error { _, err := New(ctx, nc, Config{Name: "a b"}); return err }()},
		{"bad prefix", func() error { _, err := New(ctx, nc, Config{Name: "x", Streams: Streams{Prefix: "a.b"}}); return err }()},
		{"short ack", func() error {
			_, err := New(ctx, nc, Config{Name: "x", Streams: Streams{AckWait: time.Millisecond}})
			return err
		}()},
		{"negative rows", func() error { _, err := New(ctx, nc, Config{Name: "x", BlockRows: -1}); return err }()},
		{"negative in flight", func() error { _, err := New(ctx, nc, Config{Name: "x", MaxInFlight: -1}); return err }()},
		{"serve nil conn", Serve(ctx, nil, reg, ServeOptions{})},
		{"serve nil registry", Serve(ctx, nc, nil, ServeOptions{})},
		{"serve negative concurrency", Serve(ctx, nc, reg, ServeOptions{Concurrency: -1})},
		{"register bad name", reg.Register("", &gauss{})},
		{"register nil", reg.Register("x", nil)},
		{"register twice", reg.Register("gauss", &gauss{})},
		{"register StatDim 0", reg.Register("w", wideStatZero{})},
	} {
		if !errors.Is(c.err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", c.name, c.err)
		}
	}
	e := newExecutor(t, s.ClientURL(), Config{Name: "gauss"})
	for _, c := range []struct {
		name string
		sim  simulate.Simulator
		b    simulate.Block
	}{
		{"nil simulator", nil, testBlock(2, 1, 0)},
		{"dim 0", &gauss{}, simulate.Block{Theta: make([]float64, 2), Stats: make([]float64, 3)}},
		{"ragged theta", &gauss{}, simulate.Block{Dim: 2, Theta: make([]float64, 3), Stats: make([]float64, 3)}},
		{"short stats", &gauss{}, simulate.Block{Dim: 2, Theta: make([]float64, 4), Stats: make([]float64, 3)}},
		{"overflow", &gauss{}, simulate.Block{First: ^uint64(0), Dim: 2, Theta: make([]float64, 4), Stats: make([]float64, 6)}},
	} {
		if err := e.Execute(ctx, c.sim, c.b); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", c.name, err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Execute(ctx, &gauss{}, testBlock(2, 1, 0)); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	var empty Registry
	if _, err := empty.Lookup("x"); !errors.Is(err, ErrUnknownSimulator) {
		t.Fatalf("Lookup: %v", err)
	}
}

type wideStatZero struct{}

func (wideStatZero) StatDim() int                                     { return 0 }
func (wideStatZero) Simulate(r *randRand, theta, dst []float64) error { return nil }
