package abc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// KernelISConfig configures KernelIS. Simulations, Stages, Mean and Cov
// must be set; the zero values of Inflate and DF select defaults.
type KernelISConfig struct {
	// Simulations is the number of draws, each costing one confidential
	// simulation, per stage (≥ 2).
	Simulations int
	// Stages is the number of adaptive stages (≥ 1). Stage 1 proposes from
	// the Student-t with location Mean and scale matrix Cov; every later
	// stage from the Student-t fitted to the previous stage's weighted
	// sample, its scale inflated by Inflate.
	Stages int
	// Mean (length d) and Cov (d×d, row-major, positive definite) are the
	// first stage's proposal location and scale matrix, typically a
	// moment fit to a tolerance-ABC population widened by a factor.
	Mean, Cov []float64
	// Inflate multiplies the fitted standard deviations of later stages'
	// proposals (≥ 1; 0 means 1.5).
	Inflate float64
	// DF is the proposal's Student-t degrees of freedom (> 0; 0 means 5):
	// heavy tails keep the importance weights of finite variance.
	DF float64
	// Seed selects the random streams; results depend on it only, never
	// on the Executor.
	Seed uint64
	// Executor simulates the draws (nil: simulate.InProcess, all cores of
	// this process). It runs Problem.Simulator; the draws from the
	// proposal and the weights are computed on the driver (see
	// simulate.Executor).
	Executor simulate.Executor
	// Progress, if not nil, receives an event with Stage "stage" after
	// every stage (Step stages of Total, Message the ESS).
	Progress privinfer.ProgressFunc
}

// withDefaults returns cfg with the zero-value defaults applied.
func (cfg KernelISConfig) withDefaults() KernelISConfig {
	if cfg.Inflate == 0 {
		cfg.Inflate = 1.5
	}
	if cfg.DF == 0 {
		cfg.DF = 5
	}
	return cfg
}

// Validate checks the configuration on its own (KernelIS also checks the
// lengths of Mean and Cov against the Problem's dimension). Errors wrap
// ErrInvalid.
func (cfg *KernelISConfig) Validate() error {
	if cfg == nil {
		return invalidf("nil *KernelISConfig")
	}
	c := cfg.withDefaults()
	switch {
	case c.Simulations < 2:
		return invalidf("KernelISConfig.Simulations must be >= 2, got %d", c.Simulations)
	case c.Simulations > MaxElements:
		return invalidf("KernelISConfig.Simulations = %d exceeds %d", c.Simulations, MaxElements)
	case c.Stages < 1:
		return invalidf("KernelISConfig.Stages must be >= 1, got %d", c.Stages)
	case !(c.Inflate >= 1) || math.IsInf(c.Inflate, 0):
		return invalidf("KernelISConfig.Inflate must be finite and >= 1, got %v", c.Inflate)
	case !(c.DF >= minNormal) || math.IsInf(c.DF, 0):
		return invalidf("KernelISConfig.DF must be a finite normal number > 0, got %v", c.DF)
	case len(c.Mean) == 0:
		return invalidf("KernelISConfig.Mean is empty")
	case len(c.Cov) != len(c.Mean)*len(c.Mean):
		return invalidf("KernelISConfig.Cov has length %d, want %d for Mean of length %d", len(c.Cov), len(c.Mean)*len(c.Mean), len(c.Mean))
	}
	for i, v := range c.Mean {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("KernelISConfig.Mean[%d] = %v is not finite", i, v)
		}
	}
	for i, v := range c.Cov {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("KernelISConfig.Cov[%d] = %v is not finite", i, v)
		}
	}
	return nil
}

// KernelISResult is the outcome of KernelIS.
type KernelISResult struct {
	// Draws is the posterior sample: the last stage's weighted draws.
	Draws *privinfer.Draws
	// Stages holds every stage (Round counts from 1; Tolerance and
	// Distance are unset, ESS is that of the weights, Simulations counts
	// that stage only); the last holds Draws.
	Stages []*Round
}

