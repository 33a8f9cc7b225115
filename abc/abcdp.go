package abc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// ABCDPConfig configures ABCDP (ABCDP paper Algorithm 1). The privacy
// fields (EpsTotal, EpsABC, C, Resample, Sensitivity, Clip) calibrate the
// mechanism and are checked by NewABCDPSelector; Distance, Simulations,
// Seed and Progress are read only by ABCDP (Select, which receives the
// distances, ignores them); Reproducible and Accountant are read by both.
type ABCDPConfig struct {
	// EpsTotal is the privacy budget ε_total > 0 of the whole indicator
	// sequence.
	EpsTotal float64
	// EpsABC is the ABC threshold ε_abc (finite).
	EpsABC float64
	// C is the number of acceptances after which the run stops, c ≥ 1.
	C int
	// Resample redraws the threshold noise after every acceptance.
	Resample bool
	// Sensitivity is Δρ, the largest change of ρ(Y*, Y) when one record of
	// the confidential data set Y* changes (mechanism.MMDSensitivity gives
	// 2√B_k/N for the biased MMD). It is the caller's claim about the
	// distance; with Clip > 0 the library guarantees a sensitivity of at most
	// Clip whatever the distance does (see Clip), and zero means Δρ = Clip.
	Sensitivity float64
	// Clip, if > 0, replaces every distance ρ by min(max(ρ, 0), Clip) before
	// it is privatized (ABCDP §4; needed when ρ has no bounded sensitivity,
	// such as the weighted ℓ2 distance of §6.3 or the unbiased MMD², which
	// can be negative).
	//
	// Thm. 4.1 needs sup |ρ(Y*, Y) − ρ(Y*', Y)| ≤ Δρ over neighbouring Y*,
	// Y*'. Clamping to an interval [l, u] bounds that difference by u − l for
	// any ρ whatsoever, so the guarantee holds by construction. Distances are
	// non-negative (the unbiased MMD² estimates MMD² ≥ 0), so the interval is
	// [0, Clip] and Δρ = Clip; the symmetric [−Clip, Clip] would double Δρ,
	// and with it the noise scale b, and the paper's one-sided min(ρ, C)
	// leaves the sensitivity unbounded for a distance that can be negative.
	// Because clamping is 1-Lipschitz, a declared Sensitivity smaller than
	// Clip still bounds the clamped distance, and the calibration uses
	// min(Sensitivity, Clip). Without a clip, negative distances are still
	// raised to 0 (which cannot increase any sensitivity) and infinite ones
	// are errors.
	Clip float64

	// Distance compares a simulated pseudo-data set with the confidential
	// observation Problem.Observed (ABCDP only; nil is refused by ABCDP).
	Distance Distance
	// Simulations is the number T of public prior draws (θ_t, Y_t) that
	// ABCDP simulates and selects from (ABCDP only; ≥ 1).
	Simulations int
	// Seed selects the random streams of the public draws (θ_t from the
	// stream of (simulate.PriorSeed(Seed), t), as SimulatePrior), so anyone
	// can regenerate them. It is not the privacy noise, which comes from the
	// operating system's generator unless Reproducible is set.
	Seed uint64
	// Executor simulates the public draws (ABCDP only; nil:
	// simulate.InProcess). It runs Problem.Simulator at public θ_t; the
	// distances to the confidential observation are computed on the data
	// owner's machine and never reach it.
	Executor simulate.Executor
	// Progress, if not nil, receives an event with Stage "simulate" when
	// ABCDP's public draws are simulated and one with Stage "select" when
	// the selection is done. Events carry counts only, never a distance.
	Progress privinfer.ProgressFunc

	// Reproducible is the explicit opt-out of the operating system's
	// generator for the sparse vector's noise, for reproducible simulation
	// studies and tests: ABCDP then draws the noise from a stream derived
	// from Seed (so its result depends on Seed only), and Select from the
	// *rand.Rand it is given. Anyone who learns the seed can recompute the
	// noise and undo the privacy of the selection: never set it when the
	// distances come from confidential data and the result is released.
	// By default (false) the noise comes from the operating system's
	// generator.
	Reproducible bool

	// Accountant, if not nil, is charged the release's budget
	// (ABCDPSelector.Budget, the ε_total of Thm. 4.1) by ABCDP and by
	// Select once the inputs are checked and before any noise is drawn;
	// when it refuses the charge nothing is selected or released and the
	// error wraps its refusal (mechanism.ErrBudgetExceeded). Nil means the
	// caller accounts for every run itself: each call of ABCDP or Select
	// on the same confidential data is a further release of ε_total, and
	// k runs compose to kε_total.
	Accountant *mechanism.Accountant
}

