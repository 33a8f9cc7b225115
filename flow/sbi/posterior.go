package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/optim"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/simulate"
)

// supportDraws is the number of flow draws used to estimate the in-support
// fraction of a posterior.
const supportDraws = 4000

// Posterior is SPPE's estimate of π(θ | s_dp°): the flow q(θ | s_dp°)
// restricted to the prior's support and renormalised. It is safe for
// concurrent use. A Posterior trained in one round (Amortized) is valid at
// every release and At conditions it on another one; Save and
// LoadPosterior keep it.
type Posterior struct {
	f     *flow.Flow
	prior simulate.Prior
	postSettings
	resid *sync.Pool // *[]float64 of length Dim: residuals of the regression shift
}

// postSettings is what a posterior keeps besides its flow and prior; a
// saved posterior file records it as it is.
type postSettings struct {
	obs       []float64
	inSupport float64
	minIn     float64
	fallback  bool
	chains    int
	warmup    int
	thin      int
	seed      uint64 // seeds the in-support estimate
	rounds    int    // training rounds; 1 means amortized
	// shift is the regression shift (Config.RegressionShift), nil
	// without one: the flow then models θ − shift(s_dp).
	shift *linShift
	// names are the problem's parameter names (Problem.Names), nil for
	// the defaults θ[0], θ[1], ….
	names []string
}

// newPosterior restricts the flow q(θ | s_dp) at the observation obs to
// the prior's support (obs nil: an amortized posterior not yet conditioned
// on a release); cfg has its defaults filled and rounds is the number of
// training rounds.
func newPosterior(f *flow.Flow, prior simulate.Prior, obs []float64, cfg *Config, rounds int, shift *linShift) (*Posterior, error) {
	q := &Posterior{f: f, prior: prior, postSettings: postSettings{obs: slices.Clone(obs), minIn: cfg.MinInSupport,
		fallback: cfg.LeakageFallback, chains: cfg.Chains, warmup: cfg.Warmup, thin: cfg.Thin,
		seed: cfg.Seed, rounds: rounds, shift: shift}, resid: residPool(f.Dim())}
	if err := q.estimateSupport(); err != nil {
		return nil, err
	}
	return q, nil
}

// estimateSupport sets the in-support fraction at q.obs from supportDraws
// flow draws on the stream of q.seed; without an observation it is 0.
func (q *Posterior) estimateSupport() error {
	if q.obs == nil {
		q.inSupport = 0
		return nil
	}
	d := q.f.Dim()
	buf := make([]float64, supportDraws*d)
	if err := q.flowSample(parallel.Stream(q.seed, tagSupport), q.obs, supportDraws, buf); err != nil {
		return fmt.Errorf("sbi: %w", err)
	}
	in := 0
	for i := 0; i < supportDraws; i++ {
		if q.inPrior(buf[i*d : (i+1)*d]) {
			in++
		}
	}
	q.inSupport = float64(in) / supportDraws
	return nil
}

// Amortized reports whether the posterior was trained in a single round on
// simulations from the prior, so that it estimates π(θ | s_dp) at every
// release s_dp (At). A sequential posterior (more rounds) was trained on
// proposals focused on its observation and is valid there only.
func (q *Posterior) Amortized() bool { return !q.unbuilt() && q.rounds == 1 }

// Rounds returns the number of rounds the posterior was trained in (0 for
// a Posterior not returned by SPPE or LoadPosterior).
func (q *Posterior) Rounds() int {
	if q.unbuilt() {
		return 0
	}
	return q.rounds
}

// Observed returns a copy of the release the posterior is conditioned on,
// nil for an amortized posterior trained without Problem.Observed (until
// At conditions it).
func (q *Posterior) Observed() []float64 {
	if q.unbuilt() {
		return nil
	}
	return slices.Clone(q.obs)
}

// At returns the posterior conditioned on the release sdp: the same
// trained flow q(θ | sdp) restricted to the prior's support, with its
// in-support fraction estimated at sdp. An amortized posterior accepts any
// release; a sequential one only its own observation, and returns an
// error wrapping ErrSequential for any other. The returned Posterior
// shares the flow with q.
func (q *Posterior) At(sdp []float64) (*Posterior, error) {
	if q.unbuilt() {
		return nil, errUnbuilt("Posterior")
	}
	if err := checkRelease(sdp, q.f.ContextDim()); err != nil {
		return nil, err
	}
	if q.rounds != 1 && !slices.Equal(sdp, q.obs) {
		return nil, about(ErrSequential, "sdp", "the posterior was trained in %d rounds on proposals for its observation %v", q.rounds, q.obs)
	}
	r := *q
	r.obs = slices.Clone(sdp)
	if err := r.estimateSupport(); err != nil {
		return nil, err
	}
	return &r, nil
}

