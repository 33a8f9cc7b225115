package mechanism

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// ErrSVTHalted is returned by SVTSession.Test after the session has
// answered ⊤ its maximum number of times.
var ErrSVTHalted = errors.New("mechanism: sparse vector session has halted")

// SVTMaxMagnitude bounds every magnitude a sparse vector configuration may
// hold: |Threshold|, the sensitivity, both noise scales, |Lower| and |Upper|.
// The package's Laplace noise of scale b has magnitude at most b·ln 2^54 <
// 37.5·b (its uniforms are at least 2^-54 from 0 and 1), so with every scale,
// threshold and (clamped) query at most 1e300 in magnitude the noisy threshold
// and the noisy queries stay finite, and the comparisons the session makes
// are the ones its privacy proof is about.
const SVTMaxMagnitude = 1e300

// minNormal is the smallest positive normal float64.
const minNormal = 0x1p-1022

// SVTConfig describes a sparse vector technique run (Dwork & Roth 2014,
// Alg. 1 AboveThreshold and Alg. 2 Sparse; ABCDP Alg. 1).
//
// A session draws a noisy threshold T̂ = Threshold + Lap(ThresholdScale)
// and answers each query value f_i, of sensitivity Sensitivity, with ⊤ if
// f_i + Lap(QueryScale) ≥ T̂ (or ≤ T̂ when Below is set, as in ABC, where
// a small distance is the event of interest) and ⊥ otherwise. It halts
// after MaxAbove ⊤ answers. With Resample the threshold noise is redrawn
// after each ⊤ (ABCDP's RESAMPLE; Dwork & Roth's Sparse).
//
// The privacy loss of a whole session (ε-DP, δ = 0), for queries of
// sensitivity Δ, c = MaxAbove, b1 = ThresholdScale, b2 = QueryScale, is
//
//	without resampling: ε = Δ/b1 + 2cΔ/b2   (Lyu, Su & Li 2017, Alg. 7)
//	with resampling:    ε = c·(Δ/b1 + 2Δ/b2) (c-fold composition of
//	                                           AboveThreshold)
//
// With ABCDP's choice b2 = 2b1 = 2b these are (c+1)Δ/b and 2cΔ/b (ABCDP
// Thm. 4.1).
//
// The sensitivity is a property of the query function that the session
// cannot check, unless the queries are bounded: with Lower < Upper every
// query is clamped to [Lower, Upper] before noise is added, so any two
// queries, however computed, differ by at most Upper − Lower after clamping,
// and the sensitivity holds by construction. A zero Sensitivity then means
// Upper − Lower, and a larger one is reduced to it (clamping is
// 1-Lipschitz, so a smaller declared Δ still bounds the clamped queries).
// Lower = Upper = 0 leaves the queries unbounded; they are then clamped to
// ±SVTMaxMagnitude only, which keeps the noisy values finite and changes no
// declared sensitivity.
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
// implements Mechanism: Release answers a batch of queries in one session.
// The zero value is not usable (its methods return errors): use
// NewSparseVector, NewAboveThreshold or NewSparse.
type SparseVector struct {
	cfg    SVTConfig
	budget Budget
	lo, hi float64 // query clamp
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
// errors wrap ErrInvalidParameter and name the field at fault.
func NewSparseVector(cfg SVTConfig) (*SparseVector, error) {
	if err := checkSVTFinite("threshold", cfg.Threshold); err != nil {
		return nil, err
	}
	lo, hi := -SVTMaxMagnitude, SVTMaxMagnitude
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
	return &SparseVector{cfg: cfg, budget: Budget{Epsilon: eps}, lo: lo, hi: hi}, nil
}

// NewAboveThreshold returns AboveThreshold (Dwork & Roth Alg. 1): one ⊤
// answer, threshold noise Lap(2Δ/ε) and query noise Lap(4Δ/ε), ε-DP.
func NewAboveThreshold(threshold, sensitivity, epsilon float64) (*SparseVector, error) {
	if err := checkSVTPositive("epsilon", epsilon); err != nil {
		return nil, err
	}
	if err := checkSVTPositive("sensitivity", sensitivity); err != nil {
		return nil, err
	}
	return NewSparseVector(SVTConfig{
		Threshold: threshold, Sensitivity: sensitivity,
		ThresholdScale: 2 * sensitivity / epsilon, QueryScale: 4 * sensitivity / epsilon,
		MaxAbove: 1,
	})
}

// NewSparse returns the c-fold sparse vector algorithm Sparse of Dwork &
// Roth (Alg. 2, δ = 0): σ = 2cΔ/ε, threshold noise Lap(σ) redrawn after
// every ⊤, query noise Lap(2σ); ε-DP.
func NewSparse(threshold, sensitivity, epsilon float64, c int) (*SparseVector, error) {
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
		MaxAbove: c, Resample: true,
	})
}

