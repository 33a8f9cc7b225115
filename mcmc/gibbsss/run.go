package gibbsss

import (
	"context"
	"fmt"
	"math/rand/v2"

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

// run samples the posterior of β (and σ²) given cfg.Observed with
// cfg.Chains parallel Gibbs-SS chains.
func run(ctx context.Context, cfg spec) (*Result, error) {
	if ctx == nil {
		return nil, invalidf("context is nil")
	}
	if err := cfg.validate(); err != nil {
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
	o := parallel.ChainOptions{Chains: s.chains, Iters: s.iters(), Seed: cfg.Seed}
	if f := cfg.Progress; f != nil {
		o.Progress = func(p parallel.ChainProgress) {
			f(privinfer.Progress{Stage: "chain", Step: p.Step, Total: p.Total, Elapsed: p.Elapsed,
				Message: fmt.Sprintf("%d of %d chains finished", p.Finished, p.Chains)})
		}
	}
	err := parallel.Chains(ctx, o, func(ci int, r *rand.Rand, tick func(int)) error {
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