// Validate checks the configuration: the privacy fields as
// NewABCDPSelector does (except the calibration of the noise scale, which
// NewABCDPSelector computes), and Simulations ≥ 0 (ABCDP needs ≥ 1).
// Errors wrap ErrInvalid.
func (cfg *ABCDPConfig) Validate() error {
	if cfg == nil {
		return invalidf("nil *ABCDPConfig")
	}
	switch {
	case !(cfg.EpsTotal > 0) || math.IsInf(cfg.EpsTotal, 0):
		return invalidf("ABCDPConfig.EpsTotal must be finite and > 0, got %v", cfg.EpsTotal)
	case math.IsNaN(cfg.EpsABC) || math.IsInf(cfg.EpsABC, 0):
		return invalidf("ABCDPConfig.EpsABC must be finite, got %v", cfg.EpsABC)
	case cfg.C < 1:
		return invalidf("ABCDPConfig.C must be >= 1, got %d", cfg.C)
	case math.IsNaN(cfg.Clip) || cfg.Clip < 0 || math.IsInf(cfg.Clip, 0) || (cfg.Clip > 0 && cfg.Clip < minNormal):
		return invalidf("ABCDPConfig.Clip must be 0 or a finite normal number > 0, got %v", cfg.Clip)
	case math.IsNaN(cfg.Sensitivity) || cfg.Sensitivity < 0 || math.IsInf(cfg.Sensitivity, 0) || (cfg.Sensitivity > 0 && cfg.Sensitivity < minNormal):
		return invalidf("ABCDPConfig.Sensitivity must be 0 (with Clip > 0) or a finite normal number > 0, got %v", cfg.Sensitivity)
	case cfg.Sensitivity == 0 && cfg.Clip == 0:
		return invalidf("ABCDPConfig.Sensitivity must be > 0 unless Clip > 0 bounds it, got %v", cfg.Sensitivity)
	case cfg.Simulations < 0:
		return invalidf("ABCDPConfig.Simulations must be >= 0, got %d", cfg.Simulations)
	}
	return nil
}

// ABCDPSelector is a validated ABCDP configuration: the noise scale b of
// Thm. 4.1 and the sparse vector mechanism (threshold noise of scale b,
// distance noise of scale 2b, "below" decisions, halting after c
// acceptances) that answers "ρ_t ≤ ε_abc?" for a stream of distances. The
// sparse vector compares the distances with the threshold on a lattice with
// discrete Laplace noise drawn exactly, from the operating system's
// generator unless Reproducible is set (mechanism.SparseVector), with the
// budget of Thm. 4.1. It is the data owner's tool for selecting from
// distances computed elsewhere (Select); ABCDP runs the whole algorithm
// from a privinfer.Problem. It is immutable and safe for concurrent use
// with separate generators. The zero value is not usable (its methods
// return errors): use NewABCDPSelector.
type ABCDPSelector struct {
	cfg    ABCDPConfig
	sens   float64
	b      float64
	lo, hi float64 // the clamp applied to every distance
	svt    *mechanism.SparseVector
}

// NewABCDPSelector validates cfg and calibrates the noise: b = 2cΔρ/ε_total
// with RESAMPLE, (c+1)Δρ/ε_total without (Thm. 4.1, computed by
// NoiseScale). Every error wraps ErrInvalid and names the
// field at fault; a configuration whose noise scale or budget would not be
// a normal finite number (extreme ε_total, Δρ, Clip or C) is refused.
func NewABCDPSelector(cfg ABCDPConfig) (*ABCDPSelector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sens := cfg.Sensitivity
	hi := math.Inf(1)
	if cfg.Clip > 0 {
		hi = cfg.Clip
		if sens == 0 || sens > cfg.Clip {
			sens = cfg.Clip
		}
	}
	if !(sens > 0) {
		return nil, invalidf("Sensitivity must be > 0 unless Clip > 0 bounds it, got %v", cfg.Sensitivity)
	}
	b, err := NoiseScale(cfg.EpsTotal, sens, cfg.C, cfg.Resample)
	if err != nil {
		return nil, invalidf("EpsTotal %v, sensitivity %v and C %d: %w", cfg.EpsTotal, sens, cfg.C, err)
	}
	svt, err := mechanism.NewSparseVector(mechanism.SVTConfig{
		Threshold: cfg.EpsABC, Sensitivity: sens,
		ThresholdScale: b, QueryScale: 2 * b,
		MaxAbove: cfg.C, Resample: cfg.Resample, Below: true,
	})
	if err != nil {
		return nil, invalidf("EpsABC %v: %w", cfg.EpsABC, err)
	}
	return &ABCDPSelector{cfg: cfg, sens: sens, b: b, lo: 0, hi: hi, svt: svt}, nil
}

