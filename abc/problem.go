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
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// target is what the simulate-and-compare engines (Rejection, SMC,
// SimulatePrior, ABCDP) read from a privinfer.Problem: the prior, the
// confidential simulator that the executor runs, the mechanism the driver
// applies to its statistics (nil without one), the observation and the
// engine's distance. Together the simulator and the mechanism simulate the
// releases of Problem.ReleaseSimulator.
type target struct {
	prior   simulate.Prior
	sim     simulate.Simulator
	mech    mechanism.Mechanism
	exec    simulate.Executor
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
		return argcheck.Also(err, ErrInvalid)
	}
	return nil
}

// newTarget validates p for an engine that simulates releases through exec
// (nil: in process) and compares them with Problem.Observed through dist
// (named distName in errors).
func newTarget(p *privinfer.Problem, dist Distance, distName string, exec simulate.Executor) (*target, error) {
	if err := checkProblem(p, privinfer.NeedRelease); err != nil {
		return nil, err
	}
	if argcheck.Nil(dist) {
		return nil, invalidf("%s is nil", distName)
	}
	// ReleaseSimulator checks that the mechanism fits the simulator.
	if _, err := p.ReleaseSimulator(); err != nil {
		return nil, argcheck.Also(err, ErrInvalid)
	}
	return &target{prior: p.Prior, sim: p.Simulator, mech: p.Mechanism, exec: exec, obs: p.Observed, dist: dist,
		names: p.ParamNames(), dim: p.Prior.Dim(), statDim: p.Simulator.StatDim()}, nil
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

// rowFailure wraps the failure of row index at theta.
func rowFailure(index uint64, theta []float64, err error) error {
	return &simulate.RowError{Index: index, Theta: slices.Clone(theta), Err: err}
}

// noiseTag derives the seed of the driver's mechanism streams from a
// simulation seed.
const noiseTag = 0x6e6f697365 // "noise"

// scratch holds the statistics of a batch: the confidential statistics the
// executor writes and the releases the driver derives from them.
type scratch struct{ conf, rel []float64 }

func (sc *scratch) grow(n, sd int, private bool) (conf, rel []float64) {
	if cap(sc.conf) < n*sd {
		sc.conf = make([]float64, n*sd)
		if private {
			sc.rel = make([]float64, n*sd)
		}
	}
	conf = sc.conf[:n*sd]
	if private {
		rel = sc.rel[:n*sd]
	}
	return conf, rel
}

// distances simulates the rows of theta (n×dim) as rows first, first+1, …
// of the run seeded by seed, through the executor, and writes the distance
// of each row's release to the observation into rho (length n). The
// executor runs the confidential simulator with Stream(seed, first+i); the
// driver then releases row i through the mechanism with
// Stream(seed', first+i), seed' derived from seed, and computes the
// distance. A failing row gives its *simulate.RowError.
func (tg *target) distances(ctx context.Context, seed, first uint64, theta, rho []float64, sc *scratch) error {
	n, sd, d := len(rho), tg.statDim, tg.dim
	conf, rel := sc.grow(n, sd, tg.mech != nil)
	err := simulate.Execute(ctx, tg.exec, tg.sim, simulate.Block{Seed: seed, First: first, Dim: d, Theta: theta, Stats: conf})
	if err != nil {
		return err
	}
	noise := parallel.Stream(seed^noiseTag, noiseTag).Uint64()
	return parallel.MapAt(ctx, n, noise, first, func(i int, r *rand.Rand) error {
		out := conf[i*sd : (i+1)*sd]
		if tg.mech != nil {
			s := out
			out = rel[i*sd : (i+1)*sd]
			if err := mechanism.Simulate(tg.mech, r, s, out); err != nil {
				return rowFailure(first+uint64(i), theta[i*d:(i+1)*d], fmt.Errorf("release: %w", err))
			}
		}
		v := tg.dist.Distance(out, tg.obs)
		if math.IsNaN(v) {
			return rowFailure(first+uint64(i), theta[i*d:(i+1)*d], fmt.Errorf("%w: distance is NaN (simulated release %v)", ErrInvalid, out))
		}
		rho[i] = v
		return nil
	})
}

// Observation declares who may see Problem.Observed, and so the distances
// SimulatePrior computes from it without noise. SimulatePrior refuses the
// zero value: its caller must say which case applies.
//
// The distances are not a safe summary of a confidential observation.
// Each ρ_t = ‖s_t − Observed‖ (or any metric) constrains Observed to a
// sphere around the public s_t, and a few such spheres intersect in a
// point (trilateration): with Euclidean distances, dim(Observed)+1 public
// pseudo-data sets in general position and their exact distances determine
// Observed exactly. Publishing the distances of a confidential
// observation publishes the observation.
type Observation uint8

const (
	// ObservationUnset is the zero value, refused by SimulatePrior.
	ObservationUnset Observation = iota
	// PublicObservation declares that Observed is public: a release (the
	// output of a mechanism, with Problem.Mechanism set) or data that is
	// not confidential. The distances are post-processing of it and may
	// be published.
	PublicObservation
	// ConfidentialObservation declares that Observed is confidential and
	// that the caller is its data owner (as for ABCDP). The distances are
	// as confidential as Observed and must not leave the data owner; the
	// release is a selection from them by ABCDPSelector.Select (or the
	// whole of ABCDP), which adds noise and charges an accountant.
	ConfidentialObservation
)

// String returns the constant's name.
func (o Observation) String() string {
	switch o {
	case PublicObservation:
		return "PublicObservation"
	case ConfidentialObservation:
		return "ConfidentialObservation"
	case ObservationUnset:
		return "ObservationUnset"
	}
	return fmt.Sprintf("Observation(%d)", uint8(o))
}

// Simulations is a table of prior simulations: draws θ_t ~ π (unweighted)
// and the distance ρ_t of each simulated release to Problem.Observed.
//
// The distances are computed from Problem.Observed without noise. When
// Observed is public (Observation is PublicObservation), they are
// post-processing of it and may be published. When Observed is
// confidential (ConfidentialObservation), as for the data owner of ABCDP,
// the distances reveal Observed (see Observation) and must not leave the
// data owner: the release is ABCDP's selection (ABCDP, or
// ABCDPSelector.Select), and only Draws, which anyone can regenerate from
// the public seed, is public.
type Simulations struct {
	// Draws holds the prior draws θ_t in simulation order.
	Draws *privinfer.Draws
	// Distance holds ρ_t for each draw.
	Distance []float64
	// Observation is the caller's declaration, passed to SimulatePrior,
	// of who may see Distance.
	Observation Observation
}

// Len is the number of simulations (0 for a nil Simulations).
func (s *Simulations) Len() int {
	if s == nil {
		return 0
	}
	return len(s.Distance)
}

// SimulatePrior draws n pairs θ_t ~ π, simulates a release s_t through
// p.ReleaseSimulator() and computes ρ(s_t, p.Observed) with dist, on all
// cores. Draw t is θ_t from the stream Stream(simulate.PriorSeed(seed), t)
// (the θ of simulate.PriorPredictive with that seed), its confidential
// statistic from Stream(seed, t) and the mechanism's noise from a stream
// derived from (seed, t). This is the public (θ_t, ρ_t) sequence that ABCDP
// and rejection ABC select from.
//
// obs declares who may see p.Observed and so the distances:
// PublicObservation or ConfidentialObservation (for the data owner, who
// must keep the distances; see Observation for why they reveal a
// confidential observation). Any other value is refused with an error
// wrapping ErrInvalid. SimulatePrior itself releases nothing and charges no
// accountant. A simulator error aborts the run and is returned (for the
// lowest failing t). A nil ctx means context.Background(). It is
// SimulatePriorWith in process.
func SimulatePrior(ctx context.Context, p privinfer.Problem, dist Distance, n int, seed uint64, obs Observation) (*Simulations, error) {
	return SimulatePriorWith(ctx, nil, p, dist, n, seed, obs)
}

// SimulatePriorWith is SimulatePrior with the simulations run by exec (nil:
// simulate.InProcess). The draws, statistics and distances are the same
// whichever executor runs them; the distances are computed on the calling
// machine, so with a confidential observation they never reach the
// executor's workers.
func SimulatePriorWith(ctx context.Context, exec simulate.Executor, p privinfer.Problem, dist Distance, n int, seed uint64, obs Observation) (*Simulations, error) {
	if obs != PublicObservation && obs != ConfidentialObservation {
		return nil, invalidf("observation declaration obs must be PublicObservation or ConfidentialObservation, got %v: the distances reveal Problem.Observed, so say whether it is public", obs)
	}
	tg, err := newTarget(&p, dist, "distance", exec)
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
	return &Simulations{Draws: tg.draws(theta, nil), Distance: rho, Observation: obs}, nil
}

// priorChunk bounds the rows simulatePrior simulates at once, and so the
// statistics it holds.
const priorChunk = 1 << 16

// simulatePrior simulates draws first..first+n−1 and returns their θ
// (n×dim row-major) and distances.
func (tg *target) simulatePrior(ctx context.Context, first, n int, seed uint64) (theta, rho []float64, err error) {
	d := tg.dim
	theta, rho = make([]float64, n*d), make([]float64, n)
	prior := tg.prior
	if err := parallel.MapAt(ctx, n, simulate.PriorSeed(seed), uint64(first), func(i int, r *rand.Rand) error {
		prior.Sample(r, theta[i*d:(i+1)*d])
		return nil
	}); err != nil {
		return nil, nil, err
	}
	var sc scratch
	for lo := 0; lo < n; lo += priorChunk {
		hi := min(lo+priorChunk, n)
		if err := tg.distances(ctx, seed, uint64(first+lo), theta[lo*d:hi*d], rho[lo:hi], &sc); err != nil {
			return nil, nil, err
		}
	}
	return theta, rho, nil
}
