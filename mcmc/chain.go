package mcmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/parallel"
)

// Kernel is one chain's Markov transition for a Target.
//
// Step moves x in place from a point with log density logp and returns the
// new log density and whether a proposal was accepted (kernels that always
// move, such as slice sampling, report true). During warm-up adapt is true
// and the kernel may tune itself; afterwards it must leave the target
// invariant. An error wrapping ErrNaN reports a NaN log density.
type Kernel interface {
	Step(r *rand.Rand, x []float64, logp float64, adapt bool) (float64, bool, error)
}

// Method builds a fresh Kernel for each chain; AdaptiveMetropolis, Slice
// and NUTS are Methods.
type Method interface {
	NewKernel(t Target) (Kernel, error)
}

// Config controls a multi-chain run of Run. The zero value is usable: four
// chains of 1000 draws without warm-up or thinning, started at draws of
// N(0, I), with seed 0.
type Config struct {
	// Chains is the number of chains; 0 means 4. They run in parallel,
	// chain c on its own random stream derived from (Seed, c), so the
	// result depends on Seed only.
	Chains int
	// Warmup iterations are discarded (and used for adaptation); 0 means
	// none.
	Warmup int
	// Draws is the number of retained draws per chain; 0 means 1000.
	Draws int
	// Thin keeps every Thin-th iteration after warm-up; 0 means 1.
	Thin int
	// Seed selects the random streams.
	Seed uint64
	// Init, if non-nil, holds one initial point per chain.
	Init [][]float64
	// InitFunc, used when Init is nil, writes chain c's initial point into
	// x. If both are nil, chains start at draws of N(0, I).
	InitFunc func(chain int, r *rand.Rand, x []float64) error
	// Names are the parameter names of the returned Draws (length
	// Target.Dim()); nil means θ[0], θ[1], ….
	Names []string
	// Progress, if non-nil, receives events with Stage "chain", Step the
	// iterations done over all chains and Total their number, at about
	// every percent of the run and at its end; it is called from the
	// goroutine that called Run, never concurrently.
	Progress privinfer.ProgressFunc
}

// Defaults of the chain settings of Config and DAConfig.
const (
	defaultChains = 4
	defaultDraws  = 1000
)

// Size limits of a run, refusing requests that cannot be allocated.
const (
	maxChains = 1 << 16
	maxValues = 1 << 31 // retained draws × dimension over all chains
)

// chainSettings are the settings shared by Config and DAConfig, with the
// defaults of zero values applied.
type chainSettings struct {
	chains, warmup, draws, thin int
}

// iters returns the iterations of one chain.
func (s chainSettings) iters() int { return s.warmup + s.draws*s.thin }

// resolve applies the defaults and checks the counts against dim.
func resolveChains(chains, warmup, draws, thin, dim int) (chainSettings, error) {
	if chains < 0 {
		return chainSettings{}, fmt.Errorf("%w: Chains must be >= 0 (0 means %d), got %d", ErrInvalid, defaultChains, chains)
	}
	if draws < 0 {
		return chainSettings{}, fmt.Errorf("%w: Draws must be >= 0 (0 means %d), got %d", ErrInvalid, defaultDraws, draws)
	}
	if warmup < 0 {
		return chainSettings{}, fmt.Errorf("%w: Warmup must be >= 0, got %d", ErrInvalid, warmup)
	}
	if thin < 0 {
		return chainSettings{}, fmt.Errorf("%w: Thin must be >= 0 (0 means 1), got %d", ErrInvalid, thin)
	}
	s := chainSettings{chains: chains, warmup: warmup, draws: draws, thin: thin}
	if s.chains == 0 {
		s.chains = defaultChains
	}
	if s.draws == 0 {
		s.draws = defaultDraws
	}
	if s.thin == 0 {
		s.thin = 1
	}
	if s.chains > maxChains {
		return chainSettings{}, fmt.Errorf("%w: Chains must be <= %d, got %d", ErrInvalid, maxChains, s.chains)
	}
	if dim < 1 {
		dim = 1
	}
	if dim > maxValues || s.draws > maxValues/dim/s.chains {
		return chainSettings{}, fmt.Errorf("%w: Chains·Draws·dimension = %d·%d·%d exceeds %d stored values", ErrInvalid, s.chains, s.draws, dim, maxValues)
	}
	if s.draws > (math.MaxInt-s.warmup)/s.thin {
		return chainSettings{}, fmt.Errorf("%w: Warmup + Draws·Thin = %d + %d·%d overflows", ErrInvalid, s.warmup, s.draws, s.thin)
	}
	return s, nil
}

