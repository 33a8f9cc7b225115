package mechanism

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
)

// ErrSVTHalted is returned by SVTSession.Test after the session has
// answered ⊤ its maximum number of times.
var ErrSVTHalted = errors.New("mechanism: sparse vector session has halted")

// SVTMaxMagnitude bounds every magnitude a sparse vector configuration may
// hold: |Threshold|, the sensitivity, both noise scales, |Lower| and
// |Upper|, so that the session budget ε computed from them is finite.
const SVTMaxMagnitude = 1e300

// minNormal is the smallest positive normal float64.
const minNormal = 0x1p-1022

// svtWindow is the half-width, in grid units, of the window around the
// threshold's grid index to which query indices are clamped: with
// |round(Threshold/γ)| ≤ 2^51, every query index is below 2^52 in
// magnitude and every comparison is exact in int64.
const svtWindow = 1 << 51

// SVTConfig describes a sparse vector technique run (Dwork & Roth 2014,
// Alg. 1 AboveThreshold and Alg. 2 Sparse; ABCDP Alg. 1).
//
// A session draws a noisy threshold T̂ = Threshold + ρ, ρ of scale
// ThresholdScale, and answers each query value f_i, of sensitivity
// Sensitivity, with ⊤ if f_i + ν_i ≥ T̂ (or ≤ T̂ when Below is set, as in
// ABC, where a small distance is the event of interest), ν_i of scale
// QueryScale, and ⊥ otherwise. It halts after MaxAbove ⊤ answers. With
// Resample the threshold noise is redrawn after each ⊤ (ABCDP's RESAMPLE;
// Dwork & Roth's Sparse).
//
// The privacy loss of a whole session (ε-DP, δ = 0), for queries of
// sensitivity Δ, c = MaxAbove, b1 = ThresholdScale, b2 = QueryScale, is
//
//	without resampling: ε = Δ/b1 + 2cΔ/b2   (Lyu, Su & Li 2017, Alg. 7)
//	with resampling:    ε = c·(Δ/b1 + 2Δ/b2) (c-fold composition of
//	                                           AboveThreshold)
//
// With ABCDP's choice b2 = 2b1 = 2b these are (c+1)Δ/b and 2cΔ/b (ABCDP
// Thm. 4.1). SparseVector runs this technique on a lattice (see its type
// comment), where the same ε holds exactly.
//
// The sensitivity is a property of the query function that the session
// cannot check, unless the queries are bounded: with Lower < Upper every
// query is clamped to [Lower, Upper] before noise is added, so any two
// queries, however computed, differ by at most Upper − Lower after clamping,
// and the sensitivity holds by construction. A zero Sensitivity then means
// Upper − Lower, and a larger one is reduced to it (clamping is
// 1-Lipschitz, so a smaller declared Δ still bounds the clamped queries).
// Lower = Upper = 0 leaves the queries unbounded (only the lattice window
// of the type comment applies, which changes no sensitivity).
//
// Every field is validated by NewSparseVector: scales and the sensitivity
// must be positive normal numbers at most SVTMaxMagnitude, and the session
// budget ε computed from them must be a positive normal finite number.
type SVTConfig struct {
	Threshold      float64
	Sensitivity    float64
	ThresholdScale float64
	QueryScale     float64
	MaxAbove       int
	Resample       bool
	Below          bool
	// Lower and Upper bound the queries (see above); both zero means
	// unbounded.
	Lower, Upper float64
}

// bounded reports whether the configuration clamps queries to a range.
func (c *SVTConfig) bounded() bool { return c.Lower != 0 || c.Upper != 0 }