// minNormal is the smallest positive normal float64.
const minNormal = 0x1p-1022

// usable reports whether a was built by NewABCDPSelector.
func (a *ABCDPSelector) usable() error {
	if a == nil || a.svt == nil {
		return invalidf("ABCDPSelector is nil or was not built by NewABCDPSelector")
	}
	return nil
}

// Scale returns the threshold noise scale b (the distance noise is 2b).
func (a *ABCDPSelector) Scale() float64 {
	if a == nil {
		return 0
	}
	return a.b
}

// Sensitivity returns the Δρ used for calibration.
func (a *ABCDPSelector) Sensitivity() float64 {
	if a == nil {
		return 0
	}
	return a.sens
}

// Budget returns the privacy loss of one run; it equals ε_total (up to
// rounding) and is computed independently by the mechanism package from the
// sparse vector's noise scales.
func (a *ABCDPSelector) Budget() mechanism.Budget {
	if a == nil || a.svt == nil {
		return mechanism.Budget{}
	}
	return a.svt.Budget()
}

// Config returns the configuration.
func (a *ABCDPSelector) Config() ABCDPConfig {
	if a == nil {
		return ABCDPConfig{}
	}
	return a.cfg
}

// ABCDPResult is the released outcome of one ABCDP run. Every field is
// either the sparse vector's noisy answer sequence or derived from it
// (Indicators, Accepted, Draws), or public (Public: the prior draws, which
// anyone can regenerate from the public seed). It holds no distance and no
// other quantity computed from the confidential observation without noise.
type ABCDPResult struct {
	// Indicators holds τ̃_t ∈ {0, 1} for the distances examined, in order;
	// it ends at the c-th acceptance (or at the end of the input).
	Indicators []bool
	// Accepted lists the indices t with τ̃_t = 1.
	Accepted []int
	// Draws is the released posterior sample: the public draws θ_t, t in
	// Accepted, in that order (unweighted; no rows when nothing was
	// accepted). ABCDP sets it; Select, whose caller already holds the
	// public draws, leaves it nil.
	Draws *privinfer.Draws
	// Public holds all T public prior draws θ_t in simulation order. ABCDP
	// sets it; Select leaves it nil.
	Public *privinfer.Draws
}

// Select runs Algorithm 1 on the distances ρ_t = ρ(Y*, Y_t) of the public
// sequence of pseudo-data sets (computed by the data owner from the
// confidential Y*). The noise comes from the operating system's generator,
// whatever r is (r may be nil), unless the configuration is Reproducible,
// in which case it comes from r, which must then be non-nil. Each distance
// is first clamped to [0, Clip] (to [0, ∞) without a clip; see
// ABCDPConfig.Clip). Only the result may be released. Once the inputs are
// checked, the budget is charged to ABCDPConfig.Accountant (if not nil);
// a refused charge is returned and nothing is selected.
//
// A NaN distance, or an infinite one without a clip, is an error (clip
// unbounded distances with Clip), as is an empty input. The inputs are
// checked before any noise is drawn. Errors are addressed to the data
// owner, who holds the distances: they are not part of the release.
func (a *ABCDPSelector) Select(r *rand.Rand, distances []float64) (*ABCDPResult, error) {
	if err := a.usable(); err != nil {
		return nil, err
	}
	if r == nil && a.cfg.Reproducible {
		return nil, invalidf("a Reproducible ABCDP needs a non-nil *rand.Rand for the privacy noise")
	}
	if len(distances) == 0 {
		return nil, invalidf("ABCDP needs at least one distance")
	}
	for i, d := range distances {
		if math.IsNaN(d) {
			return nil, invalidf("distance %d is NaN", i)
		}
		if math.IsInf(d, 0) && a.cfg.Clip == 0 {
			return nil, invalidf("distance %d is infinite and ABCDPConfig.Clip is 0", i)
		}
	}
	if err := a.charge(); err != nil {
		return nil, err
	}
	return a.selectClamped(r, distances, a.lo, a.hi)
}