// KernelIS runs adaptive importance sampling for the exact posterior
// π(θ | s_dp°) ∝ π(θ) ∫ f(s | θ) η(s_dp° | s) ds of p, whose Mechanism must
// have a release density (p.Require(privinfer.NeedDensity)): this is ABC
// whose kernel is the mechanism's own density η(s_dp° | s) instead of an
// indicator of a distance below a tolerance, so there is no tolerance bias
// (Wilkinson 2013). Each draw θ ~ q costs one confidential simulation s of
// p.Simulator, never released, and has weight π(θ) η(s_dp° | s) / q(θ), an
// unbiased estimate of the unnormalised posterior density over q, so
// weighted averages converge to posterior expectations as Simulations
// grows. The driver draws θ from the proposal (on all cores, one stream
// per draw), the executor simulates the draws inside the prior's support
// (row k with its own stream), and the driver computes the weights, so
// results depend only on Seed, whichever cfg.Executor ran them. A
// simulator error aborts the run and is returned as the row's
// *simulate.RowError; a Problem without a density gives an error wrapping
// privinfer.ErrNoMechanism or privinfer.ErrNoDensity (and ErrInvalid).
func KernelIS(ctx context.Context, p privinfer.Problem, cfg KernelISConfig) (*KernelISResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if err := checkProblem(&p, privinfer.NeedDensity); err != nil {
		return nil, err
	}
	dens, err := p.Density()
	if err != nil {
		return nil, argcheck.Also(err, ErrInvalid)
	}
	d, sd := p.Prior.Dim(), p.Simulator.StatDim()
	switch {
	case cfg.Simulations > MaxElements/max(d, sd):
		return nil, invalidf("KernelISConfig.Simulations = %d exceeds %d stored values", cfg.Simulations, MaxElements)
	case len(cfg.Mean) != d:
		return nil, invalidf("KernelISConfig.Mean has length %d, the prior's dimension %d", len(cfg.Mean), d)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ks := &kernelTarget{prior: p.Prior, sim: p.Simulator, exec: cfg.Executor, dens: dens, obs: p.Observed, names: p.ParamNames(), d: d, sd: sd}
	mean := append([]float64(nil), cfg.Mean...)
	scale := append([]float64(nil), cfg.Cov...)
	chol := make([]float64, d*d)
	res := &KernelISResult{}
	begin := time.Now()
	for st := 1; st <= cfg.Stages; st++ {
		if err := linalg.Cholesky(scale, d, chol); err != nil {
			return nil, invalidf("proposal scale of stage %d is not positive definite: %v", st, err)
		}
		start := time.Now()
		pop, err := ks.stage(ctx, mean, chol, &cfg, uint64(st))
		if err != nil {
			return nil, err
		}
		pop.Round = st
		pop.Elapsed = time.Since(start)
		res.Stages = append(res.Stages, pop)
		cfg.Progress.Report(privinfer.Progress{Stage: "stage", Step: st, Total: cfg.Stages,
			Elapsed: time.Since(begin), Message: fmt.Sprintf("ESS %.0f of %d", pop.ESS, cfg.Simulations)})
		// Next proposal: the weighted moments (divisor Σw = 1), scale
		// inflated.
		if err := stats.WeightedCov(pop.Draws.Theta, d, pop.Draws.Weights, mean, scale); err != nil {
			return nil, fmt.Errorf("abc: moments of stage %d: %w", st, err)
		}
		for i := range scale {
			scale[i] *= cfg.Inflate * cfg.Inflate
		}
	}
	res.Draws = res.Stages[len(res.Stages)-1].Draws
	return res, nil
}

// kernelTarget is what KernelIS reads from a privinfer.Problem.
type kernelTarget struct {
	prior simulate.Prior
	sim   simulate.Simulator
	exec  simulate.Executor
	dens  mechanism.Density
	obs   []float64
	names []string
	d, sd int
}

// kernelStage draws cfg.Draws weighted particles from the Student-t
// proposal with location mean and Cholesky factor chol.
func (p *kernelTarget) stage(ctx context.Context, mean, chol []float64, cfg *KernelISConfig, stage uint64) (*Round, error) {
	n, d := cfg.Simulations, p.d
	theta := make([]float64, n*d)
	logw := make([]float64, n)
	nu := cfg.DF
	logDet := linalg.LogDetChol(chol, d) / 2
	// log normaliser of the d-variate t with scale L Lᵀ.
	logC := special.LogGamma((nu+float64(d))/2) - special.LogGamma(nu/2) - float64(d)/2*math.Log(nu*math.Pi) - logDet
	seed := cfg.Seed ^ stage*0x9e3779b97f4a7c15
	sd := p.sd
	prior := p.prior
	// Draw i: z ~ N(0, I) and the t's mixing variable from the stream of
	// (PriorSeed(seed), i), on the driver.
	logq := make([]float64, n)
	err := parallel.Map(ctx, n, simulate.PriorSeed(seed), func(i int, r *rand.Rand) error {
		th := theta[i*d : (i+1)*d]
		// z ~ N(0, I) is drawn into th and mapped in place to
		// mean + w·L z, from the last coordinate down (row a of the
		// lower-triangular L reads z[0..a] only).
		q := 0.0
		for k := range th {
			th[k] = variate.Normal(r)
			q += th[k] * th[k]
		}
		w := math.Sqrt(nu / (2 * variate.Gamma(r, nu/2, 1)))
		for a := d - 1; a >= 0; a-- {
			v := 0.0
			for b := 0; b <= a; b++ {
				v += chol[a*d+b] * th[b]
			}
			th[a] = mean[a] + w*v
		}
		// Mahalanobis distance of th is w²·q.
		logq[i] = logC - (nu+float64(d))/2*math.Log1p(w*w*q/nu)
		logw[i] = prior.LogDensity(th)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The draws inside the prior's support, in draw order, are the rows of
	// the stage's simulation run; the others have weight zero.
	inside := make([]int, 0, n)
	for i, lp := range logw {
		if math.IsInf(lp, -1) {
			continue
		}
		inside = append(inside, i)
	}
	rows := make([]float64, len(inside)*d)
	for k, i := range inside {
		copy(rows[k*d:(k+1)*d], theta[i*d:(i+1)*d])
	}
	stat := make([]float64, len(inside)*sd)
	err = simulate.Execute(ctx, p.exec, p.sim, simulate.Block{Seed: seed, Dim: d, Theta: rows, Stats: stat})
	if err != nil {
		return nil, err
	}
	err = parallel.For(ctx, len(inside), func(lo, hi int) error {
		for k := lo; k < hi; k++ {
			i := inside[k]
			logw[i] += p.dens.LogDensity(p.obs, stat[k*sd:(k+1)*sd]) - logq[i]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	mx := math.Inf(-1)
	for _, v := range logw {
		mx = math.Max(mx, v)
	}
	if math.IsInf(mx, -1) || math.IsNaN(mx) {
		return nil, invalidf("every importance weight of stage %d is zero (the proposal misses the posterior)", stage)
	}
	wts := make([]float64, n)
	s1, s2 := 0.0, 0.0
	for i, v := range logw {
		wts[i] = math.Exp(v - mx)
		s1 += wts[i]
	}
	for i := range wts {
		wts[i] /= s1
		s2 += wts[i] * wts[i]
	}
	dr := &privinfer.Draws{Names: slices.Clone(p.names), Dim: d, Theta: theta, Weights: wts}
	return &Round{Draws: dr, Simulations: int64(n), Proposals: int64(n), Acceptance: 1, ESS: 1 / s2}, nil
}
