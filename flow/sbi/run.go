package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/mechanism"
)

// Stream tags keep the random streams of the different stages apart.
const (
	tagPrior   = 0x7072696f72
	tagSim     = 0x73696d
	tagInit    = 0x696e6974
	tagSplit   = 0x73706c6974
	tagPropose = 0x70726f70
	tagStd     = 0x737464
	tagSupport = 0x737570
)

// newEngine validates the problem and options and builds the flow.
func newEngine(p Problem, o *Options, role Role) (*engine, error) {
	if o == nil {
		return nil, fmt.Errorf("%w: options are nil", ErrInput)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	d, sd := p.Prior.Dim(), p.Simulator.StatDim()
	var cfg flow.Config
	if o.Flow != nil {
		cfg = *o.Flow
	} else {
		cfg = flow.DefaultConfig(d, sd)
	}
	if role == PosteriorFlow {
		cfg.Dim, cfg.ContextDim = d, sd
	} else {
		cfg.Dim, cfg.ContextDim = sd, d
	}
	f, err := flow.New(cfg, parallel.Stream(o.Seed, tagInit))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	nd := p.Mechanism.NoiseDim(sd)
	ps, err := newPointSet(o.InnerPoints, nd, o.Integration, parallel.Stream(o.Seed, tagInit+1))
	if err != nil {
		return nil, err
	}
	e := &engine{p: p, o: *o, role: role, f: f, ps: ps, ds: &data{d: d, sd: sd, nd: nd}}
	if l, ok := p.Mechanism.(mechanism.Lattice); ok && role == LikelihoodFlow {
		if h := l.LatticeSpacing(); h > 0 && !math.IsInf(h, 0) {
			e.deq = h
		}
	}
	return e, nil
}

// priorDraws returns n draws from the prior, checking that each lies in the
// prior's own support.
func (e *engine) priorDraws(n int, round int) ([]float64, error) {
	d := e.ds.d
	r := parallel.Stream(e.o.Seed^tagPrior, uint64(round))
	th := make([]float64, n*d)
	for i := 0; i < n; i++ {
		x := th[i*d : (i+1)*d]
		e.p.Prior.Sample(r, x)
		if lp := e.p.Prior.LogDensity(x); math.IsNaN(lp) || math.IsInf(lp, 0) {
			return nil, fmt.Errorf("%w: prior draw %v has log density %v", ErrInput, x, lp)
		}
	}
	return th, nil
}

// simulate runs the confidential simulator for every row of thetas on all
// cores and adds the round to the data set.
func (e *engine) simulate(ctx context.Context, round int, thetas []float64) error {
	d, sd := e.ds.d, e.ds.sd
	k := len(thetas) / d
	stat := make([]float64, k*sd)
	lp := make([]float64, k)
	seed := e.o.Seed ^ tagSim ^ uint64(round)<<40
	err := parallel.Map(ctx, k, seed, func(i int, r *rand.Rand) error {
		th := thetas[i*d : (i+1)*d]
		lp[i] = e.p.Prior.LogDensity(th)
		if math.IsNaN(lp[i]) || math.IsInf(lp[i], 0) {
			return fmt.Errorf("%w: round %d proposes θ = %v outside the prior support", ErrLeakage, round, th)
		}
		s := stat[i*sd : (i+1)*sd]
		if err := e.p.Simulator.Simulate(r, th, s); err != nil {
			return fmt.Errorf("%w: round %d, simulation %d, θ = %v: %w", ErrSimulation, round, i, th, err)
		}
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: round %d, simulation %d, θ = %v returned a non-finite summary %v", ErrSimulation, round, i, th, s)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	e.ds.add(thetas, stat, lp, k, e.o.Train.ValidationFraction, parallel.Stream(e.o.Seed^tagSplit, uint64(round)))
	return nil
}

// standardize sets the flow's z-scoring from the first round: θ and one
// release per simulation.
func (e *engine) standardize() error {
	ds := e.ds
	n := ds.n()
	r := parallel.Stream(e.o.Seed, tagStd)
	u := make([]float64, ds.nd)
	sdp := make([]float64, n*ds.sd)
	for i := 0; i < n; i++ {
		for k := range u {
			u[k] = r.Float64()
		}
		y := sdp[i*ds.sd : (i+1)*ds.sd]
		e.p.Mechanism.Apply(u, ds.stat[i*ds.sd:(i+1)*ds.sd], y)
		if e.deq > 0 {
			for k := range y {
				y[k] += (r.Float64() - 0.5) * e.deq
			}
		}
	}
	if e.role == PosteriorFlow {
		return e.f.SetStandardization(ds.theta, sdp, n)
	}
	return e.f.SetStandardization(sdp, ds.theta, n)
}

func (e *engine) progress(p Progress) {
	if e.o.Progress != nil {
		e.o.Progress(p)
	}
}

// SPPE runs sequential private posterior estimation (Algorithm 1) and returns
// the posterior q(θ | s_dp°) restricted to the prior support, with the
// training record. Round 1 draws θ from the prior and minimises the nested
// NPE loss; rounds 2..R draw θ from the current posterior restricted to the
// prior support and minimise the nested atomic APT loss on all rounds'
// simulations. A simulator error aborts the run and is returned wrapped in
// ErrSimulation.
func SPPE(ctx context.Context, p Problem, o Options) (*Posterior, *Result, error) {
	if ctx == nil {
		return nil, nil, fmt.Errorf("%w: context is nil", ErrInput)
	}
	e, err := newEngine(p, &o, PosteriorFlow)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{}
	thetas, err := e.priorDraws(o.SimsPerRound, 1)
	if err != nil {
		return nil, nil, err
	}
	var post *Posterior
	for round := 1; round <= o.Rounds; round++ {
		rr := RoundResult{Round: round, InSupport: math.NaN(), AcceptRate: math.NaN()}
		e.progress(Progress{Round: round, Stage: "simulate", Simulations: res.Simulations})
		t0 := time.Now()
		if err := e.simulate(ctx, round, thetas); err != nil {
			return nil, nil, err
		}
		rr.SimTime = time.Since(t0)
		res.Simulations += len(thetas) / e.ds.d
		rr.Simulations = res.Simulations
		if round == 1 {
			if err := e.standardize(); err != nil {
				return nil, nil, fmt.Errorf("sbi: %w", err)
			}
		}
		kind := lossAtomic
		if round == 1 {
			kind = lossNPE
		}
		t0 = time.Now()
		e.progress(Progress{Round: round, Stage: "train", Simulations: res.Simulations})
		if err := e.train(ctx, round, kind, &rr, res.Simulations); err != nil {
			return nil, nil, err
		}
		rr.TrainTime = time.Since(t0)
		t0 = time.Now()
		e.progress(Progress{Round: round, Stage: "propose", Simulations: res.Simulations})
		post, err = newPosterior(e.f.Clone(), p, &e.o)
		if err != nil {
			return nil, nil, err
		}
		rr.InSupport = post.InSupport()
		if round < o.Rounds {
			thetas = make([]float64, o.SimsPerRound*e.ds.d)
			diag, err := post.sample(ctx, parallel.Stream(o.Seed^tagPropose, uint64(round)), o.SimsPerRound, thetas)
			if err != nil {
				return nil, nil, fmt.Errorf("sbi: proposal of round %d: %w", round+1, err)
			}
			if diag != nil {
				rr.RHat, rr.AcceptRate = diag.rhat, diag.accept
			}
		}
		rr.ProposalTime = time.Since(t0)
		res.Rounds = append(res.Rounds, rr)
		res.SimTime += rr.SimTime
		res.TrainTime += rr.TrainTime
		res.ProposalTime += rr.ProposalTime
		if o.OnRound != nil {
			o.OnRound(round, post, nil)
		}
	}
	e.progress(Progress{Round: o.Rounds, Stage: "done", Simulations: res.Simulations})
	return post, res, nil
}

// SPLE runs sequential private likelihood estimation (Algorithm 2): every
// round trains q(s_dp | θ) by maximum likelihood (nested over the mechanism's
// noise) on all rounds' simulations, then draws the next round's parameters
// from π(θ) q(s_dp° | θ) with adaptive Metropolis chains. After the last
// round it draws Options.PosteriorSamples posterior samples the same way.
//
// When the mechanism's releases lie on a grid (mechanism.Lattice, such as
// the infection-trajectory proportions c/n), the flow is trained on
// uniformly dequantized releases s_dp + (u − ½)h, u ~ U(0, 1)^d, h the
// spacing: a continuous density fitted to lattice points would otherwise
// collapse onto them. The trained q then approximates P(s_dp | θ)/h^d at
// grid points, and the constant h^d does not change the posterior.
func SPLE(ctx context.Context, p Problem, o Options) (*LikelihoodPosterior, *Result, error) {
	if ctx == nil {
		return nil, nil, fmt.Errorf("%w: context is nil", ErrInput)
	}
	e, err := newEngine(p, &o, LikelihoodFlow)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{}
	thetas, err := e.priorDraws(o.SimsPerRound, 1)
	if err != nil {
		return nil, nil, err
	}
	out := &LikelihoodPosterior{Dim: e.ds.d}
	for round := 1; round <= o.Rounds; round++ {
		rr := RoundResult{Round: round, InSupport: 1}
		e.progress(Progress{Round: round, Stage: "simulate", Simulations: res.Simulations})
		t0 := time.Now()
		if err := e.simulate(ctx, round, thetas); err != nil {
			return nil, nil, err
		}
		rr.SimTime = time.Since(t0)
		res.Simulations += len(thetas) / e.ds.d
		rr.Simulations = res.Simulations
		if round == 1 {
			if err := e.standardize(); err != nil {
				return nil, nil, fmt.Errorf("sbi: %w", err)
			}
		}
		t0 = time.Now()
		e.progress(Progress{Round: round, Stage: "train", Simulations: res.Simulations})
		if err := e.train(ctx, round, lossPLE, &rr, res.Simulations); err != nil {
			return nil, nil, err
		}
		rr.TrainTime = time.Since(t0)
		t0 = time.Now()
		e.progress(Progress{Round: round, Stage: "propose", Simulations: res.Simulations})
		lik := &Likelihood{f: e.f.Clone(), prior: p.Prior}
		n := o.SimsPerRound
		if round == o.Rounds {
			n = o.PosteriorSamples
		}
		// Start candidates: prior draws plus the latest round's parameters.
		cand, err := e.priorDraws(200, 1000+round)
		if err != nil {
			return nil, nil, err
		}
		cand = append(cand, thetas...)
		draws, run, err := lik.posteriorMCMC(ctx, p.Observed, cand, n, &e.o, e.o.Seed^tagPropose^uint64(round)<<32)
		if err != nil {
			return nil, nil, fmt.Errorf("sbi: SPLE proposal of round %d: %w", round, err)
		}
		rr.RHat, rr.AcceptRate = run.rhat, run.accept
		rr.ProposalTime = time.Since(t0)
		res.Rounds = append(res.Rounds, rr)
		res.SimTime += rr.SimTime
		res.TrainTime += rr.TrainTime
		res.ProposalTime += rr.ProposalTime
		thetas = draws
		if o.OnRound != nil {
			o.OnRound(round, nil, draws)
		}
		if round == o.Rounds {
			out.Samples = draws
			out.RHat = run.rhat
			out.Likelihood = lik
		}
	}
	e.progress(Progress{Round: o.Rounds, Stage: "done", Simulations: res.Simulations})
	return out, res, nil
}

// PosteriorPredictive simulates one release for every row of thetas (n×dim θ)
// — a confidential simulation followed by the mechanism with uniform noise —
// on all cores with one stream per row, for the LMD metric.
func PosteriorPredictive(ctx context.Context, p Problem, thetas []float64, seed uint64) ([]float64, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	d, sd := p.Prior.Dim(), p.Simulator.StatDim()
	if len(thetas)%d != 0 {
		return nil, fmt.Errorf("%w: %d parameter values are not a multiple of the dimension %d", ErrInput, len(thetas), d)
	}
	if ctx == nil {
		return nil, fmt.Errorf("%w: PosteriorPredictive needs a non-nil context", ErrInput)
	}
	for i, v := range thetas {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: thetas[%d] is %v", ErrInput, i, v)
		}
	}
	if len(thetas)/d > maxSims {
		return nil, fmt.Errorf("%w: PosteriorPredictive of %d rows exceeds %d", ErrInput, len(thetas)/d, maxSims)
	}
	n := len(thetas) / d
	nd := p.Mechanism.NoiseDim(sd)
	out := make([]float64, n*sd)
	err := parallel.Map(ctx, n, seed, func(i int, r *rand.Rand) error {
		s := make([]float64, sd)
		if err := p.Simulator.Simulate(r, thetas[i*d:(i+1)*d], s); err != nil {
			return fmt.Errorf("%w: predictive simulation %d: %w", ErrSimulation, i, err)
		}
		u := make([]float64, nd)
		for k := range u {
			u[k] = r.Float64()
		}
		p.Mechanism.Apply(u, s, out[i*sd:(i+1)*sd])
		return nil
	})
	return out, err
}
