package aggregate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// SelectionRule names how a PartitionSelector decides.
type SelectionRule int

const (
	// AutoRule picks, from the parameters alone, whichever rule keeps a
	// partition with probability at least ½ from the smallest number of
	// units (TestPartitionSelectionDelta logs the three at ε = 1,
	// δ = 10^-6 for L0 = 1, 8 and 64).
	AutoRule SelectionRule = iota
	// OptimalRule keeps a partition of n units with probability π(n), the
	// optimal rule of Desfontaines, Voss, Gipson & Mandayam (2022,
	// "Differentially private partition selection", PoPETs, Thm. 1) at
	// the per-partition budget (ε/L0, δ/L0):
	//
	//	π(0) = 0,
	//	π(n) = min(e^ε' π(n−1) + δ', 1 − e^−ε' (1 − π(n−1) − δ'), 1).
	//
	// It is optimal for L0 = 1.
	OptimalRule
	// LaplaceThresholdRule keeps a partition of n units when
	// n + Z ≥ τ, Z discrete Laplace of scale L0/ε' (the ℓ1 sensitivity of
	// the vector of unit counts is L0), with the smallest integer τ such
	// that L0·P(Z ≥ τ − 1) ≤ δ.
	LaplaceThresholdRule
	// GaussianThresholdRule keeps a partition of n units when
	// n + Z ≥ τ, Z the secure discrete Gaussian of standard deviation σ'
	// (mechanism.NewGaussian) calibrated to the ℓ2 sensitivity √L0 of the
	// vector of unit counts: ρ = L0/(2σ²)-zCDP (Canonne, Kamath & Steinke
	// 2020, "The discrete Gaussian for differential privacy", NeurIPS,
	// Thm. 4), with the largest ρ whose conversion ε(ρ, δ/2)
	// (mechanism.ZCDPEpsilon) is at most ε, so that partitions present
	// in both neighbours are (ε, δ/2)-DP. The discrete Gaussian is
	// σ'²-subgaussian (ibid., Cor. 9), so a unit's at most L0 singleton
	// partitions are kept with total probability at most
	// L0·exp(−(τ − 1)²/(2σ'²)) ≤ δ/2, which fixes τ. The selection is
	// (ε, δ)-DP (the Gaussian thresholding of Desfontaines et al. 2022,
	// §5, with an exact sampler). Its noise grows as √L0 rather than L0,
	// so it wins for large L0.
	GaussianThresholdRule
)

// String names the rule.
func (r SelectionRule) String() string {
	switch r {
	case AutoRule:
		return "auto"
	case OptimalRule:
		return "optimal"
	case LaplaceThresholdRule:
		return "Laplace threshold"
	case GaussianThresholdRule:
		return "Gaussian threshold"
	}
	return fmt.Sprintf("SelectionRule(%d)", int(r))
}

// SelectionParams is the plain configuration of a PartitionSelector. The
// zero value is invalid: Epsilon, Delta and MaxPartitionsContributed must
// be set.
type SelectionParams struct {
	// Epsilon and Delta are the (ε, δ) budget of the selection of all
	// partitions: ε in [2^-30, 2^20], δ in (0, 1).
	Epsilon, Delta float64
	// MaxPartitionsContributed is L0 ≥ 1, as in Params: the number of
	// partitions one privacy unit contributes to after BoundPartitions.
	MaxPartitionsContributed int
	// Rule is the selection rule; the zero value AutoRule chooses.
	Rule SelectionRule
	// Reproducible makes Keep draw from the generator it is given. For
	// reproducible tests only; a pipeline must refuse it.
	Reproducible bool
}

// Validate reports whether p is usable, with an error wrapping
// ErrInvalid naming the offending field.
func (p SelectionParams) Validate() error {
	switch {
	case !(p.Epsilon >= 0x1p-30 && p.Epsilon <= 0x1p20):
		return invalidf("SelectionParams.Epsilon must be in [2^-30, 2^20], got %v", p.Epsilon)
	case !(p.Delta > 0 && p.Delta < 1):
		return invalidf("SelectionParams.Delta must be in (0, 1), got %v", p.Delta)
	case p.MaxPartitionsContributed < 1 || p.MaxPartitionsContributed > maxContrib:
		return invalidf("SelectionParams.MaxPartitionsContributed (L0) must be in [1, 2^20], got %d", p.MaxPartitionsContributed)
	case p.Rule < AutoRule || p.Rule > GaussianThresholdRule:
		return invalidf("SelectionParams.Rule %v is unknown", p.Rule)
	}
	return nil
}

