package sbi

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/simulate"
)

var (
	// ErrInvalid is wrapped by every error about an invalid problem,
	// configuration or argument. An error about a Problem that lacks the
	// uniform transform SPPE and SPLE need also wraps the root package's
	// error (privinfer.ErrNoTransform).
	ErrInvalid = errors.New("sbi: invalid argument")
	// ErrLeakage is returned when too small a fraction of the posterior
	// flow's draws falls inside the prior's support (see Config.MinInSupport).
	ErrLeakage = errors.New("sbi: posterior mass leaks out of the prior support")
	// ErrSequential is returned when a posterior trained in several rounds
	// (on proposals focused on its observation) is asked for another
	// observation; only an amortized, one-round posterior is valid at any
	// release. It wraps ErrInvalid.
	ErrSequential = fmt.Errorf("%w: a sequential posterior is valid at its own observation only", ErrInvalid)
)

// invalidf formats an argument error that wraps ErrInvalid; format
// starts with the argument or field it is about.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// argError is an error about an argument that matches several errors
// (a sentinel wrapping ErrInvalid, and the error of another package it
// passes on) under errors.Is and errors.As, with one message.
type argError struct {
	msg  string
	errs []error
}

func (e *argError) Error() string   { return e.msg }
func (e *argError) Unwrap() []error { return e.errs }

// about returns an error about the argument arg that matches kind
// (ErrInvalid or a sentinel that wraps it) and reads
// "sbi: invalid argument: <arg>: <kind's own words>: <detail>", where the
// words are kind's text after the package's prefix (none for ErrInvalid).
func about(kind error, arg, format string, a ...any) error {
	msg := ErrInvalid.Error() + ": " + arg + ": "
	if w := strings.TrimPrefix(strings.TrimPrefix(kind.Error(), ErrInvalid.Error()), ": "); w != "" {
		msg += w + ": "
	}
	return &argError{msg: msg + fmt.Sprintf(format, a...), errs: []error{kind}}
}

// aboutCause is about with the error of another package that caused it:
// cause's message, less its "<pkg>: invalid argument: " prefix and the
// name of that package's reader or writer argument, ends the detail
// (format may be empty), and the result also matches cause (errors.Is
// sees flow.ErrCorrupt, say, as well as kind).
func aboutCause(kind error, arg string, cause error, format string, a ...any) error {
	m := cause.Error()
	if i := strings.Index(m, ": invalid argument: "); i >= 0 && !strings.ContainsAny(m[:i], " :") {
		m = m[i+len(": invalid argument: "):]
		m = strings.TrimPrefix(strings.TrimPrefix(m, "r: "), "w: ")
	}
	if format != "" {
		m = fmt.Sprintf(format, a...) + ": " + m
	}
	e := about(kind, arg, "%s", m).(*argError)
	e.errs = append(e.errs, cause)
	return e
}

// maxDim bounds the dimensions of θ, of the summary and of the mechanism's
// noise, refusing problems that cannot be allocated.
const maxDim = 1 << 16

// checkProblem validates p for SPPE, SPLE and PosteriorPredictive:
// p.Require(privinfer.NeedTransform) (Problem.Validate, typed nils
// included, and a nil Mechanism or one implementing mechanism.Transform),
// and dimensions
// that can be allocated. It returns the mechanism's transform, the identity
// for a non-private problem.
func checkProblem(p *privinfer.Problem) (transform, error) {
	if err := p.Require(privinfer.NeedTransform); err != nil {
		return nil, argcheck.Also(err, ErrInvalid)
	}
	if d := p.Prior.Dim(); d > maxDim {
		return nil, invalidf("Problem.Prior: dimension must be at most %d, got %d", maxDim, d)
	}
	if sd := p.Simulator.StatDim(); sd > maxDim {
		return nil, invalidf("Problem.Simulator: summary dimension must be at most %d, got %d", maxDim, sd)
	}
	if !p.Private() {
		return identity{}, nil
	}
	t, err := p.Transform()
	if err != nil {
		return nil, argcheck.Also(err, ErrInvalid)
	}
	sd := p.Simulator.StatDim()
	if nd := t.NoiseDim(sd); nd < 1 || nd > maxDim {
		return nil, invalidf("Problem.Mechanism: noise dimension for a summary of dimension %d must be in [1, %d], got %d", sd, maxDim, nd)
	}
	return t, nil
}