// checkRelease validates a release of length n.
func checkRelease(sdp []float64, n int) error {
	if len(sdp) != n {
		return invalidf("sdp: has length %d, want %d", len(sdp), n)
	}
	for i, v := range sdp {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("sdp[%d]: is %v", i, v)
		}
	}
	return nil
}

func (q *Posterior) inPrior(theta []float64) bool {
	lp := q.prior.LogDensity(theta)
	return !math.IsNaN(lp) && !math.IsInf(lp, 0)
}

// Flow returns the trained conditional flow q(θ | s_dp) (do not modify it);
// nil for a Posterior not returned by SPPE. With the regression shift
// (Config.RegressionShift, Config.UsesRegressionShift) the flow's variable is
// the residual θ − a − B·s_dp, not θ: use LogDensityAt and Sample, which
// add the shift back.
func (q *Posterior) Flow() *flow.Flow {
	if q == nil {
		return nil
	}
	return q.f
}

// Dim returns the dimension of θ (0 for a Posterior not returned by SPPE).
func (q *Posterior) Dim() int {
	if q.unbuilt() {
		return 0
	}
	return q.f.Dim()
}

// unbuilt reports a Posterior not returned by SPPE (nil or zero value).
func (q *Posterior) unbuilt() bool { return q == nil || q.f == nil || argcheck.Nil(q.prior) }

// errUnbuilt is the error of methods called on such a Posterior or
// Likelihood: the receiver is the argument at fault.
func errUnbuilt(kind string) error {
	return invalidf("%s: used without the function that returns it (nil or zero value)", kind)
}

// checkSample validates the arguments of the Sample methods: a non-nil
// r, n ≥ 0 and room for n draws of dimension d in dst.
func checkSample(r *rand.Rand, n, d int, dst []float64) error {
	switch {
	case r == nil:
		return invalidf("r: must not be nil")
	case n < 0:
		return invalidf("n: must be >= 0, got %d", n)
	case n > len(dst)/max(d, 1):
		return invalidf("dst: has %d values, need n·Dim = %d·%d", len(dst), n, d)
	}
	return nil
}

// InSupport returns the fraction of q(θ | s_dp°)'s mass inside the prior's
// support, estimated from 4000 flow draws (1 when there is no leakage); NaN
// for a posterior not conditioned on a release (Observed nil).
func (q *Posterior) InSupport() float64 {
	if q == nil || q.obs == nil {
		return math.NaN()
	}
	return q.inSupport
}

// LogDensity returns the log density of the posterior estimate at theta:
// log q(θ | s_dp°) − log(InSupport) inside the prior support and −Inf
// outside. It returns NaN for a θ of the wrong length, for a Posterior
// not returned by SPPE and for one not conditioned on a release (Observed
// nil; see At).
func (q *Posterior) LogDensity(theta []float64) float64 {
	if q.unbuilt() || len(theta) != q.f.Dim() || q.obs == nil {
		return math.NaN()
	}
	if !q.inPrior(theta) {
		return math.Inf(-1)
	}
	return q.flowLogDensity(theta, q.obs) - math.Log(q.inSupport)
}

// LogDensityAt returns log q(θ | s_dp) of the unrestricted flow for any
// release s_dp (amortised use of the trained flow); NaN for wrong lengths
// and for a Posterior not returned by SPPE.
func (q *Posterior) LogDensityAt(theta, sdp []float64) float64 {
	if q.unbuilt() {
		return math.NaN()
	}
	return q.flowLogDensity(theta, sdp)
}

