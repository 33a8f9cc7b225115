package sbi

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

var (
	// ErrInput is wrapped by every error about an invalid problem or option.
	ErrInput = errors.New("sbi: invalid input")
	// ErrLeakage is returned when too small a fraction of the posterior
	// flow's draws falls inside the prior's support (see Options.MinInSupport).
	ErrLeakage = errors.New("sbi: posterior mass leaks out of the prior support")
	// ErrSimulation wraps an error returned by the simulator; errors.Is also
	// matches the simulator's own error.
	ErrSimulation = errors.New("sbi: simulation failed")
)

// Problem is an inference task: a prior, a simulator of the confidential
// summary s(x), the mechanism that privatized it and the observed release.
type Problem struct {
	// Prior is π(θ); its LogDensity is −Inf outside the support.
	Prior simulate.Prior
	// Simulator draws x ~ f(·|θ) and writes the confidential summary s(x)
	// (not the release).
	Simulator simulate.Simulator
	// Mechanism is the privacy mechanism as a uniform-to-release map
	// s_dp = τ(u; s). Its releases must have the summary's dimension.
	Mechanism mechanism.Transform
	// Observed is the release s_dp° (length Simulator.StatDim()).
	Observed []float64
}

// maxDim bounds the dimensions of θ, of the summary and of the mechanism's
// noise, refusing problems that cannot be allocated.
const maxDim = 1 << 16

func (p Problem) validate() error {
	switch {
	case isNil(p.Prior):
		return fmt.Errorf("%w: Problem.Prior is nil", ErrInput)
	case isNil(p.Simulator):
		return fmt.Errorf("%w: Problem.Simulator is nil", ErrInput)
	case isNil(p.Mechanism):
		return fmt.Errorf("%w: Problem.Mechanism is nil", ErrInput)
	}
	if d := p.Prior.Dim(); d < 1 || d > maxDim {
		return fmt.Errorf("%w: Problem.Prior dimension must be in [1, %d], got %d", ErrInput, maxDim, d)
	}
	sd := p.Simulator.StatDim()
	if sd < 1 || sd > maxDim {
		return fmt.Errorf("%w: Problem.Simulator summary dimension must be in [1, %d], got %d", ErrInput, maxDim, sd)
	}
	if sp, ok := p.Simulator.(interface{ ParamDim() int }); ok && sp.ParamDim() != p.Prior.Dim() {
		return fmt.Errorf("%w: Problem.Simulator takes θ of dimension %d, Problem.Prior has dimension %d", ErrInput, sp.ParamDim(), p.Prior.Dim())
	}
	if len(p.Observed) != sd {
		return fmt.Errorf("%w: Problem.Observed has length %d, want the simulator's summary dimension %d", ErrInput, len(p.Observed), sd)
	}
	for i, v := range p.Observed {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: Problem.Observed[%d] is %v", ErrInput, i, v)
		}
	}
	if md, ok := p.Mechanism.(interface{ Dim() int }); ok && md.Dim() != sd {
		return fmt.Errorf("%w: Problem.Mechanism has dimension %d, the simulator's summary dimension is %d", ErrInput, md.Dim(), sd)
	}
	if nd := p.Mechanism.NoiseDim(sd); nd < 1 || nd > maxDim {
		return fmt.Errorf("%w: Problem.Mechanism noise dimension for a summary of dimension %d must be in [1, %d], got %d", ErrInput, sd, maxDim, nd)
	}
	return nil
}

// isNil reports whether v is nil or an interface holding a nil pointer,
// function, map, slice or channel.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Map, reflect.Slice, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// Integration selects how the inner integral over the mechanism's noise is
// estimated.
type Integration int

const (
	// RQMC uses an Owen-scrambled Sobol point set per simulated pair.
	RQMC Integration = iota
	// MC uses independent uniform points.
	MC
)

// String returns "RQMC" or "MC".
func (i Integration) String() string {
	switch i {
	case RQMC:
		return "RQMC"
	case MC:
		return "MC"
	}
	return fmt.Sprintf("Integration(%d)", int(i))
}

