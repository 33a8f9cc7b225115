package nats

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	natsio "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/privinfer/privinfer/simulate"
)

// ServeOptions configures a worker. The zero value is ready to use.
type ServeOptions struct {
	// Streams must match the analyst's Config.Streams.
	Streams
	// ID identifies the worker in error messages. Zero means
	// "<hostname>:<pid>".
	ID string
	// Concurrency is the number of blocks simulated at once. Zero means 1;
	// rows within a block are already spread over Parallelism goroutines.
	Concurrency int
	// Parallelism is the number of goroutines simulating the rows of one
	// block. Zero means GOMAXPROCS.
	Parallelism int
	// Logf, when not nil, receives one line per notable event (a block
	// that could not be simulated, a lost connection).
	Logf func(format string, args ...any)
}

// Validate reports an invalid setting with an error wrapping ErrInvalid.
func (o ServeOptions) Validate() error {
	if err := o.Streams.Validate(); err != nil {
		return err
	}
	if len(o.ID) > maxName {
		return invalidf("ServeOptions.ID is longer than %d bytes", maxName)
	}
	if o.Concurrency < 0 {
		return invalidf("ServeOptions.Concurrency must be >= 0, got %d", o.Concurrency)
	}
	if o.Parallelism < 0 {
		return invalidf("ServeOptions.Parallelism must be >= 0, got %d", o.Parallelism)
	}
	return nil
}

// worker is the state of one Serve call.
type worker struct {
	opt ServeOptions
	nc  *natsio.Conn
	js  jetstream.JetStream
	reg *Registry

	mu        sync.Mutex
	cancelled map[string]time.Time // "<run>.<call>" → when the cancel notice came
	pubSem    chan struct{}
	pubWG     sync.WaitGroup
	running   map[string]map[*blockRun]struct{}
}

// blockRun is one block being simulated; cancel stops its remaining rows.
type blockRun struct{ cancel context.CancelFunc }

