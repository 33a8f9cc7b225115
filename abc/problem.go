package abc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/simulate"
)

// target is what the simulate-and-compare engines (Rejection, SMC,
// SimulatePrior, ABCDP) read from a privinfer.Problem: the prior, the
// release simulator θ ↦ s_dp (Problem.ReleaseSimulator), the observation
// and the engine's distance.
type target struct {
	prior   simulate.Prior
	sim     simulate.Simulator
	obs     []float64
	dist    Distance
	names   []string
	dim     int
	statDim int
}

// checkProblem validates p (Problem.Validate, typed nils included) and
// checks the capabilities in need, through p.Require. The error wraps ErrInvalid and, for a
// Problem the root package refuses, the root package's error as well
// (privinfer.ErrInvalid, privinfer.ErrNoDensity, …).
func checkProblem(p *privinfer.Problem, need privinfer.Capability) error {
	if err := p.Require(need); err != nil {
		return fmt.Errorf("abc: %w (%w)", err, ErrInvalid)
	}
	return nil
}

// newTarget validates p for an engine that simulates releases and compares
// them with Problem.Observed through dist (named distName in errors).
func newTarget(p *privinfer.Problem, dist Distance, distName string) (*target, error) {
	if err := checkProblem(p, privinfer.NeedRelease); err != nil {
		return nil, err
	}
	if argcheck.Nil(dist) {
		return nil, invalidf("%s is nil", distName)
	}
	sim, err := p.ReleaseSimulator()
	if err != nil {
		return nil, fmt.Errorf("abc: %w (%w)", err, ErrInvalid)
	}
	return &target{prior: p.Prior, sim: sim, obs: p.Observed, dist: dist, names: p.ParamNames(),
		dim: p.Prior.Dim(), statDim: sim.StatDim()}, nil
}

// draws wraps n×dim row-major theta (and optional weights) as Draws named
// after the problem's parameters.
func (tg *target) draws(theta, weights []float64) *privinfer.Draws {
	return &privinfer.Draws{Names: slices.Clone(tg.names), Dim: tg.dim, Theta: theta, Weights: weights}
}

// MaxElements bounds the number of draws (particles, simulations kept in
// memory) and the number of float64 values an algorithm allocates for them
// (draws × max(parameter, statistic dimension)): 2^28, or 2 GiB of float64.
// Larger requests are refused with an error instead of dying of memory
// exhaustion.
const MaxElements = 1 << 28

// checkCount validates a number of draws n ≥ 1 that will be held in memory
// with dims values each.
func checkCount(name string, n int, dims ...int) error {
	if n < 1 {
		return invalidf("%s must be >= 1, got %d", name, n)
	}
	if n > MaxElements {
		return invalidf("%s must be at most %d, got %d", name, MaxElements, n)
	}
	for _, d := range dims {
		if d > 0 && n > MaxElements/d {
			return invalidf("%s = %d with %d values each exceeds %d stored values", name, n, d, MaxElements)
		}
	}
	return nil
}

// SimulationError reports a simulator failure; it wraps the simulator's
// error, so errors.Is and errors.As see through it. A failing simulation
// aborts the run: it is never turned into a NaN particle.
type SimulationError struct {
	Theta []float64
	Err   error
}

// Error describes the failure.
func (e *SimulationError) Error() string {
	return fmt.Sprintf("abc: simulation at θ = %v failed: %v", e.Theta, e.Err)
}

// Unwrap returns the simulator's error.
func (e *SimulationError) Unwrap() error { return e.Err }

// simulateDistance runs one simulation at theta and returns its distance to
// the observation; buf has length statDim. A NaN distance is an error
// (the simulated statistic does not fit the distance).
func (tg *target) simulateDistance(r *rand.Rand, theta, buf []float64) (float64, error) {
	if err := tg.sim.Simulate(r, theta, buf); err != nil {
		return 0, &SimulationError{Theta: slices.Clone(theta), Err: err}
	}
	d := tg.dist.Distance(buf, tg.obs)
	if math.IsNaN(d) {
		return 0, &SimulationError{Theta: slices.Clone(theta), Err: fmt.Errorf("distance is NaN (simulated statistic %v): %w", buf, ErrInvalid)}
	}
	return d, nil
}

// Simulations is a table of prior simulations: draws θ_t ~ π (unweighted)
// and the distance ρ_t of each simulated release to Problem.Observed.
//
// The distances are computed from Problem.Observed without noise. When
// Observed is a public release (the output of a mechanism), they are
// post-processing of it and may be published. When Observed is
// confidential, as for the data owner of ABCDP, the distances must not
// leave the data owner: the release is ABCDP's selection (ABCDP, or
// ABCDPSelector.Select), and only Draws, which anyone can regenerate from
// the public seed, is public.
type Simulations struct {
	// Draws holds the prior draws θ_t in simulation order.
	Draws *privinfer.Draws
	// Distance holds ρ_t for each draw.
	Distance []float64
}

// Len is the number of simulations.
func (s *Simulations) Len() int { return len(s.Distance) }

// SimulatePrior draws n pairs θ_t ~ π, simulates a release s_t through
// p.ReleaseSimulator() and computes ρ(s_t, p.Observed) with dist, on all
// cores; draw t uses the stream parallel.Stream(seed, t). This is the public
// (θ_t, ρ_t) sequence that ABCDP and rejection ABC select from; with a
// confidential observation the distances are confidential too (see
// Simulations). A simulator error aborts the run and is returned (for the
// lowest failing t). A nil ctx means context.Background().
func SimulatePrior(ctx context.Context, p privinfer.Problem, dist Distance, n int, seed uint64) (*Simulations, error) {
	tg, err := newTarget(&p, dist, "distance")
	if err != nil {
		return nil, err
	}
	if err := checkCount("number of simulations n", n, tg.dim, tg.statDim); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	theta, rho, err := tg.simulatePrior(ctx, 0, n, seed)
	if err != nil {
		return nil, err
	}
	return &Simulations{Draws: tg.draws(theta, nil), Distance: rho}, nil
}

// simulatePrior simulates draws first..first+n−1 and returns their θ
// (n×dim row-major) and distances.
func (tg *target) simulatePrior(ctx context.Context, first, n int, seed uint64) (theta, rho []float64, err error) {
	d := tg.dim
	theta, rho = make([]float64, n*d), make([]float64, n)
	err = parallel.For(ctx, n, func(lo, hi int) error {
		buf := make([]float64, tg.statDim)
		for i := lo; i < hi; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			r := parallel.Stream(seed, uint64(first+i))
			th := theta[i*d : (i+1)*d]
			tg.prior.Sample(r, th)
			v, err := tg.simulateDistance(r, th, buf)
			if err != nil {
				return err
			}
			rho[i] = v
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return theta, rho, nil
}