// SparseVector is a validated, reusable sparse vector configuration. It
// implements Mechanism and Simulator: Release answers a batch of queries
// in one session.
//
// The queries are confidential (ABCDP's distances to the data owner's
// observation), so every session runs on a lattice and draws its noise
// exactly, from the operating system's generator by default. With the
// grid γ = 2^g (about 2^-20 times the smallest of Δ, b1 and b2; coarser
// when a noise scale or the threshold needs it),
//
//   - the threshold is the grid index k_T = round(Threshold/γ), and a query
//     q the index k_q = round(clamp(q)/γ), clamped to within 2^51 of k_T
//     (a fixed, 1-Lipschitz map: no sensitivity changes);
//   - the noises ρ and ν_i are discrete Laplace integers, P(Z = z) ∝
//     exp(−|z|/t), sampled exactly with integer arithmetic
//     (SampleDiscreteLaplace; Canonne, Kamath & Steinke 2020, Alg. 1–2),
//     with t1 = (b1/γ)(1 + γ/Δ) and t2 = (b2/γ)(1 + γ/Δ) rounded up to
//     rationals;
//   - the answer is ⊤ iff k_q + ν_i ≥ k_T + ρ (≤ with Below), an exact
//     int64 comparison.
//
// Privacy. Rounding moves a query by at most γ/2, so neighbouring queries
// have indices at most Δ_Z = ⌊Δ/γ⌋ + 1 ≤ (Δ/γ)(1 + γ/Δ) apart. The proofs of
// the session budget (ABCDP Thm. 4.1, Supplementary A: RESAMPLE = True by
// the change of variables â = a + g(Y*) − g(Y*'), v̂ = v + … with
// |â − a| ≤ Δ, |v̂ − v| ≤ 2Δ; RESAMPLE = False after Lyu, Su & Li 2017,
// Thm. 2) only shift the noises by g(Y*) − g(Y*') and query differences.
// On the lattice these shifts are integers of magnitude at most Δ_Z and
// 2Δ_Z, the maps are bijections of the integers, and the discrete Laplace
// pmf changes by at most exp(Δ_Z/t) under a shift of Δ_Z; so the proofs
// hold verbatim with Δ/b replaced by Δ_Z/t ≤ Δ/b. Budget() reports the
// ε of SVTConfig, which therefore holds exactly (except for the redraw of
// noise beyond 2^52 grid units in the sampler, an event of probability
// below e^-2048, as for Laplace). A configuration whose grid would make
// γ/Δ exceed 2^-10 (a noise scale more than about 2^29 times Δ, or a
// threshold more than 2^40 times Δ) is refused.
//
// The outputs are the ⊤/⊥ answers only; no noisy value leaves a session.
// Reproducible(v) and StartReproducible are the explicit opt-out for
// reproducible simulations and tests: they draw the same lattice law from
// the caller's generator, so anyone who learns the seed can recompute the
// noise; never use them on confidential queries. SimulateRelease draws
// the same law from its r.
//
// The zero value is not usable (its methods return errors): use
// NewSparseVector, NewAboveThreshold or NewSparse.
type SparseVector struct {
	cfg    SVTConfig
	budget Budget
	lo, hi float64 // query clamp (±Inf when unbounded)
	grid   int     // grid exponent g, γ = 2^g
	kT     int64   // round(Threshold/γ)
	t1, t2 ratScale
}

// checkSVTPositive validates a sensitivity, noise scale or ε: a positive
// normal number (no NaN, ±Inf, zero, negative or subnormal value) at most
// SVTMaxMagnitude.
func checkSVTPositive(name string, v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return invalidf("%s must be finite, got %v", name, v)
	case v <= 0:
		return invalidf("%s must be > 0, got %v", name, v)
	case v < minNormal:
		return invalidf("%s must be a normal float64 (≥ 2.2e-308), got the subnormal %v", name, v)
	case v > SVTMaxMagnitude:
		return invalidf("%s must be at most %g, got %v", name, SVTMaxMagnitude, v)
	}
	return nil
}

// checkSVTFinite validates a threshold or query bound: finite and at most
// SVTMaxMagnitude in magnitude.
func checkSVTFinite(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return invalidf("%s must be finite, got %v", name, v)
	}
	if math.Abs(v) > SVTMaxMagnitude {
		return invalidf("%s must be at most %g in magnitude, got %v", name, SVTMaxMagnitude, v)
	}
	return nil
}

