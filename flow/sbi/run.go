package sbi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
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
	tagStarts  = 0x73746172
	tagModes   = 0x6d6f646573
)

// newEngine validates the problem and configuration, fills the defaults and
// builds the flow of the given role.
func newEngine(p privinfer.Problem, c *Config, role Role) (*engine, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	unobserved := p.Observed == nil
	if unobserved {
		if err := unobservedProblem(role, c.withDefaults().Rounds); err != nil {
			return nil, err
		}
	}
	if argcheck.Nil(p.Simulator) && c.Simulations != nil && c.Rounds == 1 {
		// Training on given simulations only: nothing is simulated.
		p.Simulator = noSimulator{sd: givenStatDim(p, c.Simulations)}
	}
	if unobserved && !argcheck.Nil(p.Simulator) {
		// Validate the rest of the problem with a placeholder release.
		p.Observed = make([]float64, max(p.Simulator.StatDim(), 0))
	}
	mech, err := checkProblem(&p)
	if err != nil {
		return nil, err
	}
	if unobserved {
		p.Observed = nil
	}
	cfg := c.withDefaults()
	d, sd := p.Prior.Dim(), p.Simulator.StatDim()
	if c.Chains == 0 && role == LikelihoodFlow {
		cfg.Chains = likelihoodChains(d)
	}
	if cfg.Embedding != nil {
		switch {
		case role != PosteriorFlow:
			return nil, invalidf("Config.Embedding: applies to SPPE only (SPLE's flow models the release itself)")
		case cfg.Embedding.In != sd:
			return nil, invalidf("Config.Embedding.In: must be the summary dimension %d, got %d", sd, cfg.Embedding.In)
		}
	}
	f, err := newFlow(cfg.Flow, &cfg, role, d, sd)
	if err != nil {
		return nil, aboutCause(ErrInvalid, "Config.Flow", err, "")
	}
	var alts []*flow.Flow
	for i := range cfg.FlowCandidates {
		a, err := newFlow(&cfg.FlowCandidates[i], &cfg, role, d, sd)
		if err != nil {
			return nil, aboutCause(ErrInvalid, fmt.Sprintf("Config.FlowCandidates[%d]", i), err, "")
		}
		alts = append(alts, a)
	}
	nd := mech.NoiseDim(sd)
	m := cfg.InnerPoints
	if nd == 0 {
		m = 1 // without noise every inner point is the summary itself
	}
	ps, err := newPointSet(m, nd, cfg.Integration, parallel.Stream(cfg.Seed, tagInit+1))
	if err != nil {
		return nil, err
	}
	if !unobserved {
		p.Observed = slices.Clone(p.Observed)
	}
	e := &engine{p: p, mech: mech, cfg: cfg, m: m, role: role, f: f, alts: alts, ps: ps, ds: &data{d: d, sd: sd, nd: nd}, start: time.Now()}
	if role == PosteriorFlow {
		if e.useShift, err = cfg.UsesRegressionShift(p.Prior); err != nil {
			return nil, err
		}
	}
	if l, ok := p.Mechanism.(mechanism.Lattice); ok && role == LikelihoodFlow {
		if h := l.LatticeSpacing(); h > 0 && !math.IsInf(h, 0) {
			e.deq = h
		}
	}
	return e, nil
}

// newFlow builds a flow of the given role from an architecture (nil means
// cfg.DefaultFlow) with the problem's dimensions and Config.Embedding. Every
// architecture starts from the same random stream, so a flow chosen from
// Config.FlowCandidates is the one a run with it as Config.Flow trains.
func newFlow(base *flow.Config, cfg *Config, role Role, d, sd int) (*flow.Flow, error) {
	dim, ctx := d, sd // the flow models θ given s, or s given θ for SPLE
	if role == LikelihoodFlow {
		dim, ctx = sd, d
	}
	var fc flow.Config
	if base != nil {
		fc = *base
	} else {
		fc = cfg.DefaultFlow(role, dim, ctx)
	}
	fc.Dim, fc.ContextDim = dim, ctx
	if cfg.Embedding != nil {
		fc.Embedding = cfg.Embedding
	}
	return flow.New(fc, parallel.Stream(cfg.Seed, tagInit))
}

// noSimulator stands in for the simulator of a run that trains on given
// simulations only.
type noSimulator struct{ sd int }

