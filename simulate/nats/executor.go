package nats

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	natsio "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/simulate"
)

// Config configures an Executor. Its zero value with a Name (or a
// Registry) is ready to use.
type Config struct {
	// Streams must match the workers' ServeOptions.Streams.
	Streams
	// Registry names the simulators Execute is given: a simulator found in
	// it (the same value, compared with ==) travels under its registered
	// name. Nil means no registry.
	Registry *Registry
	// Name is the name of any simulator not found in Registry. Execute
	// fails for such a simulator when Name is empty.
	Name string
	// BlockRows is the number of rows per block message. Zero means 64,
	// fewer if 64 rows would not fit in the server's message limit; a
	// BlockRows whose block or result would not fit is an error wrapping
	// ErrTooLarge. Small blocks spread a round over more workers and limit
	// what a slow or dead worker delays; large blocks cost less per row.
	BlockRows int
	// MaxInFlight bounds the blocks published but not yet answered. Zero
	// means 32.
	MaxInFlight int
	// Resend is how long a block may stay unanswered, once every block of a
	// call has been published, before it is published again for another
	// worker (the first answer wins; later ones are dropped). Zero means
	// four times the median time blocks of the call have taken to answer,
	// at least 2 s (twice AckWait before any block has answered). A
	// negative value never resends, leaving lost blocks to the server's
	// redelivery after AckWait.
	Resend time.Duration
	// SkipCheck turns off the check that workers hold the analyst's
	// simulator: by default the first call for each simulator name also
	// simulates its first row here and fails with ErrMismatch unless the
	// worker's summary has the same bits.
	SkipCheck bool
	// Progress, when not nil, receives events with Stage "simulate",
	// Step rows done of Total rows of the call, and a Message with the
	// blocks in flight, from the goroutine that called Execute.
	Progress privinfer.ProgressFunc
	// ProgressEvery is the least time between two progress events of a
	// call (the last event, Step == Total, is always sent). Zero means 1 s.
	ProgressEvery time.Duration
}

// Defaults of Config.
const (
	defaultBlockRows   = 64
	defaultMaxInFlight = 32
	defaultEvery       = time.Second
	maxResends         = 3
)

// Validate reports an invalid setting with an error wrapping ErrInvalid.
func (c Config) Validate() error {
	if err := c.Streams.Validate(); err != nil {
		return err
	}
	if c.Name != "" && !validName(c.Name) {
		return invalidf("Config.Name %q must have 1 to %d letters, digits or . _ - : /", c.Name, maxName)
	}
	if c.BlockRows < 0 {
		return invalidf("Config.BlockRows must be >= 0, got %d", c.BlockRows)
	}
	if c.MaxInFlight < 0 {
		return invalidf("Config.MaxInFlight must be >= 0, got %d", c.MaxInFlight)
	}
	if c.ProgressEvery < 0 {
		return invalidf("Config.ProgressEvery must be >= 0, got %v", c.ProgressEvery)
	}
	return nil
}

// Stats counts what an Executor has done.
type Stats struct {
	// Calls is the number of Execute calls, Rows the rows merged.
	Calls, Rows int64
	// Blocks is the number of blocks merged; Published the block messages
	// published, counting publications again after a publish failure and
	// Resent blocks.
	Blocks, Published, Resent int64
	// Duplicates counts results dropped because their block was already
	// merged (a redelivered or resent block answered twice); Stale counts
	// results of calls that had already returned.
	Duplicates, Stale int64
}

// Executor runs simulation blocks on worker processes through a NATS
// JetStream work queue. It is safe for concurrent use; each Execute call
// has its own blocks and results.
type Executor struct {
	cfg  Config
	nc   *natsio.Conn
	js   jetstream.JetStream
	work jetstream.Stream
	res  jetstream.Stream
	run  runID

	calls atomic.Uint64

	mu      sync.Mutex
	active  map[uint64]*callState // call → state
	bySeq   map[uint64]seqRef     // work stream sequence → block
	checked map[string]bool

	stats struct {
		calls, rows, blocks, published, resent, duplicates, stale atomic.Int64
	}

	stopReader context.CancelFunc
	readerDone chan struct{}
	advisories *natsio.Subscription
	closeOnce  sync.Once
	closed     atomic.Bool
}

// seqRef locates a block message.
type seqRef struct {
	call uint64
	k    int
}

// callState routes results and advisories to one Execute call.
type callState struct {
	events chan event
	done   chan struct{}
}

