package abc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"time"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/variate"
)

// Kernel selects the SMC-ABC perturbation kernel.
type Kernel int

const (
	// KernelTwiceCov is the Gaussian random walk with twice the weighted
	// covariance of the previous population (Beaumont et al. 2009).
	KernelTwiceCov Kernel = iota
	// KernelOLCM is the optimal local covariance matrix kernel of Filippi
	// et al. (2013): particle j moves with covariance
	// Σ_j = Σ_k ω_k (θ_k − θ_j)(θ_k − θ_j)ᵀ over the previous particles k
	// already within the new tolerance (weights ω renormalised on them). It
	// falls back to KernelTwiceCov when fewer than Dim+1 particles qualify.
	KernelOLCM
)

// StopReason tells why an SMC-ABC run ended.
type StopReason int

const (
	// StopSchedule: the tolerance schedule was exhausted.
	StopSchedule StopReason = iota
	// StopMinAcceptance: the last round's acceptance rate fell below
	// SMCConfig.MinAcceptance.
	StopMinAcceptance
	// StopBudget: the simulation budget ran out during a round; that round
	// was discarded.
	StopBudget
	// StopWallTime: the caller's context deadline passed during a round;
	// that round was discarded (SMC returns the completed rounds with an
	// error wrapping context.DeadlineExceeded).
	StopWallTime
	// StopStalled: the tolerance decreased by less than the stall ratio.
	StopStalled
	// StopCancelled: the caller's context was cancelled.
	StopCancelled
)

// String names the reason.
func (s StopReason) String() string {
	switch s {
	case StopSchedule:
		return "schedule exhausted"
	case StopMinAcceptance:
		return "acceptance rate below minimum"
	case StopBudget:
		return "simulation budget exhausted"
	case StopWallTime:
		return "deadline reached"
	case StopStalled:
		return "tolerance stalled"
	case StopCancelled:
		return "cancelled"
	}
	return fmt.Sprintf("StopReason(%d)", int(s))
}

// Population is one SMC-ABC round's weighted particle population.
type Population struct {
	// Round is the round index (0 is the prior round).
	Round int
	// Dim is the length of θ.
	Dim int
	// Theta holds the particles back to back (length N·Dim).
	Theta []float64
	// Weights are the normalised importance weights (sum 1); after an
	// ESS-triggered resampling they are all 1/N.
	Weights []float64
	// Distance holds each particle's accepted distance (≤ Tolerance).
	Distance []float64
	// Tolerance is the round's ε_t.
	Tolerance float64
	// Simulations is the number of simulations the round ran, Proposals the
	// number of proposals including those outside the prior's support
	// (rejected without simulating).
	Simulations, Proposals int64
	// Acceptance is N/Simulations.
	Acceptance float64
	// ESS is the effective sample size (Σw)²/Σw² of the weights before any
	// resampling; Resampled reports whether the population was resampled.
	ESS       float64
	Resampled bool
	// Elapsed is the wall time of the round.
	Elapsed time.Duration
}

// N is the number of particles.
func (p *Population) N() int { return len(p.Weights) }

// Mean returns the weighted posterior mean.
func (p *Population) Mean() []float64 {
	m := make([]float64, p.Dim)
	_ = stats.WeightedMean(p.Theta, p.Dim, p.Weights, m)
	return m
}

// Cov returns the weighted covariance (divisor Σw) row-major Dim×Dim.
func (p *Population) Cov() []float64 {
	m := make([]float64, p.Dim)
	c := make([]float64, p.Dim*p.Dim)
	_ = stats.WeightedCov(p.Theta, p.Dim, p.Weights, m, c)
	return c
}

// Quantile returns the weighted q-quantile of f(θ) over the population:
// the smallest value v with Σ_{f(θ_i) ≤ v} w_i ≥ q. Use it for
// coordinates (f = θ[j]) or derived quantities such as R0 = β/γ.
func (p *Population) Quantile(f func(theta []float64) float64, q float64) float64 {
	return weightedQuantile(p.values(f), p.Weights, q)
}