func (s noSimulator) StatDim() int { return s.sd }
func (noSimulator) Simulate(*rand.Rand, []float64, []float64) error {
	return errors.New("sbi: no simulator (the run trains on Config.Simulations only)")
}

// given checks the pairs of Config.Simulations against the problem and
// adds them to the data set as round 1, returning their number.
func (e *engine) given(sims *Simulations) (int, error) {
	d, sd := e.ds.d, e.ds.sd
	if len(sims.Theta)%d != 0 {
		return 0, invalidf("Config.Simulations.Theta: has %d values, not a multiple of the dimension %d", len(sims.Theta), d)
	}
	n := len(sims.Theta) / d
	switch {
	case n < 2 || n > maxSims:
		return 0, invalidf("Config.Simulations: must hold between 2 and %d pairs, got %d", maxSims, n)
	case len(sims.Stats) != n*sd:
		return 0, invalidf("Config.Simulations.Stats: has %d values, want %d pairs × %d", len(sims.Stats), n, sd)
	}
	lp := make([]float64, n)
	for i := range n {
		th := sims.Theta[i*d : (i+1)*d]
		lp[i] = e.p.Prior.LogDensity(th)
		if math.IsNaN(lp[i]) || math.IsInf(lp[i], 0) {
			return 0, invalidf("Config.Simulations.Theta: row %d = %v is outside the prior support", i, th)
		}
		for _, v := range sims.Stats[i*sd : (i+1)*sd] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, invalidf("Config.Simulations.Stats: row %d has a non-finite value %v", i, v)
			}
		}
	}
	e.ds.add(slices.Clone(sims.Theta), slices.Clone(sims.Stats), lp, n, e.cfg.Train.ValidationFraction, parallel.Stream(e.cfg.Seed^tagSplit, 1))
	return n, nil
}

// priorDraws returns n draws from the prior, checking that each lies in the
// prior's own support.
func (e *engine) priorDraws(n int, round int) ([]float64, error) {
	d := e.ds.d
	r := parallel.Stream(e.cfg.Seed^tagPrior, uint64(round))
	th := make([]float64, n*d)
	for i := 0; i < n; i++ {
		x := th[i*d : (i+1)*d]
		e.p.Prior.Sample(r, x)
		if lp := e.p.Prior.LogDensity(x); math.IsNaN(lp) || math.IsInf(lp, 0) {
			return nil, invalidf("Problem.Prior: its draw %v has log density %v (a draw must lie in the support)", x, lp)
		}
	}
	return th, nil
}

// simulate runs the confidential simulator for every row of thetas through
// Config.Executor and adds the round to the data set. Row i of round r is
// simulated with simulate.Stream(Seed ^ tagSim ^ r<<40, i), whichever
// executor runs it.
func (e *engine) simulate(ctx context.Context, round int, thetas []float64) error {
	d, sd := e.ds.d, e.ds.sd
	k := len(thetas) / d
	stat := make([]float64, k*sd)
	lp := make([]float64, k)
	for i := range k {
		th := thetas[i*d : (i+1)*d]
		lp[i] = e.p.Prior.LogDensity(th)
		if math.IsNaN(lp[i]) || math.IsInf(lp[i], 0) {
			return fmt.Errorf("%w: round %d proposes θ = %v outside the prior support", ErrLeakage, round, th)
		}
	}
	seed := e.cfg.Seed ^ tagSim ^ uint64(round)<<40
	err := simulate.Execute(ctx, e.cfg.Executor, e.p.Simulator, simulate.Block{Seed: seed, Dim: d, Theta: thetas, Stats: stat})
	if err != nil {
		return simError(fmt.Sprintf("round %d", round), err)
	}
	e.ds.add(thetas, stat, lp, k, e.cfg.Train.ValidationFraction, parallel.Stream(e.cfg.Seed^tagSplit, uint64(round)))
	return nil
}

// simError names where the *simulate.RowError of a failing row arose;
// context and executor errors are returned as they are.
func simError(where string, err error) error {
	var re *simulate.RowError
	if errors.As(err, &re) {
		return fmt.Errorf("sbi: %s: %w", where, err)
	}
	return err
}