// checkInit checks one initial point per chain, each of length dim and
// finite.
func checkInit(init [][]float64, chains, dim int) error {
	if init == nil {
		return nil
	}
	if len(init) != chains {
		return fmt.Errorf("%w: Init must hold one point per chain (%d), got %d", ErrInvalid, chains, len(init))
	}
	for i, x := range init {
		if dim > 0 && len(x) != dim {
			return fmt.Errorf("%w: Init[%d] must have length %d, got %d", ErrInvalid, i, dim, len(x))
		}
		for j, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: Init[%d][%d] must be finite, got %v", ErrInvalid, i, j, v)
			}
		}
	}
	return nil
}

// checkNames checks optional parameter names for dim coordinates.
func checkNames(names []string, dim int) error {
	if names == nil {
		return nil
	}
	d := privinfer.Draws{Names: names, Dim: dim}
	if dim < 1 || len(names) != dim {
		return fmt.Errorf("%w: Names must have one name per coordinate (%d), got %d", ErrInvalid, dim, len(names))
	}
	if err := d.Validate(); err != nil {
		return argcheck.Also(err, ErrInvalid)
	}
	return nil
}

// Validate checks the settings that do not depend on the target: counts
// non-negative and within the size limits, Init finite with one point per
// chain of one length, Names non-empty and distinct. Run checks the
// lengths of Init and Names against the target's dimension. Errors wrap
// ErrInvalid.
func (c Config) Validate() error {
	dim := 0
	if len(c.Init) > 0 {
		dim = len(c.Init[0])
		if dim == 0 {
			return fmt.Errorf("%w: Init[0] is empty", ErrInvalid)
		}
	}
	if dim == 0 && c.Names != nil {
		dim = len(c.Names)
	}
	return c.check(dim)
}

func (c Config) check(dim int) error {
	s, err := resolveChains(c.Chains, c.Warmup, c.Draws, c.Thin, dim)
	if err != nil {
		return err
	}
	if err := checkInit(c.Init, s.chains, dim); err != nil {
		return err
	}
	return checkNames(c.Names, dim)
}

// Result holds the draws of a multi-chain run and per-chain statistics.
type Result struct {
	// Draws are the retained draws of all chains, chain-major
	// (Draws.Chains is the number of chains), with the names of the
	// Config or the Problem.
	Draws *privinfer.Draws
	// LogDensity holds the log density at each retained draw, in the
	// order of the rows of Draws (for data augmentation: log η(s_dp |
	// s(x)) at the draw's records).
	LogDensity []float64
	// Accepted and Proposed count each chain's post-warm-up proposals
	// (for data augmentation: record replacements).
	Accepted, Proposed []int64
}

// AcceptRate returns the pooled post-warm-up acceptance rate, or NaN for a
// nil Result or before any proposal.
func (r *Result) AcceptRate() float64 {
	if r == nil {
		return math.NaN()
	}
	var a, p int64
	for c := range r.Proposed {
		p += r.Proposed[c]
		if c < len(r.Accepted) {
			a += r.Accepted[c]
		}
	}
	if p == 0 {
		return math.NaN()
	}
	return float64(a) / float64(p)
}

// newResult allocates the storage of a run of s on dim coordinates.
func newResult(s chainSettings, dim int, names []string) *Result {
	return &Result{
		Draws: &privinfer.Draws{Names: append([]string(nil), names...), Dim: dim,
			Theta: make([]float64, s.chains*s.draws*dim), Chains: s.chains},
		LogDensity: make([]float64, s.chains*s.draws),
		Accepted:   make([]int64, s.chains),
		Proposed:   make([]int64, s.chains),
	}
}