// event is what the loop of an Execute call waits for.
type event struct {
	res     *wireResult // a result
	pubK    int         // a publish acknowledgement (or failure) of block pubK
	pubSeq  uint64
	pubErr  error
	pub     bool
	maxedK  int // a block whose deliveries ran out
	maxed   bool
	nDelivs uint64
}

// New returns an Executor that publishes blocks on nc, creating the
// streams if they do not exist. Close it when done. nc stays the caller's.
func New(ctx context.Context, nc *natsio.Conn, cfg Config) (*Executor, error) {
	if ctx == nil {
		return nil, invalidf("context is nil")
	}
	if nc == nil {
		return nil, invalidf("connection is nil")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Name == "" && cfg.Registry == nil {
		return nil, invalidf("Config needs a Name or a Registry to name simulators")
	}
	cfg.Streams = cfg.Streams.withDefaults()
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = defaultMaxInFlight
	}
	if cfg.ProgressEvery == 0 {
		cfg.ProgressEvery = defaultEvery
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(5*time.Second))
	if err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	e := &Executor{cfg: cfg, nc: nc, js: js,
		active: make(map[uint64]*callState), bySeq: make(map[uint64]seqRef), checked: make(map[string]bool)}
	if _, err := rand.Read(e.run[:]); err != nil {
		return nil, fmt.Errorf("nats: run ID: %w", err)
	}
	if e.work, e.res, err = cfg.ensureStreams(ctx, js); err != nil {
		return nil, err
	}
	if _, err := cfg.workers(ctx, e.work); err != nil {
		return nil, err
	}
	cons, err := e.resultConsumer(ctx)
	if err != nil {
		return nil, err
	}
	if e.advisories, err = nc.Subscribe(cfg.maxDeliveriesSubject(), e.onMaxDeliveries); err != nil {
		return nil, fmt.Errorf("nats: subscribing to delivery advisories: %w", err)
	}
	rctx, stop := context.WithCancel(context.Background())
	e.stopReader, e.readerDone = stop, make(chan struct{})
	go e.read(rctx, cons)
	return e, nil
}

// resultConsumer returns this run's durable consumer of results.
func (e *Executor) resultConsumer(ctx context.Context) (jetstream.Consumer, error) {
	return ensureConsumer(ctx, e.res, jetstream.ConsumerConfig{
		Durable:           "run-" + e.run.String(),
		AckPolicy:         jetstream.AckExplicitPolicy,
		FilterSubject:     e.cfg.resultSubject(e.run),
		InactiveThreshold: time.Hour,
		MaxAckPending:     100000,
	})
}

// read receives results until ctx is cancelled, re-creating its iterator
// (and the consumer) after a lost connection or a server restart.
func (e *Executor) read(ctx context.Context, cons jetstream.Consumer) {
	defer close(e.readerDone)
	for ctx.Err() == nil {
		it, err := cons.Messages(jetstream.PullMaxMessages(256), jetstream.PullHeartbeat(2*time.Second))
		if err != nil {
			sleep(ctx, 200*time.Millisecond)
			if c, err := e.resultConsumer(ctx); err == nil {
				cons = c
			}
			continue
		}
		stop := context.AfterFunc(ctx, it.Stop)
		for {
			msg, err := it.Next()
			if err != nil {
				break
			}
			_ = msg.Ack()
			r, err := decodeResult(msg.Data())
			if err != nil || r.run != e.run {
				e.stats.stale.Add(1)
				continue
			}
			e.dispatch(r.call, event{res: r})
		}
		stop()
		it.Stop()
		if ctx.Err() == nil {
			sleep(ctx, 100*time.Millisecond)
			if c, err := e.resultConsumer(ctx); err == nil {
				cons = c
			}
		}
	}
}

// dispatch hands ev to its call, counting it stale if the call is over.
func (e *Executor) dispatch(call uint64, ev event) {
	e.mu.Lock()
	c := e.active[call]
	e.mu.Unlock()
	if c == nil {
		if ev.res != nil {
			e.stats.stale.Add(1)
		}
		return
	}
	select {
	case c.events <- ev:
	case <-c.done:
		if ev.res != nil {
			e.stats.stale.Add(1)
		}
	}
}

