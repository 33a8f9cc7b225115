package abc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/simulate"
)

// Perturbation selects how SMC-ABC moves a resampled particle to a new
// proposal. (The ABC kernel, which compares releases, is the Distance with
// its tolerance; the mechanism's density is the kernel of KernelIS.)
type Perturbation int

const (
	// PerturbTwiceCov is the Gaussian random walk with twice the weighted
	// covariance of the previous population (Beaumont et al. 2009).
	PerturbTwiceCov Perturbation = iota
	// PerturbOLCM is the optimal local covariance matrix perturbation of
	// Filippi et al. (2013): particle j moves with covariance
	// Σ_j = Σ_k ω_k (θ_k − θ_j)(θ_k − θ_j)ᵀ over the previous particles k
	// already within the new tolerance (weights ω renormalised on them). It
	// falls back to PerturbTwiceCov when fewer than Dim+1 particles qualify.
	PerturbOLCM
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

// Round is one SMC-ABC round's weighted particle population, or one stage
// of KernelIS, with its metadata.
type Round struct {
	// Round is the round index (0 is SMC-ABC's prior round; KernelIS
	// stages count from 1).
	Round int
	// Draws holds the particles with their normalised importance weights
	// (sum 1); after an ESS-triggered resampling they are all 1/N.
	Draws *privinfer.Draws
	// Distance holds each particle's exact accepted distance to
	// Problem.Observed (≤ Tolerance; with a nil Mechanism a function of
	// Observed without noise: see SMC); nil for KernelIS, which has no
	// distance.
	Distance []float64
	// Tolerance is the round's ε_t (0 for KernelIS).
	Tolerance float64
	// Simulations is the number of simulations the round ran, Proposals the
	// number of proposals including those outside the prior's support
	// (rejected without simulating).
	Simulations, Proposals int64
	// Speculative is the number of SMC-ABC simulations that ran beyond a
	// particle's accepted one: when fewer particles than
	// SMCConfig.MinBatch remain, each gets several attempts per batch, and
	// the attempts after its first acceptance are discarded. They are
	// included in Simulations.
	Speculative int64
	// Acceptance is N/(Simulations − Speculative), the fraction of the
	// simulations a particle needed that were accepted.
	Acceptance float64
	// ESS is the effective sample size (Σw)²/Σw² of the weights before any
	// resampling; Resampled reports whether the population was resampled.
	ESS       float64
	Resampled bool
	// Elapsed is the wall time of the round.
	Elapsed time.Duration
}

// N is the number of particles (0 for a round without draws).
func (p *Round) N() int {
	if p == nil || p.Draws == nil {
		return 0
	}
	return p.Draws.Len()
}

// SMCConfig configures SMC-ABC. Zero values of the optional fields are
// documented with each; Distance, Particles and Schedule must be set.
type SMCConfig struct {
	// Distance compares a simulated release with Problem.Observed.
	Distance Distance
	// Particles is the population size N ≥ 2.
	Particles int
	// Schedule gives the tolerances (ToleranceList, Geometric, Adaptive or
	// a custom Schedule).
	Schedule Schedule
	// Perturbation selects how particles move (default PerturbTwiceCov).
	Perturbation Perturbation
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
	// Progress, if not nil, receives an event with Stage "round" after
	// every completed round (Round is the 1-based round number, Message
	// the tolerance, acceptance rate and ESS).
	Progress privinfer.ProgressFunc
	// Seed selects the random streams; results depend on Seed and
	// MinBatch only, never on the Executor, its block size or GOMAXPROCS
	// (see SMC).
	Seed uint64
	// Executor simulates the batches of proposals (nil: simulate.InProcess,
	// all cores of this process). It runs Problem.Simulator; the
	// mechanism is applied on the driver (see simulate.Executor).
	Executor simulate.Executor
	// MinBatch is the smallest number of simulations per batch once fewer
	// particles remain (0 means 64): each remaining particle then gets
	// ⌈MinBatch/remaining⌉ attempts per batch, which keeps cores and remote
	// workers busy at the cost of Round.Speculative simulations. It is part
	// of the random-stream layout: changing it changes the draws.
	MinBatch int
	// Checkpoint, if not empty, names a file in which the run keeps its
	// state after every completed round (written atomically), and from
	// which a run of the same problem and settings continues after being
	// stopped: with the same result as a run that never stopped. A file
	// saved by another run is refused with ErrCheckpointMismatch, a
	// malformed one with ErrCorrupt. A run that finishes without an error
	// removes the file; a cancelled or failed one keeps it. Progress events
	// of the restored rounds are not sent again.
	Checkpoint string
}

// defaultMinBatch is SMCConfig.MinBatch's zero value.
const defaultMinBatch = 64

// Validate checks the configuration on its own (SMC also checks it against
// the Problem). Errors wrap ErrInvalid.
func (cfg *SMCConfig) Validate() error {
	if cfg == nil {
		return invalidf("nil *SMCConfig")
	}
	if argcheck.Nil(cfg.Distance) {
		return invalidf("SMCConfig.Distance is nil")
	}
	if cfg.Particles < 2 {
		return invalidf("SMCConfig.Particles must be >= 2, got %d", cfg.Particles)
	}
	if argcheck.Nil(cfg.Schedule) {
		return invalidf("SMCConfig.Schedule is nil")
	}
	if v, ok := cfg.Schedule.(validator); ok {
		if err := v.validate(); err != nil {
			return err
		}
	}
	if cfg.Perturbation != PerturbTwiceCov && cfg.Perturbation != PerturbOLCM {
		return invalidf("SMCConfig.Perturbation: unknown perturbation %d", cfg.Perturbation)
	}
	switch {
	case cfg.MaxSimulations < 0:
		return invalidf("SMCConfig.MaxSimulations must be >= 0, got %d", cfg.MaxSimulations)
	case !(cfg.MinAcceptance >= 0 && cfg.MinAcceptance <= 1):
		return invalidf("SMCConfig.MinAcceptance must be in [0, 1], got %v", cfg.MinAcceptance)
	case !(cfg.StallRatio >= 0) || math.IsInf(cfg.StallRatio, 0):
		return invalidf("SMCConfig.StallRatio must be finite and >= 0, got %v", cfg.StallRatio)
	case math.IsNaN(cfg.ResampleESS) || cfg.ResampleESS > 1 || math.IsInf(cfg.ResampleESS, 0):
		return invalidf("SMCConfig.ResampleESS must be finite and <= 1, got %v", cfg.ResampleESS)
	case cfg.MinBatch < 0 || cfg.MinBatch > MaxElements:
		return invalidf("SMCConfig.MinBatch must be in [0, %d], got %d", MaxElements, cfg.MinBatch)
	}
	return nil
}

// SMCResult is the outcome of SMC-ABC.
type SMCResult struct {
	// Draws is the posterior approximation: the last completed round's
	// weighted particles (nil if no round completed).
	Draws *privinfer.Draws
	// Rounds holds every completed round; the last holds Draws.
	Rounds []*Round
	// Simulations is the total number of simulations, including those of
	// an abandoned last round.
	Simulations int64
	// Stop is why the run ended.
	Stop StopReason
	// Elapsed is the total wall time.
	Elapsed time.Duration
}

// Final returns the last completed round (nil if none completed, or for
// a nil SMCResult).
func (r *SMCResult) Final() *Round {
	if r == nil || len(r.Rounds) == 0 {
		return nil
	}
	return r.Rounds[len(r.Rounds)-1]
}

var errBudget = errors.New("abc: simulation budget exhausted")

type validator interface{ validate() error }

// SMC runs SMC-ABC (SBI paper App. C, Algorithm 3; Beaumont et al. 2009)
// on p: releases are simulated through p.ReleaseSimulator() (the Simulator
// composed with the Mechanism) and compared with p.Observed by
// cfg.Distance. Round 0 draws N particles from the prior with ρ ≤ ε_0;
// round t resamples a previous particle by weight, perturbs it
// (cfg.Perturbation), simulates until ρ ≤ ε_t, and weights the accepted
// particle by π(θ)/Σ_j W_j K(θ|θ_j), K the perturbation density.
// The posterior sample is SMCResult.Draws, the last round's weighted
// particles.
//
// Each round runs in batches: the driver proposes θ for every particle not
// yet accepted (on all cores; the proposal of the round's row k from a
// stream of (Seed, t, k)), cfg.Executor simulates the batch (row k with
// another stream of (Seed, t, k)), and the driver applies the
// mechanism, computes the distances and accepts each particle's first
// attempt within ε_t; the batches repeat until every particle is
// accepted. Proposals are made on the driver so that a batch is plain data
// any executor can simulate: the draws depend on cfg.Seed (and MinBatch)
// only, and are bit-identical with the in-process executor and with any
// other, whatever its block size or order.
//
// When the caller's ctx is cancelled or its deadline passes, SMC returns
// the rounds completed so far together with an error wrapping ctx.Err(),
// with Stop set to StopCancelled or StopWallTime: a wall-time limit is a
// context.WithTimeout. A nil ctx means context.Background(). A simulator
// error aborts the run and is returned, naming the round, wrapped around
// the *simulate.RowError whose Index counts the round's simulations. If
// no round completes before the simulation budget runs out, the result has
// no rounds and an error is returned. A batch that would exceed
// cfg.MaxSimulations is cut to the remaining budget.
//
// SMC-ABC is inference from a public release (p.Observed is the output of a
// privacy mechanism), so the rounds, including their distances, are
// post-processing and may be published.
//
// Confidential data with a nil Mechanism: nothing adds noise, and p.Observed is taken to be
// public data, and the draws, the exact distances ρ(s_t, p.Observed) (Round.Distance), the importance weights
// and the tolerances are computed from it without noise. Never pass
// confidential data as p.Observed with a nil Mechanism: pass a release of
// it (p.Mechanism set, p.Observed its output), or select against it
// within a budget with ABCDP. The exact distances locate the observation
// (a handful from known points trilaterate it).
func SMC(ctx context.Context, p privinfer.Problem, cfg SMCConfig) (*SMCResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tg, err := newTarget(&p, cfg.Distance, "SMCConfig.Distance", cfg.Executor)
	if err != nil {
		return nil, err
	}
	d := tg.dim
	perParticle := []int{d, tg.statDim}
	if cfg.Perturbation == PerturbOLCM && d <= MaxElements/d {
		perParticle = append(perParticle, d*d)
	} else if cfg.Perturbation == PerturbOLCM {
		return nil, invalidf("prior dimension %d is too large for the OLCM perturbation", d)
	}
	if err := checkCount("SMCConfig.Particles", cfg.Particles, perParticle...); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	essFrac := cfg.ResampleESS
	if essFrac == 0 {
		essFrac = 0.5
	}
	start := time.Now()
	s := &smcRun{tg: tg, cfg: &cfg, dim: d, n: cfg.Particles}
	res := &SMCResult{}
	ckpt := newSMCCheckpoint(&p, &cfg, tg)
	finish := func(reason StopReason, err error) (*SMCResult, error) {
		if err == nil { // a finished run; a stopped or failed one keeps its checkpoint
			err = ckpt.remove()
		}
		res.Stop = reason
		res.Simulations = s.sims.Load()
		res.Elapsed = time.Since(start)
		if f := res.Final(); f != nil {
			res.Draws = f.Draws
		}
		return res, err
	}
	var prev *Round
	if rounds, sims, elapsed, err := ckpt.load(); err != nil {
		return nil, err
	} else if rounds != nil {
		res.Rounds, prev = rounds, rounds[len(rounds)-1]
		s.sims.Store(sims)
		start = start.Add(-elapsed)
	}
	for t := len(res.Rounds); ; t++ {
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
				return finish(StopCancelled, fmt.Errorf("abc: SMC round %d: %w", t, err))
			}
		}
		res.Rounds = append(res.Rounds, pop)
		cfg.Progress.Report(privinfer.Progress{Stage: "round", Round: t + 1, Elapsed: time.Since(start),
			Message: fmt.Sprintf("tolerance %.4g, acceptance %.3g, ESS %.0f", eps, pop.Acceptance, pop.ESS)})
		prev = pop
		if err := ckpt.save(res.Rounds, s.sims.Load(), time.Since(start)); err != nil {
			return finish(StopCancelled, err)
		}
		if cfg.MinAcceptance > 0 && pop.Acceptance < cfg.MinAcceptance {
			return finish(StopMinAcceptance, nil)
		}
	}
}