// Progress reports the state of a run to Options.Progress.
type Progress struct {
	Round int    // 1-based
	Stage string // "simulate", "train", "propose" or "done"
	// Epoch, TrainLoss and ValidationLoss are set during training.
	Epoch                     int
	TrainLoss, ValidationLoss float64
	Simulations               int // simulations so far
}

// Options configures SPPE and SPLE. Start from DefaultOptions.
type Options struct {
	Rounds       int         // R ≥ 1
	SimsPerRound int         // N ≥ 2 confidential simulations per round
	InnerPoints  int         // M ≥ 1 releases per simulation in the loss
	Integration  Integration // RQMC or MC
	Atoms        int         // SPPE atoms n_a ≥ 2 (10 in the sbi package)

	// Flow is the flow architecture; Dim and ContextDim are set from the
	// problem. Nil means flow.DefaultConfig.
	Flow *flow.Config
	// Train holds the optimiser and early-stopping settings (learning rate,
	// weight decay, batch size, epochs, patience, validation fraction,
	// clipping, shards, workers); its Seed and Progress are ignored.
	Train flow.TrainConfig

	Seed uint64
	// Progress, if not nil, is called from the calling goroutine at every
	// stage and after every epoch.
	Progress func(Progress)

	// OnRound, if not nil, is called after every round with that round's
	// posterior estimate: the SPPE posterior (samples nil), or for SPLE the
	// round's draws from π(θ) q(s_dp° | θ) (post nil, samples n×dim θ). It
	// serves per-round accuracy curves (the paper's Fig. 1B); it must not
	// modify its arguments.
	OnRound func(round int, post *Posterior, samples []float64)

	// MinInSupport is the smallest acceptable fraction of posterior-flow
	// draws inside the prior support (leakage guard); 0 means 1e-3.
	MinInSupport float64
	// LeakageFallback makes SPPE sample q(θ|s_dp°)·1{π(θ)>0} by MCMC instead
	// of failing with ErrLeakage.
	LeakageFallback bool

	// Chains, Warmup and Thin configure the adaptive Metropolis chains of
	// SPLE's proposal and of the MCMC fallback (defaults 4, 500 and 5).
	Chains, Warmup, Thin int
	// PosteriorSamples is the number of SPLE posterior draws returned
	// (default 1000).
	PosteriorSamples int
}

// DefaultOptions returns the SBI paper's settings (App. E): 10 rounds of 1000
// simulations, flow.DefaultConfig and flow.DefaultTrainConfig, with M = 16
// RQMC inner points and 10 atoms.
func DefaultOptions() Options {
	return Options{
		Rounds:           10,
		SimsPerRound:     1000,
		InnerPoints:      16,
		Integration:      RQMC,
		Atoms:            10,
		Train:            flow.DefaultTrainConfig(),
		Chains:           4,
		Warmup:           500,
		Thin:             5,
		PosteriorSamples: 1000,
	}
}

// Size limits of Options, refusing runs that cannot be allocated.
const (
	maxRounds  = 1 << 16
	maxSims    = 1 << 26 // simulations over all rounds
	maxInner   = 1 << 16
	maxChains  = 1 << 10
	maxWarmup  = 1 << 30
	maxThin    = 1 << 20
	maxSamples = 1 << 26
)