// onMaxDeliveries handles the server's advisory for a block delivered
// MaxDeliver times without an acknowledgement.
func (e *Executor) onMaxDeliveries(m *natsio.Msg) {
	var adv struct {
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries uint64 `json:"deliveries"`
	}
	if json.Unmarshal(m.Data, &adv) != nil {
		return
	}
	e.mu.Lock()
	ref, ok := e.bySeq[adv.StreamSeq]
	e.mu.Unlock()
	if ok {
		e.dispatch(ref.call, event{maxed: true, maxedK: ref.k, nDelivs: adv.Deliveries})
	}
}

// Stats returns what the Executor has done so far.
func (e *Executor) Stats() Stats {
	return Stats{
		Calls: e.stats.calls.Load(), Rows: e.stats.rows.Load(), Blocks: e.stats.blocks.Load(),
		Published: e.stats.published.Load(), Resent: e.stats.resent.Load(),
		Duplicates: e.stats.duplicates.Load(), Stale: e.stats.stale.Load(),
	}
}

// Close stops receiving results, deletes the run's consumer and purges
// whatever the run left in the streams. Execute returns ErrClosed after
// Close. Close does not close the connection.
func (e *Executor) Close() error {
	var err error
	e.closeOnce.Do(func() {
		e.closed.Store(true)
		e.stopReader()
		<-e.readerDone
		_ = e.advisories.Unsubscribe()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if derr := e.res.DeleteConsumer(ctx, "run-"+e.run.String()); derr != nil && !errors.Is(derr, jetstream.ErrConsumerNotFound) {
			err = fmt.Errorf("nats: deleting the run's consumer: %w", derr)
		}
		_ = e.res.Purge(ctx, jetstream.WithPurgeSubject(e.cfg.resultSubject(e.run)))
		_ = e.work.Purge(ctx, jetstream.WithPurgeSubject(e.cfg.Prefix+".work."+e.run.String()+".>"))
	})
	return err
}

// name returns the wire name of sim.
func (e *Executor) name(sim simulate.Simulator) (string, error) {
	if e.cfg.Registry != nil {
		if n, ok := e.cfg.Registry.NameOf(sim); ok {
			return n, nil
		}
	}
	if e.cfg.Name != "" {
		return e.cfg.Name, nil
	}
	return "", fmt.Errorf("%w: simulator %T is not in Config.Registry and Config.Name is empty", ErrUnknownSimulator, sim)
}

// limit is the largest message the server accepts, less room for the
// subject and headers.
func (e *Executor) limit() int { return int(e.nc.MaxPayload()) - headerRoom }

// blockRows returns the rows per block for rows of dim parameters and
// statDim summaries under the server's message limit.
func (e *Executor) blockRows(dim, statDim, nameLen int) (int, error) {
	lim := e.limit()
	fits := func(n int) bool {
		return blockSize(n, dim, nameLen) <= lim && resultSize(n, statDim, maxName) <= lim
	}
	if !fits(1) {
		return 0, fmt.Errorf("%w: one row of %d parameters and %d statistics takes %d and %d bytes, over the server's limit of %d (max_payload)",
			ErrTooLarge, dim, statDim, blockSize(1, dim, nameLen), resultSize(1, statDim, maxName), e.nc.MaxPayload())
	}
	most := 1
	for n := 1 << 30; n >= 1; n >>= 1 {
		if fits(most + n) {
			most += n
		}
	}
	if e.cfg.BlockRows > 0 {
		if e.cfg.BlockRows > most {
			return 0, fmt.Errorf("%w: a block of %d rows of %d parameters and %d statistics takes %d bytes for the block and %d for its result, over the server's limit of %d (max_payload); BlockRows must be at most %d",
				ErrTooLarge, e.cfg.BlockRows, dim, statDim, blockSize(e.cfg.BlockRows, dim, nameLen), resultSize(e.cfg.BlockRows, statDim, maxName), e.nc.MaxPayload(), most)
		}
		return e.cfg.BlockRows, nil
	}
	return min(defaultBlockRows, most), nil
}

