// Package parallel runs independent tasks on all cores with results that
// depend only on a seed, never on GOMAXPROCS or scheduling: task i always
// receives its own random stream Stream(seed, i).
//
// Streams are PCG-DXSM generators (math/rand/v2) whose 128-bit state is
// derived from (seed, task) through the splitmix64 finaliser, so distinct
// tasks start at unrelated points of the generator's 2^128 period. Map hands
// task i the stream Stream(seed, i) and reports the error of the
// lowest-indexed failing task, so the outcome of a run is reproducible
// whatever the number of workers. For is the same loop without random
// streams, over chunks whose boundaries depend on n only.
package parallel

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/privinfer/privinfer/internal/argcheck"
)

// ErrNilFunc is returned by Map and For when the task function is nil; a
// nil context gives an error wrapping ErrInvalid.
var ErrNilFunc error = argcheck.Sentinel("parallel: task function is nil", ErrInvalid)

// ErrInvalid is wrapped by every error reporting an invalid argument; it is
// wrapped by ErrNilFunc.
var ErrInvalid = errors.New("parallel: invalid argument")

// errNilContext is returned by Map and For for a nil context.
var errNilContext error = argcheck.Sentinel("parallel: context is nil", ErrInvalid)

// mix64 is the splitmix64 finaliser (Stafford's Mix13), a bijection on
// uint64 with strong avalanche.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

const golden = 0x9e3779b97f4a7c15

// streamState derives the 128-bit PCG state of stream (seed, task). Both
// halves depend on both inputs, and the map is injective because every step
// is invertible: from (hi, lo), t = mix⁻¹(lo) ⊕ hi determines the task
// (t is a bijection of it) and seed = mix⁻¹(mix⁻¹(hi) ⊕ t) − golden, so two
// different pairs never share a starting state.
func streamState(seed, task uint64) (hi, lo uint64) {
	t := mix64(task*golden + 0x632be59bd9b4e019)
	hi = mix64(mix64(seed+golden) ^ t)
	lo = mix64(t ^ hi)
	return hi, lo
}

// Stream returns the deterministic random stream of task number task under
// seed. Streams for different (seed, task) pairs are statistically
// independent for practical purposes; the same pair always yields the same
// sequence.
func Stream(seed uint64, task uint64) *rand.Rand {
	hi, lo := streamState(seed, task)
	return rand.New(rand.NewPCG(hi, lo))
}

// SeedPCG sets p to the starting state of Stream(seed, task): a caller that
// reuses one generator for many tasks draws the same bits as Stream without
// allocating per task.
func SeedPCG(p *rand.PCG, seed, task uint64) {
	hi, lo := streamState(seed, task)
	p.Seed(hi, lo)
}

// reseeder is a reusable stream: a worker re-seeds it for every task so that
// running a task allocates nothing.
type reseeder struct {
	pcg rand.PCG
	r   *rand.Rand
}

func newReseeder() *reseeder {
	s := &reseeder{}
	s.r = rand.New(&s.pcg)
	return s
}

func (s *reseeder) stream(seed, task uint64) *rand.Rand {
	hi, lo := streamState(seed, task)
	s.pcg.Seed(hi, lo)
	return s.r
}

// Workers returns the number of goroutines Map and For use for n tasks:
// min(n, GOMAXPROCS), at least 1.
func Workers(n int) int {
	w := runtime.GOMAXPROCS(0)
	if n < w {
		w = n
	}
	if w < 1 {
		w = 1
	}
	return w
}

// firstErr records the failure with the lowest index.
type firstErr struct {
	idx   atomic.Int64 // lowest failing index so far, or maxInt
	mu    sync.Mutex
	err   error
	panic any
}

const noFailure = int64(^uint64(0) >> 1)

func (f *firstErr) init() { f.idx.Store(noFailure) }

func (f *firstErr) record(i int, err error, pv any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if int64(i) < f.idx.Load() {
		f.idx.Store(int64(i))
		f.err, f.panic = err, pv
	}
}

