package aggregate

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/privinfer/privinfer/mechanism"
)

// QuantileResult is a released quantile.
type QuantileResult struct {
	// Value is the selected candidate.
	Value float64
	// Index is its position among the candidates.
	Index int
	// Budget is the budget charged.
	Budget mechanism.Budget
}

const (
	// qBits is the resolution of the quantile level: q is rounded to a
	// multiple of 2^-16.
	qBits = 16
	// maxCandidates bounds the number of candidates.
	maxCandidates = 1 << 16
)

// Candidates returns the k = cfg.Candidates public candidates of
// Quantile on [cfg.Lo, cfg.Hi] (k = DefaultCandidates when
// cfg.Candidates is zero): c_j = Lo + (Hi − Lo)·j/(k − 1), with
// c_{k−1} = Hi exactly. It checks the bounds and the number of
// candidates only, not the budget.
func Candidates(cfg Config) ([]float64, error) {
	lo, hi, err := cfg.bounds()
	if err != nil {
		return nil, err
	}
	if err := checkBounds("Config", lo, hi); err != nil {
		return nil, err
	}
	if math.IsInf(hi-lo, 0) {
		return nil, invalidf("Config.Lo, Config.Hi: bounds width Hi − Lo overflows")
	}
	k := cfg.Candidates
	if k == 0 {
		k = DefaultCandidates
	}
	if k < 2 || k > maxCandidates {
		return nil, invalidf("Config.Candidates: the number of candidates must be 0 (default) or in [2, 2^16], got %d", k)
	}
	c := make([]float64, k)
	for j := range c {
		c[j] = lo + (hi-lo)*float64(j)/float64(k-1)
	}
	c[k-1] = hi
	return c, nil
}

// quantileScores returns, for each candidate c_j, the integer
// D_j = |(2^16 − Q)·a_j − Q·b_j| with a_j = #{x_i < c_j}, b_j = #{x_i > c_j}
// over the records clamped to [lo, hi] and Q = round(q·2^16). The utility
// of c_j is u_j = −D_j/2^16.
func quantileScores(x, cand []float64, lo, hi float64, qn uint64, nb Neighbour) []uint64 {
	s := make([]float64, 0, len(x))
	for _, v := range x {
		if c, ok := record(v, lo, hi, nb); ok {
			s = append(s, c)
		}
	}
	slices.Sort(s)
	d := make([]uint64, len(cand))
	for j, c := range cand {
		a := sort.SearchFloat64s(s, c) // #{s_i < c}
		b := len(s) - sort.Search(len(s), func(i int) bool { return s[i] > c })
		pa := (1<<qBits - qn) * uint64(a)
		pb := qn * uint64(b)
		if pa >= pb {
			d[j] = pa - pb
		} else {
			d[j] = pb - pa
		}
	}
	return d
}

// Quantile releases an approximate q-quantile of the records clamped to
// [cfg.Lo, cfg.Hi] by the exponential mechanism over the k public
// candidates of Candidates(cfg) (k = cfg.Candidates, DefaultCandidates if
// zero).
//
// The level q ∈ [0, 1] is rounded to Q/2^16, Q = round(q·2^16). The
// utility of candidate c is u(c) = −|(1 − q)·#{x_i < c} − q·#{x_i > c}|.
// Adding or removing a record changes it by at most max(q, 1 − q) ≤ 1;
// substituting one moves it from one side of c to the other (or onto c)
// and changes it by at most (1 − q) + q = 1. With Δu = 1 under both
// relations, candidate j is released with probability
//
//	P(j) ∝ exp(ε'·u_j/2),
//
// which is ε-DP (McSherry & Talwar 2007). The sampler is exact: u_j·2^16
// is an integer and ε' a dyadic rational, and candidates are proposed
// uniformly and accepted with probability exp(−ε'(u_max − u_j)/2), a
// Bernoulli of an exact rational exponent drawn with integer arithmetic.
// Every candidate keeps a positive probability, so no output is
// impossible under a neighbouring data set. The expected number of
// proposals is at most k. Records are taken as in BoundedSum (NaN dropped
// under AddRemove, lo under Substitute). Under AddRemove an empty x is
// released like any other (every candidate then has the same utility, so
// the release is uniform); under Substitute, where n is public, an empty
// x is an error.
func Quantile(r *rand.Rand, x []float64, q float64, cfg Config) (QuantileResult, error) {
	if err := cfg.Validate(); err != nil {
		return QuantileResult{}, err
	}
	if cfg.Rho != 0 {
		return QuantileResult{}, invalidf("Config.Rho: the quantile is released by the exponential mechanism and needs epsilon, not rho")
	}
	if !(q >= 0 && q <= 1) {
		return QuantileResult{}, invalidf("q: quantile level must be in [0, 1], got %v", q)
	}
	cand, err := Candidates(cfg)
	if err != nil {
		return QuantileResult{}, err
	}
	lo, hi := cfg.Lo, cfg.Hi
	if len(x) == 0 && cfg.Neighbour == Substitute {
		return QuantileResult{}, invalidf("the quantile of an empty data set is undefined (the number of records is public under Substitute)")
	}
	src, err := cfg.source(r)
	if err != nil {
		return QuantileResult{}, err
	}
	qn := uint64(math.Round(math.Ldexp(q, qBits)))
	d := quantileScores(x, cand, lo, hi, qn, cfg.Neighbour)
	b, _, err := cfg.charge()
	if err != nil {
		return QuantileResult{}, err
	}
	j := sampleExponential(src, d, dyadic(cfg.Epsilon))
	return QuantileResult{Value: cand[j], Index: j, Budget: b}, nil
}

// sampleExponential draws j with P(j) ∝ exp(−ε'·D_j/2^17), ε' = e/2^30,
// exactly, by uniform proposals accepted with probability
// exp(−e·(D_j − D_min)/2^47).
func sampleExponential(r *rand.Rand, d []uint64, e uint64) int {
	dmin := slices.Min(d)
	const shift = 30 + qBits + 1
	for {
		j := r.IntN(len(d))
		hi, lo := bits.Mul64(e, d[j]-dmin)
		if acceptExpNeg(r, hi, lo, shift) {
			return j
		}
	}
}

// acceptExpNeg returns true with probability exp(−N/2^shift) for the
// 128-bit N = hi·2^64 + lo: exp(−rem/2^shift) times one exp(−1) trial per
// whole unit of the quotient (stopping at the first failure).
func acceptExpNeg(r *rand.Rand, hi, lo uint64, shift uint) bool {
	rem := lo & (1<<shift - 1)
	if !mechanism.BernoulliExpNeg(r, rem, 1<<shift) {
		return false
	}
	whole := lo>>shift | hi<<(64-shift)
	huge := hi>>shift != 0 // quotient ≥ 2^64: trials until the first failure
	for i := uint64(0); huge || i < whole; i++ {
		if !mechanism.BernoulliExpNeg(r, 1, 1) {
			return false
		}
	}
	return true
}