type smcRun struct {
	tg   *target
	cfg  *SMCConfig
	dim  int
	n    int
	sims atomic.Int64
}

// perturbSet is the perturbation built from the previous population: one
// Cholesky factor for PerturbTwiceCov, one per particle for PerturbOLCM.
type perturbSet struct {
	d      int
	chol   []float64 // len d*d (shared) or n*d*d (per particle)
	logdet []float64 // Σ log L_ii for each factor
	per    bool
}

func (k *perturbSet) factor(j int) ([]float64, float64) {
	if !k.per {
		return k.chol, k.logdet[0]
	}
	return k.chol[j*k.d*k.d : (j+1)*k.d*k.d], k.logdet[j]
}

func cholInto(a []float64, d int, l []float64) (float64, error) {
	if _, err := linalg.CholeskyJitter(a, d, l); err != nil {
		return 0, err
	}
	return linalg.LogDetChol(l, d) / 2, nil
}

func (s *smcRun) buildPerturbation(prev *Round, eps float64) (*perturbSet, error) {
	d := s.dim
	pd := prev.Draws
	mean := make([]float64, d)
	cov := make([]float64, d*d)
	if err := stats.WeightedCov(pd.Theta, d, pd.Weights, mean, cov); err != nil {
		return nil, err
	}
	twice := make([]float64, d*d)
	for i := range cov {
		twice[i] = 2 * cov[i]
	}
	k := &perturbSet{d: d, chol: make([]float64, d*d), logdet: make([]float64, 1)}
	ld, err := cholInto(twice, d, k.chol)
	if err != nil {
		return nil, fmt.Errorf("abc: perturbation of round %d: %w", prev.Round+1, err)
	}
	k.logdet[0] = ld
	if s.cfg.Perturbation != PerturbOLCM {
		return k, nil
	}
	// Subset of previous particles already within the new tolerance.
	var sub, subW []float64
	for i, dist := range prev.Distance {
		if dist <= eps {
			sub = append(sub, pd.Theta[i*d:(i+1)*d]...)
			subW = append(subW, pd.Weights[i])
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
	per := &perturbSet{d: d, chol: make([]float64, n*d*d), logdet: make([]float64, n), per: true}
	a := make([]float64, d*d)
	for j := 0; j < n; j++ {
		th := pd.Theta[j*d : (j+1)*d]
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

// logPerturb returns log N(x; μ, LLᵀ) using scratch z (length d).
func logPerturb(x, mu, l []float64, logdet float64, z []float64) float64 {
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
// support for one attempt, so that a perturbation that never proposes
// inside the support cannot loop forever.
const maxProposalsOutside = 1_000_000

// Tags of the streams of a round, derived from its seed.
const (
	tagProposal = 0x70726f706f7365 // "propose"
)

// propose writes one attempt into th from its own stream r: a prior draw in round 0, otherwise a perturbed resampled particle, redrawn
// until it lies in the prior's support. It returns the number of
// proposals made.
func (s *smcRun) propose(r *rand.Rand, th, z []float64, prev *Round, alias *variate.Alias, ker *perturbSet, t int) (int64, error) {
	prior := s.tg.prior
	if prev == nil {
		prior.Sample(r, th)
		return 1, nil
	}
	d := s.dim
	prevTheta := prev.Draws.Theta
	for k := int64(1); ; k++ {
		j := alias.Sample(r)
		l, _ := ker.factor(j)
		for c := range z {
			z[c] = variate.Normal(r)
		}
		mu := prevTheta[j*d : (j+1)*d]
		for a := 0; a < d; a++ {
			v := mu[a]
			for b := 0; b <= a; b++ {
				v += l[a*d+b] * z[b]
			}
			th[a] = v
		}
		if !math.IsInf(prior.LogDensity(th), -1) {
			return k, nil
		}
		if k >= maxProposalsOutside {
			return k, fmt.Errorf("abc: round %d: %d consecutive proposals outside the prior support", t, k)
		}
	}
}

func (s *smcRun) round(ctx context.Context, t int, eps float64, prev *Round, essFrac float64) (*Round, error) {
	start := time.Now()
	d, n := s.dim, s.n
	theta, weights, dist := make([]float64, n*d), make([]float64, n), make([]float64, n)
	pop := &Round{Round: t, Distance: dist, Tolerance: eps}
	var ker *perturbSet
	var alias *variate.Alias
	var prevTheta []float64
	if prev != nil {
		var err error
		if ker, err = s.buildPerturbation(prev, eps); err != nil {
			return nil, err
		}
		if alias, err = variate.NewAlias(prev.Draws.Weights); err != nil {
			return nil, fmt.Errorf("abc: previous weights: %w", err)
		}
		prevTheta = prev.Draws.Theta
	}
	roundSeed := parallel.Stream(s.cfg.Seed, uint64(t)).Uint64()
	propSeed := parallel.Stream(roundSeed^tagProposal, tagProposal).Uint64()
	minBatch := s.cfg.MinBatch
	if minBatch == 0 {
		minBatch = defaultMinBatch
	}
	prior := s.tg.prior
	budget := s.cfg.MaxSimulations
	// pending lists the particles not yet accepted; row is the round's next
	// simulation index.
	pending := make([]int, n)
	for i := range pending {
		pending[i] = i
	}
	var row uint64
	var sims, spec int64
	var props atomic.Int64
	var bTheta, bRho, bZ []float64
	var sc scratch
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		per := 1
		if len(pending) < minBatch {
			per = (minBatch + len(pending) - 1) / len(pending)
		}
		rows := len(pending) * per
		if budget > 0 {
			left := budget - s.sims.Load()
			if left <= 0 {
				return nil, errBudget
			}
			rows = int(min(int64(rows), left))
		}
		if cap(bRho) < rows {
			bTheta, bRho = make([]float64, rows*d), make([]float64, rows)
		}
		bt, br := bTheta[:rows*d], bRho[:rows]
		if cap(bZ) < rows*d {
			bZ = make([]float64, rows*d)
		}
		// Row k of the batch, row+k of the round, is an attempt of particle
		// pending[k/per]; its proposal uses the stream of (propSeed, row+k).
		err := parallel.MapAt(ctx, rows, propSeed, row, func(k int, r *rand.Rand) error {
			m, err := s.propose(r, bt[k*d:(k+1)*d], bZ[k*d:(k+1)*d], prev, alias, ker, t)
			props.Add(m)
			return err
		})
		if err != nil {
			return nil, err
		}
		s.sims.Add(int64(rows))
		sims += int64(rows)
		if err := s.tg.distances(ctx, roundSeed, row, bt, br, &sc); err != nil {
			return nil, err
		}
		row += uint64(rows)
		// Accept each particle's first attempt within ε, in attempt order.
		still := pending[:0]
		for c, i := range pending {
			lo := c * per
			hi := min(lo+per, rows)
			accepted := false
			for k := lo; k < hi; k++ {
				if br[k] <= eps {
					copy(theta[i*d:(i+1)*d], bt[k*d:(k+1)*d])
					dist[i] = br[k]
					spec += int64(hi - k - 1)
					accepted = true
					break
				}
			}
			if !accepted {
				still = append(still, i)
			}
		}
		pending = still
		if len(pending) > 0 && budget > 0 && s.sims.Load() >= budget {
			return nil, errBudget
		}
	}
	pop.Simulations, pop.Proposals, pop.Speculative = sims, props.Load(), spec
	pop.Acceptance = float64(n) / float64(sims-spec)
	// Importance weights.
	logw := make([]float64, n)
	if prev != nil {
		m := prev.N()
		logW := make([]float64, m)
		for j, w := range prev.Draws.Weights {
			logW[j] = math.Log(w)
		}
		err := parallel.For(ctx, n, func(lo, hi int) error {
			terms := make([]float64, m)
			z := make([]float64, d)
			for i := lo; i < hi; i++ {
				th := theta[i*d : (i+1)*d]
				for j := range terms {
					l, ld := ker.factor(j)
					terms[j] = logW[j] + logPerturb(th, prevTheta[j*d:(j+1)*d], l, ld, z)
				}
				logw[i] = prior.LogDensity(th) - special.LogSumExp(terms)
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
		weights[i] = math.Exp(logw[i] - lse)
	}
	pop.Draws = s.tg.draws(theta, weights)
	pop.ESS = stats.ESS(weights)
	if essFrac > 0 && pop.ESS < essFrac*float64(n) {
		resample(parallel.Stream(roundSeed, uint64(n)), pop)
		pop.Resampled = true
	}
	pop.Elapsed = time.Since(start)
	return pop, nil
}

// resample replaces the population by a systematic resample of itself with
// equal weights, carrying every particle's distance along.
func resample(r *rand.Rand, pop *Round) {
	dr := pop.Draws
	n, d := dr.Len(), dr.Dim
	theta := make([]float64, len(dr.Theta))
	dist := make([]float64, n)
	u := r.Float64() / float64(n)
	cum, j := dr.Weights[0], 0
	for i := 0; i < n; i++ {
		x := u + float64(i)/float64(n)
		for x > cum && j < n-1 {
			j++
			cum += dr.Weights[j]
		}
		copy(theta[i*d:(i+1)*d], dr.Theta[j*d:(j+1)*d])
		dist[i] = pop.Distance[j]
	}
	dr.Theta, pop.Distance = theta, dist
	for i := range dr.Weights {
		dr.Weights[i] = 1 / float64(n)
	}
}
