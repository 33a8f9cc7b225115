package parallel

import (
	"context"
	"math/rand/v2"
	"time"
)

// ChainOptions configures Chains.
type ChainOptions struct {
	// Chains is the number of chains, run as the tasks of Map.
	Chains int
	// Iters is the number of iterations of each chain.
	Iters int
	// Seed selects the chains' random streams: chain c receives
	// Stream(Seed, c).
	Seed uint64
	// Progress, when non-nil, receives the chains' aggregated progress on
	// the goroutine that called Chains, one event at a time.
	Progress func(ChainProgress)
}

// ChainProgress is the aggregated progress of the chains of Chains.
type ChainProgress struct {
	// Step of Total iterations are done over all chains (Total is
	// Chains·Iters).
	Step, Total int
	// Finished of Chains chains have done all their iterations.
	Finished, Chains int
	// Elapsed is the wall time since Chains started.
	Elapsed time.Duration
}

// Chains runs fn for every chain c in [0, o.Chains) in parallel with Map on
// the stream Stream(o.Seed, c) and returns Map's error (the
// lowest-indexed failing chain's, or ctx.Err()). Each chain calls tick after every iteration with the number of
// iterations it has done (1 to o.Iters). When o.Progress is non-nil, the
// ticks are aggregated into events delivered on the calling goroutine, at
// about every percent of each chain and at the end of each chain; a chain
// blocks in tick while the events are behind.
func Chains(ctx context.Context, o ChainOptions, fn func(c int, r *rand.Rand, tick func(done int)) error) error {
	if fn == nil {
		return ErrNilFunc
	}
	if o.Progress == nil {
		nop := func(int) {}
		return Map(ctx, o.Chains, o.Seed, func(c int, r *rand.Rand) error { return fn(c, r, nop) })
	}
	if ctx == nil {
		return errNilContext
	}
	iters := o.Iters
	stride := max(iters/100, 1)
	type event struct{ chain, done int }
	events := make(chan event, max(min(o.Chains*101, 4096), 0))
	errc := make(chan error, 1)
	start := time.Now()
	go func() {
		errc <- Map(ctx, o.Chains, o.Seed, func(c int, r *rand.Rand) error {
			return fn(c, r, func(done int) {
				if done%stride == 0 || done == iters {
					events <- event{c, done}
				}
			})
		})
		close(events)
	}()
	done := make([]int, max(o.Chains, 0))
	step, finished := 0, 0
	for ev := range events {
		step += ev.done - done[ev.chain]
		done[ev.chain] = ev.done
		if ev.done == iters {
			finished++
		}
		o.Progress(ChainProgress{Step: step, Total: o.Chains * iters, Finished: finished, Chains: o.Chains,
			Elapsed: time.Since(start)})
	}
	return <-errc
}