// NewSparseVector validates cfg and returns the reusable mechanism. The
// errors wrap ErrInvalid and name the field at fault.
func NewSparseVector(cfg SVTConfig) (*SparseVector, error) {
	if err := checkSVTFinite("threshold", cfg.Threshold); err != nil {
		return nil, err
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if cfg.bounded() {
		if err := checkSVTFinite("lower query bound", cfg.Lower); err != nil {
			return nil, err
		}
		if err := checkSVTFinite("upper query bound", cfg.Upper); err != nil {
			return nil, err
		}
		if !(cfg.Upper > cfg.Lower) {
			return nil, invalidf("upper query bound must exceed the lower one, got [%v, %v]", cfg.Lower, cfg.Upper)
		}
		width := cfg.Upper - cfg.Lower
		if err := checkSVTPositive("query range upper − lower", width); err != nil {
			return nil, err
		}
		if cfg.Sensitivity == 0 || cfg.Sensitivity > width {
			if cfg.Sensitivity != 0 {
				if err := checkSVTPositive("sensitivity", cfg.Sensitivity); err != nil {
					return nil, err
				}
			}
			cfg.Sensitivity = width
		}
		lo, hi = cfg.Lower, cfg.Upper
	}
	if err := checkSVTPositive("sensitivity", cfg.Sensitivity); err != nil {
		return nil, err
	}
	if err := checkSVTPositive("threshold noise scale", cfg.ThresholdScale); err != nil {
		return nil, err
	}
	if err := checkSVTPositive("query noise scale", cfg.QueryScale); err != nil {
		return nil, err
	}
	if cfg.MaxAbove < 1 {
		return nil, invalidf("maximum number of above-threshold answers must be >= 1, got %d", cfg.MaxAbove)
	}
	c := float64(cfg.MaxAbove)
	d := cfg.Sensitivity
	eps := d/cfg.ThresholdScale + 2*c*d/cfg.QueryScale
	if cfg.Resample {
		eps = c * (d/cfg.ThresholdScale + 2*d/cfg.QueryScale)
	}
	if !(eps >= minNormal) || math.IsInf(eps, 0) {
		return nil, invalidf("session budget ε computed from sensitivity %v, threshold noise scale %v, query noise scale %v and maximum above-threshold answers %d is %v, not a positive normal finite number",
			d, cfg.ThresholdScale, cfg.QueryScale, cfg.MaxAbove, eps)
	}
	v := &SparseVector{cfg: cfg, budget: Budget{Epsilon: eps}, lo: lo, hi: hi}
	if err := v.setLattice(); err != nil {
		return nil, err
	}
	return v, nil
}

// setLattice chooses the grid γ = 2^g of the session's comparisons and the
// discrete noise scales t1, t2 (see the SparseVector type comment):
// g = ⌊log2 min(Δ, b1, b2)⌋ − 20, raised so that both scales stay below
// 2^40 grid units and |Threshold/γ| below 2^51; t_i = b_i/γ + b_i/Δ, the
// exact rational (b_i/γ)(1 + γ/Δ) rounded up.
func (v *SparseVector) setLattice() error {
	c := &v.cfg
	d, b1, b2 := c.Sensitivity, c.ThresholdScale, c.QueryScale
	g := floorLog2(min(d, b1, b2)) - 20
	g = max(g, floorLog2(max(b1, b2))-39)
	if c.Threshold != 0 {
		g = max(g, floorLog2(math.Abs(c.Threshold))-50)
	}
	if gamma := math.Ldexp(1, g); !(gamma/d <= 0x1p-10) {
		return invalidf("sparse vector: the comparison grid 2^%d needed by noise scales %v, %v and threshold %v is too coarse for sensitivity %v (grid/sensitivity %v > 2^-10); use a smaller noise scale or threshold, or rescale the queries",
			g, b1, b2, c.Threshold, d, gamma/d)
	}
	pow2 := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(max(g, -g))))
	if g < 0 {
		pow2.Inv(pow2)
	}
	rd := new(big.Rat).SetFloat64(d)
	scale := func(name string, b float64) (ratScale, error) {
		rb := new(big.Rat).SetFloat64(b)
		x := new(big.Rat).Quo(rb, pow2)
		x.Add(x, new(big.Rat).Quo(rb, rd))
		t, err := ratAtLeast(x)
		if err != nil {
			return ratScale{}, invalidf("sparse vector: %s %v on the grid 2^%d (needed by threshold %v): %w", name, b, g, c.Threshold, err)
		}
		return t, nil
	}
	var err error
	if v.t1, err = scale("threshold noise scale", b1); err != nil {
		return err
	}
	if v.t2, err = scale("query noise scale", b2); err != nil {
		return err
	}
	v.grid = g
	v.kT = int64(math.Round(math.Ldexp(c.Threshold, -g)))
	return nil
}