// charge charges the release's budget to the configuration's Accountant,
// if any.
func (a *ABCDPSelector) charge() error {
	if a.cfg.Accountant == nil {
		return nil
	}
	if err := a.cfg.Accountant.Spend(a.Budget()); err != nil {
		return fmt.Errorf("abc: ABCDP release of %v refused by ABCDPConfig.Accountant: %w", a.Budget(), err)
	}
	return nil
}

// selectClamped is Select's loop with the clamp interval [lo, hi] as a
// parameter (the privacy audit also runs it with a one-sided clamp).
func (a *ABCDPSelector) selectClamped(r *rand.Rand, distances []float64, lo, hi float64) (*ABCDPResult, error) {
	var sess mechanism.SVTSession
	if a.cfg.Reproducible {
		a.svt.StartReproducibleInto(r, &sess)
	} else {
		a.svt.StartInto(&sess)
	}
	res := &ABCDPResult{
		Indicators: make([]bool, 0, len(distances)),
		Accepted:   make([]int, 0, min(a.cfg.C, len(distances))),
	}
	for t, d := range distances {
		d = min(max(d, lo), hi)
		ok, err := sess.Test(d)
		if err != nil {
			return nil, invalidf("distance %d: %w", t, err)
		}
		res.Indicators = append(res.Indicators, ok)
		if ok {
			res.Accepted = append(res.Accepted, t)
		}
		if sess.Halted() {
			break
		}
	}
	return res, nil
}