// maxTable bounds the length of the optimal rule's table of keep
// probabilities.
const maxTable = 1 << 22

// selectionMargin shrinks (ε', δ') before the optimal rule's keep
// probabilities are computed in floating point: the relative rounding
// error of n ≤ 2^22 steps of the recursion, below n·2^-52 < 10^-9, is
// absorbed, so the probabilities used satisfy the DP constraints at the
// true (ε', δ').
const selectionMargin = 1e-9

// PartitionSelector decides which partitions, among keys not known in
// advance, are released: differentially private partition selection.
// Given a partition's number of distinct privacy units after
// BoundPartitions, Keep decides whether it is released. Over all
// partitions the decisions are (ε, δ)-DP for one privacy unit (its
// Budget): a unit changes the unit count of at most L0 partitions by one,
// each decision is (ε/L0, δ/L0)-DP in that count (optimal rule) or the
// counts receive discrete Laplace (Gaussian) noise of ℓ1 (ℓ2)
// sensitivity L0 (√L0) and a unit's at most L0 singleton partitions cross
// the threshold with total probability at most δ (δ/2) (threshold rules). The guarantee is for adding or
// removing one unit; substituting one (a removal and an addition) is
// (2ε, 2δ)-DP. Every decision is drawn exactly:
// a Bernoulli of a floating-point probability compares it with as many
// random bits as it takes.
type PartitionSelector struct {
	p     SelectionParams
	rule  SelectionRule
	pi    []float64  // optimal rule: π(0) … π(len−1); π(n) = 1 beyond
	lap   dlap       // Laplace threshold rule: the noise
	gauss gaussNoise // Gaussian threshold rule: the noise
	tau   int64      // threshold rules: the threshold
}

// NewPartitionSelector returns the selector of p: the rule p.Rule, or,
// for AutoRule, whichever rule reaches keep probability ½ from the
// fewest units (ties go to the optimal rule, then Laplace).
func NewPartitionSelector(p SelectionParams) (*PartitionSelector, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Rule != AutoRule {
		return newSelector(p, p.Rule)
	}
	var best *PartitionSelector
	var first error
	for _, rule := range []SelectionRule{OptimalRule, LaplaceThresholdRule, GaussianThresholdRule} {
		s, err := newSelector(p, rule)
		if err != nil {
			first = cmpOr(first, err)
			continue
		}
		if best == nil || s.half() < best.half() {
			best = s
		}
	}
	if best == nil {
		return nil, first
	}
	return best, nil
}

