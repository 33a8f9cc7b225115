package gibbsss

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/parallel"
)

// Result holds the draws of Run.
type Result struct {
	// Draws are the retained draws of all chains, chain-major (Draws.Chains
	// is the number of chains): β_0, …, β_P and, when σ² is unknown, σ², in
	// the records' original units.
	Draws *privinfer.Draws
	// Outside counts, per chain, the post-warm-up iterations in which every
	// draw of the statistic fell outside the admissible set (moment matrix
	// not positive definite), so that the statistic kept its value. A large
	// fraction says the normal approximation of the statistic puts much of
	// its mass where no data set can be.
	Outside []int64
	// Iterations is the number of post-warm-up iterations of each chain.
	Iterations int
}

// OutsideRate returns the pooled fraction of post-warm-up iterations
// counted in Outside, or NaN for a nil Result.
func (r *Result) OutsideRate() float64 {
	if r == nil || r.Iterations == 0 || len(r.Outside) == 0 {
		return nan()
	}
	var s int64
	for _, v := range r.Outside {
		s += v
	}
	return float64(s) / float64(r.Iterations*len(r.Outside))
}

// Run samples the posterior of β (and σ²) given cfg.Observed with
// cfg.Chains parallel Gibbs-SS chains. It returns an error wrapping
// ErrInvalid for an invalid cfg or a nil context, the context's error if
// it is cancelled, and a numerical error if a covariance stops being
// positive definite.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if ctx == nil {
		return nil, invalidf("context is nil")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s, _ := cfg.settings()
	m := newModel(cfg)
	res := &Result{
		Draws: &privinfer.Draws{Names: cfg.names(), Dim: s.cols,
			Theta: make([]float64, s.chains*s.draws*s.cols), Chains: s.chains},
		Outside:    make([]int64, s.chains),
		Iterations: s.draws * s.thin,
	}
	err := runChains(ctx, s, cfg.Seed, cfg.Progress, func(ci int, r *rand.Rand, tick func(int)) error {
		c := newChain(m)
		c.init(r)
		iters := s.iters()
		kept := 0
		for it := range iters {
			if it%64 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if it == s.warmup {
				c.outside = 0
			}
			if err := c.step(r); err != nil {
				return fmt.Errorf("gibbsss: chain %d, iteration %d: %w", ci, it, err)
			}
			if it >= s.warmup && (it-s.warmup+1)%s.thin == 0 {
				row := ci*s.draws + kept
				c.store(res.Draws.Theta[row*s.cols : (row+1)*s.cols])
				kept++
			}
			tick(it + 1)
		}
		res.Outside[ci] = c.outside
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// runChains runs fn for every chain in parallel on the random streams of
// seed; each chain calls tick with its number of finished iterations. With
// a progress function the ticks are aggregated into events delivered on
// the calling goroutine, at about every percent of each chain and at its
// end.
func runChains(ctx context.Context, s chainSettings, seed uint64, progress privinfer.ProgressFunc,
	fn func(c int, r *rand.Rand, tick func(done int)) error) error {
	if progress == nil {
		nop := func(int) {}
		return parallel.Map(ctx, s.chains, seed, func(c int, r *rand.Rand) error { return fn(c, r, nop) })
	}
	iters := s.iters()
	stride := max(iters/100, 1)
	type event struct{ chain, done int }
	events := make(chan event, min(s.chains*101, 4096))
	errc := make(chan error, 1)
	start := time.Now()
	go func() {
		errc <- parallel.Map(ctx, s.chains, seed, func(c int, r *rand.Rand) error {
			return fn(c, r, func(done int) {
				if done%stride == 0 || done == iters {
					events <- event{c, done}
				}
			})
		})
		close(events)
	}()
	done := make([]int, s.chains)
	total, finished := 0, 0
	for ev := range events {
		total += ev.done - done[ev.chain]
		done[ev.chain] = ev.done
		if ev.done == iters {
			finished++
		}
		progress(privinfer.Progress{Stage: "chain", Step: total, Total: s.chains * iters,
			Elapsed: time.Since(start), Message: fmt.Sprintf("%d of %d chains finished", finished, s.chains)})
	}
	return <-errc
}