// WeightedMeanOf returns Σ w_i f(θ_i).
func (p *Population) WeightedMeanOf(f func(theta []float64) float64) float64 {
	s := 0.0
	for i, v := range p.values(f) {
		s += p.Weights[i] * v
	}
	return s
}

func (p *Population) values(f func([]float64) float64) []float64 {
	v := make([]float64, p.N())
	for i := range v {
		v[i] = f(p.Theta[i*p.Dim : (i+1)*p.Dim])
	}
	return v
}

func weightedQuantile(v, w []float64, q float64) float64 {
	if len(v) == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	tot := 0.0
	for _, x := range w {
		tot += x
	}
	acc := 0.0
	for _, i := range idx {
		acc += w[i]
		if acc >= q*tot*(1-1e-12) {
			return v[i]
		}
	}
	return v[idx[len(idx)-1]]
}

// SMCConfig configures SMC-ABC.
type SMCConfig struct {
	// Particles is the population size N ≥ 2.
	Particles int
	// Schedule gives the tolerances (ToleranceList, Geometric, Adaptive or
	// a custom Schedule).
	Schedule Schedule
	// Kernel selects the perturbation kernel (default KernelTwiceCov).
	Kernel Kernel
	// ResampleESS resamples the population when ESS < ResampleESS·N;
	// 0 means 0.5, a negative value never resamples.
	ResampleESS float64
	// MaxSimulations bounds the total number of simulations (0: no bound).
	// A round that would exceed it is abandoned and the run ends with
	// StopBudget.
	MaxSimulations int64
	// MinAcceptance ends the run after a round whose acceptance rate is
	// below it (0: never).
	MinAcceptance float64
	// StallRatio ends the run when ε_t > StallRatio·ε_{t−1} (0: never);
	// e.g. 0.99 stops an adaptive schedule that no longer makes progress.
	StallRatio float64
	// Progress, if non-nil, is called after every completed round.
	Progress func(p *Population)
	// Seed selects the random streams. Particle i of round t uses a stream
	// derived from (Seed, t, i), so results depend on Seed only.
	Seed uint64
}

// SMCResult is the outcome of SMC-ABC.
type SMCResult struct {
	// Rounds holds every completed round's population; the last is the
	// posterior approximation.
	Rounds []*Population
	// Simulations is the total number of simulations, including those of
	// an abandoned last round.
	Simulations int64
	// Stop is why the run ended.
	Stop StopReason
	// Elapsed is the total wall time.
	Elapsed time.Duration
}

// Final returns the last completed population (nil if none completed).
func (r *SMCResult) Final() *Population {
	if len(r.Rounds) == 0 {
		return nil
	}
	return r.Rounds[len(r.Rounds)-1]
}

var errBudget = errors.New("abc: simulation budget exhausted")

type validator interface{ validate() error }