// index returns the grid index of query q: q clamped to the query bounds,
// divided by γ (exact), rounded, and clamped to within svtWindow of the
// threshold's index. Every step is monotone and 1-Lipschitz in grid units
// up to the rounding's ±½, so indices of queries Δ apart differ by at most
// ⌊Δ/γ⌋ + 1. ±Inf (bounded configurations only) maps to the window's ends.
func (v *SparseVector) index(q float64) int64 {
	q = min(max(q, v.lo), v.hi)
	k := math.Round(math.Ldexp(q, -v.grid))
	k = min(max(k, float64(v.kT-svtWindow)), float64(v.kT+svtWindow))
	return int64(k)
}

// Grid returns the lattice spacing γ on which the session compares
// queries with the threshold (0 for an unbuilt SparseVector).
func (v *SparseVector) Grid() float64 {
	if v.usable() != nil {
		return 0
	}
	return math.Ldexp(1, v.grid)
}

// NoiseScales returns the scales γ·t1 and γ·t2 of the discrete Laplace
// noise actually added to the threshold and to each query; they exceed
// ThresholdScale and QueryScale by the relative amount γ/Δ + rounding
// (at most about 2^-10).
func (v *SparseVector) NoiseScales() (threshold, query float64) {
	if v.usable() != nil {
		return 0, 0
	}
	return math.Ldexp(v.t1.value(), v.grid), math.Ldexp(v.t2.value(), v.grid)
}

// AboveThresholdConfig configures NewAboveThreshold. Every field is
// required except Threshold (zero is a valid threshold).
type AboveThresholdConfig struct {
	// Threshold T the noisy queries are compared with.
	Threshold float64
	// Sensitivity Δ of every query (> 0).
	Sensitivity float64
	// Epsilon is the privacy budget ε of the whole run (> 0).
	Epsilon float64
}

// NewAboveThreshold returns AboveThreshold (Dwork & Roth Alg. 1): one ⊤
// answer, threshold noise of scale 2Δ/ε and query noise of scale 4Δ/ε
// (discrete Laplace on the lattice, see SparseVector), ε-DP.
func NewAboveThreshold(cfg AboveThresholdConfig) (*SparseVector, error) {
	// Sparse with c = 1; no threshold noise is redrawn, as the run halts
	// at its only ⊤.
	return newSparse(cfg.Threshold, cfg.Sensitivity, cfg.Epsilon, 1, false)
}

// SparseConfig configures NewSparse. Every field is required except
// Threshold (zero is a valid threshold).
type SparseConfig struct {
	// Threshold T the noisy queries are compared with.
	Threshold float64
	// Sensitivity Δ of every query (> 0).
	Sensitivity float64
	// Epsilon is the privacy budget ε of the whole run (> 0).
	Epsilon float64
	// C is the number c of ⊤ answers before the run halts (>= 1).
	C int
}

// NewSparse returns the c-fold sparse vector algorithm Sparse of Dwork &
// Roth (Alg. 2, δ = 0): σ = 2cΔ/ε, threshold noise of scale σ redrawn
// after every ⊤, query noise of scale 2σ (discrete Laplace on the
// lattice, see SparseVector); ε-DP.
func NewSparse(cfg SparseConfig) (*SparseVector, error) {
	return newSparse(cfg.Threshold, cfg.Sensitivity, cfg.Epsilon, cfg.C, true)
}