func (o *Options) validate() error {
	switch {
	case o.Rounds < 1 || o.Rounds > maxRounds:
		return fmt.Errorf("%w: Options.Rounds must be in [1, %d], got %d", ErrInput, maxRounds, o.Rounds)
	case o.SimsPerRound < 2 || o.SimsPerRound > maxSims/o.Rounds:
		return fmt.Errorf("%w: Options.SimsPerRound must be ≥ 2 with Rounds·SimsPerRound ≤ %d, got %d", ErrInput, maxSims, o.SimsPerRound)
	case o.InnerPoints < 1 || o.InnerPoints > maxInner:
		return fmt.Errorf("%w: Options.InnerPoints M must be in [1, %d], got %d", ErrInput, maxInner, o.InnerPoints)
	case o.Integration != RQMC && o.Integration != MC:
		return fmt.Errorf("%w: unknown integration %v", ErrInput, o.Integration)
	case o.Atoms < 2:
		return fmt.Errorf("%w: atoms must be ≥ 2, got %d", ErrInput, o.Atoms)
	case o.Atoms > o.SimsPerRound:
		return fmt.Errorf("%w: Options.Atoms must be at most SimsPerRound = %d, got %d", ErrInput, o.SimsPerRound, o.Atoms)
	case o.Train.BatchSize < 1 || o.Train.MaxEpochs < 1 || o.Train.Patience < 1 || !(o.Train.LearningRate > 0) || math.IsInf(o.Train.LearningRate, 0):
		return fmt.Errorf("%w: Options.Train needs batch size, epochs and patience ≥ 1 and a finite learning rate > 0, got %+v", ErrInput, o.Train)
	case !(o.Train.ValidationFraction >= 0 && o.Train.ValidationFraction < 1):
		return fmt.Errorf("%w: Options.Train.ValidationFraction must be in [0, 1), got %v", ErrInput, o.Train.ValidationFraction)
	case !(o.Train.WeightDecay >= 0) || math.IsInf(o.Train.WeightDecay, 0):
		return fmt.Errorf("%w: Options.Train.WeightDecay must be finite and ≥ 0, got %v", ErrInput, o.Train.WeightDecay)
	case !(o.Train.ClipNorm >= 0) || math.IsInf(o.Train.ClipNorm, 0):
		return fmt.Errorf("%w: Options.Train.ClipNorm must be finite and ≥ 0, got %v", ErrInput, o.Train.ClipNorm)
	case o.Train.Shards < 0 || o.Train.Workers < 0:
		return fmt.Errorf("%w: Options.Train.Shards and Workers must be ≥ 0, got %d and %d", ErrInput, o.Train.Shards, o.Train.Workers)
	case !(o.MinInSupport >= 0 && o.MinInSupport <= 1):
		return fmt.Errorf("%w: Options.MinInSupport must be in [0, 1], got %v", ErrInput, o.MinInSupport)
	case o.Chains < 0 || o.Chains > maxChains:
		return fmt.Errorf("%w: Options.Chains must be in [0, %d], got %d", ErrInput, maxChains, o.Chains)
	case o.Warmup < 0 || o.Warmup > maxWarmup:
		return fmt.Errorf("%w: Options.Warmup must be in [0, %d], got %d", ErrInput, maxWarmup, o.Warmup)
	case o.Thin < 0 || o.Thin > maxThin:
		return fmt.Errorf("%w: Options.Thin must be in [0, %d], got %d", ErrInput, maxThin, o.Thin)
	case o.PosteriorSamples < 0 || o.PosteriorSamples > maxSamples:
		return fmt.Errorf("%w: Options.PosteriorSamples must be in [0, %d], got %d", ErrInput, maxSamples, o.PosteriorSamples)
	}
	if o.MinInSupport == 0 {
		o.MinInSupport = 1e-3
	}
	if o.Chains == 0 {
		o.Chains = 4
	}
	if o.Warmup == 0 {
		o.Warmup = 500
	}
	if o.Thin == 0 {
		o.Thin = 5
	}
	if o.PosteriorSamples == 0 {
		o.PosteriorSamples = 1000
	}
	return nil
}

// RoundResult summarises one round.
type RoundResult struct {
	Round       int
	Simulations int // total simulations after this round
	// Epochs run, the kept epoch, and the per-epoch mean training and
	// validation losses (validation NaN without a validation set).
	Epochs, BestEpoch         int
	TrainLoss, ValidationLoss []float64
	// SimTime, TrainTime and ProposalTime are the round's wall times.
	SimTime, TrainTime, ProposalTime time.Duration
	// InSupport is the in-support fraction of the posterior flow's draws
	// used as the next proposal (SPPE; 1 for SPLE).
	InSupport float64
	// RHat is the rank-normalised split R̂ (mcmc.RHat) per coordinate of the
	// proposal's MCMC chains
	// (SPLE, or SPPE's fallback) and AcceptRate their acceptance rate.
	RHat       []float64
	AcceptRate float64
}

// Result is the training record of a run, returned rather than printed.
type Result struct {
	Rounds                           []RoundResult
	Simulations                      int
	SimTime, TrainTime, ProposalTime time.Duration
}
