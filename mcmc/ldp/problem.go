package ldp

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	mldp "github.com/privinfer/privinfer/mechanism/ldp"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/clipped"
)

// ProblemPosterior is the posterior of a privinfer.Problem that states a
// clipped LDP model: n persons' records from a simulate/clipped record
// model, each released by a per-record Laplace mechanism, with the
// Problem's prior (any simulate.Prior). Its likelihood is the closed form
// of ClippedGaussian or ClippedExponential. It is a Posterior (an
// mcmc.Target without gradient, since a simulate.Prior has none: Sample
// uses slice sampling) on unconstrained coordinates: (μ, log σ) for the
// clipped Gaussian, log θ for the clipped exponential; the log-Jacobian is
// included.
type ProblemPosterior struct {
	gauss *ClippedGaussian
	exp   *ClippedExponential
	prior simulate.Prior
	z     []float64
	names []string
}

// NewProblemPosterior builds the posterior of p, which must have
//
//   - Simulator: a *simulate.Dataset of n records of a *clipped.Gaussian
//     (θ = (μ, σ)) or a *clipped.Exponential (θ = (rate));
//   - Mechanism: the per-record local mechanism, a
//     *mechanism/ldp.ClippedLaplace with the record model's clipping
//     interval, or a *mechanism.Laplace of dimension n whose scales are
//     all (clipping width)/ε (possibly wrapped by mechanism.Reproducible);
//   - Observed: the n reports;
//   - Prior: a prior of the record model's parameter dimension.
//
// Otherwise it returns an error wrapping ErrInvalid that names the field.
// The Problem's names (or θ[0], …) name the draws of Sample.
func NewProblemPosterior(p privinfer.Problem) (*ProblemPosterior, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("ldp: %w: %w", ErrInvalid, err)
	}
	ds, ok := p.Simulator.(*simulate.Dataset)
	if !ok || ds == nil {
		return nil, fmt.Errorf("ldp: Problem.Simulator must be a *simulate.Dataset of clipped records (one coordinate per person), got %T: %w", p.Simulator, ErrInvalid)
	}
	n := ds.N()
	var lo, hi float64
	switch m := ds.Model().(type) {
	case *clipped.Gaussian:
		lo, hi = m.Bounds()
	case *clipped.Exponential:
		lo, hi = 0, m.Bound()
	default:
		return nil, fmt.Errorf("ldp: Problem.Simulator's records must be *clipped.Gaussian or *clipped.Exponential (the models with closed forms), got %T: %w", ds.Model(), ErrInvalid)
	}
	eps, err := localEpsilon(p.Mechanism, lo, hi, n)
	if err != nil {
		return nil, err
	}
	if len(p.Observed) != n {
		return nil, fmt.Errorf("ldp: Problem.Observed must hold the %d reports, got %d: %w", n, len(p.Observed), ErrInvalid)
	}
	if err := checkReports(p.Observed); err != nil {
		return nil, err
	}
	pp := &ProblemPosterior{prior: p.Prior, z: append([]float64(nil), p.Observed...), names: p.ParamNames()}
	if _, ok := ds.Model().(*clipped.Gaussian); ok {
		pp.gauss, err = NewClippedGaussian(ClippedGaussianConfig{A: lo, B: hi, Epsilon: eps})
	} else {
		pp.exp, err = NewClippedExponential(ClippedExponentialConfig{B: hi, Epsilon: eps})
	}
	if err != nil {
		return nil, err
	}
	if pp.prior.Dim() != pp.Dim() {
		return nil, fmt.Errorf("ldp: Problem.Prior must have dimension %d, got %d: %w", pp.Dim(), pp.prior.Dim(), ErrInvalid)
	}
	return pp, nil
}

// localEpsilon returns the per-person ε of a per-record Laplace mechanism
// for records clipped to [lo, hi].
func localEpsilon(m mechanism.Mechanism, lo, hi float64, n int) (float64, error) {
	if r, ok := m.(*mechanism.ReproducibleMechanism); ok {
		m = r.Unwrap()
	}
	switch m := m.(type) {
	case *mldp.ClippedLaplace:
		c := m.Config()
		if c.Lo != lo || c.Hi != hi {
			return 0, fmt.Errorf("ldp: Problem.Mechanism clips to [%v, %v], the records to [%v, %v]: %w", c.Lo, c.Hi, lo, hi, ErrInvalid)
		}
		return c.Epsilon, nil
	case *mechanism.Laplace:
		if m == nil || m.Dim() != n {
			return 0, fmt.Errorf("ldp: Problem.Mechanism must be a *mechanism.Laplace of dimension %d (one report per person): %w", n, ErrInvalid)
		}
		s := m.Scale(0)
		for i := range n {
			if m.Scale(i) != s {
				return 0, fmt.Errorf("ldp: Problem.Mechanism's Laplace scales must be equal (the same local mechanism for every person), scale %d is %v, scale 0 %v: %w", i, m.Scale(i), s, ErrInvalid)
			}
		}
		return (hi - lo) / s, nil
	}
	return 0, fmt.Errorf("ldp: Problem.Mechanism must be a per-record Laplace mechanism (*mechanism/ldp.ClippedLaplace or *mechanism.Laplace), got %T: %w", m, ErrInvalid)
}

// Dim returns 2 for the clipped Gaussian and 1 for the clipped
// exponential (0 for a ProblemPosterior not built by its constructor).
func (p *ProblemPosterior) Dim() int {
	switch {
	case p == nil:
		return 0
	case p.gauss != nil:
		return 2
	case p.exp != nil:
		return 1
	}
	return 0
}

// ParamNames returns the Problem's parameter names.
func (p *ProblemPosterior) ParamNames() []string {
	if p == nil {
		return nil
	}
	return append([]string(nil), p.names...)
}

// Natural writes (μ, σ) = (x_0, e^{x_1}) or the rate e^{x_0}.
func (p *ProblemPosterior) Natural(x, theta []float64) {
	if p.gauss != nil {
		theta[0], theta[1] = x[0], math.Exp(x[1])
		return
	}
	theta[0] = math.Exp(x[0])
}

// LogDensity returns the unnormalised log posterior of the unconstrained
// coordinates x: the closed-form log-likelihood of the reports, the log
// prior density of the natural parameters and the log-Jacobian.
func (p *ProblemPosterior) LogDensity(x []float64) float64 {
	d := p.Dim()
	if d == 0 || len(x) != d {
		return math.NaN()
	}
	for _, v := range x {
		if !finite(v) {
			return math.Inf(-1)
		}
	}
	var th [2]float64
	p.Natural(x, th[:d])
	var ll float64
	if p.gauss != nil {
		if !(th[1] > 0) || math.IsInf(th[1], 1) {
			return math.Inf(-1)
		}
		ll = p.gauss.LogDensitySum(p.z, th[0], th[1])
	} else {
		if !(th[0] > 0) || math.IsInf(th[0], 1) {
			return math.Inf(-1)
		}
		ll = p.exp.LogDensitySum(p.z, th[0])
	}
	lp := p.prior.LogDensity(th[:d])
	if math.IsInf(lp, -1) {
		return lp
	}
	return ll + lp + x[d-1] // log-Jacobian of the exp map of the last coordinate
}
