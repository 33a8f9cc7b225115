package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/optim"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/simulate"
)

// supportDraws is the number of flow draws used to estimate the in-support
// fraction of a posterior.
const supportDraws = 4000

// Posterior is SPPE's estimate of π(θ | s_dp°): the flow q(θ | s_dp°)
// restricted to the prior's support and renormalised. It is safe for
// concurrent use.
type Posterior struct {
	f         *flow.Flow
	prior     simulate.Prior
	obs       []float64
	inSupport float64
	minIn     float64
	fallback  bool
	chains    int
	warmup    int
	thin      int
}

func newPosterior(f *flow.Flow, p Problem, o *Options) (*Posterior, error) {
	q := &Posterior{f: f, prior: p.Prior, obs: append([]float64(nil), p.Observed...), minIn: o.MinInSupport,
		fallback: o.LeakageFallback, chains: o.Chains, warmup: o.Warmup, thin: o.Thin}
	d := f.Dim()
	buf := make([]float64, supportDraws*d)
	if err := f.Sample(parallel.Stream(o.Seed, tagSupport), q.obs, supportDraws, buf); err != nil {
		return nil, fmt.Errorf("sbi: %w", err)
	}
	in := 0
	for i := 0; i < supportDraws; i++ {
		if q.inPrior(buf[i*d : (i+1)*d]) {
			in++
		}
	}
	q.inSupport = float64(in) / supportDraws
	return q, nil
}

func (q *Posterior) inPrior(theta []float64) bool {
	lp := q.prior.LogDensity(theta)
	return !math.IsNaN(lp) && !math.IsInf(lp, 0)
}

// Flow returns the trained conditional flow q(θ | s_dp) (do not modify it);
// nil for a Posterior not returned by SPPE.
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
func (q *Posterior) unbuilt() bool { return q == nil || q.f == nil || isNil(q.prior) }

// errUnbuilt is the error of methods called on such a Posterior or
// Likelihood.
func errUnbuilt(kind string) error {
	return fmt.Errorf("%w: %s used without the function that returns it (nil or zero value)", ErrInput, kind)
}

// InSupport returns the fraction of q(θ | s_dp°)'s mass inside the prior's
// support, estimated from 4000 flow draws (1 when there is no leakage).
func (q *Posterior) InSupport() float64 { return q.inSupport }

// LogProb returns the log density of the posterior estimate at theta:
// log q(θ | s_dp°) − log(InSupport) inside the prior support and −Inf
// outside. It returns NaN for a θ of the wrong length and for a Posterior
// not returned by SPPE.
func (q *Posterior) LogProb(theta []float64) float64 {
	if q.unbuilt() || len(theta) != q.f.Dim() {
		return math.NaN()
	}
	if !q.inPrior(theta) {
		return math.Inf(-1)
	}
	return q.f.LogProb(theta, q.obs) - math.Log(q.inSupport)
}

// LogProbAt returns log q(θ | s_dp) of the unrestricted flow for any release
// s_dp (amortised use of the trained flow); NaN for wrong lengths and for a
// Posterior not returned by SPPE.
func (q *Posterior) LogProbAt(theta, sdp []float64) float64 {
	if q.unbuilt() {
		return math.NaN()
	}
	return q.f.LogProb(theta, sdp)
}