// SMC runs SMC-ABC (SBI paper App. C, Algorithm 3; Beaumont et al. 2009)
// on p: round 0 draws N particles from the prior with ρ ≤ ε_0; round t
// resamples a previous particle by weight, perturbs it with the Gaussian
// kernel, simulates until ρ ≤ ε_t, and weights the accepted particle by
// π(θ)/Σ_j W_j K(θ|θ_j). Particles are simulated in parallel.
//
// When the caller's ctx is cancelled or its deadline passes, SMC returns
// the rounds completed so far together with an error wrapping ctx.Err(),
// with Stop set to StopCancelled or StopWallTime: a wall-time limit is a
// context.WithTimeout. A nil ctx means context.Background(). A simulator
// error aborts the run and is returned (wrapped in a *SimulationError). If
// no round completes before the simulation budget runs out, the result has
// no rounds and an error is returned.
//
// SMC-ABC is inference from a public release (p.Observed is the output of a
// privacy mechanism), so the populations, including their distances, are
// post-processing and may be published.
func SMC(ctx context.Context, p Problem, cfg SMCConfig) (*SMCResult, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if cfg.Particles < 2 {
		return nil, invalidf("SMCConfig.Particles must be >= 2, got %d", cfg.Particles)
	}
	d := p.Prior.Dim()
	perParticle := []int{d, p.Simulator.StatDim()}
	if cfg.Kernel == KernelOLCM && d <= MaxElements/d {
		perParticle = append(perParticle, d*d)
	} else if cfg.Kernel == KernelOLCM {
		return nil, invalidf("prior dimension %d is too large for the OLCM kernel", d)
	}
	if err := checkCount("SMCConfig.Particles", cfg.Particles, perParticle...); err != nil {
		return nil, err
	}
	if isNil(cfg.Schedule) {
		return nil, invalidf("SMCConfig.Schedule is nil")
	}
	if v, ok := cfg.Schedule.(validator); ok {
		if err := v.validate(); err != nil {
			return nil, err
		}
	}
	if cfg.Kernel != KernelTwiceCov && cfg.Kernel != KernelOLCM {
		return nil, invalidf("unknown kernel %d", cfg.Kernel)
	}
	switch {
	case cfg.MaxSimulations < 0:
		return nil, invalidf("SMCConfig.MaxSimulations must be >= 0, got %d", cfg.MaxSimulations)
	case !(cfg.MinAcceptance >= 0 && cfg.MinAcceptance <= 1):
		return nil, invalidf("SMCConfig.MinAcceptance must be in [0, 1], got %v", cfg.MinAcceptance)
	case !(cfg.StallRatio >= 0) || math.IsInf(cfg.StallRatio, 0):
		return nil, invalidf("SMCConfig.StallRatio must be finite and >= 0, got %v", cfg.StallRatio)
	case math.IsNaN(cfg.ResampleESS) || cfg.ResampleESS > 1 || math.IsInf(cfg.ResampleESS, 0):
		return nil, invalidf("SMCConfig.ResampleESS must be finite and <= 1, got %v", cfg.ResampleESS)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	essFrac := cfg.ResampleESS
	if essFrac == 0 {
		essFrac = 0.5
	}
	start := time.Now()
	s := &smcRun{p: &p, cfg: &cfg, dim: p.Prior.Dim(), n: cfg.Particles}
	res := &SMCResult{}
	finish := func(reason StopReason, err error) (*SMCResult, error) {
		res.Stop = reason
		res.Simulations = s.sims.Load()
		res.Elapsed = time.Since(start)
		return res, err
	}
	var prev *Population
	for t := 0; ; t++ {
		eps, ok := cfg.Schedule.Next(t, prev)
		if !ok {
			if prev == nil {
				return finish(StopSchedule, invalidf("schedule produced no tolerance"))
			}
			return finish(StopSchedule, nil)
		}
		if !(eps > 0) {
			return finish(StopSchedule, invalidf("schedule: tolerance of round %d must be > 0, got %v", t, eps))
		}
		if prev != nil && cfg.StallRatio > 0 && eps > cfg.StallRatio*prev.Tolerance {
			return finish(StopStalled, nil)
		}
		pop, err := s.round(ctx, t, eps, prev, essFrac)
		if err != nil {
			switch {
			case ctx.Err() != nil:
				reason := StopCancelled
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					reason = StopWallTime
				}
				return finish(reason, fmt.Errorf("abc: SMC stopped in round %d: %w", t, ctx.Err()))
			case errors.Is(err, errBudget):
				if prev == nil {
					return finish(StopBudget, fmt.Errorf("abc: SMC completed no round: %w", err))
				}
				return finish(StopBudget, nil)
			default:
				return finish(StopCancelled, err)
			}
		}
		res.Rounds = append(res.Rounds, pop)
		if cfg.Progress != nil {
			cfg.Progress(pop)
		}
		prev = pop
		if cfg.MinAcceptance > 0 && pop.Acceptance < cfg.MinAcceptance {
			return finish(StopMinAcceptance, nil)
		}
	}
}

type smcRun struct {
	p    *Problem
	cfg  *SMCConfig
	dim  int
	n    int
	sims atomic.Int64
}