// flowLogDensity returns log q(θ | sdp) of the flow: its density at θ, or
// with a regression shift at the residual θ − a − B·sdp. Wrong lengths
// give NaN.
func (q *Posterior) flowLogDensity(theta, sdp []float64) float64 {
	if q.shift == nil {
		return q.f.LogDensity(theta, sdp)
	}
	if len(theta) != q.f.Dim() || len(sdp) != q.f.ContextDim() {
		return math.NaN()
	}
	bp := q.resid.Get().(*[]float64)
	x := *bp
	q.shift.at(sdp, x)
	for j, v := range theta {
		x[j] = v - x[j]
	}
	lp := q.f.LogDensity(x, sdp)
	q.resid.Put(bp)
	return lp
}

// residPool returns a pool of residual buffers of length d.
func residPool(d int) *sync.Pool {
	return &sync.Pool{New: func() any { b := make([]float64, d); return &b }}
}

// flowSample writes n draws of the flow at sdp into dst, shifted back to θ
// when the flow models the residual of the regression shift.
func (q *Posterior) flowSample(r *rand.Rand, sdp []float64, n int, dst []float64) error {
	if err := q.f.Sample(r, sdp, n, dst); err != nil {
		return err
	}
	if q.shift == nil {
		return nil
	}
	off := make([]float64, q.f.Dim())
	q.shift.at(sdp, off)
	d := len(off)
	for i := range n {
		for j, o := range off {
			dst[i*d+j] += o
		}
	}
	return nil
}

// Sample writes n draws (n×Dim) into dst: flow draws rejected until they lie
// in the prior support. If the in-support fraction is below
// Config.MinInSupport it returns an error wrapping ErrLeakage, unless
// Config.LeakageFallback was set, in which case the draws come from
// adaptive Metropolis on q(θ | s_dp°)·1{π(θ) > 0}.
func (q *Posterior) Sample(r *rand.Rand, n int, dst []float64) error {
	_, err := q.sample(context.Background(), r, n, dst)
	return err
}

func (q *Posterior) sample(ctx context.Context, r *rand.Rand, n int, dst []float64) (*amRun, error) {
	if q.unbuilt() {
		return nil, errUnbuilt("Posterior")
	}
	d := q.f.Dim()
	if err := checkSample(r, n, d, dst); err != nil {
		return nil, err
	}
	if q.obs == nil {
		return nil, ErrNoObservation
	}
	if q.inSupport < q.minIn {
		if !q.fallback {
			return nil, fmt.Errorf("%w: only %.3g of q(θ|s_dp°) lies in the prior support (minimum %.3g); set LeakageFallback to sample by MCMC", ErrLeakage, q.inSupport, q.minIn)
		}
		return q.sampleMCMC(ctx, n, r.Uint64(), dst)
	}
	chunk := max(256, int(float64(n)/math.Max(q.inSupport, 0.01))/4)
	buf := make([]float64, chunk*d)
	got, tried := 0, 0
	limit := int(float64(n)/q.minIn) + 10*supportDraws
	for got < n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := q.flowSample(r, q.obs, chunk, buf); err != nil {
			return nil, fmt.Errorf("sbi: %w", err)
		}
		tried += chunk
		for i := 0; i < chunk && got < n; i++ {
			x := buf[i*d : (i+1)*d]
			if q.inPrior(x) {
				copy(dst[got*d:], x)
				got++
			}
		}
		if tried > limit {
			return nil, fmt.Errorf("%w: %d of %d flow draws in the prior support", ErrLeakage, got, tried)
		}
	}
	return nil, nil
}

// Diagnostics summarises a multi-chain MCMC run.
type Diagnostics struct {
	// RHat is the rank-normalised split R̂ (mcmc.RHat) per coordinate.
	RHat []float64
	// ESS is the smallest over the coordinates of the multi-chain bulk
	// effective sample size (rank-normalised split chains, Vehtari et al.
	// 2021; the method of privinfer.Draws.ESSBulk and mcmc.ESSBulk).
	ESS float64
	// Thin is the thinning of the draws (Config.Thin, or larger after a
	// rerun).
	Thin int
	// AcceptRate is the post-warm-up acceptance rate (of the local and
	// the mode-jump moves together when the chains were rerun with jumps).
	AcceptRate float64
	// ChainGroups is the number of groups the chains of the first run
	// formed: chains whose draws did not intermingle, treated as separate
	// modes of the posterior and shared out between them in proportion to
	// the groups' estimated masses (see the package documentation); chains
	// are grouped only when a split R̂ is 1.1 or more. It is 1 for chains
	// that mixed. On a multimodal posterior it is usually at least the
	// number of modes the chains found, and more when chains slow to
	// travel along a long or curved mode split it (20 chains of 50 draws
	// on the two crescents of sbibm's two moons formed 3 to 5 groups), but
	// modes that nearly touch can form one group (two moons at observation
	// 3); the rerun's jumps between the chains do not depend on it.
	ChainGroups int
}