// ABCDP is the end-to-end ABCDP of the paper (Algorithm 1), run by the
// data owner: it draws T = cfg.Simulations public pairs (θ_t, Y_t) from
// p.Prior and p.Simulator (as SimulatePrior with cfg.Seed), computes their
// distances (cfg.Distance) to the confidential observation p.Observed, and
// selects with the sparse vector of NewABCDPSelector(cfg). It returns only
// what may be released: the selection, the accepted public draws
// (ABCDPResult.Draws) and all public draws (ABCDPResult.Public). The
// distances never leave ABCDP. The release's budget ε_total is charged to
// cfg.Accountant (if not nil) after the public draws are simulated and
// before the selection; a refused charge is returned (wrapping the
// accountant's error) and nothing is released. With a nil Accountant the
// caller accounts for the release.
//
// The sparse vector's noise comes from the operating system's generator,
// so the selection differs from run to run; with cfg.Reproducible it comes
// from a stream derived from cfg.Seed instead, and the whole result
// depends on cfg.Seed only (for simulation studies and tests, never for a
// release of confidential data; see ABCDPConfig.Reproducible).
//
// In the shared privinfer.Problem, ABCDP is itself the mechanism:
// p.Observed is the confidential summary s(Y*) (or data set Y*), not a
// release, and p.Mechanism must be nil. A non-nil Mechanism is refused
// with an error wrapping ErrInvalid, because adding a mechanism's noise to
// the pseudo-data would compare them with a differently distributed
// observation and would not make the release any more private: the
// privacy of the output comes from the sparse vector alone.
//
// A distance that is the unbiased MMD (which can be negative and has no
// bounded sensitivity) needs Clip > 0. A nil ctx means
// context.Background(); cancelling it stops the simulation of the public
// draws with an error.
func ABCDP(ctx context.Context, p privinfer.Problem, cfg ABCDPConfig) (*ABCDPResult, error) {
	a, err := NewABCDPSelector(cfg)
	if err != nil {
		return nil, err
	}
	if p.Mechanism != nil {
		return nil, invalidf("ABCDP: Problem.Mechanism must be nil: ABCDP is itself the mechanism and Problem.Observed is the confidential observation")
	}
	if cfg.Simulations < 1 {
		return nil, invalidf("ABCDPConfig.Simulations (the number T of public draws) must be >= 1, got %d", cfg.Simulations)
	}
	tg, err := newTarget(&p, cfg.Distance, "ABCDPConfig.Distance", cfg.Executor)
	if err != nil {
		return nil, err
	}
	T := cfg.Simulations
	if err := checkCount("ABCDPConfig.Simulations (number of public draws)", T, tg.dim, tg.statDim); err != nil {
		return nil, err
	}
	if m, ok := cfg.Distance.(*MMD); ok && m.Unbiased && cfg.Clip == 0 {
		return nil, invalidf("the unbiased MMD has no bounded sensitivity: set ABCDPConfig.Clip > 0")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	theta, rho, err := tg.simulatePrior(ctx, 0, T, cfg.Seed)
	if err != nil {
		return nil, err
	}
	cfg.Progress.Report(privinfer.Progress{Stage: "simulate", Step: T, Total: T, Elapsed: time.Since(start)})
	var r *rand.Rand
	if cfg.Reproducible {
		// Public draw t simulates with the stream (Seed, t), t < T; the
		// noise uses the last stream, which no public draw reaches.
		r = parallel.Stream(cfg.Seed, math.MaxUint64)
	}
	sel, err := a.Select(r, rho)
	if err != nil {
		return nil, err
	}
	d := tg.dim
	acc := make([]float64, 0, len(sel.Accepted)*d)
	for _, t := range sel.Accepted {
		acc = append(acc, theta[t*d:(t+1)*d]...)
	}
	sel.Draws, sel.Public = tg.draws(acc, nil), tg.draws(theta, nil)
	cfg.Progress.Report(privinfer.Progress{Stage: "select", Step: len(sel.Indicators), Total: T, Elapsed: time.Since(start),
		Message: fmt.Sprintf("%d accepted", len(sel.Accepted))})
	return sel, nil
}

// NoiseScale returns the Laplace scale b of ABCDP Thm. 4.1 for a total budget
// ε_total, c acceptances and distance sensitivity Δρ: b = 2cΔρ/ε_total with
// RESAMPLE and (c+1)Δρ/ε_total without. ABCDP's sparse vector uses b for
// the threshold noise and 2b for the distance noise (NewABCDPSelector
// calibrates with it; TotalEpsilon is its inverse). It returns an error
// (wrapping ErrInvalid) when an argument, b or 2b is not a positive normal
// finite number at most mechanism.SVTMaxMagnitude, or c < 1.
func NoiseScale(epsTotal, sens float64, c int, resample bool) (float64, error) {
	k, err := thm41Factor("epsilon", epsTotal, sens, c, resample)
	if err != nil {
		return 0, err
	}
	b := k * sens / epsTotal
	if err := checkScale("noise scale b", b); err != nil {
		return 0, fmt.Errorf("abc: ε_total %v, Δρ %v and c %d give no usable noise scale: %w", epsTotal, sens, c, err)
	}
	if err := checkScale("distance noise scale 2b", 2*b); err != nil {
		return 0, fmt.Errorf("abc: ε_total %v, Δρ %v and c %d give no usable noise scale: %w", epsTotal, sens, c, err)
	}
	return b, nil
}

// thm41Factor checks the arguments NoiseScale and TotalEpsilon share (x,
// named name, and Δρ positive normal finite numbers at most
// mechanism.SVTMaxMagnitude, c >= 1) and returns the factor k of ABCDP
// Thm. 4.1, b = kΔρ/ε_total: 2c with RESAMPLE and c+1 without.
func thm41Factor(name string, x, sens float64, c int, resample bool) (float64, error) {
	if err := checkScale(name, x); err != nil {
		return 0, err
	}
	if err := checkScale("distance sensitivity", sens); err != nil {
		return 0, err
	}
	if c < 1 {
		return 0, invalidf("c must be >= 1, got %d", c)
	}
	if resample {
		return 2 * float64(c), nil
	}
	return float64(c + 1), nil
}

// TotalEpsilon is the inverse of NoiseScale: the ε_total that noise scale b
// buys, (c+1)Δρ/b without RESAMPLE and 2cΔρ/b with it. b and Δρ must be
// positive normal finite numbers at most mechanism.SVTMaxMagnitude, and the
// result must be a positive normal finite number.
func TotalEpsilon(b, sens float64, c int, resample bool) (float64, error) {
	k, err := thm41Factor("noise scale b", b, sens, c, resample)
	if err != nil {
		return 0, err
	}
	eps := k * sens / b
	if !(eps >= minNormal) || math.IsInf(eps, 0) {
		return 0, invalidf("ε_total for b = %v, Δρ = %v, c = %d is %v, not a positive normal finite number", b, sens, c, eps)
	}
	return eps, nil
}

// checkScale validates a positive normal finite number at most
// mechanism.SVTMaxMagnitude.
func checkScale(name string, v float64) error {
	if !(v >= minNormal) || v > mechanism.SVTMaxMagnitude {
		return invalidf("%s must be a positive normal finite number at most %g, got %v", name, mechanism.SVTMaxMagnitude, v)
	}
	return nil
}

// FlipProbability returns G_b(a) = (4e^{−a/(2b)} − e^{−a/b})/6, the
// probability that ABCDP's decision differs from rejection ABC's when the
// distance is a = |ρ_t − ε_abc| away from the threshold (ABCDP Lemma 4.2,
// Prop. 4.2): the tail P(Z > a) of Z = m − ν, m ~ Lap(b), ν ~ Lap(2b).
// It is 1/2 at a = 0 and decreases to 0; a is taken in absolute value. It
// returns NaN for b ≤ 0 or NaN input.
//
// In Algorithm 1 it is the exact marginal flip probability of every
// decision when RESAMPLE is false, and of the decisions taken on a freshly
// drawn threshold (the first, and each one right after an acceptance) when
// RESAMPLE is true; later decisions under RESAMPLE see a threshold selected
// by the preceding rejections.
func FlipProbability(a, b float64) float64 {
	if !(b > 0) || math.IsNaN(a) {
		return math.NaN()
	}
	a = math.Abs(a)
	e := math.Exp(-a / (2 * b))
	return (4*e - e*e) / 6
}

// FlipPDF returns the density f_Z(z) = (2e^{−|z|/(2b)} − e^{−|z|/b})/(6b)
// of Z = m − ν (ABCDP Lemma 4.2).
func FlipPDF(z, b float64) float64 {
	if !(b > 0) || math.IsNaN(z) {
		return math.NaN()
	}
	e := math.Exp(-math.Abs(z) / (2 * b))
	return (2*e - e*e) / (6 * b)
}

// ExpectedErrorBound is ABCDP Thm. 4.3(1): for T public draws with distances
// rho, ‖(1/c)Σ f(θ_t)τ̃_t − (1/c')Σ f(θ_t)τ_t‖2 has expectation at most
// (2K_T/c') Σ_t G_b(|ρ_t − ε_abc|), where K_T = max_t ‖f(θ_t)‖2 (kT) and c'
// the number of draws rejection ABC accepts (ρ_t ≤ ε_abc). It needs only
// public quantities and the distances, so a data owner can evaluate it
// before spending budget. It returns NaN if c' = 0, b ≤ 0, kT is negative
// or NaN, or a distance is NaN.
//
// The bound is a deterministic function of the confidential distances:
// it is for the data owner's planning and is not private. Publishing it
// would release information about Y* that no budget accounts for.
//
// The theorem compares ABCDP with rejection ABC over the same T draws
// without the early stop at c acceptances, i.e. the indicator sequence of
// Select run with C ≥ T. Its proof bounds the error by (2K_T/c') times the
// number of flips and uses P(τ̃_t ≠ τ_t) = G_b(|ρ_t − ε_abc|) for every t.
// With RESAMPLE false that marginal flip probability is exact (one threshold
// draw shared by all decisions; dependence does not matter for an
// expectation), so the bound holds. With RESAMPLE true the threshold in force
// at time t has survived the rejections since the last acceptance and the
// later decisions' flip rates can exceed G_b (TestFlipRate measures this), so
// for that option the bound is the paper's approximation, not a guarantee.
func ExpectedErrorBound(rho []float64, epsABC, b, kT float64) float64 {
	cp := 0
	sum := 0.0
	for _, r := range rho {
		if r <= epsABC {
			cp++
		}
		sum += FlipProbability(r-epsABC, b)
	}
	if cp == 0 || !(b > 0) || !(kT >= 0) {
		return math.NaN()
	}
	return 2 * kT / float64(cp) * sum
}

// TailBound is ABCDP Thm. 4.3(3): a lower bound on the probability that
// the posterior-mean error is at most a,
//
//	P(error ≤ a) ≥ 1 − (4K_T/(3ac')) Σ_t exp(−|ρ_t − ε_abc|/(2b)),
//
// clamped to [0, 1]. Arguments as in ExpectedErrorBound; NaN if c' = 0,
// a ≤ 0, b ≤ 0, kT is negative or NaN, or a distance is NaN. Like ExpectedErrorBound it depends on the confidential
// distances without noise and is for the data owner only.
func TailBound(rho []float64, epsABC, b, kT, a float64) float64 {
	cp := 0
	sum := 0.0
	for _, r := range rho {
		if r <= epsABC {
			cp++
		}
		sum += math.Exp(-math.Abs(r-epsABC) / (2 * b))
	}
	if cp == 0 || !(b > 0) || !(a > 0) || !(kT >= 0) || math.IsNaN(sum) {
		return math.NaN()
	}
	return math.Max(0, 1-4*kT/(3*a*float64(cp))*sum)
}