// newSparse returns Sparse's session for budget epsilon, query sensitivity
// and c ⊤ answers: σ = 2cΔ/ε, threshold noise of scale σ (redrawn after
// every ⊤ if resample), query noise of scale 2σ.
func newSparse(threshold, sensitivity, epsilon float64, c int, resample bool) (*SparseVector, error) {
	if err := checkSVTPositive("epsilon", epsilon); err != nil {
		return nil, err
	}
	if err := checkSVTPositive("sensitivity", sensitivity); err != nil {
		return nil, err
	}
	if c < 1 {
		return nil, invalidf("c must be >= 1, got %d", c)
	}
	sigma := 2 * float64(c) * sensitivity / epsilon
	return NewSparseVector(SVTConfig{
		Threshold: threshold, Sensitivity: sensitivity,
		ThresholdScale: sigma, QueryScale: 2 * sigma,
		MaxAbove: c, Resample: resample,
	})
}

// Config returns the configuration (with the effective sensitivity when the
// queries are bounded).
func (v *SparseVector) Config() SVTConfig {
	if v == nil {
		return SVTConfig{}
	}
	return v.cfg
}

// Budget reports the ε of a whole session.
func (v *SparseVector) Budget() Budget {
	if v == nil {
		return Budget{}
	}
	return v.budget
}

// usable reports whether v was built by a constructor.
func (v *SparseVector) usable() error {
	if v == nil || !(v.budget.Epsilon > 0) {
		return invalidf("sparse vector is nil or was not built by NewSparseVector")
	}
	return nil
}

// Start begins a session whose noise comes from the operating system's
// generator: it draws the noisy threshold. On a SparseVector not built by
// a constructor the session answers every Test with an error wrapping
// ErrInvalid.
func (v *SparseVector) Start() *SVTSession {
	s := &SVTSession{}
	v.StartInto(s)
	return s
}

// StartInto is Start in caller-owned storage (no allocation). A nil s is
// ignored.
func (v *SparseVector) StartInto(s *SVTSession) {
	v.start(nil, s)
}

// StartReproducible begins a session whose noise comes from r: the
// explicit opt-out of the operating system's generator for reproducible
// simulations and tests. The law is the same as Start's, but anyone who
// learns r's seed can recompute the noise: never use it on confidential
// queries. A nil r gives a session that answers every Test with an error
// wrapping ErrInvalid.
func (v *SparseVector) StartReproducible(r *rand.Rand) *SVTSession {
	s := &SVTSession{}
	v.StartReproducibleInto(r, s)
	return s
}

// StartReproducibleInto is StartReproducible in caller-owned storage (no
// allocation). A nil s is ignored.
func (v *SparseVector) StartReproducibleInto(r *rand.Rand, s *SVTSession) {
	if s == nil {
		return
	}
	if r == nil {
		*s = SVTSession{err: invalidf("a reproducible sparse vector session needs a non-nil *rand.Rand")}
		return
	}
	v.start(r, s)
}

// start begins a session drawing from r (nil: the operating system).
func (v *SparseVector) start(r *rand.Rand, s *SVTSession) {
	if s == nil {
		return
	}
	if err := v.usable(); err != nil {
		*s = SVTSession{err: err}
		return
	}
	*s = SVTSession{v: v, r: r}
	s.noisyT = v.kT + s.noise(v.t1)
}

// Release answers the queries s in one fresh session drawing from the
// operating system's generator, whatever r is (r may be nil): dst[i] is 1
// (⊤) or 0 (⊥) for the queries answered and NaN for those after the
// session halted. The budget of the whole call is Budget(). A NaN query,
// or an infinite one when the configuration has no query bounds, is an
// error (wrapping ErrInvalid); with bounds, ±Inf is clamped like any
// other query. Every query is checked before any noise is drawn.
func (v *SparseVector) Release(r *rand.Rand, s, dst []float64) error {
	if err := v.checkRelease(s, dst); err != nil {
		return err
	}
	return withOSRand(func(os *rand.Rand) error { return v.releaseWith(os, s, dst) })
}

// SimulateRelease draws from the law of Release using r (seeded generators
// welcome): the same exact lattice sampler, for simulations that never see
// confidential queries.
func (v *SparseVector) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	return v.releaseWith(r, s, dst)
}