// transform is the part of mechanism.Transform the engines use.
type transform interface {
	NoiseDim(statDim int) int
	Apply(u, s, dst []float64)
}

// identity is the transform of a non-private problem: no noise, the
// release is the confidential summary.
type identity struct{}

func (identity) NoiseDim(int) int          { return 0 }
func (identity) Apply(_, s, dst []float64) { copy(dst, s) }
func (identity) String() string            { return "no mechanism" }

var _ transform = identity{}

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

// ShiftMode selects whether SPPE's flow models θ's residual from its
// linear regression on the release (Config.RegressionShift).
type ShiftMode int

const (
	// ShiftAuto decides by the problem: see Config.UsesRegressionShift.
	ShiftAuto ShiftMode = iota
	// ShiftOn applies the regression shift to every problem.
	ShiftOn
	// ShiftOff never applies it: the flow models θ, z-scored by the
	// prior draws' spread.
	ShiftOff
)

// String returns "auto", "on" or "off".
func (m ShiftMode) String() string {
	switch m {
	case ShiftAuto:
		return "auto"
	case ShiftOn:
		return "on"
	case ShiftOff:
		return "off"
	}
	return fmt.Sprintf("ShiftMode(%d)", int(m))
}

// Estimate is a posterior estimate of π(θ | s_dp°): *Posterior for SPPE,
// *LikelihoodPosterior for SPLE. It is an mcmc.Target.
type Estimate interface {
	// Dim returns the dimension of θ.
	Dim() int
	// LogDensity returns the log posterior density at θ (SPLE's up to an
	// additive constant), −Inf outside the prior's support.
	LogDensity(theta []float64) float64
	// Sample writes n draws (n×Dim, row-major) into dst.
	Sample(r *rand.Rand, n int, dst []float64) error
}