// Execute simulates the rows of b on the workers: row b.First+k has
// parameter b.Theta[k·Dim:(k+1)·Dim] and its summary, simulated with the
// stream simulate.Stream(b.Seed, b.First+k), is written to
// b.Stats[k·s:(k+1)·s] with s = sim.StatDim(). The rows are split into
// blocks of Config.BlockRows, at most Config.MaxInFlight of them
// published at a time; a block answered twice (redelivered after a worker
// died, or resent while a slow worker held it) is merged once, so the
// summaries are those an in-process run gives, bit for bit.
//
// If rows fail, Execute waits for every block below the lowest failure
// and returns a *RowError for the lowest failing row, whose Err is a
// *RemoteError (wrapping ErrRemote) naming the worker and saying whether
// the simulator panicked. A worker without the simulator's name
// (ErrUnknownSimulator), with a different simulator under it
// (ErrMismatch), a block over the server's message limit (ErrTooLarge) or
// a block no worker could finish in MaxDeliver deliveries (ErrDeliveries)
// end the call at once. When ctx is cancelled Execute returns ctx.Err()
// promptly. Whatever the outcome, the call's blocks left in the stream
// are purged and workers are told to stop the ones they hold.
func (e *Executor) Execute(ctx context.Context, sim simulate.Simulator, b simulate.Block) error {
	if ctx == nil {
		return invalidf("context is nil")
	}
	if e.closed.Load() {
		return ErrClosed
	}
	if argcheck.Nil(sim) {
		return invalidf("simulator is nil")
	}
	sd := sim.StatDim()
	if err := b.Check(sd); err != nil {
		return fmt.Errorf("%w (%w)", err, ErrInvalid)
	}
	rows := b.Rows()
	if rows == 0 {
		return nil
	}
	name, err := e.name(sim)
	if err != nil {
		return err
	}
	per, err := e.blockRows(b.Dim, sd, len(name))
	if err != nil {
		return err
	}
	e.stats.calls.Add(1)
	c := &call{e: e, ctx: ctx, sim: sim, b: b, name: name, rows: rows, sd: sd, per: per,
		id: e.calls.Add(1), start: time.Now()}
	return c.run()
}

// call is the state of one Execute call.
type call struct {
	e     *Executor
	ctx   context.Context
	sim   simulate.Simulator
	b     simulate.Block
	name  string
	rows  int
	sd    int
	per   int
	id    uint64
	start time.Time
	state *callState

	nb        int
	done      []bool
	sent      []time.Time // last publication of each block, zero if not out
	resends   []int
	attempts  []int
	next      int // next block to publish for the first time
	retry     []int
	inflight  int
	below     int // every block below it is merged
	merged    int
	published int
	rowsDone  int
	lat       []time.Duration

	rowErr  *simulate.RowError
	failure error

	check    chan checkResult // local simulation of the first row
	checkRes *checkResult
	remote0  []float64 // the workers' summary of the first row

	lastReport time.Time
}

// checkResult is the local simulation of the first row.
type checkResult struct {
	stats []float64
	err   error
}

func (c *call) run() (err error) {
	e := c.e
	c.nb = (c.rows + c.per - 1) / c.per
	c.done = make([]bool, c.nb)
	c.sent = make([]time.Time, c.nb)
	c.resends = make([]int, c.nb)
	c.attempts = make([]int, c.nb)
	c.state = &callState{events: make(chan event, 4*e.cfg.MaxInFlight+16), done: make(chan struct{})}
	e.mu.Lock()
	e.active[c.id] = c.state
	if !e.cfg.SkipCheck && !e.checked[c.name] {
		e.checked[c.name] = true
		c.check = make(chan checkResult, 1)
		go c.localFirstRow()
	}
	e.mu.Unlock()
	defer c.cleanup()

	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if c.failure != nil {
			return c.failure
		}
		if c.finished() {
			if err := c.verify(); err != nil {
				return err
			}
			c.report(true)
			if c.rowErr != nil {
				return c.rowErr
			}
			return nil
		}
		if err := c.publishMore(); err != nil {
			return err
		}
		select {
		case <-c.ctx.Done():
			return c.ctx.Err()
		case ev := <-c.state.events:
			c.handle(ev)
		case <-tick.C:
			c.resendLate()
			c.report(false)
		}
	}
}

// finished reports whether every block that matters has been merged:
// all of them, or all below the lowest failing row.
func (c *call) finished() bool {
	for c.below < c.nb && c.done[c.below] {
		c.below++
	}
	limit := c.nb
	if c.rowErr != nil {
		limit = c.blockOf(c.rowErr.Index)
	}
	return c.below >= limit
}

func (c *call) blockOf(index uint64) int { return int((index - c.b.First) / uint64(c.per)) }

// bounds returns the first row (within the call) and the row count of
// block k.
func (c *call) bounds(k int) (lo, n int) {
	lo = k * c.per
	return lo, min(c.per, c.rows-lo)
}