// standardize sets the flow's z-scoring from the first round: θ and one
// release per simulation. For SPPE with the regression shift
// (Config.UsesRegressionShift) it first fits the regression shift on these pairs and z-scores the
// residuals instead of θ.
func (e *engine) standardize() error {
	ds := e.ds
	n := ds.n()
	r := parallel.Stream(e.cfg.Seed, tagStd)
	u := make([]float64, ds.nd)
	sdp := make([]float64, n*ds.sd)
	for i := 0; i < n; i++ {
		for k := range u {
			u[k] = r.Float64()
		}
		y := sdp[i*ds.sd : (i+1)*ds.sd]
		e.mech.Apply(u, ds.stat[i*ds.sd:(i+1)*ds.sd], y)
		if e.deq > 0 {
			for k := range y {
				y[k] += (r.Float64() - 0.5) * e.deq
			}
		}
	}
	if e.role == PosteriorFlow {
		y := ds.theta
		if e.useShift {
			sh, err := fitShift(ds.theta, sdp, n, ds.d, ds.sd)
			if err != nil {
				return err
			}
			e.shift = sh
			y = make([]float64, n*ds.d)
			for i := range n {
				r := y[i*ds.d : (i+1)*ds.d]
				sh.at(sdp[i*ds.sd:(i+1)*ds.sd], r)
				for j := range r {
					r[j] = ds.theta[i*ds.d+j] - r[j]
				}
			}
		}
		return e.setStandardization(y, sdp, n)
	}
	return e.setStandardization(sdp, ds.theta, n)
}

// setStandardization gives the flow and every candidate architecture the
// same z-scoring.
func (e *engine) setStandardization(x, z []float64, n int) error {
	for _, f := range append([]*flow.Flow{e.f}, e.alts...) {
		if err := f.SetStandardization(x, z, n); err != nil {
			return err
		}
	}
	return nil
}

// report delivers a progress event of the given round.
func (e *engine) report(ev privinfer.Progress) {
	ev.Elapsed = time.Since(e.start)
	e.cfg.Progress.Report(ev)
}

// draws wraps n×d row-major theta as Draws named after the problem's
// parameters.
func (e *engine) draws(theta []float64, chains int) *privinfer.Draws {
	return &privinfer.Draws{Names: e.p.ParamNames(), Dim: e.ds.d, Theta: theta, Chains: chains}
}

// method is what SPPE and SPLE do differently inside the shared round loop.
type method interface {
	// role is the density the flow represents.
	role() Role
	// loss is the training loss of the round.
	loss(round int) lossKind
	// propose builds the round's posterior estimate from the trained flow
	// and draws n parameter values from it at the observation (prev are
	// the round's parameters), recording the proposal's diagnostics in rr.
	// It returns the estimate, the n×d draws and their number of MCMC
	// chains (0 for independent draws).
	propose(ctx context.Context, e *engine, round, n int, prev []float64, rr *RoundResult) (Estimate, []float64, int, error)
	// estimate rebuilds the estimate propose returned in round from the
	// flow f trained in that round and the round's draws x, for the
	// rounds a resumed run replays to OnRound.
	estimate(e *engine, f *flow.Flow, round int, x []float64) (Estimate, error)
}

