package sbi

import (
	"errors"
	"fmt"
	"math"
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

func (p Problem) validate() error {
	if p.Prior == nil || p.Simulator == nil || p.Mechanism == nil {
		return fmt.Errorf("%w: problem needs a prior, a simulator and a mechanism", ErrInput)
	}
	if p.Prior.Dim() < 1 {
		return fmt.Errorf("%w: prior dimension must be ≥ 1, got %d", ErrInput, p.Prior.Dim())
	}
	sd := p.Simulator.StatDim()
	if sd < 1 {
		return fmt.Errorf("%w: simulator summary dimension must be ≥ 1, got %d", ErrInput, sd)
	}
	if len(p.Observed) != sd {
		return fmt.Errorf("%w: observed release has length %d, want the summary dimension %d", ErrInput, len(p.Observed), sd)
	}
	for i, v := range p.Observed {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: observed release [%d] is %v", ErrInput, i, v)
		}
	}
	if nd := p.Mechanism.NoiseDim(sd); nd < 1 {
		return fmt.Errorf("%w: mechanism noise dimension must be ≥ 1, got %d", ErrInput, nd)
	}
	return nil
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

func (o *Options) validate() error {
	switch {
	case o.Rounds < 1:
		return fmt.Errorf("%w: rounds must be ≥ 1, got %d", ErrInput, o.Rounds)
	case o.SimsPerRound < 2:
		return fmt.Errorf("%w: simulations per round must be ≥ 2, got %d", ErrInput, o.SimsPerRound)
	case o.InnerPoints < 1:
		return fmt.Errorf("%w: inner points M must be ≥ 1, got %d", ErrInput, o.InnerPoints)
	case o.Integration != RQMC && o.Integration != MC:
		return fmt.Errorf("%w: unknown integration %v", ErrInput, o.Integration)
	case o.Atoms < 2:
		return fmt.Errorf("%w: atoms must be ≥ 2, got %d", ErrInput, o.Atoms)
	case o.Train.BatchSize < 1 || o.Train.MaxEpochs < 1 || o.Train.Patience < 1 || !(o.Train.LearningRate > 0):
		return fmt.Errorf("%w: training needs batch size, epochs and patience ≥ 1 and a learning rate > 0, got %+v", ErrInput, o.Train)
	case !(o.Train.ValidationFraction >= 0 && o.Train.ValidationFraction < 1):
		return fmt.Errorf("%w: validation fraction must be in [0, 1), got %v", ErrInput, o.Train.ValidationFraction)
	case o.MinInSupport < 0 || o.MinInSupport > 1:
		return fmt.Errorf("%w: MinInSupport must be in [0, 1], got %v", ErrInput, o.MinInSupport)
	case o.Chains < 0 || o.Warmup < 0 || o.Thin < 0 || o.PosteriorSamples < 0:
		return fmt.Errorf("%w: chains, warm-up, thinning and posterior samples must be ≥ 0", ErrInput)
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