// Serve runs a worker: it pulls blocks from the work stream, simulates
// every row of a block with the simulator registered under the block's
// name, row First+k with the stream simulate.Stream(Seed, First+k),
// publishes the summaries to the run's result subject and acknowledges
// the block. Results therefore depend on (seed, index) only, whichever
// worker simulates a row and however often.
//
// A row whose simulator returns an error, panics, or writes a NaN or
// infinite summary ends the block with a row error naming the lowest such
// row; the worker carries on. A block naming a simulator reg does not hold,
// or one whose StatDim differs from the block's, is answered with a
// failure that ends the analyst's run with ErrUnknownSimulator or
// ErrMismatch. While a block is simulated the worker tells the server
// every AckWait/3 that it is still working, so long blocks are not
// redelivered; if the worker dies, the server redelivers after AckWait.
//
// Serve returns nil when ctx is cancelled, and ErrConnClosed when nc is
// closed (it no longer reconnects): blocks in progress are stopped
// and handed back to the server for immediate redelivery to other
// workers. It returns an error for invalid arguments or when the streams
// cannot be created; it survives server restarts and lost connections
// (nc reconnects; see natsio.MaxReconnects). Serve does not close nc.
func Serve(ctx context.Context, nc *natsio.Conn, reg *Registry, opt ServeOptions) error {
	if ctx == nil {
		return invalidf("context is nil")
	}
	if nc == nil {
		return invalidf("connection is nil")
	}
	if reg == nil {
		return invalidf("registry is nil")
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	opt.Streams = opt.Streams.withDefaults()
	if opt.ID == "" {
		host, _ := os.Hostname()
		opt.ID = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	if opt.Concurrency == 0 {
		opt.Concurrency = 1
	}
	if opt.Parallelism == 0 {
		opt.Parallelism = runtime.GOMAXPROCS(0)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	w := &worker{opt: opt, nc: nc, js: js, reg: reg,
		cancelled: make(map[string]time.Time), running: make(map[string]map[*blockRun]struct{}),
		pubSem: make(chan struct{}, 8*opt.Concurrency)}
	defer w.pubWG.Wait()
	sub, err := nc.Subscribe(opt.Prefix+".cancel.>", w.onCancel)
	if err != nil {
		return fmt.Errorf("nats: subscribing to cancel notices: %w", err)
	}
	defer sub.Unsubscribe()

	var cons jetstream.Consumer
	for {
		if cons, err = w.setup(ctx); err == nil {
			break
		}
		if nc.IsClosed() {
			return ErrConnClosed
		}
		if !w.retry(ctx, err) {
			return nil
		}
	}
	sem := make(chan struct{}, opt.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		if nc.IsClosed() {
			return ErrConnClosed
		}
		it, err := cons.Messages(jetstream.PullMaxMessages(opt.Concurrency), jetstream.PullHeartbeat(2*time.Second))
		if err != nil {
			if !w.retry(ctx, err) {
				return nil
			}
			continue
		}
		stop := context.AfterFunc(ctx, it.Stop)
		for {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
			msg, err := it.Next()
			if err != nil {
				<-sem
				if ctx.Err() == nil {
					w.logf("worker %s: receiving blocks: %v", opt.ID, err)
					if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) {
						if c, err := w.setup(ctx); err == nil {
							cons = c
						}
					}
					w.pause(ctx, 200*time.Millisecond)
				}
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				w.handle(ctx, msg)
			}()
		}
		stop()
		it.Stop()
	}
	return nil
}

// setup creates the streams and returns the worker consumer.
func (w *worker) setup(ctx context.Context) (jetstream.Consumer, error) {
	work, _, err := w.opt.ensureStreams(ctx, w.js)
	if err != nil {
		return nil, err
	}
	return w.opt.workers(ctx, work)
}

// retry logs err and waits a moment; it reports false when ctx is done.
func (w *worker) retry(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	w.logf("worker %s: %v (retrying)", w.opt.ID, err)
	w.pause(ctx, time.Second)
	return ctx.Err() == nil
}

func (w *worker) pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func (w *worker) logf(format string, args ...any) {
	if w.opt.Logf != nil {
		w.opt.Logf(format, args...)
	}
}

// onCancel records a cancel notice "<prefix>.cancel.<run>.<call>" and stops
// the blocks of that call in progress.
func (w *worker) onCancel(m *natsio.Msg) {
	key := strings.TrimPrefix(m.Subject, w.opt.Prefix+".cancel.")
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, t := range w.cancelled {
		if now.Sub(t) > time.Hour {
			delete(w.cancelled, k)
		}
	}
	w.cancelled[key] = now
	for b := range w.running[key] {
		b.cancel()
	}
}

// start registers a block of call key as running; it reports false if the
// call was cancelled.
func (w *worker) start(key string, b *blockRun) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.cancelled[key]; ok {
		return false
	}
	if w.running[key] == nil {
		w.running[key] = make(map[*blockRun]struct{})
	}
	w.running[key][b] = struct{}{}
	return true
}

func (w *worker) finish(key string, b *blockRun) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.running[key], b)
	if len(w.running[key]) == 0 {
		delete(w.running, key)
	}
}

// handle simulates one block message and answers it.
func (w *worker) handle(ctx context.Context, msg jetstream.Msg) {
	b, err := decodeBlock(msg.Data())
	if err != nil {
		w.logf("worker %s: dropping message on %s: %v", w.opt.ID, msg.Subject(), err)
		_ = msg.TermWithReason("malformed block")
		return
	}
	key := fmt.Sprintf("%s.%d", b.run, b.call)
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	br := &blockRun{cancel: cancel}
	if !w.start(key, br) {
		_ = msg.TermWithReason("run cancelled")
		return
	}
	defer w.finish(key, br)

	res := &wireResult{run: b.run, call: b.call, first: b.first, rows: b.rows, statDim: b.statDim, worker: w.opt.ID}
	sim, err := w.reg.Lookup(b.name)
	switch {
	case err != nil:
		res.status, res.kind = statusFailure, failUnknownSimulator
		res.message = fmt.Sprintf("worker %s has no simulator %q (registered: %s)", w.opt.ID, b.name, strings.Join(w.reg.Names(), ", "))
	case sim.StatDim() != b.statDim:
		res.status, res.kind = statusFailure, failMismatch
		res.message = fmt.Sprintf("worker %s's simulator %q has StatDim %d, the analyst's has %d", w.opt.ID, b.name, sim.StatDim(), b.statDim)
	case resultSize(b.rows, b.statDim, len(w.opt.ID))+headerRoom > int(w.nc.MaxPayload()):
		res.status, res.kind = statusFailure, failTooLarge
		res.message = fmt.Sprintf("a result of %d rows × %d statistics takes %d bytes, over the server's limit of %d",
			b.rows, b.statDim, resultSize(b.rows, b.statDim, len(w.opt.ID)), w.nc.MaxPayload())
	default:
		hbDone := w.heartbeat(msg)
		stats, rowErr := simulateRows(bctx, sim, b, w.opt.Parallelism)
		hbDone()
		if bctx.Err() != nil {
			// Shutting down, or the run was cancelled.
			if ctx.Err() != nil {
				_ = msg.Nak()
			} else {
				_ = msg.TermWithReason("run cancelled")
			}
			return
		}
		if rowErr != nil {
			res.status, res.index = statusRowError, rowErr.Index
			res.cause, res.message = rowCause(rowErr.Err)
		} else {
			res.status, res.stats = statusOK, stats
		}
	}
	w.answer(ctx, msg, res)
}

