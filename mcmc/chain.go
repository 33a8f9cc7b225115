package mcmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

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

// Config controls a multi-chain run.
type Config struct {
	// Chains is the number of chains (≥ 1); they run in parallel, chain c
	// on the random stream parallel.Stream(Seed, c), so the result depends
	// on Seed only.
	Chains int
	// Warmup iterations are discarded (and used for adaptation).
	Warmup int
	// Draws is the number of retained draws per chain (≥ 1).
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
	// Progress, if non-nil, is called after every iteration of every chain
	// with the chain index and the iterations done and in total. It is
	// called concurrently from the chains' goroutines.
	Progress func(chain, done, total int)
}

// Size limits of a run, refusing requests that cannot be allocated.
const (
	maxChains = 1 << 16
	maxValues = 1 << 31 // retained draws × dimension over all chains
)

func (c *Config) check(dim int) (thin int, err error) {
	if c.Chains < 1 {
		return 0, fmt.Errorf("mcmc: Chains must be >= 1, got %d: %w", c.Chains, ErrInvalid)
	}
	if c.Draws < 1 {
		return 0, fmt.Errorf("mcmc: Draws must be >= 1, got %d: %w", c.Draws, ErrInvalid)
	}
	if c.Warmup < 0 {
		return 0, fmt.Errorf("mcmc: Warmup must be >= 0, got %d: %w", c.Warmup, ErrInvalid)
	}
	thin = c.Thin
	if thin == 0 {
		thin = 1
	}
	if thin < 0 {
		return 0, fmt.Errorf("mcmc: Thin must be >= 0, got %d: %w", c.Thin, ErrInvalid)
	}
	if c.Chains > maxChains {
		return 0, fmt.Errorf("mcmc: Chains must be <= %d, got %d: %w", maxChains, c.Chains, ErrInvalid)
	}
	if dim > maxValues || c.Draws > maxValues/dim/c.Chains {
		return 0, fmt.Errorf("mcmc: Chains·Draws·dimension = %d·%d·%d exceeds %d stored values: %w", c.Chains, c.Draws, dim, maxValues, ErrInvalid)
	}
	if c.Draws > (math.MaxInt-c.Warmup)/thin {
		return 0, fmt.Errorf("mcmc: Warmup + Draws·Thin = %d + %d·%d overflows: %w", c.Warmup, c.Draws, thin, ErrInvalid)
	}
	if c.Init != nil {
		if len(c.Init) != c.Chains {
			return 0, fmt.Errorf("mcmc: Init must hold one point per chain (%d), got %d: %w", c.Chains, len(c.Init), ErrInvalid)
		}
		for i, x := range c.Init {
			if len(x) != dim {
				return 0, fmt.Errorf("mcmc: Init[%d] must have length %d, got %d: %w", i, dim, len(x), ErrInvalid)
			}
			for j, v := range x {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return 0, fmt.Errorf("mcmc: Init[%d][%d] must be finite, got %v: %w", i, j, v, ErrInvalid)
				}
			}
		}
	}
	return thin, nil
}

// Chain is the output of one chain.
type Chain struct {
	// Draws holds the retained draws row-major: draw i is
	// Draws[i*Dim:(i+1)*Dim].
	Draws []float64
	// LogDensity holds the log density at each retained draw (for
	// data augmentation: log η(s_dp | s(x)) at the draw's records).
	LogDensity []float64
	// Accepted and Proposed count post-warm-up proposals.
	Accepted, Proposed int64
}

// AcceptRate returns Accepted/Proposed, or NaN before any proposal.
func (c *Chain) AcceptRate() float64 {
	if c.Proposed == 0 {
		return math.NaN()
	}
	return float64(c.Accepted) / float64(c.Proposed)
}

// Result holds the chains of a run.
type Result struct {
	Dim    int
	Chains []Chain
}

// Param returns, for coordinate j, one series per chain (freshly
// allocated), the shape the diagnostics take. It returns nil for a nil
// Result, a Result without a positive Dim, or j outside [0, Dim).
func (r *Result) Param(j int) [][]float64 {
	if r == nil || r.Dim < 1 || j < 0 || j >= r.Dim {
		return nil
	}
	out := make([][]float64, len(r.Chains))
	for c, ch := range r.Chains {
		n := len(ch.Draws) / r.Dim
		s := make([]float64, n)
		for i := range n {
			s[i] = ch.Draws[i*r.Dim+j]
		}
		out[c] = s
	}
	return out
}

// Pooled returns all chains' draws of coordinate j concatenated (nil when
// Param returns nil).
func (r *Result) Pooled(j int) []float64 {
	var out []float64
	for _, s := range r.Param(j) {
		out = append(out, s...)
	}
	return out
}