// ABCDPScale returns the Laplace scale b of ABCDP Thm. 4.1 for a total
// budget epsTotal, c accepted samples and distance sensitivity Δρ:
// b = 2cΔρ/ε with resampling and (c+1)Δρ/ε without. Use it as
// ThresholdScale with QueryScale = 2b. It returns an error when b (or 2b)
// would not be a positive normal number at most SVTMaxMagnitude.
func ABCDPScale(epsTotal, sensRho float64, c int, resample bool) (float64, error) {
	if err := checkSVTPositive("epsilon", epsTotal); err != nil {
		return 0, err
	}
	if err := checkSVTPositive("distance sensitivity", sensRho); err != nil {
		return 0, err
	}
	if c < 1 {
		return 0, invalidf("c must be >= 1, got %d", c)
	}
	b := float64(c+1) * sensRho / epsTotal
	if resample {
		b = 2 * float64(c) * sensRho / epsTotal
	}
	if err := checkSVTPositive("noise scale b", b); err != nil {
		return 0, fmt.Errorf("mechanism: ε_total %v, Δρ %v and c %d give no usable noise scale: %w", epsTotal, sensRho, c, err)
	}
	if err := checkSVTPositive("distance noise scale 2b", 2*b); err != nil {
		return 0, fmt.Errorf("mechanism: ε_total %v, Δρ %v and c %d give no usable noise scale: %w", epsTotal, sensRho, c, err)
	}
	return b, nil
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

// Start begins a session: it draws the noisy threshold. With a nil
// generator, or on a SparseVector not built by a constructor, the session
// answers every Test with an error wrapping ErrInvalidParameter.
func (v *SparseVector) Start(r *rand.Rand) *SVTSession {
	s := &SVTSession{}
	v.StartInto(r, s)
	return s
}

// StartInto begins a session in caller-owned storage (no allocation); see
// Start. A nil s is ignored.
func (v *SparseVector) StartInto(r *rand.Rand, s *SVTSession) {
	if s == nil {
		return
	}
	if err := v.usable(); err != nil {
		*s = SVTSession{err: err}
		return
	}
	if r == nil {
		*s = SVTSession{err: invalidf("sparse vector session needs a non-nil *rand.Rand")}
		return
	}
	*s = SVTSession{v: v, r: r}
	s.noisyT = v.cfg.Threshold + laplaceNoise(uniformOpen(r), v.cfg.ThresholdScale)
}

// Release answers the queries s in one fresh session: dst[i] is 1 (⊤) or
// 0 (⊥) for the queries answered and NaN for those after the session
// halted. The budget of the whole call is Budget(). A NaN query, or an
// infinite one when the configuration has no query bounds, is an error
// (wrapping ErrNonFinite); with bounds, ±Inf is clamped like any other
// query.
func (v *SparseVector) Release(r *rand.Rand, s, dst []float64) error {
	if err := v.usable(); err != nil {
		return err
	}
	if r == nil {
		return invalidf("sparse vector release needs a non-nil *rand.Rand")
	}
	if len(dst) != len(s) {
		return fmt.Errorf("mechanism: dst has length %d, statistic %d: %w: %w", len(dst), len(s), ErrDimension, ErrInvalidParameter)
	}
	if len(s) == 0 {
		return fmt.Errorf("mechanism: sparse vector needs at least one query: %w: %w", ErrDimension, ErrInvalidParameter)
	}
	for i, q := range s {
		if err := v.checkQuery(q); err != nil {
			return fmt.Errorf("mechanism: query %d: %w", i, err)
		}
	}
	var sess SVTSession
	v.StartInto(r, &sess)
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
		return fmt.Errorf("mechanism: sparse vector query is %v: %w: %w", q, ErrNonFinite, ErrInvalidParameter)
	}
	return nil
}

// SVTSession is one run of a SparseVector. It is not safe for concurrent
// use. Its only outputs are the ⊤/⊥ answers and the counts derived from
// them; the noisy threshold and the noisy queries never leave it.
type SVTSession struct {
	v      *SparseVector
	r      *rand.Rand
	err    error // set by a start that could not draw the threshold
	noisyT float64
	count  int
	tested int
}

// Test answers one query value: true (⊤) if the noisy query crosses the
// noisy threshold. The query is first clamped to the configuration's query
// bounds (or to ±SVTMaxMagnitude). It returns ErrSVTHalted after MaxAbove ⊤
// answers, and an error wrapping ErrNonFinite (and ErrInvalidParameter) for
// a query the session cannot order (see Release); neither consumes
// randomness or budget. A session that was never started (the zero value),
// or started with a nil generator, returns an error wrapping
// ErrInvalidParameter.
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
	q = min(max(q, s.v.lo), s.v.hi)
	s.tested++
	noisy := q + laplaceNoise(uniformOpen(s.r), s.v.cfg.QueryScale)
	above := noisy >= s.noisyT
	if s.v.cfg.Below {
		above = noisy <= s.noisyT
	}
	if above {
		s.count++
		if s.v.cfg.Resample && s.count < s.v.cfg.MaxAbove {
			s.noisyT = s.v.cfg.Threshold + laplaceNoise(uniformOpen(s.r), s.v.cfg.ThresholdScale)
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