// kernelSet is the perturbation kernel built from the previous population:
// one Cholesky factor for KernelTwiceCov, one per particle for KernelOLCM.
type kernelSet struct {
	d      int
	chol   []float64 // len d*d (shared) or n*d*d (per particle)
	logdet []float64 // Σ log L_ii for each factor
	per    bool
}

func (k *kernelSet) factor(j int) ([]float64, float64) {
	if !k.per {
		return k.chol, k.logdet[0]
	}
	return k.chol[j*k.d*k.d : (j+1)*k.d*k.d], k.logdet[j]
}

func cholInto(a []float64, d int, l []float64) (float64, error) {
	if _, err := linalg.CholeskyJitter(a, d, l); err != nil {
		return 0, err
	}
	ld := 0.0
	for i := 0; i < d; i++ {
		ld += math.Log(l[i*d+i])
	}
	return ld, nil
}

func (s *smcRun) buildKernel(prev *Population, eps float64) (*kernelSet, error) {
	d := s.dim
	mean := make([]float64, d)
	cov := make([]float64, d*d)
	if err := stats.WeightedCov(prev.Theta, d, prev.Weights, mean, cov); err != nil {
		return nil, err
	}
	twice := make([]float64, d*d)
	for i := range cov {
		twice[i] = 2 * cov[i]
	}
	k := &kernelSet{d: d, chol: make([]float64, d*d), logdet: make([]float64, 1)}
	ld, err := cholInto(twice, d, k.chol)
	if err != nil {
		return nil, fmt.Errorf("abc: perturbation kernel of round %d: %w", prev.Round+1, err)
	}
	k.logdet[0] = ld
	if s.cfg.Kernel != KernelOLCM {
		return k, nil
	}
	// Subset of previous particles already within the new tolerance.
	var sub, subW []float64
	for i, dist := range prev.Distance {
		if dist <= eps {
			sub = append(sub, prev.Theta[i*d:(i+1)*d]...)
			subW = append(subW, prev.Weights[i])
		}
	}
	if len(subW) < d+1 {
		return k, nil
	}
	sm := make([]float64, d)
	sc := make([]float64, d*d)
	if err := stats.WeightedCov(sub, d, subW, sm, sc); err != nil {
		return k, nil
	}
	n := prev.N()
	per := &kernelSet{d: d, chol: make([]float64, n*d*d), logdet: make([]float64, n), per: true}
	a := make([]float64, d*d)
	for j := 0; j < n; j++ {
		th := prev.Theta[j*d : (j+1)*d]
		for r := 0; r < d; r++ {
			for c := 0; c < d; c++ {
				a[r*d+c] = sc[r*d+c] + (sm[r]-th[r])*(sm[c]-th[c])
			}
		}
		ld, err := cholInto(a, d, per.chol[j*d*d:(j+1)*d*d])
		if err != nil {
			return k, nil
		}
		per.logdet[j] = ld
	}
	return per, nil
}

// logKernel returns log N(x; μ, LLᵀ) using scratch z (length d).
func logKernel(x, mu, l []float64, logdet float64, z []float64) float64 {
	d := len(x)
	for i := range z {
		z[i] = x[i] - mu[i]
	}
	linalg.SolveLower(l, d, z)
	q := 0.0
	for _, v := range z {
		q += v * v
	}
	return -0.5*q - logdet - 0.5*float64(d)*math.Log(2*math.Pi)
}

// maxProposalsOutside bounds consecutive proposals outside the prior's
// support for one particle, so that a kernel that never proposes inside the
// support cannot loop forever.
const maxProposalsOutside = 1_000_000