// Map runs fn(i, r) for every i in [0, n) on Workers(n) goroutines. Task i
// always receives r = Stream(seed, i), so whatever fn computes from (i, r)
// is independent of GOMAXPROCS and scheduling. r belongs to the call: fn
// must not use it after returning or hand it to other goroutines. fn must
// be safe for concurrent use; typically it writes its result into slot i of
// a slice prepared by the caller.
//
// Tasks are started in increasing order of i. When a task fails, no task
// with a higher index is started, but every lower-indexed task still runs,
// so Map returns the error of the lowest-indexed failing task,
// deterministically and unwrapped. If no task fails but ctx is cancelled
// before all tasks have started, Map stops starting tasks, waits for the
// running ones and returns ctx.Err(). A panic in fn is re-raised in the
// caller's goroutine (the lowest-indexed one if several tasks panic). n ≤ 0
// does nothing and returns nil.
func Map(ctx context.Context, n int, seed uint64, fn func(i int, r *rand.Rand) error) error {
	if fn == nil {
		return ErrNilFunc
	}
	if ctx == nil {
		return errNilContext
	}
	return run(ctx, n, func(i int, s *reseeder) error {
		return fn(i, s.stream(seed, uint64(i)))
	}, true)
}

// MapAt is Map over the tasks first, first+1, …, first+n−1: fn(i, r) runs
// for i in [0, n) with r = Stream(seed, first+i). A range of tasks split
// into consecutive MapAt calls therefore draws the same streams as one Map
// over the whole range. Errors, cancellation and panics are those of Map
// (indices relative to first).
func MapAt(ctx context.Context, n int, seed, first uint64, fn func(i int, r *rand.Rand) error) error {
	if fn == nil {
		return ErrNilFunc
	}
	if ctx == nil {
		return errNilContext
	}
	return run(ctx, n, func(i int, s *reseeder) error {
		return fn(i, s.stream(seed, first+uint64(i)))
	}, true)
}

// maxChunks bounds the number of chunks For splits its range into.
const maxChunks = 256

// Chunks returns the number of chunks For uses for a loop of length n:
// min(n, 256). Chunk c covers [c·n/Chunks(n), (c+1)·n/Chunks(n)), so the
// boundaries depend on n only.
func Chunks(n int) int {
	if n <= 0 {
		return 0
	}
	return min(n, maxChunks)
}

// For runs fn(lo, hi) over consecutive chunks covering [0, n) on
// Workers(Chunks(n)) goroutines. The chunk boundaries depend on n only (see
// Chunks), so per-chunk work such as partial sums is reproducible for any
// GOMAXPROCS. Error, cancellation and panic semantics are those of Map, with
// chunks in place of tasks.
func For(ctx context.Context, n int, fn func(lo, hi int) error) error {
	if fn == nil {
		return ErrNilFunc
	}
	if ctx == nil {
		return errNilContext
	}
	c := Chunks(n)
	return run(ctx, c, func(i int, _ *reseeder) error {
		lo := int(int64(i) * int64(n) / int64(c))
		hi := int(int64(i+1) * int64(n) / int64(c))
		return fn(lo, hi)
	}, false)
}

func run(ctx context.Context, n int, task func(i int, s *reseeder) error, streams bool) error {
	if n <= 0 {
		return nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var (
		next      atomic.Int64
		fail      firstErr
		cancelled atomic.Bool
		wg        sync.WaitGroup
	)
	fail.init()
	worker := func() {
		defer wg.Done()
		var s *reseeder
		if streams {
			s = newReseeder()
		}
		for {
			i := next.Add(1) - 1
			if i >= int64(n) || i > fail.idx.Load() {
				return
			}
			if ctx.Err() != nil {
				cancelled.Store(true)
				return
			}
			if err := call(task, int(i), s, &fail); err != nil {
				return
			}
		}
	}
	w := Workers(n)
	wg.Add(w)
	for k := 1; k < w; k++ {
		go worker()
	}
	worker()
	wg.Wait()
	if fail.idx.Load() != noFailure {
		if fail.panic != nil {
			panic(fmt.Sprintf("parallel: task %d panicked: %v", fail.idx.Load(), fail.panic))
		}
		return fail.err
	}
	if cancelled.Load() {
		return ctx.Err()
	}
	return nil
}

// errPanicked marks a task that panicked.
var errPanicked = errors.New("parallel: task panicked")

func call(task func(int, *reseeder) error, i int, s *reseeder, fail *firstErr) (err error) {
	defer func() {
		if pv := recover(); pv != nil {
			fail.record(i, errPanicked, pv)
			err = errPanicked
		}
	}()
	if e := task(i, s); e != nil {
		fail.record(i, e, nil)
		return e
	}
	return nil
}