// SampleMCMC writes n draws (n×Dim) from q(θ | s_dp°)·1{π(θ) > 0} into dst,
// sampled with Config.Chains adaptive Metropolis chains (the leakage
// fallback; chains on streams derived from seed, rerun once with more
// warm-up or thinning when they have not mixed or their draws are too
// autocorrelated), and returns the chains' diagnostics.
func (q *Posterior) SampleMCMC(ctx context.Context, n int, seed uint64, dst []float64) (Diagnostics, error) {
	if q.unbuilt() {
		return Diagnostics{}, errUnbuilt("Posterior")
	}
	if ctx == nil {
		return Diagnostics{}, invalidf("ctx: must not be nil")
	}
	if n < 1 {
		return Diagnostics{}, invalidf("n: must be >= 1, got %d", n)
	}
	if d := q.f.Dim(); len(dst) < n*d {
		return Diagnostics{}, invalidf("dst: has %d values, need n·Dim = %d", len(dst), n*d)
	}
	if q.obs == nil {
		return Diagnostics{}, ErrNoObservation
	}
	run, err := q.sampleMCMC(ctx, n, seed, dst)
	if err != nil {
		return Diagnostics{}, err
	}
	return run.diagnostics(), nil
}

func (q *Posterior) sampleMCMC(ctx context.Context, n int, seed uint64, dst []float64) (*amRun, error) {
	d := q.f.Dim()
	logp := func(x []float64) float64 {
		if !q.inPrior(x) {
			return math.Inf(-1)
		}
		return q.flowLogDensity(x, q.obs)
	}
	// Candidates: prior draws and flow draws.
	r := parallel.Stream(seed, 0)
	cand := make([]float64, 400*d)
	for i := 0; i < 200; i++ {
		q.prior.Sample(r, cand[i*d:(i+1)*d])
	}
	if err := q.flowSample(r, q.obs, 200, cand[200*d:]); err != nil {
		return nil, fmt.Errorf("sbi: %w", err)
	}
	starts, scale, err := mcmcStarts(logp, cand, d, q.chains)
	if err != nil {
		return nil, err
	}
	run, err := sampleAM(ctx, logp, d, starts, scale, q.warmup, n, q.thin, seed, false)
	if err != nil {
		return nil, err
	}
	copy(dst[:n*d], run.draws)
	return run, nil
}

// Likelihood is SPLE's estimate q(s_dp | θ) of the private-data likelihood.
type Likelihood struct {
	f     *flow.Flow
	prior simulate.Prior
}

// Flow returns the trained conditional flow q(s_dp | θ) (do not modify it);
// nil for a Likelihood not returned by SPLE.
func (l *Likelihood) Flow() *flow.Flow {
	if l == nil {
		return nil
	}
	return l.f
}

// unbuilt reports a Likelihood not returned by SPLE (nil or zero value).
func (l *Likelihood) unbuilt() bool { return l == nil || l.f == nil || argcheck.Nil(l.prior) }

// LogDensity returns log q(s_dp | θ), or NaN for wrong lengths and for a
// Likelihood not returned by SPLE.
func (l *Likelihood) LogDensity(sdp, theta []float64) float64 {
	if l.unbuilt() {
		return math.NaN()
	}
	return l.f.LogDensity(sdp, theta)
}

// logPosterior returns log π(θ) + log q(sdp | θ), −Inf (or NaN) where the
// prior density is.
func (l *Likelihood) logPosterior(sdp, theta []float64) float64 {
	lp := l.prior.LogDensity(theta)
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		return lp
	}
	return lp + l.f.LogDensity(sdp, theta)
}

// chainStarts says how posteriorMCMC starts its chains.
type chainStarts uint8