// answer publishes res and then acknowledges msg, in the background so
// that the worker's next block starts while the result travels; at most
// 8·Concurrency answers are under way at once.
func (w *worker) answer(ctx context.Context, msg jetstream.Msg, res *wireResult) {
	w.pubSem <- struct{}{}
	w.pubWG.Add(1)
	go func() {
		defer w.pubWG.Done()
		defer func() { <-w.pubSem }()
		if !w.publish(ctx, msg, res) {
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	}()
}

// headerRoom is the room kept in a message for its subject and headers.
const headerRoom = 1024

// heartbeat tells the server every AckWait/3 that msg is in progress,
// until the returned function is called.
func (w *worker) heartbeat(msg jetstream.Msg) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(w.opt.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = msg.InProgress()
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// publish sends the result to the run's result stream, retrying while the
// server is unreachable; it reports false when ctx ends first.
func (w *worker) publish(ctx context.Context, msg jetstream.Msg, res *wireResult) bool {
	data := appendResult(nil, res)
	subj := w.opt.resultSubject(res.run)
	for attempt := 0; ; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := w.js.Publish(pctx, subj, data)
		cancel()
		if err == nil {
			return true
		}
		if ctx.Err() != nil || w.nc.IsClosed() {
			return false
		}
		w.logf("worker %s: publishing result of rows %d..%d: %v (retrying)", w.opt.ID, res.first, res.first+uint64(res.rows)-1, err)
		_ = msg.InProgress()
		w.pause(ctx, time.Duration(min(attempt+1, 10))*100*time.Millisecond)
	}
}

// simulateRows simulates the rows of b on par goroutines, each row with
// simulate.RunBlock (so with the stream and the failure handling of every
// executor). Rows start in increasing order and no row above a failed one
// is started, so every row below the lowest failure runs and the failure
// returned is the lowest's, whatever par.
func simulateRows(ctx context.Context, sim simulate.Simulator, wb *wireBlock, par int) ([]float64, *simulate.RowError) {
	b := simulate.Block{Seed: wb.seed, First: wb.first, Dim: wb.dim, Theta: wb.theta, Stats: make([]float64, wb.rows*wb.statDim)}
	var (
		next   atomic.Int64
		lowest atomic.Int64
		mu     sync.Mutex
		fail   *simulate.RowError
		wg     sync.WaitGroup
	)
	lowest.Store(math.MaxInt64)
	par = max(1, min(par, wb.rows))
	wg.Add(par)
	for range par {
		go func() {
			defer wg.Done()
			for {
				k := next.Add(1) - 1
				if k >= int64(wb.rows) || k > lowest.Load() || ctx.Err() != nil {
					return
				}
				err := simulate.RunBlock(ctx, sim, b.Slice(int(k), int(k)+1))
				if err == nil {
					continue
				}
				re, ok := err.(*simulate.RowError)
				if !ok {
					if ctx.Err() != nil {
						return
					}
					re = &simulate.RowError{Index: wb.first + uint64(k), Err: err}
				}
				mu.Lock()
				if k < lowest.Load() {
					lowest.Store(k)
					fail = re
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return b.Stats, fail
}