func (s *smcRun) round(ctx context.Context, t int, eps float64, prev *Population, essFrac float64) (*Population, error) {
	start := time.Now()
	d, n := s.dim, s.n
	pop := &Population{Round: t, Dim: d, Theta: make([]float64, n*d), Weights: make([]float64, n),
		Distance: make([]float64, n), Tolerance: eps}
	var ker *kernelSet
	var alias *variate.Alias
	if prev != nil {
		var err error
		if ker, err = s.buildKernel(prev, eps); err != nil {
			return nil, err
		}
		if alias, err = variate.NewAlias(prev.Weights); err != nil {
			return nil, fmt.Errorf("abc: previous weights: %w", err)
		}
	}
	roundSeed := parallel.Stream(s.cfg.Seed, uint64(t)).Uint64()
	var sims, props atomic.Int64
	statDim := s.p.Simulator.StatDim()
	budget := s.cfg.MaxSimulations
	err := parallel.Map(ctx, n, roundSeed, func(i int, r *rand.Rand) error {
		th := pop.Theta[i*d : (i+1)*d]
		buf := make([]float64, statDim)
		z := make([]float64, d)
		outside := 0
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			props.Add(1)
			if prev == nil {
				s.p.Prior.Sample(r, th)
			} else {
				j := alias.Sample(r)
				l, _ := ker.factor(j)
				for k := range z {
					z[k] = variate.Normal(r)
				}
				mu := prev.Theta[j*d : (j+1)*d]
				for a := 0; a < d; a++ {
					v := mu[a]
					for b := 0; b <= a; b++ {
						v += l[a*d+b] * z[b]
					}
					th[a] = v
				}
				if math.IsInf(s.p.Prior.LogDensity(th), -1) {
					outside++
					if outside > maxProposalsOutside {
						return fmt.Errorf("abc: round %d: %d consecutive proposals outside the prior support", t, outside)
					}
					continue
				}
			}
			outside = 0
			if total := s.sims.Add(1); budget > 0 && total > budget {
				return errBudget
			}
			sims.Add(1)
			rho, err := s.p.simulateDistance(r, th, buf)
			if err != nil {
				return err
			}
			if rho <= eps {
				pop.Distance[i] = rho
				return nil
			}
		}
	})
	if err != nil {
		return nil, err
	}
	pop.Simulations, pop.Proposals = sims.Load(), props.Load()
	pop.Acceptance = float64(n) / float64(pop.Simulations)
	// Importance weights.
	logw := make([]float64, n)
	if prev == nil {
		for i := range logw {
			logw[i] = 0
		}
	} else {
		logW := make([]float64, prev.N())
		for j, w := range prev.Weights {
			logW[j] = math.Log(w)
		}
		err := parallel.For(ctx, n, func(lo, hi int) error {
			terms := make([]float64, prev.N())
			z := make([]float64, d)
			for i := lo; i < hi; i++ {
				th := pop.Theta[i*d : (i+1)*d]
				for j := range terms {
					l, ld := ker.factor(j)
					terms[j] = logW[j] + logKernel(th, prev.Theta[j*d:(j+1)*d], l, ld, z)
				}
				logw[i] = s.p.Prior.LogDensity(th) - special.LogSumExp(terms)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	lse := special.LogSumExp(logw)
	if math.IsNaN(lse) || math.IsInf(lse, 0) {
		return nil, fmt.Errorf("abc: round %d: importance weights are degenerate (log-sum %v)", t, lse)
	}
	for i := range logw {
		pop.Weights[i] = math.Exp(logw[i] - lse)
	}
	pop.ESS = stats.ESS(pop.Weights)
	if essFrac > 0 && pop.ESS < essFrac*float64(n) {
		resample(parallel.Stream(roundSeed, uint64(n)), pop)
		pop.Resampled = true
	}
	pop.Elapsed = time.Since(start)
	return pop, nil
}

// resample replaces the population by a systematic resample of itself with
// equal weights.
func resample(r *rand.Rand, pop *Population) {
	n, d := pop.N(), pop.Dim
	theta := make([]float64, len(pop.Theta))
	dist := make([]float64, n)
	u := r.Float64() / float64(n)
	cum, j := pop.Weights[0], 0
	for i := 0; i < n; i++ {
		x := u + float64(i)/float64(n)
		for x > cum && j < n-1 {
			j++
			cum += pop.Weights[j]
		}
		copy(theta[i*d:(i+1)*d], pop.Theta[j*d:(j+1)*d])
		dist[i] = pop.Distance[j]
	}
	pop.Theta, pop.Distance = theta, dist
	for i := range pop.Weights {
		pop.Weights[i] = 1 / float64(n)
	}
}