// checkRelease validates a batch of queries and its output buffer.
func (v *SparseVector) checkRelease(s, dst []float64) error {
	if err := v.usable(); err != nil {
		return err
	}
	if len(dst) != len(s) {
		return fmt.Errorf("%w: dst has length %d, statistic %d", ErrInvalid, len(dst), len(s))
	}
	if len(s) == 0 {
		return fmt.Errorf("%w: sparse vector needs at least one query", ErrInvalid)
	}
	for i, q := range s {
		if err := v.checkQuery(q); err != nil {
			return fmt.Errorf("mechanism: query %d: %w", i, err)
		}
	}
	return nil
}

// releaseWith is Release drawing from r.
func (v *SparseVector) releaseWith(r *rand.Rand, s, dst []float64) error {
	if err := v.checkRelease(s, dst); err != nil {
		return err
	}
	var sess SVTSession
	v.start(r, &sess)
	for i, q := range s {
		if sess.Halted() {
			dst[i] = math.NaN()
			continue
		}
		above, err := sess.Test(q)
		if err != nil {
			return err
		}
		if above {
			dst[i] = 1
		} else {
			dst[i] = 0
		}
	}
	return nil
}

// checkQuery rejects queries the session cannot order: NaN always, ±Inf
// when the queries are unbounded (an infinite query contradicts any finite
// declared sensitivity).
func (v *SparseVector) checkQuery(q float64) error {
	if math.IsNaN(q) || (math.IsInf(q, 0) && !v.cfg.bounded()) {
		return fmt.Errorf("%w: sparse vector query is %v", ErrInvalid, q)
	}
	return nil
}

// SVTSession is one run of a SparseVector. It is not safe for concurrent
// use. Its only outputs are the ⊤/⊥ answers and the counts derived from
// them; the noisy threshold and the noisy queries never leave it.
type SVTSession struct {
	v      *SparseVector
	r      *rand.Rand // nil: the operating system's generator
	err    error      // set by a start that could not draw the threshold
	noisyT int64      // k_T + ρ in grid units
	count  int
	tested int
}

// noise draws one discrete Laplace integer of scale t, exactly, from the
// session's generator.
func (s *SVTSession) noise(t ratScale) int64 {
	if s.r != nil {
		return SampleDiscreteLaplace(s.r, t.num, t.den)
	}
	var z int64
	_ = withOSRand(func(r *rand.Rand) error {
		z = SampleDiscreteLaplace(r, t.num, t.den)
		return nil
	})
	return z
}

// Test answers one query value: true (⊤) if the noisy query crosses the
// noisy threshold, compared exactly on the lattice (see SparseVector). It
// returns ErrSVTHalted after MaxAbove ⊤
// answers, and an error wrapping ErrInvalid for
// a query the session cannot order (see Release); neither consumes
// randomness or budget. A session that was never started (the zero value),
// or started with a nil generator, returns an error wrapping
// ErrInvalid.
func (s *SVTSession) Test(q float64) (bool, error) {
	if s == nil {
		return false, invalidf("sparse vector session is nil")
	}
	if s.err != nil {
		return false, s.err
	}
	if s.v == nil {
		return false, invalidf("sparse vector session was not started (use SparseVector.Start)")
	}
	if s.count >= s.v.cfg.MaxAbove {
		return false, ErrSVTHalted
	}
	if err := s.v.checkQuery(q); err != nil {
		return false, err
	}
	s.tested++
	// |index| < 2^52 and |noise| < 2^52: the sums are exact in int64.
	diff := s.v.index(q) + s.noise(s.v.t2) - s.noisyT
	above := diff >= 0
	if s.v.cfg.Below {
		above = diff <= 0
	}
	if above {
		s.count++
		if s.v.cfg.Resample && s.count < s.v.cfg.MaxAbove {
			s.noisyT = s.v.kT + s.noise(s.v.t1)
		}
	}
	return above, nil
}

// Count returns the number of ⊤ answers so far.
func (s *SVTSession) Count() int {
	if s == nil {
		return 0
	}
	return s.count
}

// Tested returns the number of queries answered so far.
func (s *SVTSession) Tested() int {
	if s == nil {
		return 0
	}
	return s.tested
}

// Halted reports whether the session has given its MaxAbove ⊤ answers.
func (s *SVTSession) Halted() bool {
	if s == nil || s.v == nil {
		return false
	}
	return s.count >= s.v.cfg.MaxAbove
}