// run is the round loop of SPPE and SPLE (Algorithms 1–2): round 1 draws θ
// from the prior; every round simulates the confidential summaries of its
// θ, trains the flow on all rounds' simulations with the method's nested
// loss, and draws the next round's θ (after the last round, the posterior
// sample) from the method's posterior estimate at the observation.
func run(ctx context.Context, p privinfer.Problem, c Config, m method) (Estimate, *Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	e, err := newEngine(p, &c, m.role())
	if err != nil {
		return nil, nil, err
	}
	cfg := &e.cfg
	res := &Result{}
	var thetas []float64
	first := 1
	if cfg.Checkpoint != "" {
		if st, err := os.Stat(filepath.Dir(cfg.Checkpoint)); err != nil || !st.IsDir() {
			return nil, nil, about(ErrInvalid, ckptArg(cfg.Checkpoint), "must name a file in an existing folder")
		}
		if st, err := os.Stat(cfg.Checkpoint); err == nil && st.IsDir() {
			return nil, nil, about(ErrInvalid, ckptArg(cfg.Checkpoint), "is a folder; it must name a file")
		}
		if e.fp, err = e.fingerprint(); err != nil {
			return nil, nil, err
		}
		st, err := loadCheckpoint(cfg.Checkpoint, e.fp)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, nil, err
		default:
			if thetas, res, err = e.resume(st); err != nil {
				return nil, nil, err
			}
			first = st.Round + 1
			e.report(privinfer.Progress{Stage: "resume", Round: st.Round, Step: st.Round, Total: cfg.Rounds,
				Message: fmt.Sprintf("continuing after round %d from %s", st.Round, cfg.Checkpoint)})
			if err := e.replay(m, res, thetas); err != nil {
				return nil, nil, err
			}
		}
	}
	if first == 1 && cfg.Simulations == nil {
		if thetas, err = e.priorDraws(cfg.SimsPerRound, 1); err != nil {
			return nil, nil, err
		}
	}
	var est Estimate
	for round := first; round <= cfg.Rounds; round++ {
		rr := RoundResult{Round: round, InSupport: math.NaN(), Diagnostics: Diagnostics{ESS: math.NaN(), AcceptRate: math.NaN()}}
		t0 := time.Now()
		var k int
		if round == 1 && cfg.Simulations != nil {
			if k, err = e.given(cfg.Simulations); err != nil {
				return nil, nil, err
			}
			thetas = e.ds.theta[:k*e.ds.d]
		} else {
			if err := e.simulate(ctx, round, thetas); err != nil {
				return nil, nil, err
			}
			k = len(thetas) / e.ds.d
		}
		rr.SimTime = time.Since(t0)
		res.Simulations += k
		rr.Simulations = res.Simulations
		e.report(privinfer.Progress{Stage: "simulate", Round: round, Step: k, Total: k,
			Message: fmt.Sprintf("%d simulations in total", res.Simulations)})
		if round == 1 {
			if err := e.standardize(); err != nil {
				return nil, nil, fmt.Errorf("sbi: %w", err)
			}
		}
		t0 = time.Now()
		if err := e.trainRound(ctx, round, m.loss(round), &rr); err != nil {
			return nil, nil, err
		}
		rr.TrainTime = time.Since(t0)
		t0 = time.Now()
		n := cfg.SimsPerRound
		if round == cfg.Rounds {
			n = cfg.PosteriorSamples
		}
		var chains int
		est, thetas, chains, err = m.propose(ctx, e, round, n, thetas, &rr)
		if err != nil {
			return nil, nil, err
		}
		rr.ProposalTime = time.Since(t0)
		res.Rounds = append(res.Rounds, rr)
		res.SimTime += rr.SimTime
		res.TrainTime += rr.TrainTime
		res.ProposalTime += rr.ProposalTime
		if n%max(chains, 1) != 0 {
			chains = 0
		}
		if cfg.Checkpoint != "" {
			e.hist = append(e.hist, roundState{Params: slices.Clone(e.f.Params()), Chains: chains})
		}
		var draws *privinfer.Draws
		if thetas != nil { // nil after the last round without an observation
			draws = e.draws(thetas, chains)
		}
		if round == cfg.Rounds {
			res.Draws = draws
		} else if cfg.Checkpoint != "" {
			if err := e.checkpoint(round, thetas, res); err != nil {
				return nil, nil, err
			}
		}
		e.report(privinfer.Progress{Stage: "round", Round: round, Step: round, Total: cfg.Rounds, Message: roundMessage(&rr)})
		if cfg.OnRound != nil {
			cfg.OnRound(round, est, draws)
		}
	}
	res.Elapsed = time.Since(e.start)
	if cfg.Checkpoint != "" {
		if err := removeCheckpoint(cfg.Checkpoint); err != nil {
			return nil, nil, err
		}
	}
	return est, res, nil
}

// roundMessage summarises a round for its progress event.
func roundMessage(rr *RoundResult) string {
	s := fmt.Sprintf("%d simulations, %d epochs (best %d)", rr.Simulations, rr.Epochs, rr.BestEpoch)
	if rr.Candidates != nil {
		s += fmt.Sprintf(", kept architecture %d of %d (validation loss %.4g)", rr.Selected+1, len(rr.Candidates), rr.Candidates[rr.Selected])
	}
	if !math.IsNaN(rr.InSupport) {
		s += fmt.Sprintf(", in support %.3g", rr.InSupport)
	}
	if rr.RHat != nil {
		s += fmt.Sprintf(", max R̂ %.3f, ESS %.0f (thinning %d), acceptance %.2f", slices.Max(rr.RHat), rr.ESS, rr.Thin, rr.AcceptRate)
		if rr.ChainGroups > 1 {
			s += fmt.Sprintf(", chains in %d groups", rr.ChainGroups)
		}
	}
	return s
}

// sppe is SPPE's part of the round loop.
type sppe struct{}

