package abc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// KernelProblem is an inference problem whose release mechanism has a
// tractable density: θ ~ Prior, s ~ Simulator(θ) confidentially, and the
// observed release s_dp° ~ η(· | s) of Mechanism.
//
// ABC whose kernel is the mechanism's own density η(s_dp° | s), instead of
// an indicator of a distance below a tolerance, targets the exact posterior
// π(θ | s_dp°) ∝ π(θ) ∫ f(s | θ) η(s_dp° | s) ds (Wilkinson 2013): there
// is no tolerance bias. KernelIS samples it by importance sampling.
type KernelProblem struct {
	Prior simulate.Prior
	// Simulator draws the confidential statistic s; it is never released.
	Simulator simulate.Simulator
	Mechanism mechanism.Density
	Observed  []float64
}

// KernelISConfig configures KernelIS.
type KernelISConfig struct {
	// Draws is the number of simulations per stage (≥ 2).
	Draws int
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
	DF   float64
	Seed uint64
	// Progress, if not nil, is called after every stage.
	Progress func(*Population)
}

// ErrKernelIS is wrapped by KernelIS's input errors; it wraps
// ErrInvalidInput, the package's invalid-argument sentinel.
var ErrKernelIS = fmt.Errorf("abc: invalid kernel importance-sampling input: %w", ErrInvalidInput)

// KernelIS runs adaptive importance sampling for the exact posterior of a
// KernelProblem and returns the last stage's weighted sample (Tolerance and
// Distance are unset; ESS is that of the weights; Simulations counts that
// stage only) together with every stage. Each draw θ ~ q costs one
// confidential simulation s and has weight π(θ) η(s_dp° | s) / q(θ), an
// unbiased estimate of the unnormalised posterior density over q, so
// weighted averages converge to posterior expectations as Draws grows.
// Draws use one random stream per index, so results depend only on Seed. A
// simulator error aborts the run and is returned as a *SimulationError.
func KernelIS(ctx context.Context, p KernelProblem, cfg KernelISConfig) (*Population, []*Population, error) {
	d, err := p.validate(&cfg)
	if err != nil {
		return nil, nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	mean := append([]float64(nil), cfg.Mean...)
	scale := append([]float64(nil), cfg.Cov...)
	chol := make([]float64, d*d)
	var stages []*Population
	for st := 1; st <= cfg.Stages; st++ {
		if err := linalg.Cholesky(scale, d, chol); err != nil {
			return nil, stages, fmt.Errorf("%w: proposal scale of stage %d is not positive definite: %v", ErrKernelIS, st, err)
		}
		start := time.Now()
		pop, err := kernelStage(ctx, &p, d, mean, chol, &cfg, uint64(st))
		if err != nil {
			return nil, stages, err
		}
		pop.Round = st
		pop.Elapsed = time.Since(start)
		stages = append(stages, pop)
		if cfg.Progress != nil {
			cfg.Progress(pop)
		}
		// Next proposal: the weighted moments, scale inflated.
		mean = pop.Mean()
		scale = pop.Cov()
		for i := range scale {
			scale[i] *= cfg.Inflate * cfg.Inflate
		}
	}
	return stages[len(stages)-1], stages, nil
}

func (p *KernelProblem) validate(cfg *KernelISConfig) (int, error) {
	switch {
	case isNil(p.Prior):
		return 0, fmt.Errorf("%w: Prior is nil", ErrKernelIS)
	case isNil(p.Simulator):
		return 0, fmt.Errorf("%w: Simulator is nil", ErrKernelIS)
	case isNil(p.Mechanism):
		return 0, fmt.Errorf("%w: Mechanism is nil", ErrKernelIS)
	case len(p.Observed) == 0:
		return 0, fmt.Errorf("%w: Observed is empty", ErrKernelIS)
	case len(p.Observed) != p.Simulator.StatDim():
		return 0, fmt.Errorf("%w: Observed has length %d, the simulator's statistic %d", ErrKernelIS, len(p.Observed), p.Simulator.StatDim())
	case p.Prior.Dim() < 1:
		return 0, fmt.Errorf("%w: prior dimension must be >= 1, got %d", ErrKernelIS, p.Prior.Dim())
	}
	if pd, ok := paramDim(p.Simulator); ok && pd != p.Prior.Dim() {
		return 0, fmt.Errorf("%w: prior dimension %d does not match the simulator's parameter dimension %d", ErrKernelIS, p.Prior.Dim(), pd)
	}
	for i, v := range p.Observed {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%w: Observed[%d] = %v is not finite", ErrKernelIS, i, v)
		}
	}
	d := p.Prior.Dim()
	if cfg.Inflate == 0 {
		cfg.Inflate = 1.5
	}
	if cfg.DF == 0 {
		cfg.DF = 5
	}
	switch {
	case cfg.Draws < 2:
		return 0, fmt.Errorf("%w: Draws must be ≥ 2, got %d", ErrKernelIS, cfg.Draws)
	case cfg.Draws > MaxElements || cfg.Draws > MaxElements/max(d, p.Simulator.StatDim()):
		return 0, fmt.Errorf("%w: Draws = %d exceeds %d stored values", ErrKernelIS, cfg.Draws, MaxElements)
	case cfg.Stages < 1:
		return 0, fmt.Errorf("%w: Stages must be ≥ 1, got %d", ErrKernelIS, cfg.Stages)
	case len(cfg.Mean) != d:
		return 0, fmt.Errorf("%w: Mean has length %d, the prior's dimension %d", ErrKernelIS, len(cfg.Mean), d)
	case len(cfg.Cov) != d*d:
		return 0, fmt.Errorf("%w: Cov has length %d, want %d", ErrKernelIS, len(cfg.Cov), d*d)
	case !(cfg.Inflate >= 1) || math.IsInf(cfg.Inflate, 0):
		return 0, fmt.Errorf("%w: Inflate must be finite and ≥ 1, got %v", ErrKernelIS, cfg.Inflate)
	case !(cfg.DF >= minNormal) || math.IsInf(cfg.DF, 0):
		return 0, fmt.Errorf("%w: DF must be a finite normal number > 0, got %v", ErrKernelIS, cfg.DF)
	}
	for i, v := range append(append([]float64(nil), cfg.Mean...), cfg.Cov...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%w: Mean/Cov entry %d = %v is not finite", ErrKernelIS, i, v)
		}
	}
	return d, nil
}