// Config configures SPPE and SPLE. The zero value of every field means the
// default given with it. The defaults are sized for a first run that
// finishes in seconds on a small problem: 4 rounds of 500 simulations, M =
// 8 RQMC inner points, 10 atoms, the flow of Config.DefaultFlow (the sbi
// package's neural spline flow, smaller in dimension 1) and the training
// of DefaultTrain. (The SBI paper's settings, App. E, are a preset of its
// reproduction: examples/reproduce/support/sbiflags.PaperConfig.)
type Config struct {
	// Rounds is the number of rounds R; 0 means 4.
	Rounds int
	// SimsPerRound is the number N ≥ 2 of confidential simulations per
	// round; 0 means 500.
	SimsPerRound int
	// InnerPoints is the number M of releases per simulation in the loss;
	// 0 means 8. A problem without a mechanism uses one (its release is
	// the summary itself).
	InnerPoints int
	// Integration selects the inner points: RQMC (the zero value) or MC.
	Integration Integration
	// Atoms is SPPE's number of atoms n_a ≥ 2, at most SimsPerRound; 0
	// means 10 (the sbi package's), or SimsPerRound if smaller. SPLE
	// ignores it.
	Atoms int

	// Flow is the flow architecture; Dim and ContextDim are set from the
	// problem. Nil means the architecture of Config.DefaultFlow for the
	// problem's dimensions (with the affine layer for SPLE, and for SPPE
	// when Rounds is 1).
	Flow *flow.Config
	// FlowCandidates, if not empty, are further flow architectures to
	// choose from by held-out loss: round 1 trains Flow and then each
	// candidate on the same simulations, with the same initial random
	// stream and training settings, and keeps the one whose best epoch has
	// the lowest validation loss for the rest of the run (later rounds
	// train only the kept flow). Dim and ContextDim are set from the
	// problem, and Embedding applies to every candidate. Choosing needs a
	// validation set (Train.ValidationFraction > 0), and round 1's training
	// costs one run per architecture. A common use is Flow and the same
	// flow with the other setting of flow.Config.ContextAffine (the package
	// documentation has measurements); RoundResult.Candidates records every
	// architecture's loss.
	FlowCandidates []flow.Config
	// Embedding, if not nil, is an embedding network (SPPE only) that
	// summarises the release before it reaches the posterior flow's
	// conditioners, trained jointly with the flow (flow.Config.Embedding);
	// In must be the summary dimension. Use it for high-dimensional
	// releases such as time series, e.g. &ad.Net{In: 100, Hidden: []int{64}, Out: 8}.
	Embedding *ad.Net
	// Train holds the optimiser and early-stopping settings (learning rate,
	// weight decay, batch size, epochs, patience, validation fraction,
	// clipping, shards, workers); nil means DefaultTrain(). Its Seed and
	// Progress are ignored: the seeds derive from Seed and the epochs are
	// reported through Progress.
	Train *flow.TrainConfig

	// Simulations, if not nil, are parameter–summary pairs simulated
	// beforehand (like the sbi package's append_simulations): round 1
	// trains on them instead of simulating SimsPerRound pairs, and later
	// rounds simulate SimsPerRound pairs each. The parameters must be
	// draws from the prior, as round 1's loss assumes. With Rounds = 1 the
	// Problem's Simulator may be nil (the summary dimension is then
	// len(Problem.Observed)).
	Simulations *Simulations

	// RegressionShift selects SPPE's regression shift: the flow models
	// the residual of θ from its linear regression on the release,
	// θ − a − B·s_dp, with a and B fitted by least squares on round 1's
	// simulations (one release per simulation) and fixed afterwards,
	// z-scored by the residuals' spread instead of the prior's. The shift
	// depends on the release only, so the posterior density is the flow's
	// density at the residual. Without it the flow models θ itself,
	// z-scored by the prior draws' spread, as in the SBI paper and the sbi
	// package (the paper's preset in examples/reproduce/support/sbiflags sets
	// ShiftOff). The zero value, ShiftAuto, applies the shift except for
	// amortized NPE (Rounds = 1) under a box prior (bounded in every
	// coordinate) of 5 or more dimensions (Config.UsesRegressionShift
	// states the rule and where it was measured); ShiftOn and ShiftOff
	// decide for every problem. SPLE ignores it.
	RegressionShift ShiftMode

	// MinInSupport is the smallest acceptable fraction of posterior-flow
	// draws inside the prior support (SPPE's leakage guard); 0 means 1e-3.
	MinInSupport float64
	// LeakageFallback makes SPPE sample q(θ|s_dp°)·1{π(θ)>0} by MCMC instead
	// of failing with ErrLeakage.
	LeakageFallback bool

	// Chains, Warmup and Thin configure the adaptive Metropolis chains of
	// SPLE's posterior draws and of SPPE's MCMC fallback; 0 means 500
	// warm-up iterations, thinning 5, and 4 chains for SPPE, 20 for SPLE
	// (10 when θ has more than 8 coordinates). Local moves seldom cross
	// between modes, so when the chains have not mixed they are shared out
	// between the modes they found in proportion to the modes' estimated
	// masses and rerun with independence moves that jump between those
	// modes; a mode that no chain found stays unsampled, so more chains
	// explore more. The chains are rerun once, with more warm-up or a
	// larger thinning, when they have not mixed or their draws are too
	// autocorrelated (see the package documentation).
	Chains, Warmup, Thin int
	// CarryChains leaves the chains that draw SPLE's proposals in the modes
	// they start in (no sharing out between modes, no mode jumps), and
	// from the third proposal on (the parameters of round 4) they continue
	// where the previous round's chains stopped instead of starting at
	// importance-resampled candidates: the modes' shares of the proposals
	// stay those of the chains the resampling after round 2 put in them,
	// as in the sbi package's SNLE (which resamples after rounds 1 and 2
	// and continues with "latest_sample" from round 3 on), rather than
	// following each round's learned masses. Where rounds would otherwise
	// feed on their own imbalance (a mode that gets few parameters is
	// learned worse and gets fewer still), this keeps every mode the chains
	// found in the training data; it cannot find a mode that no chain
	// found. The final draws (Result.Draws) and LikelihoodPosterior.Sample
	// are not affected. SPPE ignores it.
	CarryChains bool
	// PosteriorSamples is the number of posterior draws in Result.Draws; 0
	// means 1000.
	PosteriorSamples int

	// OnRound, if not nil, is called after every round with the round's
	// posterior estimate (a *Posterior for SPPE, a *LikelihoodPosterior for
	// SPLE) and its draws at the observation: the next round's parameters
	// (SimsPerRound draws) or, after the last round, Result.Draws. It
	// serves per-round accuracy curves (the paper's Fig. 1B) and must not
	// modify its arguments.
	OnRound func(round int, est Estimate, draws *privinfer.Draws)
	// Progress, if not nil, receives events with Round set to the 1-based
	// round: Stage "simulate" when the round's simulations are done (Step
	// = Total = SimsPerRound), "epoch" after every training epoch (Step of
	// Total = Train.MaxEpochs, the losses in Message, as flow.Fit reports
	// them) and "round" at the end of the round (Step of Total = Rounds).
	Progress privinfer.ProgressFunc
	// Seed selects the random streams; results depend on it only, never
	// on the Executor.
	Seed uint64
	// Executor simulates each round's parameters (nil:
	// simulate.InProcess, all cores of this process). It runs
	// Problem.Simulator, row i of round r with the stream
	// simulate.Stream(s_r, i), s_r derived from Seed and r; the parameters
	// are proposed, and the mechanism's noise integrated, on the driver
	// (see simulate.Executor).
	Executor simulate.Executor

	// Checkpoint, if not empty, is the path of a file in which the run
	// keeps its state after every round but the last: the simulations,
	// the trained flow, the next round's parameters and the result so far
	// (written to a temporary file in the same folder and renamed over
	// the previous one). A run started with the path of an existing
	// checkpoint continues after its round instead of starting over, and
	// returns what the run would have returned had it not stopped: the
	// same draws and round records, bit for bit, with the times summed
	// over the runs that made it. OnRound is called for the saved rounds
	// first, with the estimates and draws it was given when they ran (the
	// checkpoint keeps every round's flow parameters for this), then for
	// the rest. The file is removed when the run succeeds.
	//
	// The problem is code and is not saved: pass the same prior,
	// simulator, mechanism and release. The checkpoint records a
	// fingerprint of everything else that decides the results (this
	// Config, the problem's dimensions, the types of its parts and the
	// release), and a run whose fingerprint differs returns
	// ErrCheckpointMismatch instead of using it; a malformed file gives
	// an error wrapping ErrCorrupt. Delete the file to start over. The
	// folder must exist; give every concurrent run a file of its own.
	Checkpoint string
}