// cmpOr returns a if it is not nil, else b.
func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// newSelector returns the selector of p under rule.
func newSelector(p SelectionParams, rule SelectionRule) (*PartitionSelector, error) {
	s := &PartitionSelector{p: p, rule: rule}
	l0 := p.MaxPartitionsContributed
	var err error
	switch rule {
	case OptimalRule:
		s.pi, err = optimalTable(p.Epsilon/float64(l0)*(1-selectionMargin), p.Delta/float64(l0)*(1-selectionMargin))
	case LaplaceThresholdRule:
		s.lap, s.tau, err = laplaceThreshold(p.Epsilon, p.Delta, l0)
	case GaussianThresholdRule:
		s.gauss, s.tau, err = gaussThreshold(p.Epsilon, p.Delta, l0, p.Reproducible)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// half returns the smallest number of units kept with probability at
// least ½: the first n with π(n) ≥ ½, or τ for a threshold rule (the
// noise is symmetric, so P(Z ≥ 0) ≥ ½).
func (s *PartitionSelector) half() int64 {
	if s.rule != OptimalRule {
		return s.tau
	}
	for n, v := range s.pi {
		if v >= 0.5 {
			return int64(n)
		}
	}
	return int64(len(s.pi))
}

// optimalTable returns π(0), …, π(n*−1) for the recursion at (eps,
// delta), n* the first n with π(n) = 1.
func optimalTable(eps, delta float64) ([]float64, error) {
	// π rises geometrically to ½ in about log(1 + (e^ε − 1)/(2δ))/ε steps
	// and falls back symmetrically: refuse at once what is far too long.
	if est := 2 * math.Log1p(math.Expm1(eps)/(2*delta)) / eps; !(est < 2*maxTable) {
		return nil, invalidf("the optimal partition selection at ε/L0 = %v, δ/L0 = %v needs about %.3g > 2^22 steps; raise ε or δ", eps, delta, est)
	}
	ee, ei := math.Exp(eps), math.Exp(-eps)
	pi := []float64{0}
	for prev := 0.0; ; {
		v := math.Min(math.Min(ee*prev+delta, 1-ei*(1-prev-delta)), 1)
		if v >= 1 {
			return pi, nil
		}
		if len(pi) == maxTable {
			return nil, invalidf("the optimal partition selection at ε/L0 = %v, δ/L0 = %v needs more than 2^22 steps; raise ε or δ", eps, delta)
		}
		pi = append(pi, v)
		prev = v
	}
}

// laplaceThreshold returns the noise and threshold of the threshold
// rule.
func laplaceThreshold(eps, delta float64, l0 int) (dlap, int64, error) {
	d, err := newDLap(uint64(l0), eps)
	if err != nil {
		return dlap{}, 0, err
	}
	// P(Z ≥ k) = a^k/(1 + a) for k ≥ 1, a = e^{−1/t}.
	t := d.scale()
	lna := -1 / t
	la := math.Log1p(math.Exp(lna))
	k := math.Ceil((math.Log(delta*(1-selectionMargin)/float64(l0)) + la) / lna)
	k = math.Max(k, 1)
	for float64(l0)*math.Exp(k*lna-la) > delta*(1-selectionMargin) {
		k++
	}
	if k > maxStat {
		return dlap{}, 0, invalidf("the Laplace threshold at ε = %v, δ = %v is beyond 2^52", eps, delta)
	}
	return d, int64(k) + 1, nil
}

// gaussThreshold returns the noise and threshold of the Gaussian
// threshold rule.
func gaussThreshold(eps, delta float64, l0 int, seeded bool) (gaussNoise, int64, error) {
	half := delta / 2 * (1 - selectionMargin)
	// The largest ρ with ε(ρ, δ/2) ≤ ε, by bisection on log ρ.
	ok := func(rho float64) bool {
		e, err := mechanism.ZCDPEpsilon(rho, half)
		return err == nil && e <= eps*(1-selectionMargin)
	}
	lo, hi := -40.0, 20.0
	if !ok(math.Exp2(lo)) {
		return gaussNoise{}, 0, invalidf("the Gaussian threshold at ε = %v, δ = %v needs ρ below 2^-40", eps, delta)
	}
	for range 100 {
		mid := (lo + hi) / 2
		if ok(math.Exp2(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	g, err := newGaussNoise(math.Sqrt(float64(l0)), math.Exp2(lo), seeded)
	if err != nil {
		return gaussNoise{}, 0, err
	}
	sd := g.scale()
	k := math.Ceil(sd * math.Sqrt(2*math.Log(float64(l0)/half)))
	for float64(l0)*math.Exp(-k*k/(2*sd*sd)) > half {
		k++
	}
	if k >= float64(g.limit()) {
		return gaussNoise{}, 0, invalidf("the Gaussian threshold at ε = %v, δ = %v is beyond the noise's exact range", eps, delta)
	}
	return g, int64(k) + 1, nil
}

// Rule returns the rule in use (never AutoRule, except for a nil
// PartitionSelector, whose rule is the zero SelectionRule).
func (s *PartitionSelector) Rule() SelectionRule {
	if s == nil {
		return 0
	}
	return s.rule
}

// Budget returns the (ε, δ) of the selection of all partitions (zero for
// a nil PartitionSelector).
func (s *PartitionSelector) Budget() mechanism.Budget {
	if s == nil {
		return mechanism.Budget{}
	}
	return mechanism.Budget{Epsilon: s.p.Epsilon, Delta: s.p.Delta}
}

// Threshold returns τ for a threshold rule (zero for the optimal rule and
// for a nil PartitionSelector).
func (s *PartitionSelector) Threshold() int64 {
	if s == nil {
		return 0
	}
	return s.tau
}

// KeepProbability returns the probability that Keep keeps a partition of
// the given number of units (computed in floating point: the exact
// probabilities of the optimal rule, a floating-point evaluation of the
// discrete Laplace tail, and the normal tail for the discrete Gaussian,
// whose grid is finer than σ'·2^-29).
func (s *PartitionSelector) KeepProbability(units int64) float64 {
	if units <= 0 {
		return 0
	}
	if s.rule == OptimalRule {
		if units < int64(len(s.pi)) {
			return s.pi[units]
		}
		return 1
	}
	if s.rule == GaussianThresholdRule {
		// P(Z ≥ τ − n) for the discrete Gaussian on a grid at most σ'·2^-29:
		// the normal tail, to within the grid's resolution.
		return 0.5 * math.Erfc(float64(s.tau-units)/(s.gauss.scale()*math.Sqrt2))
	}
	// P(Z ≥ τ − n).
	k := s.tau - units
	lna := -1 / s.lap.scale()
	if k <= 0 {
		return 1 - math.Exp(float64(1-k)*lna)/(1+math.Exp(lna))
	}
	return math.Exp(float64(k)*lna) / (1 + math.Exp(lna))
}

// Keep decides whether a partition with the given number of distinct
// privacy units (after BoundPartitions) is released. A partition with no
// unit is never kept. r is used only if SelectionParams.Reproducible;
// otherwise the decision draws from the operating system's generator.
func (s *PartitionSelector) Keep(r *rand.Rand, units int64) bool {
	if units <= 0 {
		return false
	}
	if !s.p.Reproducible || r == nil {
		r = mechanism.NewCryptoRand()
	}
	if s.rule == OptimalRule {
		if units >= int64(len(s.pi)) {
			return true
		}
		return bernoulliFloat(r, s.pi[units])
	}
	if s.rule == GaussianThresholdRule {
		v, err := s.gauss.add(r, units)
		return err == nil && v >= float64(s.tau)
	}
	return min(units, maxStat)+s.lap.sample(r) >= s.tau
}

// bernoulliFloat returns true with probability p exactly (p a float64 in
// [0, 1]): with p = m·2^(e−53), m < 2^53, a uniform U ∈ [0, 1) is below p
// exactly when its first −e bits are zero and its next 53 bits, as an
// integer, are below m.
func bernoulliFloat(r *rand.Rand, p float64) bool {
	if !(p > 0) {
		return false
	}
	if p >= 1 {
		return true
	}
	f, e := math.Frexp(p) // p = f·2^e, f ∈ [½, 1), e ≤ 0
	m := uint64(math.Ldexp(f, 53))
	for z := -e; z > 0; z -= 64 {
		w := r.Uint64()
		if z < 64 {
			w >>= uint(64 - z)
		}
		if w != 0 {
			return false
		}
	}
	return r.Uint64()>>11 < m
}

// PublicPartitions is the set of partitions known in advance: every
// public key is released (a key without data with an empty accumulator,
// so noise only) and records of other keys are dropped; no budget is
// spent on selection.
type PublicPartitions[K comparable] struct {
	keys []K
	set  map[K]struct{}
}

// NewPublicPartitions returns the public partitions keys (duplicates are
// kept once). It returns an error wrapping ErrInvalid for no keys.
func NewPublicPartitions[K comparable](keys []K) (*PublicPartitions[K], error) {
	if len(keys) == 0 {
		return nil, invalidf("public partitions must not be empty")
	}
	p := &PublicPartitions[K]{set: make(map[K]struct{}, len(keys))}
	for _, k := range keys {
		if _, ok := p.set[k]; !ok {
			p.set[k] = struct{}{}
			p.keys = append(p.keys, k)
		}
	}
	return p, nil
}

// Contains reports whether k is a public partition (records of other
// keys are dropped). A nil PublicPartitions contains no key.
func (p *PublicPartitions[K]) Contains(k K) bool {
	if p == nil {
		return false
	}
	_, ok := p.set[k]
	return ok
}

// Keys returns the public keys, each once, in their first order (none for
// a nil PublicPartitions).
func (p *PublicPartitions[K]) Keys() []K {
	if p == nil {
		return nil
	}
	return append([]K(nil), p.keys...)
}