// AcceptRate returns the pooled post-warm-up acceptance rate, or NaN for a
// nil Result or before any proposal.
func (r *Result) AcceptRate() float64 {
	if r == nil {
		return math.NaN()
	}
	var a, p int64
	for _, c := range r.Chains {
		a += c.Accepted
		p += c.Proposed
	}
	if p == 0 {
		return math.NaN()
	}
	return float64(a) / float64(p)
}

// Run samples target t with method m on cfg.Chains parallel chains.
func Run(ctx context.Context, t Target, m Method, cfg Config) (*Result, error) {
	if err := checkTarget(t); err != nil {
		return nil, err
	}
	if isNil(m) {
		return nil, fmt.Errorf("mcmc: method is nil: %w", ErrInvalid)
	}
	if ctx == nil {
		return nil, fmt.Errorf("mcmc: context is nil: %w", ErrInvalid)
	}
	d := t.Dim()
	if d < 1 {
		return nil, fmt.Errorf("mcmc: target dimension must be >= 1, got %d: %w", d, ErrInvalid)
	}
	thin, err := cfg.check(d)
	if err != nil {
		return nil, err
	}
	res := &Result{Dim: d, Chains: make([]Chain, cfg.Chains)}
	total := cfg.Warmup + cfg.Draws*thin
	err = parallel.Map(ctx, cfg.Chains, cfg.Seed, func(c int, r *rand.Rand) error {
		k, err := m.NewKernel(t)
		if err != nil {
			return err
		}
		if ws, ok := k.(interface{ SetWarmup(int) }); ok {
			ws.SetWarmup(cfg.Warmup)
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
			return fmt.Errorf("mcmc: chain %d: initial point has zero density: %w", c, ErrInvalid)
		}
		ch := &res.Chains[c]
		ch.Draws = make([]float64, 0, cfg.Draws*d)
		ch.LogDensity = make([]float64, 0, cfg.Draws)
		for it := range total {
			if it&63 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			warm := it < cfg.Warmup
			var acc bool
			lp, acc, err = k.Step(r, x, lp, warm)
			if err != nil {
				return fmt.Errorf("mcmc: chain %d iteration %d: %w", c, it, err)
			}
			if !warm {
				ch.Proposed++
				if acc {
					ch.Accepted++
				}
				if (it-cfg.Warmup+1)%thin == 0 {
					ch.Draws = append(ch.Draws, x...)
					ch.LogDensity = append(ch.LogDensity, lp)
				}
			}
			if cfg.Progress != nil {
				cfg.Progress(c, it+1, total)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// RunDA runs data-augmentation MCMC for model m with x-kernel k on
// cfg.Chains parallel chains. Each iteration is a Sweep: n attempts of the
// x-kernel followed by the θ-step. Draws hold θ. Init or InitFunc (one is
// required) gives each chain's initial θ, and its records are then drawn
// from f(·|θ). Accepted and Proposed count the record replacements
// accepted and attempted after warm-up.
func RunDA(ctx context.Context, m *DAModel, k XKernel, cfg Config) (*Result, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, fmt.Errorf("mcmc: context is nil: %w", ErrInvalid)
	}
	d := m.Records.ParamDim()
	if d < 1 {
		return nil, fmt.Errorf("mcmc: record model ParamDim must be >= 1, got %d: %w", d, ErrInvalid)
	}
	thin, err := cfg.check(d)
	if err != nil {
		return nil, err
	}
	if cfg.Init == nil && cfg.InitFunc == nil {
		return nil, fmt.Errorf("mcmc: RunDA needs Init or InitFunc for the initial θ: %w", ErrInvalid)
	}
	res := &Result{Dim: d, Chains: make([]Chain, cfg.Chains)}
	total := cfg.Warmup + cfg.Draws*thin
	err = parallel.Map(ctx, cfg.Chains, cfg.Seed, func(c int, r *rand.Rand) error {
		th := make([]float64, d)
		if cfg.Init != nil {
			copy(th, cfg.Init[c])
		} else if err := cfg.InitFunc(c, r, th); err != nil {
			return fmt.Errorf("mcmc: chain %d: InitFunc: %w", c, err)
		}
		st, err := NewDAChain(m, k, r, th)
		if err != nil {
			return fmt.Errorf("mcmc: chain %d: %w", c, err)
		}
		ch := &res.Chains[c]
		ch.Draws = make([]float64, 0, cfg.Draws*d)
		ch.LogDensity = make([]float64, 0, cfg.Draws)
		for it := range total {
			if it&15 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if it == cfg.Warmup {
				st.ResetAcceptance()
			}
			if err := st.Sweep(r); err != nil {
				return fmt.Errorf("mcmc: chain %d iteration %d: %w", c, it, err)
			}
			if it >= cfg.Warmup && (it-cfg.Warmup+1)%thin == 0 {
				ch.Draws = append(ch.Draws, st.theta...)
				ch.LogDensity = append(ch.LogDensity, st.logE)
			}
			if cfg.Progress != nil {
				cfg.Progress(c, it+1, total)
			}
		}
		ch.Accepted, ch.Proposed = st.Acceptance()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