// Simulations are n parameter–summary pairs (θ_i, s(x_i)), x_i ~ f(·|θ_i),
// simulated beforehand: the confidential summaries of a private problem
// (the mechanism's noise is integrated over in training), the data
// themselves for a non-private one.
type Simulations struct {
	Theta []float64 // n×Dim parameters, row-major, drawn from the prior
	Stats []float64 // n×StatDim summaries, row-major
}

// Size limits of Config, refusing runs that cannot be allocated.
const (
	maxRounds  = 1 << 16
	maxSims    = 1 << 26 // simulations over all rounds
	maxInner   = 1 << 16
	maxChains  = 1 << 10
	maxWarmup  = 1 << 30
	maxThin    = 1 << 20
	maxSamples = 1 << 26
	// maxCandidates bounds Config.FlowCandidates (each is trained in
	// round 1).
	maxCandidates = 64
)

// Validate checks the configuration on its own (SPPE and SPLE also check
// it against the Problem): counts ≥ 0 (0 meaning the default) and within
// what can be allocated, SimsPerRound ≠ 1, Atoms ≠ 1 and at most
// SimsPerRound, MinInSupport in [0, 1], a known Integration and, when
// Train is set, valid training settings. Errors wrap ErrInvalid and name
// the field.
func (c *Config) Validate() error {
	if c == nil {
		return invalidf("Config: is nil")
	}
	f := c.withDefaults()
	switch {
	case c.Rounds < 0 || f.Rounds > maxRounds:
		return invalidf("Config.Rounds: must be in [0, %d], got %d", maxRounds, c.Rounds)
	case c.SimsPerRound < 0 || c.SimsPerRound == 1 || f.SimsPerRound > maxSims/f.Rounds:
		return invalidf("Config.SimsPerRound: must be 0 or ≥ 2 with Rounds·SimsPerRound ≤ %d, got %d", maxSims, c.SimsPerRound)
	case c.InnerPoints < 0 || f.InnerPoints > maxInner:
		return invalidf("Config.InnerPoints: must be in [0, %d], got %d", maxInner, c.InnerPoints)
	case c.Integration != RQMC && c.Integration != MC:
		return invalidf("Config.Integration: unknown integration %v", c.Integration)
	case c.RegressionShift != ShiftAuto && c.RegressionShift != ShiftOn && c.RegressionShift != ShiftOff:
		return invalidf("Config.RegressionShift: unknown mode %v", c.RegressionShift)
	case c.Atoms < 0 || c.Atoms == 1:
		return invalidf("Config.Atoms: must be 0 or ≥ 2, got %d", c.Atoms)
	case f.Atoms > f.SimsPerRound:
		return invalidf("Config.Atoms: must be at most SimsPerRound = %d, got %d", f.SimsPerRound, c.Atoms)
	case !(c.MinInSupport >= 0 && c.MinInSupport <= 1):
		return invalidf("Config.MinInSupport: must be in [0, 1], got %v", c.MinInSupport)
	case c.Chains < 0 || c.Chains > maxChains:
		return invalidf("Config.Chains: must be in [0, %d], got %d", maxChains, c.Chains)
	case c.Warmup < 0 || c.Warmup > maxWarmup:
		return invalidf("Config.Warmup: must be in [0, %d], got %d", maxWarmup, c.Warmup)
	case c.Thin < 0 || c.Thin > maxThin:
		return invalidf("Config.Thin: must be in [0, %d], got %d", maxThin, c.Thin)
	case c.PosteriorSamples < 0 || c.PosteriorSamples > maxSamples:
		return invalidf("Config.PosteriorSamples: must be in [0, %d], got %d", maxSamples, c.PosteriorSamples)
	}
	if c.Embedding != nil {
		if err := c.Embedding.Validate(); err != nil {
			return aboutCause(ErrInvalid, "Config.Embedding", err, "")
		}
	}
	if len(c.FlowCandidates) > maxCandidates {
		return invalidf("Config.FlowCandidates: may hold at most %d architectures, got %d", maxCandidates, len(c.FlowCandidates))
	}
	if len(c.FlowCandidates) > 0 && f.Train.ValidationFraction == 0 {
		return invalidf("Config.FlowCandidates: needs a validation set to choose by: Config.Train.ValidationFraction must be > 0")
	}
	if c.Train == nil {
		return nil
	}
	if err := c.Train.Validate(); err != nil {
		return aboutCause(ErrInvalid, "Config.Train", err, "")
	}
	return nil
}

