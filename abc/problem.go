package abc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"

	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/simulate"
)

// Problem is a likelihood-free inference problem: a prior over θ, a
// simulator of the released statistic, the observed release and a distance
// between simulated and observed releases. For privatized data the
// simulator is the private simulator (simulate.Private) that passes the
// confidential summary through the same mechanism that produced Observed.
type Problem struct {
	Prior     simulate.Prior
	Simulator simulate.Simulator
	Observed  []float64
	Distance  Distance
}

// paramDimer is implemented by simulators that know the length of θ.
type paramDimer interface{ ParamDim() int }

// validate checks the problem; it is called by every algorithm.
func (p *Problem) validate() error {
	if isNil(p.Prior) {
		return invalidf("Problem.Prior is nil")
	}
	if isNil(p.Simulator) {
		return invalidf("Problem.Simulator is nil")
	}
	if isNil(p.Distance) {
		return invalidf("Problem.Distance is nil")
	}
	if p.Prior.Dim() < 1 {
		return invalidf("prior dimension must be >= 1, got %d", p.Prior.Dim())
	}
	if len(p.Observed) == 0 {
		return invalidf("Problem.Observed is empty")
	}
	for i, v := range p.Observed {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("Problem.Observed[%d] is %v", i, v)
		}
	}
	if sd := p.Simulator.StatDim(); sd != len(p.Observed) {
		return invalidf("simulator statistic has length %d, observed data %d", sd, len(p.Observed))
	}
	if pd, ok := paramDim(p.Simulator); ok && pd != p.Prior.Dim() {
		return invalidf("prior dimension %d does not match the simulator's parameter dimension %d", p.Prior.Dim(), pd)
	}
	return nil
}

// isNil reports whether v is a nil interface or an interface holding a nil
// pointer, map, slice, func or channel (a typed nil, whose methods would
// dereference it).
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
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

// paramDim finds the parameter dimension of a simulator when it declares
// one: directly (ParamDim), through the confidential simulator of a private
// simulator, or through the record model of a MeanStat or Dataset.
func paramDim(s simulate.Simulator) (int, bool) {
	for range 4 {
		switch v := s.(type) {
		case paramDimer:
			return v.ParamDim(), true
		case interface{ Model() simulate.RecordModel }:
			return v.Model().ParamDim(), true
		case interface{ Confidential() simulate.Simulator }:
			s = v.Confidential()
		default:
			return 0, false
		}
	}
	return 0, false
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
// the observation; buf has length StatDim. A NaN distance is an error
// (the simulated statistic does not fit the distance).
func (p *Problem) simulateDistance(r *rand.Rand, theta, buf []float64) (float64, error) {
	if err := p.Simulator.Simulate(r, theta, buf); err != nil {
		return 0, &SimulationError{Theta: slices.Clone(theta), Err: err}
	}
	d := p.Distance.Distance(buf, p.Observed)
	if math.IsNaN(d) {
		return 0, &SimulationError{Theta: slices.Clone(theta), Err: fmt.Errorf("distance is NaN (simulated statistic %v): %w", buf, ErrInvalidInput)}
	}
	return d, nil
}

// Draws is a set of parameter draws with their distances to the observation.
//
// The distances are computed from Problem.Observed without noise. Rejection
// and SMC-ABC infer from a public release (Observed is the output of a
// mechanism, already private), so their distances are post-processing and
// may be published. When Observed is confidential, as for the data owner
// of ABCDP, Draws must not leave the data owner: the release is ABCDP's
// selection (ABCDP.Run returns only that and the public θ draws).
type Draws struct {
	// Dim is the length of θ.
	Dim int
	// Theta holds the draws back to back (length n·Dim).
	Theta []float64
	// Distance holds ρ for each draw.
	Distance []float64
}

// Len is the number of draws.
func (d *Draws) Len() int { return len(d.Distance) }

// At returns draw i (a view, not a copy).
func (d *Draws) At(i int) []float64 { return d.Theta[i*d.Dim : (i+1)*d.Dim] }

// SimulatePrior draws n pairs θ_t ~ π and computes ρ(s_t, s_obs) on all
// cores; draw t uses the stream parallel.Stream(seed, t). This is the public
// (θ_t, ρ_t) sequence that ABCDP and rejection ABC select from; with a
// confidential observation the distances are confidential too (see Draws).
// A simulator error aborts the run and is returned (for the lowest failing
// t). A nil ctx means context.Background().
func SimulatePrior(ctx context.Context, p Problem, n int, seed uint64) (*Draws, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := checkCount("number of simulations n", n, p.Prior.Dim(), p.Simulator.StatDim()); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return simulatePrior(ctx, &p, 0, n, seed)
}

// simulatePrior simulates draws first..first+n−1.
func simulatePrior(ctx context.Context, p *Problem, first, n int, seed uint64) (*Draws, error) {
	d := p.Prior.Dim()
	out := &Draws{Dim: d, Theta: make([]float64, n*d), Distance: make([]float64, n)}
	sd := p.Simulator.StatDim()
	err := parallel.For(ctx, n, func(lo, hi int) error {
		buf := make([]float64, sd)
		for i := lo; i < hi; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			r := parallel.Stream(seed, uint64(first+i))
			th := out.Theta[i*d : (i+1)*d]
			p.Prior.Sample(r, th)
			rho, err := p.simulateDistance(r, th, buf)
			if err != nil {
				return err
			}
			out.Distance[i] = rho
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
