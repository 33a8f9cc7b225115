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
	// AutoRule picks, from the parameters alone, whichever of the two
	// rules keeps a partition with probability at least ½ from the
	// smaller number of units. At ε = 1, δ = 10^-6 that is the optimal
	// rule for L0 = 1, 8 and 64 (½ reached from 14, 106 and 841 units,
	// against 15, 124 and 1108 for the threshold rule): splitting the
	// budget over L0 partitions costs the optimal rule no more than the
	// threshold's ℓ1 noise does.
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
	// Seeded makes Keep draw from the generator it is given. For
	// reproducible tests only; a pipeline must refuse it.
	Seeded bool
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
	case p.Rule < AutoRule || p.Rule > LaplaceThresholdRule:
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
// counts receive discrete Laplace noise of ℓ1 sensitivity L0 and a unit's
// at most L0 singleton partitions cross the threshold with total
// probability at most δ (threshold rule). The guarantee is for adding or
// removing one unit; substituting one (a removal and an addition) is
// (2ε, 2δ)-DP. Every decision is drawn exactly:
// a Bernoulli of a floating-point probability compares it with as many
// random bits as it takes.
type PartitionSelector struct {
	p    SelectionParams
	rule SelectionRule
	pi   []float64 // optimal rule: π(0) … π(len−1); π(n) = 1 beyond
	lap  dlap      // threshold rule: the noise
	tau  int64     // threshold rule: the threshold
}

// NewPartitionSelector returns the selector of p.
func NewPartitionSelector(p SelectionParams) (*PartitionSelector, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := &PartitionSelector{p: p}
	l0 := float64(p.MaxPartitionsContributed)
	var errOpt, errLap error
	if p.Rule != LaplaceThresholdRule {
		s.pi, errOpt = optimalTable(p.Epsilon/l0*(1-selectionMargin), p.Delta/l0*(1-selectionMargin))
	}
	if p.Rule != OptimalRule {
		s.lap, s.tau, errLap = laplaceThreshold(p.Epsilon, p.Delta, p.MaxPartitionsContributed)
	}
	switch {
	case p.Rule == OptimalRule && errOpt != nil:
		return nil, errOpt
	case p.Rule == LaplaceThresholdRule && errLap != nil:
		return nil, errLap
	case errOpt != nil && errLap != nil:
		return nil, errOpt
	case p.Rule != AutoRule:
		s.rule = p.Rule
	case errOpt != nil:
		s.rule = LaplaceThresholdRule
	case errLap != nil:
		s.rule = OptimalRule
	default:
		s.rule = OptimalRule
		if s.tau < s.halfOptimal() {
			s.rule = LaplaceThresholdRule
		}
	}
	if s.rule == OptimalRule {
		s.lap, s.tau = dlap{}, 0
	} else {
		s.pi = nil
	}
	return s, nil
}

// halfOptimal returns the smallest n with π(n) ≥ ½.
func (s *PartitionSelector) halfOptimal() int64 {
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

// Rule returns the rule in use (never AutoRule).
func (s *PartitionSelector) Rule() SelectionRule { return s.rule }

// Budget returns the (ε, δ) of the selection of all partitions.
func (s *PartitionSelector) Budget() mechanism.Budget {
	return mechanism.Budget{Epsilon: s.p.Epsilon, Delta: s.p.Delta}
}

// Threshold returns τ for the threshold rule (zero for the optimal rule).
func (s *PartitionSelector) Threshold() int64 { return s.tau }

// KeepProbability returns the probability that Keep keeps a partition of
// the given number of units (computed in floating point: the exact
// probabilities of the optimal rule, a floating-point evaluation of the
// discrete Laplace tail for the threshold rule).
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
// unit is never kept. r is used only if SelectionParams.Seeded;
// otherwise the decision draws from the operating system's generator.
func (s *PartitionSelector) Keep(r *rand.Rand, units int64) bool {
	if units <= 0 {
		return false
	}
	if !s.p.Seeded || r == nil {
		r = mechanism.NewCryptoRand()
	}
	if s.rule == OptimalRule {
		if units >= int64(len(s.pi)) {
			return true
		}
		return bernoulliFloat(r, s.pi[units])
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
// keys are dropped).
func (p *PublicPartitions[K]) Contains(k K) bool {
	_, ok := p.set[k]
	return ok
}

// Keys returns the public keys, each once, in their first order.
func (p *PublicPartitions[K]) Keys() []K { return append([]K(nil), p.keys...) }