const (
	// startsResampled starts them at sirStarts' candidates and shares
	// them out between the modes they find (sampleAM).
	startsResampled chainStarts = iota
	// startsKept starts them at sirStarts' candidates and leaves them in
	// their modes.
	startsKept
	// startsCarried starts each at the last draw of its counterpart in
	// prev, the draws of an earlier call with as many chains
	// (chain-major; carriedStarts), and leaves them in their modes; a
	// chain with no draws in prev starts at sirStarts' candidates, which
	// are resampled only then.
	startsCarried
)

// posteriorMCMC draws n samples from π(θ) q(sdp | θ) with cfg.Chains
// adaptive Metropolis chains started by sirStarts (importance resampling of
// prior draws and of kernel-density draws around prev, earlier posterior
// draws), rerun once with more warm-up or thinning when they have not mixed
// or their draws are too autocorrelated (sampleAM). How the chains start
// and whether they may be moved between modes is set by how.
func (l *Likelihood) posteriorMCMC(ctx context.Context, sdp, prev []float64, n int, cfg *Config, seed uint64, how chainStarts) ([]float64, *amRun, error) {
	d := l.f.ContextDim()
	logp := func(x []float64) float64 { return l.logPosterior(sdp, x) }
	r := parallel.Stream(seed^tagStarts, 0)
	var carried [][]float64
	full := false
	if how == startsCarried {
		carried, full = carriedStarts(prev, d, cfg.Chains)
	}
	var starts [][]float64
	var scale []float64
	if full {
		// The chains' coordinates are scaled by the candidates' spread, as
		// resampled starts' are (the same draws of r).
		cand, _, _ := sirCandidates(l.prior, prev, d, r)
		starts, scale = carried, stdCols(cand, d)
	} else {
		var err error
		if starts, scale, err = sirStarts(logp, l.prior, prev, d, cfg.Chains, r); err != nil {
			return nil, nil, err
		}
		for c, x := range carried {
			if x != nil {
				starts[c] = x
			}
		}
	}
	run, err := sampleAM(ctx, logp, d, starts, scale, cfg.Warmup, n, cfg.Thin, seed, how != startsResampled)
	if err != nil {
		return nil, nil, err
	}
	return run.draws[:n*d], run, nil
}

// MLE maximises log q(sdp | θ) over θ by Nelder–Mead from start (§3.2's
// approximate maximum likelihood estimate) and returns the maximiser and the
// maximum. Points outside the prior support are excluded. maxIter bounds
// the Nelder–Mead iterations; 0 means 200·Dim.
func (l *Likelihood) MLE(sdp, start []float64, maxIter int) ([]float64, float64, error) {
	if l.unbuilt() {
		return nil, 0, errUnbuilt("Likelihood")
	}
	if maxIter < 0 {
		return nil, 0, invalidf("maxIter: must be >= 0 (0 for the default), got %d", maxIter)
	}
	d := l.f.ContextDim()
	if len(sdp) != l.f.Dim() {
		return nil, 0, invalidf("sdp: has length %d, want %d", len(sdp), l.f.Dim())
	}
	if len(start) != d {
		return nil, 0, invalidf("start: has length %d, want %d", len(start), d)
	}
	for _, v := range []struct {
		name string
		x    []float64
	}{{"sdp", sdp}, {"start", start}} {
		for i, x := range v.x {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, 0, invalidf("%s[%d]: must be finite, got %v", v.name, i, x)
			}
		}
	}
	obj := func(x []float64) float64 {
		lp := l.prior.LogDensity(x)
		if math.IsInf(lp, -1) || math.IsNaN(lp) {
			return math.Inf(1)
		}
		v := -l.f.LogDensity(sdp, x)
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}
	res, err := optim.NelderMead(obj, start, optim.NelderMeadConfig{MaxIter: maxIter})
	if err != nil {
		return nil, 0, aboutCause(ErrInvalid, "start", err, "Nelder–Mead")
	}
	if math.IsInf(res.F, 1) {
		return nil, 0, invalidf("start: the likelihood is zero there (or start is outside the prior's support), got %v", start)
	}
	return res.X, -res.F, nil
}

// LikelihoodPosterior is SPLE's estimate of π(θ | s_dp°): the prior times
// the trained likelihood q(s_dp° | θ), sampled by adaptive Metropolis. It
// is safe for concurrent use. One trained in a single round (Amortized)
// is valid at every release and At conditions it on another one; Save and
// LoadLikelihoodPosterior keep it.
type LikelihoodPosterior struct {
	lik    *Likelihood
	obs    []float64
	cfg    Config    // Chains, Warmup and Thin
	cand   []float64 // chain start candidates: the last round's draws
	rounds int       // training rounds; 1 means amortized
	names  []string  // Problem.Names, nil for the defaults
}