// likelihoodChains is SPLE's default number of chains for a θ of
// dimension d.
func likelihoodChains(d int) int {
	if d > 8 {
		return 10
	}
	return 20
}

// withDefaults returns a copy of c with every zero field set to its
// default; Train then points to a copy.
func (c *Config) withDefaults() Config {
	f := *c
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&f.Rounds, 4)
	def(&f.SimsPerRound, 500)
	def(&f.InnerPoints, 8)
	def(&f.Atoms, min(10, max(f.SimsPerRound, 2)))
	def(&f.Chains, 4)
	def(&f.Warmup, 500)
	def(&f.Thin, 5)
	def(&f.PosteriorSamples, 1000)
	if f.MinInSupport == 0 {
		f.MinInSupport = 1e-3
	}
	tc := DefaultTrain()
	if c.Train != nil {
		tc = *c.Train
	}
	f.Train = &tc
	return f
}

// DefaultFlow returns the flow architecture that SPPE (role
// PosteriorFlow) and SPLE (role LikelihoodFlow) use under c when c.Flow is
// nil, for a flow of dimension dim with a context of dimension contextDim
// (SPPE's flow models θ given the release, SPLE's the release given θ):
// the sbi package's neural spline flow — 5 coupling layers, 10 bins, tail
// bound 3, two residual blocks of 50 units, LU layers, context gating and
// z-scoring of both sides — with 3 layers when dim is 1, where every
// layer's spline depends on the context only. Of c only Rounds matters. A
// role other than LikelihoodFlow is taken for PosteriorFlow, as in
// InnerIntegral. The dimensions are not checked here: flow.New and the
// engines reject a configuration whose dim is below 1 or contextDim below
// 0.
//
// SPLE's flow, and SPPE's when it is trained in one round (c.Rounds = 1:
// amortized NPE), also has flow.Config.ContextAffine: a location and scale
// of the modelled variable that follow the context, learned before the
// splines. A likelihood's data typically move with θ, and an amortized
// posterior with the release, largely by a shift and a change of scale,
// which the layer represents directly and splines on a fixed interval of
// the standardised variable only approximately; on sbibm's tasks it
// improved SNLE, and amortized NPE on SLCP and two moons, and cost
// amortized NPE noticeably only on the Gaussian linear task, where the
// regression shift alone is exact. In sequential SNPE, whose later
// rounds train on proposals near the observation, it was level on three
// tasks (slightly better) and worse on SLCP, so SPPE's flow has it only
// when amortized (measured in examples/reproduce/sbibm/RESULTS.md, section "The
// affine layer in Config.DefaultFlow").
func (c Config) DefaultFlow(role Role, dim, contextDim int) flow.Config {
	f := flow.DefaultConfig(dim, contextDim)
	f.Layers = 5
	if dim == 1 {
		f.Layers = 3
	}
	f.ContextAffine = role == LikelihoodFlow || c.Rounds == 1
	return f
}