// kernelStage draws cfg.Draws weighted particles from the Student-t
// proposal with location mean and Cholesky factor chol.
func kernelStage(ctx context.Context, p *KernelProblem, d int, mean, chol []float64, cfg *KernelISConfig, stage uint64) (*Population, error) {
	n := cfg.Draws
	theta := make([]float64, n*d)
	logw := make([]float64, n)
	nu := cfg.DF
	logDet := 0.0
	for i := 0; i < d; i++ {
		logDet += math.Log(chol[i*d+i])
	}
	// log normaliser of the d-variate t with scale L Lᵀ.
	logC := special.LogGamma((nu+float64(d))/2) - special.LogGamma(nu/2) - float64(d)/2*math.Log(nu*math.Pi) - logDet
	seed := cfg.Seed ^ stage*0x9e3779b97f4a7c15
	sd := p.Simulator.StatDim()
	stat := make([]float64, n*sd) // one buffer per draw: nothing allocated per draw
	err := parallel.Map(ctx, n, seed, func(i int, r *rand.Rand) error {
		s := stat[i*sd : (i+1)*sd]
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
		logq := logC - (nu+float64(d))/2*math.Log1p(w*w*q/nu)
		lp := p.Prior.LogDensity(th)
		if math.IsInf(lp, -1) {
			logw[i] = math.Inf(-1)
			return nil
		}
		if err := p.Simulator.Simulate(r, th, s); err != nil {
			return &SimulationError{Theta: append([]float64(nil), th...), Err: err}
		}
		logw[i] = lp + p.Mechanism.LogDensity(p.Observed, s) - logq
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
		return nil, fmt.Errorf("%w: every importance weight of stage %d is zero (the proposal misses the posterior)", ErrKernelIS, stage)
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
	return &Population{Dim: d, Theta: theta, Weights: wts, Simulations: int64(n), Proposals: int64(n), Acceptance: 1, ESS: 1 / s2}, nil
}