// publishMore publishes blocks while fewer than MaxInFlight are out.
func (c *call) publishMore() error {
	for c.inflight < c.e.cfg.MaxInFlight {
		var k int
		switch {
		case len(c.retry) > 0:
			k, c.retry = c.retry[0], c.retry[1:]
			if c.done[k] {
				continue
			}
		case c.next < c.nb:
			k = c.next
			if c.rowErr != nil && c.b.First+uint64(k*c.per) > c.rowErr.Index {
				return nil
			}
			c.next++
			c.inflight++
		default:
			return nil
		}
		if err := c.publish(k); err != nil {
			return err
		}
	}
	return nil
}

// publish sends block k (again).
func (c *call) publish(k int) error {
	e := c.e
	lo, n := c.bounds(k)
	wb := &wireBlock{run: e.run, call: c.id, seed: c.b.Seed, first: c.b.First + uint64(lo),
		rows: n, dim: c.b.Dim, statDim: c.sd, name: c.name, theta: c.b.Theta[lo*c.b.Dim : (lo+n)*c.b.Dim]}
	data := appendBlock(make([]byte, 0, blockSize(n, c.b.Dim, len(c.name))), wb)
	c.attempts[k]++
	msgID := fmt.Sprintf("%s.%d.%d.%d", e.run, c.id, k, c.attempts[k])
	c.sent[k] = time.Now()
	c.published++
	e.stats.published.Add(1)
	f, err := e.js.PublishAsync(e.cfg.workSubject(e.run, c.id), data, jetstream.WithMsgID(msgID))
	if err != nil {
		// The client refused at once (for instance while reconnecting with
		// a full buffer): try again after the next tick.
		c.sent[k] = time.Time{}
		c.retryLater(k)
		return nil
	}
	go func() {
		select {
		case ack := <-f.Ok():
			c.e.dispatch(c.id, event{pub: true, pubK: k, pubSeq: ack.Sequence})
		case perr := <-f.Err():
			c.e.dispatch(c.id, event{pub: true, pubK: k, pubErr: perr})
		case <-c.state.done:
		}
	}()
	return nil
}

// retryLater queues block k for publication after a pause.
func (c *call) retryLater(k int) {
	time.AfterFunc(200*time.Millisecond, func() {
		c.e.dispatch(c.id, event{pub: true, pubK: k, pubErr: errRetry})
	})
}

var errRetry = errors.New("retry")

// handle processes one event.
func (c *call) handle(ev event) {
	e := c.e
	switch {
	case ev.pub:
		if ev.pubErr == nil {
			e.mu.Lock()
			e.bySeq[ev.pubSeq] = seqRef{call: c.id, k: ev.pubK}
			e.mu.Unlock()
			return
		}
		if ev.pubErr != errRetry {
			// The server did not confirm the block: publish it again (the
			// message ID lets the server drop it if it had been stored).
			c.attempts[ev.pubK]--
		}
		if !c.done[ev.pubK] {
			c.retry = append(c.retry, ev.pubK)
		}
	case ev.maxed:
		if !c.done[ev.maxedK] {
			lo, n := c.bounds(ev.maxedK)
			c.failure = fmt.Errorf("%w: rows %d..%d of simulator %q were delivered %d times without an answer (workers crashed, were killed or timed out after AckWait %v on them)",
				ErrDeliveries, c.b.First+uint64(lo), c.b.First+uint64(lo+n-1), c.name, ev.nDelivs, e.cfg.AckWait)
		}
	case ev.res != nil:
		c.merge(ev.res)
	}
}

// merge merges one result, dropping duplicates.
func (c *call) merge(r *wireResult) {
	e := c.e
	if r.first < c.b.First || (r.first-c.b.First)%uint64(c.per) != 0 || c.blockOf(r.first) >= c.nb {
		e.stats.stale.Add(1)
		return
	}
	k := c.blockOf(r.first)
	lo, n := c.bounds(k)
	if r.rows != n || r.statDim != c.sd {
		e.stats.stale.Add(1)
		return
	}
	if c.done[k] {
		e.stats.duplicates.Add(1)
		return
	}
	switch r.status {
	case statusOK:
		copy(c.b.Stats[lo*c.sd:(lo+n)*c.sd], r.stats)
		if k == 0 && c.check != nil {
			c.remote0 = slices.Clone(r.stats[:c.sd])
		}
		c.rowsDone += n
		e.stats.rows.Add(int64(n))
	case statusRowError:
		if c.rowErr == nil || r.index < c.rowErr.Index {
			j := int(r.index - c.b.First)
			c.rowErr = &simulate.RowError{Index: r.index, Theta: slices.Clone(c.b.Theta[j*c.b.Dim : (j+1)*c.b.Dim]),
				Err: remoteCause(c.name, r)}
		}
	case statusFailure:
		var kind error
		switch r.kind {
		case failUnknownSimulator:
			kind = ErrUnknownSimulator
		case failMismatch:
			kind = ErrMismatch
		case failTooLarge:
			kind = ErrTooLarge
		default:
			kind = ErrRemote
		}
		c.failure = fmt.Errorf("%w: %s", kind, r.message)
		return
	}
	c.done[k] = true
	c.merged++
	c.inflight--
	e.stats.blocks.Add(1)
	c.lat = append(c.lat, time.Since(c.sent[k]))
}