// UsesRegressionShift reports whether SPPE under c fits the regression
// shift (Config.RegressionShift) for a problem with the given prior:
// always with ShiftOn, never with ShiftOff, and with ShiftAuto (the
// default) unless SPPE is trained in one round (c.Rounds = 1: amortized
// NPE) under a box prior of 5 or more dimensions: θ has 5 or more
// coordinates and simulate.SupportBox gives finite bounds on both sides
// of every one, as for U[lo, hi]ᵈ. A prior that does not implement
// simulate.Bounded counts as unbounded. It returns an error wrapping
// ErrInvalid for a nil prior, and, when the rule looks at the prior
// (ShiftAuto with c.Rounds = 1), for a prior whose Bounds break
// simulate.Bounded's contract.
//
// Why: under a box prior the box's faces are sharp edges of the
// posterior, fixed in θ. The shift moves them with the release in the
// flow's variable, where the splines' knots must follow them through the
// conditioner network; without it they stay put. On the generality
// suite's box priors (U[−1, 1]ᵈ with Gaussian noise; d = 10 is sbibm's
// "Gaussian linear uniform") amortized NPE without the shift was closer
// to the exact posterior at 10⁴ simulations in 5, 10 and 20 dimensions,
// much closer in 10 and 20, and level or closer at 10³; on sbibm's SLCP
// (a box in 5 dimensions) it was level. In two dimensions it was level on
// the suite and worse on sbibm's Gaussian mixture, whose posterior is
// narrow beside its box U[−10, 10]², so that the shift's rescaling
// matters more than the faces: the rule starts at 5 dimensions.
// Sequential SNPE keeps the
// shift: its later rounds train on proposals near the observation, and
// the shift removes its spurious far tails (see the package
// documentation). The measurements are in
// examples/reproduce/generality/RESULTS.md, section "The regression shift
// under a box prior".
func (c Config) UsesRegressionShift(prior simulate.Prior) (bool, error) {
	switch c.RegressionShift {
	case ShiftOn:
		return true, nil
	case ShiftOff:
		return false, nil
	case ShiftAuto:
	default:
		return false, invalidf("Config.RegressionShift: unknown mode %v", c.RegressionShift)
	}
	if prior == nil {
		return false, invalidf("UsesRegressionShift: prior is nil")
	}
	if c.Rounds != 1 {
		return true, nil
	}
	lo, hi, err := simulate.SupportBox(prior)
	if err != nil {
		return false, argcheck.Also(err, ErrInvalid)
	}
	if len(lo) < boxNoShiftMinDim {
		return true, nil
	}
	for i := range lo {
		if math.IsInf(lo[i], 0) || math.IsInf(hi[i], 0) {
			return true, nil
		}
	}
	return false, nil
}