// store writes retained draw i of chain c.
func (r *Result) store(s chainSettings, c, i int, x []float64, lp float64) {
	d := r.Draws.Dim
	row := c*s.draws + i
	copy(r.Draws.Theta[row*d:(row+1)*d], x)
	r.LogDensity[row] = lp
}

// runChains runs fn for every chain in parallel on the random streams of
// seed (see parallel.Chains). Each chain calls tick after every iteration
// with the number of iterations it has done. When progress is non-nil, the
// chains' ticks are aggregated into events delivered on the calling
// goroutine (Stage "chain", Step of Total iterations over all chains), at
// about every percent of each chain and at the end of each chain.
func runChains(ctx context.Context, s chainSettings, seed uint64, progress privinfer.ProgressFunc,
	fn func(c int, r *rand.Rand, tick func(done int)) error) error {
	return parallel.Chains(ctx, parallel.ChainOptions{Chains: s.chains, Iters: s.iters(), Seed: seed,
		Progress: chainProgress(progress)}, fn)
}

// chainProgress turns the events of parallel.Chains into progress events
// of Stage "chain", or returns nil for a nil f.
func chainProgress(f privinfer.ProgressFunc) func(parallel.ChainProgress) {
	if f == nil {
		return nil
	}
	return func(p parallel.ChainProgress) {
		f(privinfer.Progress{Stage: "chain", Step: p.Step, Total: p.Total, Elapsed: p.Elapsed,
			Message: fmt.Sprintf("%d of %d chains finished", p.Finished, p.Chains)})
	}
}

// Run samples target t with method m on cfg.Chains parallel chains and
// returns the draws, chain-major.
func Run(ctx context.Context, t Target, m Method, cfg Config) (*Result, error) {
	if err := checkTarget(t); err != nil {
		return nil, err
	}
	if argcheck.Nil(m) {
		return nil, fmt.Errorf("%w: method is nil", ErrInvalid)
	}
	if ctx == nil {
		return nil, fmt.Errorf("%w: context is nil", ErrInvalid)
	}
	d := t.Dim()
	if err := cfg.check(d); err != nil {
		return nil, err
	}
	s, _ := resolveChains(cfg.Chains, cfg.Warmup, cfg.Draws, cfg.Thin, d)
	res := newResult(s, d, cfg.Names)
	total := s.iters()
	err := runChains(ctx, s, cfg.Seed, cfg.Progress, func(c int, r *rand.Rand, tick func(int)) error {
		k, err := m.NewKernel(t)
		if err != nil {
			return err
		}
		if ws, ok := k.(interface{ SetWarmup(int) }); ok {
			ws.SetWarmup(s.warmup)
		}
		x := make([]float64, d)
		switch {
		case cfg.Init != nil:
			copy(x, cfg.Init[c])
		case cfg.InitFunc != nil:
			if err := cfg.InitFunc(c, r, x); err != nil {
				return fmt.Errorf("mcmc: chain %d: InitFunc: %w", c, err)
			}
		default:
			for i := range x {
				x[i] = r.NormFloat64()
			}
		}
		lp := t.LogDensity(x)
		if math.IsNaN(lp) {
			return fmt.Errorf("%w: chain %d: at the initial point", ErrNaN, c)
		}
		if math.IsInf(lp, -1) {
			return fmt.Errorf("%w: chain %d: initial point has zero density", ErrInvalid, c)
		}
		kept := 0
		for it := range total {
			if it&63 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			warm := it < s.warmup
			var acc bool
			lp, acc, err = k.Step(r, x, lp, warm)
			if err != nil {
				return fmt.Errorf("mcmc: chain %d iteration %d: %w", c, it, err)
			}
			if !warm {
				res.Proposed[c]++
				if acc {
					res.Accepted[c]++
				}
				if (it-s.warmup+1)%s.thin == 0 {
					res.store(s, c, kept, x, lp)
					kept++
				}
			}
			tick(it + 1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