func (sppe) role() Role { return PosteriorFlow }

func (sppe) loss(round int) lossKind {
	if round == 1 {
		return lossNPE
	}
	return lossAtomic
}

// propose restricts the posterior flow to the prior support and samples it
// (by rejection, or by MCMC under Config.LeakageFallback).
func (sppe) propose(ctx context.Context, e *engine, round, n int, _ []float64, rr *RoundResult) (Estimate, []float64, int, error) {
	est, err := sppe{}.estimate(e, e.f.Clone(), round, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	post := est.(*Posterior)
	if e.p.Observed == nil {
		// Amortized training without an observation: nothing to draw at.
		return post, nil, 0, nil
	}
	rr.InSupport = post.InSupport()
	x := make([]float64, n*e.ds.d)
	run, err := post.sample(ctx, parallel.Stream(e.cfg.Seed^tagPropose, uint64(round)), n, x)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("sbi: posterior draws of round %d: %w", round, err)
	}
	chains := 0
	if run != nil {
		rr.Diagnostics, chains = run.diagnostics(), post.chains
	}
	return post, x, chains, nil
}

func (sppe) estimate(e *engine, f *flow.Flow, round int, _ []float64) (Estimate, error) {
	q, err := newPosterior(f, e.p.Prior, e.p.Observed, &e.cfg, round, e.shift)
	if err != nil {
		return nil, err
	}
	q.names = slices.Clone(e.p.Names)
	return q, nil
}

// sple is SPLE's part of the round loop.
type sple struct{}

func (sple) role() Role        { return LikelihoodFlow }
func (sple) loss(int) lossKind { return lossPLE }

// propose samples π(θ) q(s_dp° | θ) by adaptive Metropolis, the chains
// started at importance-resampled prior draws and kernel-density draws
// around the round's parameters.
func (sple) propose(ctx context.Context, e *engine, round, n int, prev []float64, rr *RoundResult) (Estimate, []float64, int, error) {
	rr.InSupport = 1
	lik := &Likelihood{f: e.f.Clone(), prior: e.p.Prior}
	// With CarryChains the chains of rounds 1..R−1 stay in their modes,
	// and from round 3 on they continue the previous round's chains (whose
	// draws prev are); rounds 1 and 2 start theirs at resampled candidates,
	// as the sbi package's SNLE does. The final draws (round R) are drawn
	// as without it.
	how := startsResampled
	switch {
	case e.cfg.CarryChains && round >= 3 && round < e.cfg.Rounds:
		how = startsCarried
	case e.cfg.CarryChains && round < e.cfg.Rounds:
		how = startsKept
	}
	x, run, err := lik.posteriorMCMC(ctx, e.p.Observed, prev, n, &e.cfg, e.cfg.Seed^tagPropose^uint64(round)<<32, how)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("sbi: SPLE proposal of round %d: %w", round, err)
	}
	rr.Diagnostics = run.diagnostics()
	post, _ := sple{}.estimate(e, lik.f, round, x)
	return post, x, e.cfg.Chains, nil
}

func (sple) estimate(e *engine, f *flow.Flow, round int, x []float64) (Estimate, error) {
	return &LikelihoodPosterior{lik: &Likelihood{f: f, prior: e.p.Prior}, obs: e.p.Observed, cand: slices.Clone(x),
		cfg: Config{Chains: e.cfg.Chains, Warmup: e.cfg.Warmup, Thin: e.cfg.Thin}, rounds: round, names: slices.Clone(e.p.Names)}, nil
}

// SPPE runs sequential private posterior estimation (Algorithm 1) on p and
// returns the posterior q(θ | s_dp°) restricted to the prior support, its
// draws at p.Observed and the training record. With cfg.Rounds = 1
// (amortized NPE) p.Observed may be nil: the posterior is then trained on
// prior simulations only, Result.Draws is nil, and the posterior is
// conditioned on a release later with Posterior.At (then sampled with
// Draws); with more rounds a nil p.Observed is refused. Round 1 draws θ from the
// prior and minimises the nested NPE loss; rounds 2..R draw θ from the
// current posterior restricted to the prior support and minimise the
// nested atomic APT loss on all rounds' simulations. The final Result.Draws
// are cfg.PosteriorSamples draws from the last round's posterior.
//
// p.Mechanism must implement mechanism.Transform, or be nil for
// non-private inference (then the release is the summary and one inner
// point is used); otherwise the error wraps privinfer.ErrNoTransform and
// ErrInvalid. A nil ctx means context.Background(); cancelling it stops
// the run with its error. A simulator error aborts the run and is returned
// wrapped around the failing row's *simulate.RowError (errors.As).
func SPPE(ctx context.Context, p privinfer.Problem, cfg Config) (*SPPEResult, error) {
	est, res, err := run(ctx, p, cfg, sppe{})
	if err != nil {
		return nil, err
	}
	return &SPPEResult{Result: *res, Posterior: est.(*Posterior)}, nil
}

