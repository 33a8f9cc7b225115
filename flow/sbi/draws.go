package sbi

import (
	"context"
	"fmt"
	"slices"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/parallel"
)

// ErrNoObservation is returned (wrapping ErrInvalid) by Sample,
// SampleMCMC, Draws and DrawsMCMC of a Posterior that is not conditioned on
// a release: one trained amortized (Config.Rounds = 1) on a Problem
// without Observed (its LogDensity and InSupport are NaN). Condition it
// with At first.
var ErrNoObservation = fmt.Errorf("%w: the posterior is not conditioned on a release (trained without Problem.Observed; call At)", ErrInvalid)

// tagDraws derives the random stream of the Draws methods from their seed.
const tagDraws = 0x6472617773

// Names returns a copy of the parameter names the posterior was trained
// with (Problem.Names); nil when the problem had none, and for a posterior
// loaded from a file written before names were saved.
func (q *Posterior) Names() []string {
	if q == nil {
		return nil
	}
	return slices.Clone(q.names)
}

// Names returns a copy of the parameter names the posterior was trained
// with, as Posterior.Names.
func (q *LikelihoodPosterior) Names() []string {
	if q == nil {
		return nil
	}
	return slices.Clone(q.names)
}

// newDraws wraps n×d row-major theta as Draws named names (nil: the
// defaults), with chains set when the rows are chains MCMC chains of
// equal length.
func newDraws(names []string, d int, theta []float64, chains int) *privinfer.Draws {
	if chains > 0 && (len(theta)/d)%chains != 0 {
		chains = 0
	}
	return &privinfer.Draws{Names: slices.Clone(names), Dim: d, Theta: theta, Chains: chains}
}

// checkDrawsArgs validates the arguments of a Draws method.
func checkDrawsArgs(ctx context.Context, n int, what string) (context.Context, error) {
	if n < 1 || n > maxSims {
		return nil, invalidf("n: must be in [1, %d] (%s), got %d", maxSims, what, n)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return ctx, nil
}

// Draws returns n draws from the posterior at its observation as
// privinfer.Draws named after the problem's parameters (Names; the
// defaults θ[0], … without them), drawn as Sample draws them from a random
// stream derived from seed only: the same seed gives the same draws. They
// are independent flow draws (Draws.Chains 0), or, when the leakage
// fallback samples by MCMC, Config.Chains chains (Draws.Chains set when n
// is a multiple of it). An amortized posterior is drawn at another release
// with q.At(sdp) first; one not conditioned on any release returns an error
// wrapping ErrNoObservation. A nil ctx means context.Background();
// cancelling it stops the sampling with its error.
func (q *Posterior) Draws(ctx context.Context, n int, seed uint64) (*privinfer.Draws, error) {
	if q.unbuilt() {
		return nil, errUnbuilt("Posterior")
	}
	ctx, err := checkDrawsArgs(ctx, n, "Draws")
	if err != nil {
		return nil, err
	}
	d := q.f.Dim()
	x := make([]float64, n*d)
	run, err := q.sample(ctx, parallel.Stream(seed, tagDraws), n, x)
	if err != nil {
		return nil, err
	}
	chains := 0
	if run != nil {
		chains = q.chains
	}
	return newDraws(q.names, d, x, chains), nil
}

// DrawsMCMC is SampleMCMC returning privinfer.Draws: n draws from
// q(θ | s_dp°)·1{π(θ) > 0} by Config.Chains adaptive Metropolis chains on
// streams derived from seed (Draws.Chains set when n is a multiple of the
// number of chains), named as by Draws, with the chains' diagnostics.
func (q *Posterior) DrawsMCMC(ctx context.Context, n int, seed uint64) (*privinfer.Draws, Diagnostics, error) {
	if q.unbuilt() {
		return nil, Diagnostics{}, errUnbuilt("Posterior")
	}
	ctx, err := checkDrawsArgs(ctx, n, "DrawsMCMC")
	if err != nil {
		return nil, Diagnostics{}, err
	}
	d := q.f.Dim()
	x := make([]float64, n*d)
	diag, err := q.SampleMCMC(ctx, n, seed, x)
	if err != nil {
		return nil, Diagnostics{}, err
	}
	return newDraws(q.names, d, x, q.chains), diag, nil
}

// Draws returns n draws from π(θ) q(s_dp° | θ) as privinfer.Draws named
// after the problem's parameters, drawn as Sample draws them with the
// chains' streams derived from seed only: Config.Chains adaptive
// Metropolis chains (Draws.Chains set when n is a multiple of the number
// of chains). A nil ctx means context.Background(); cancelling it stops
// the chains with its error.
func (q *LikelihoodPosterior) Draws(ctx context.Context, n int, seed uint64) (*privinfer.Draws, error) {
	dr, _, err := q.DrawsMCMC(ctx, n, seed)
	return dr, err
}

// DrawsMCMC is Draws that also returns the chains' diagnostics.
func (q *LikelihoodPosterior) DrawsMCMC(ctx context.Context, n int, seed uint64) (*privinfer.Draws, Diagnostics, error) {
	if q.unbuilt() {
		return nil, Diagnostics{}, errUnbuilt("LikelihoodPosterior")
	}
	ctx, err := checkDrawsArgs(ctx, n, "Draws")
	if err != nil {
		return nil, Diagnostics{}, err
	}
	x, run, err := q.lik.posteriorMCMC(ctx, q.obs, q.cand, n, &q.cfg, seed, startsResampled)
	if err != nil {
		return nil, Diagnostics{}, err
	}
	return newDraws(q.names, q.Dim(), slices.Clone(x), q.cfg.Chains), run.diagnostics(), nil
}

// unobservedProblem checks a Problem without Observed (nil): SPPE trained
// in one round (amortized) needs none; sequential rounds propose from the
// posterior at the observation, and SPLE samples its posterior at it by
// MCMC, so both need it. rounds is Config.Rounds with its default.
func unobservedProblem(role Role, rounds int) error {
	switch {
	case role == LikelihoodFlow:
		return invalidf("Problem.Observed: is nil: SPLE samples its posterior at the observation by MCMC, so it needs one (train an amortized SPPE with Config.Rounds = 1 to condition later)")
	case rounds != 1:
		return invalidf("Problem.Observed: is nil: with Config.Rounds = %d the rounds after the first propose from the posterior at the observation; only amortized SPPE (Config.Rounds = 1) trains without one", rounds)
	}
	return nil
}

// givenStatDim is the summary dimension of Config.Simulations: that of
// Problem.Observed when given, otherwise len(Stats) divided by the number
// of pairs (0 when it does not divide, which validation then refuses).
func givenStatDim(p privinfer.Problem, sims *Simulations) int {
	if p.Observed != nil || argcheck.Nil(p.Prior) {
		return len(p.Observed)
	}
	d := p.Prior.Dim()
	if d < 1 || len(sims.Theta) < d || len(sims.Theta)%d != 0 {
		return 0
	}
	n := len(sims.Theta) / d
	if len(sims.Stats)%n != 0 {
		return 0
	}
	return len(sims.Stats) / n
}