// Amortized reports whether the likelihood was trained in a single round
// on simulations from the prior, so that the posterior is valid at every
// release (At); see Posterior.Amortized.
func (q *LikelihoodPosterior) Amortized() bool { return !q.unbuilt() && q.rounds == 1 }

// Rounds returns the number of rounds the likelihood was trained in (0
// for a LikelihoodPosterior not returned by SPLE or
// LoadLikelihoodPosterior).
func (q *LikelihoodPosterior) Rounds() int {
	if q.unbuilt() {
		return 0
	}
	return q.rounds
}

// Observed returns a copy of the release the posterior is conditioned on.
func (q *LikelihoodPosterior) Observed() []float64 {
	if q.unbuilt() {
		return nil
	}
	return slices.Clone(q.obs)
}

// At returns the posterior π(θ) q(sdp | θ) at the release sdp, sharing
// the trained likelihood (its chains still start at importance-resampled
// prior draws and kernel-density draws around the last round's draws). An amortized posterior accepts
// any release; a sequential one only its own observation, and returns an
// error wrapping ErrSequential for any other.
func (q *LikelihoodPosterior) At(sdp []float64) (*LikelihoodPosterior, error) {
	if q.unbuilt() {
		return nil, errUnbuilt("LikelihoodPosterior")
	}
	if err := checkRelease(sdp, q.lik.f.Dim()); err != nil {
		return nil, err
	}
	if q.rounds != 1 && !slices.Equal(sdp, q.obs) {
		return nil, about(ErrSequential, "sdp", "the likelihood was trained in %d rounds on proposals for the observation %v", q.rounds, q.obs)
	}
	r := *q
	r.obs = slices.Clone(sdp)
	return &r, nil
}

// Likelihood returns the trained likelihood q(s_dp | θ); nil for a
// LikelihoodPosterior not returned by SPLE.
func (q *LikelihoodPosterior) Likelihood() *Likelihood {
	if q == nil {
		return nil
	}
	return q.lik
}

// unbuilt reports a LikelihoodPosterior not returned by SPLE.
func (q *LikelihoodPosterior) unbuilt() bool { return q == nil || q.lik.unbuilt() }

// Dim returns the dimension of θ (0 for a LikelihoodPosterior not returned
// by SPLE).
func (q *LikelihoodPosterior) Dim() int {
	if q.unbuilt() {
		return 0
	}
	return q.lik.f.ContextDim()
}

// LogDensity returns the unnormalised log posterior density
// log π(θ) + log q(s_dp° | θ): it differs from the log posterior density
// by the log evidence, a constant. It is −Inf outside the prior's support
// and NaN for a θ of the wrong length and for a LikelihoodPosterior not
// returned by SPLE.
func (q *LikelihoodPosterior) LogDensity(theta []float64) float64 {
	if q.unbuilt() || len(theta) != q.Dim() {
		return math.NaN()
	}
	return q.lik.logPosterior(q.obs, theta)
}

// Sample writes n draws (n×Dim) from π(θ) q(s_dp° | θ) into dst, drawn
// as SPLE draws every round: Config.Chains adaptive Metropolis chains
// started at importance-resampled candidates (prior draws and
// kernel-density draws around the run's last draws), rerun once with a
// longer warm-up or thinning when they have not mixed or their draws are
// too autocorrelated. The chains' streams derive from one draw of r.
func (q *LikelihoodPosterior) Sample(r *rand.Rand, n int, dst []float64) error {
	if q.unbuilt() {
		return errUnbuilt("LikelihoodPosterior")
	}
	d := q.Dim()
	if err := checkSample(r, n, d, dst); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	seed := r.Uint64()
	x, _, err := q.lik.posteriorMCMC(context.Background(), q.obs, q.cand, n, &q.cfg, seed, startsResampled)
	if err != nil {
		return err
	}
	copy(dst, x)
	return nil
}

// converged reports whether every R̂ is below 1.1 (NaN counts as not
// converged).
func converged(rhat []float64) bool {
	for _, v := range rhat {
		if !(v < 1.1) {
			return false
		}
	}
	return true
}