// SPLE runs sequential private likelihood estimation (Algorithm 2) on p:
// every round trains q(s_dp | θ) by maximum likelihood (nested over the
// mechanism's noise) on all rounds' simulations, then draws the next
// round's parameters from π(θ) q(s_dp° | θ) with adaptive Metropolis
// chains. After the last round it draws cfg.PosteriorSamples posterior
// samples the same way (Result.Draws) and returns the posterior with the
// trained likelihood.
//
// When the mechanism's releases lie on a grid (mechanism.Lattice, such as
// the infection-trajectory proportions c/n), the flow is trained on
// uniformly dequantized releases s_dp + (u − ½)h, u ~ U(0, 1)^d, h the
// spacing: a continuous density fitted to lattice points would otherwise
// collapse onto them. The trained q then approximates P(s_dp | θ)/h^d at
// grid points, and the constant h^d does not change the posterior.
//
// The problem, context and errors are as for SPPE, except that
// p.Observed is always needed (the posterior is sampled at it by MCMC).
func SPLE(ctx context.Context, p privinfer.Problem, cfg Config) (*SPLEResult, error) {
	est, res, err := run(ctx, p, cfg, sple{})
	if err != nil {
		return nil, err
	}
	return &SPLEResult{Result: *res, Posterior: est.(*LikelihoodPosterior)}, nil
}

// PosteriorPredictive is PosteriorPredictiveWith in process (a nil
// executor).
func PosteriorPredictive(ctx context.Context, p privinfer.Problem, thetas []float64, seed uint64) ([]float64, error) {
	return PosteriorPredictiveWith(ctx, nil, p, thetas, seed)
}

// tagNoise derives the seed of PosteriorPredictive's noise streams.
const tagNoise = 0x6e6f697365

// PosteriorPredictiveWith simulates one release for every row of thetas
// (n×dim θ), for the LMD metric: exec (nil: simulate.InProcess, all cores
// of this process) runs the confidential simulator, row i with
// simulate.Stream(seed, i), and the driver passes each summary through the
// mechanism with uniform noise from a stream of (seed, i) (no noise for a
// problem without a mechanism). The releases depend on seed only,
// whichever executor ran them. A failing row gives an error wrapping
// the row's *simulate.RowError. A nil ctx means
// context.Background().
func PosteriorPredictiveWith(ctx context.Context, exec simulate.Executor, p privinfer.Problem, thetas []float64, seed uint64) ([]float64, error) {
	mech, err := checkProblem(&p)
	if err != nil {
		return nil, err
	}
	d, sd := p.Prior.Dim(), p.Simulator.StatDim()
	if len(thetas)%d != 0 {
		return nil, invalidf("thetas: %d parameter values are not a multiple of the dimension %d", len(thetas), d)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	for i, v := range thetas {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, invalidf("thetas[%d]: is %v", i, v)
		}
	}
	if len(thetas)/d > maxSims {
		return nil, invalidf("thetas: %d rows exceed %d", len(thetas)/d, maxSims)
	}
	n := len(thetas) / d
	nd := mech.NoiseDim(sd)
	conf := make([]float64, n*sd)
	if err := simulate.Execute(ctx, exec, p.Simulator, simulate.Block{Seed: seed, Dim: d, Theta: thetas, Stats: conf}); err != nil {
		return nil, simError("predictive simulation", err)
	}
	out := make([]float64, n*sd)
	noise := parallel.Stream(seed^tagNoise, tagNoise).Uint64()
	u := make([]float64, n*nd)
	err = parallel.Map(ctx, n, noise, func(i int, r *rand.Rand) error {
		ui := u[i*nd : (i+1)*nd]
		for k := range ui {
			ui[k] = r.Float64()
		}
		mech.Apply(ui, conf[i*sd:(i+1)*sd], out[i*sd:(i+1)*sd])
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