// resendLate publishes again blocks that have been out too long once every
// block has been published.
func (c *call) resendLate() {
	if c.next < c.nb || c.e.cfg.Resend < 0 {
		return
	}
	after := c.e.cfg.Resend
	if after == 0 {
		after = 2 * c.e.cfg.AckWait
		if len(c.lat) > 0 {
			s := slices.Clone(c.lat)
			slices.Sort(s)
			after = max(4*s[len(s)/2], 2*time.Second)
		}
	}
	now := time.Now()
	limit := c.nb
	if c.rowErr != nil {
		limit = c.blockOf(c.rowErr.Index) + 1
	}
	for k := c.below; k < limit; k++ {
		if c.done[k] || c.sent[k].IsZero() || c.resends[k] >= maxResends || now.Sub(c.sent[k]) < after {
			continue
		}
		c.resends[k]++
		c.e.stats.resent.Add(1)
		c.retry = append(c.retry, k)
	}
}

// report sends a progress event at most every ProgressEvery, and always
// the final one.
func (c *call) report(final bool) {
	p := c.e.cfg.Progress
	if p == nil {
		return
	}
	now := time.Now()
	if !final && now.Sub(c.lastReport) < c.e.cfg.ProgressEvery {
		return
	}
	c.lastReport = now
	p.Report(privinfer.Progress{Stage: "simulate", Step: c.rowsDone, Total: c.rows, Elapsed: now.Sub(c.start),
		Message: fmt.Sprintf("%d of %d blocks of %q merged, %d in flight", c.merged, c.nb, c.name, c.inflight)})
}

// localFirstRow simulates the call's first row here for the check.
func (c *call) localFirstRow() {
	res := checkResult{stats: make([]float64, c.sd)}
	func() {
		defer func() {
			if pv := recover(); pv != nil {
				res.err = fmt.Errorf("panic: %v", pv)
			}
		}()
		res.err = c.sim.Simulate(simulate.Stream(c.b.Seed, c.b.First), c.b.Theta[:c.b.Dim], res.stats)
	}()
	c.check <- res
}

// verify compares the workers' first row with the local one.
func (c *call) verify() error {
	if c.check == nil || c.remote0 == nil {
		return nil
	}
	if c.checkRes == nil {
		select {
		case r := <-c.check:
			c.checkRes = &r
		case <-c.ctx.Done():
			return c.ctx.Err()
		}
	}
	local := c.checkRes
	if local.err != nil {
		return fmt.Errorf("%w: simulator %q: row %d fails here (%v) but not on the workers", ErrMismatch, c.name, c.b.First, local.err)
	}
	for j, v := range local.stats {
		if math.Float64bits(v) != math.Float64bits(c.remote0[j]) {
			return fmt.Errorf("%w: simulator %q: row %d gives %v on the workers and %v here; register the same simulator (model, settings, mechanism) under this name",
				ErrMismatch, c.name, c.b.First, c.remote0, local.stats)
		}
	}
	return nil
}

// cleanup unregisters the call, purges its blocks left in the stream and
// tells workers to stop the ones they hold.
func (c *call) cleanup() {
	e := c.e
	close(c.state.done)
	e.mu.Lock()
	delete(e.active, c.id)
	for s, ref := range e.bySeq {
		if ref.call == c.id {
			delete(e.bySeq, s)
		}
	}
	e.mu.Unlock()
	if c.published == c.merged && c.failure == nil && c.rowErr == nil && c.ctx.Err() == nil {
		return // every block published was answered once: nothing is left
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = e.nc.Publish(e.cfg.cancelSubject(e.run, c.id), nil)
	_ = e.work.Purge(ctx, jetstream.WithPurgeSubject(e.cfg.workSubject(e.run, c.id)))
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