// boxNoShiftMinDim is the smallest dimension of θ in which ShiftAuto
// leaves the regression shift out of amortized NPE under a box prior
// (Config.UsesRegressionShift).
const boxNoShiftMinDim = 5

// DefaultTrain returns the training settings that SPPE and SPLE use when
// Config.Train is nil: flow.DefaultTrainConfig (Adam with learning rate
// 5·10⁻⁴ and weight decay 10⁻⁴, patience 20, gradient clipping at norm 5)
// with batches of 50 simulations and 10% of them held out for validation,
// as in the sbi package, and the parameters' moving average with β = 0.99
// (EMA): the averaged flow is validated and kept.
//
// With 5% held out, the 50 validation pairs of 1,000 simulations stopped
// amortized NPE's training too early on sbibm's Gaussian mixture; 10% was
// better there and on SLCP and slightly worse on two moons (measured in
// examples/reproduce/sbibm/RESULTS.md, section "10% of the simulations for
// validation").
func DefaultTrain() flow.TrainConfig {
	tc := flow.DefaultTrainConfig()
	tc.BatchSize = 50
	tc.ValidationFraction = 0.1
	tc.EMA = 0.99
	return tc
}

// RoundResult summarises one round.
type RoundResult struct {
	Round       int
	Simulations int // total simulations after this round
	// Epochs run, the kept epoch, and the per-epoch mean training and
	// validation losses (validation NaN without a validation set).
	Epochs, BestEpoch         int
	TrainLoss, ValidationLoss []float64
	// Candidates, in round 1 of a run with Config.FlowCandidates, are the
	// best-epoch validation losses of Config.Flow (first) and of each
	// candidate in order, and Selected indexes the kept architecture (0
	// for Config.Flow, i for FlowCandidates[i−1]); the fields above then
	// describe the kept flow's training. Nil and 0 otherwise.
	Candidates []float64
	Selected   int
	// SimTime, TrainTime and ProposalTime are the round's wall times.
	SimTime, TrainTime, ProposalTime time.Duration
	// InSupport is the in-support fraction of the posterior flow's draws
	// (SPPE; 1 for SPLE).
	InSupport float64
	// Diagnostics are those of the round's MCMC chains (SPLE, or SPPE's
	// fallback); without chains RHat is nil, ESS and AcceptRate are NaN and
	// Thin and ChainGroups 0.
	Diagnostics
}

// Result is the record of an SPPE or SPLE run, returned rather than
// printed.
type Result struct {
	// Draws are Config.PosteriorSamples draws from the final posterior
	// estimate at Problem.Observed, named after the problem's parameters.
	// SPLE's are Chains MCMC chains (Draws.Chains set when PosteriorSamples
	// is a multiple of Chains), SPPE's independent flow draws.
	Draws *privinfer.Draws
	// Rounds holds every round's record.
	Rounds []RoundResult
	// Simulations is the total number of confidential simulations.
	Simulations int
	// SimTime, TrainTime and ProposalTime are the wall times summed over
	// the rounds, Elapsed the total.
	SimTime, TrainTime, ProposalTime, Elapsed time.Duration
}

// SPPEResult is the outcome of SPPE.
type SPPEResult struct {
	Result
	// Posterior is the final posterior estimate q(θ | s_dp°) restricted to
	// the prior support.
	Posterior *Posterior
}

// SPLEResult is the outcome of SPLE.
type SPLEResult struct {
	Result
	// Posterior is the final posterior estimate π(θ) q(s_dp° | θ), with
	// the trained likelihood.
	Posterior *LikelihoodPosterior
}