// Sample writes n draws (n×Dim) into dst: flow draws rejected until they lie
// in the prior support. If the in-support fraction is below
// Options.MinInSupport it returns an error wrapping ErrLeakage, unless
// Options.LeakageFallback was set, in which case the draws come from
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
	if r == nil || n < 0 || len(dst) < n*d {
		return nil, fmt.Errorf("%w: Sample needs a random source and %d destination values", ErrInput, n*d)
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
		if err := q.f.Sample(r, q.obs, chunk, buf); err != nil {
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
	RHat       []float64 // rank-normalised split R̂ per coordinate (mcmc.RHat)
	AcceptRate float64   // post-warm-up acceptance rate
}

// SampleMCMC writes n draws (n×Dim) from q(θ | s_dp°)·1{π(θ) > 0} into dst,
// sampled with Options.Chains adaptive Metropolis chains (the leakage
// fallback; chains on streams derived from seed), and returns the chains'
// diagnostics.
func (q *Posterior) SampleMCMC(ctx context.Context, n int, seed uint64, dst []float64) (Diagnostics, error) {
	if q.unbuilt() {
		return Diagnostics{}, errUnbuilt("Posterior")
	}
	if ctx == nil {
		return Diagnostics{}, fmt.Errorf("%w: SampleMCMC needs a non-nil context", ErrInput)
	}
	if n < 1 || len(dst) < n*q.f.Dim() {
		return Diagnostics{}, fmt.Errorf("%w: SampleMCMC needs n ≥ 1 and %d destination values", ErrInput, n*q.f.Dim())
	}
	run, err := q.sampleMCMC(ctx, n, seed, dst)
	if err != nil {
		return Diagnostics{}, err
	}
	return Diagnostics{RHat: run.rhat, AcceptRate: run.accept}, nil
}

func (q *Posterior) sampleMCMC(ctx context.Context, n int, seed uint64, dst []float64) (*amRun, error) {
	d := q.f.Dim()
	logp := func(x []float64) float64 {
		if !q.inPrior(x) {
			return math.Inf(-1)
		}
		return q.f.LogProb(x, q.obs)
	}
	// Candidates: prior draws and flow draws.
	r := parallel.Stream(seed, 0)
	cand := make([]float64, 400*d)
	for i := 0; i < 200; i++ {
		q.prior.Sample(r, cand[i*d:(i+1)*d])
	}
	if err := q.f.Sample(r, q.obs, 200, cand[200*d:]); err != nil {
		return nil, fmt.Errorf("sbi: %w", err)
	}
	starts, scale, err := mcmcStarts(logp, cand, d, q.chains)
	if err != nil {
		return nil, err
	}
	per := (n + q.chains - 1) / q.chains
	run, err := runAM(ctx, logp, d, starts, scale, q.warmup, per, q.thin, seed)
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
func (l *Likelihood) unbuilt() bool { return l == nil || l.f == nil || isNil(l.prior) }

// LogLik returns log q(s_dp | θ), or NaN for wrong lengths.
//
// It is NaN for a Likelihood not returned by SPLE.
func (l *Likelihood) LogLik(sdp, theta []float64) float64 {
	if l.unbuilt() {
		return math.NaN()
	}
	return l.f.LogProb(sdp, theta)
}

// posteriorMCMC draws n samples from π(θ) q(sdp | θ).
func (l *Likelihood) posteriorMCMC(ctx context.Context, sdp, cand []float64, n int, o *Options, seed uint64) ([]float64, *amRun, error) {
	d := l.f.ContextDim()
	logp := func(x []float64) float64 {
		lp := l.prior.LogDensity(x)
		if math.IsInf(lp, -1) || math.IsNaN(lp) {
			return lp
		}
		return lp + l.f.LogProb(sdp, x)
	}
	starts, scale, err := mcmcStarts(logp, cand, d, o.Chains)
	if err != nil {
		return nil, nil, err
	}
	per := (n + o.Chains - 1) / o.Chains
	run, err := runAM(ctx, logp, d, starts, scale, o.Warmup, per, o.Thin, seed)
	if err != nil {
		return nil, nil, err
	}
	if !converged(run.rhat) {
		// Diagnostics check: one retry with four times the warm-up and
		// twice the thinning, started from the first run's final states.
		for c := range starts {
			copy(starts[c], run.draws[((c+1)*per-1)*d:(c+1)*per*d])
		}
		if run, err = runAM(ctx, logp, d, starts, scale, 4*o.Warmup, per, 2*o.Thin, seed+1); err != nil {
			return nil, nil, err
		}
	}
	return run.draws[:n*d], run, nil
}

// MLE maximises log q(sdp | θ) over θ by Nelder–Mead from start (§3.2's
// approximate maximum likelihood estimate) and returns the maximiser and the
// maximum. Points outside the prior support are excluded.
func (l *Likelihood) MLE(sdp, start []float64, maxIter int) ([]float64, float64, error) {
	if l.unbuilt() {
		return nil, 0, errUnbuilt("Likelihood")
	}
	if maxIter < 0 {
		return nil, 0, fmt.Errorf("%w: MLE needs maxIter ≥ 0 (0 for the default), got %d", ErrInput, maxIter)
	}
	for _, v := range [][]float64{sdp, start} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, 0, fmt.Errorf("%w: MLE needs a finite start and release, got %v", ErrInput, x)
			}
		}
	}
	d := l.f.ContextDim()
	if len(start) != d || len(sdp) != l.f.Dim() {
		return nil, 0, fmt.Errorf("%w: MLE needs a start of length %d and a release of length %d", ErrInput, d, l.f.Dim())
	}
	obj := func(x []float64) float64 {
		lp := l.prior.LogDensity(x)
		if math.IsInf(lp, -1) || math.IsNaN(lp) {
			return math.Inf(1)
		}
		v := -l.f.LogProb(sdp, x)
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}
	res, err := optim.NelderMead(obj, start, optim.NelderMeadConfig{MaxIter: maxIter})
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if math.IsInf(res.F, 1) {
		return nil, 0, fmt.Errorf("%w: the likelihood is zero at the start point", ErrInput)
	}
	return res.X, -res.F, nil
}

// LikelihoodPosterior is SPLE's output: posterior draws from
// π(θ) q(s_dp° | θ), the trained likelihood and the chains' rank-normalised
// split R̂ (mcmc.RHat).
type LikelihoodPosterior struct {
	Dim        int
	Samples    []float64 // PosteriorSamples rows of dimension Dim
	RHat       []float64
	Likelihood *Likelihood
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
