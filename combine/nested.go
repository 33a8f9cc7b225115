package combine

import (
	"fmt"
	"math"
)

// NestedResult is the pooled inference from nested synthetic data: m
// nests (one sanitized posterior each) of t ≥ 2 synthetic sets each (the
// nested modips of App. A of Liu's modips paper). The embedded Result is
// the pooled inference (Rule DPSynthesis, M the number of nests, Between
// the between-nest variance B_M), so Interval, SE and PValue apply.
//
// The estimates are modelled as q_ik = Q + a_i + e_ik: a_i, common to the
// sets of nest i, is the variability from sanitizing the posterior; e_ik
// is the variability of synthesis given the sanitized posterior (the
// posterior draw θ*(i,k) and the data drawn given it). With the nest means
// Q̄_i and the grand mean Q̄,
//
//	B_M = Σ_i (Q̄_i − Q̄)²/(m − 1)               E B_M = σ_a² + σ_e²/t
//	B_W = Σ_i Σ_k (q_ik − Q̄_i)²/(m(t − 1))      E B_W = σ_e²
//
// so Sanitization = B_M − B_W/t and Synthesis = B_W are unbiased for the
// two between-set components b1 = σ_a² and b2 = σ_e² of Theorem 7(b), and
//
//	T = W̄ + b1/m + b2/(mt) = W̄ + B_M/m,   ν = (m − 1)(1 + mW̄/B_M)²
//
// is unbiased for the variance of Q̄: the Theorem-7 rule applied to the
// nest means, whose between-set variance has m − 1 degrees of freedom.
// Treating the m·t sets as independent (Pool on the flat estimates)
// understates the variance whenever the sanitization component is not
// negligible.
type NestedResult struct {
	Result
	// T is the number of synthetic sets per nest.
	T int
	// WithinNest is B_W, the between-set variance within nests.
	WithinNest float64
	// Sanitization is B_M − B_W/t, the unbiased estimate of the
	// between-nest (sanitization) component b1. It can be negative by
	// sampling error; SanitizationShare clips it.
	Sanitization float64
	// Synthesis is B_W, the estimate of the within-nest (synthesis)
	// component b2.
	Synthesis float64
}

// SanitizationShare returns the estimated share of the variance of Q̄
// due to sanitization, max(0, b1/m)/T, in [0, 1] (NaN when T = 0).
func (r NestedResult) SanitizationShare() float64 {
	if !(r.Var > 0) {
		return math.NaN()
	}
	return math.Min(1, math.Max(0, r.Sanitization/float64(r.M))/r.Var)
}

// PoolNested combines the analyses of nested synthetic data: q and u hold
// the m·t estimates and their variances nest by nest, set k of nest i at
// index i·t + k (the layout of synth.Release.Sets). It needs m ≥ 2 nests
// and t ≥ 2 sets per nest. Options.Normal forces a normal reference; the
// other options do not apply and must be zero. Edge cases as for Pool with
// rule DPSynthesis: B_M = 0 gives ν = +Inf; W̄ = 0 and B_M > 0 gives
// ν = m − 1.
func PoolNested(t int, q, u []float64, opt Options) (NestedResult, error) {
	if err := opt.Validate(); err != nil {
		return NestedResult{}, err
	}
	if opt.CompleteDF != 0 || opt.NoAdjust || opt.SynthRatio != 0 {
		return NestedResult{}, fmt.Errorf("%w: opt: only Normal applies to nested pooling", ErrInvalid)
	}
	if t < 2 {
		return NestedResult{}, fmt.Errorf("%w: t (sets per nest) must be >= 2, got %d", ErrInvalid, t)
	}
	if len(u) != len(q) {
		return NestedResult{}, fmt.Errorf("%w: q has %d estimates but u has %d variances", ErrInvalid, len(q), len(u))
	}
	if len(q)%t != 0 {
		return NestedResult{}, fmt.Errorf("%w: len(q) = %d is not a multiple of t = %d", ErrInvalid, len(q), t)
	}
	m := len(q) / t
	if m < 2 {
		return NestedResult{}, fmt.Errorf("%w: q holds %d nest(s) of t = %d, need at least 2", ErrInvalid, m, t)
	}
	for j := range q {
		if math.IsNaN(q[j]) || math.IsInf(q[j], 0) {
			return NestedResult{}, fmt.Errorf("%w: q[%d] is %v", ErrInvalid, j, q[j])
		}
		if math.IsNaN(u[j]) || math.IsInf(u[j], 0) || u[j] < 0 {
			return NestedResult{}, fmt.Errorf("%w: u[%d] must be finite and >= 0, got %v", ErrInvalid, j, u[j])
		}
	}
	fm, ft := float64(m), float64(t)
	// Nest means and their mean, the within-nest sum of squares.
	var grand, ssw, wbar float64
	for i := range m {
		mi, _ := meanVar(q[i*t : (i+1)*t])
		grand += mi
	}
	grand /= fm
	var ssb float64
	for i := range m {
		nest := q[i*t : (i+1)*t]
		mi, vi := meanVar(nest)
		ssw += vi * (ft - 1)
		d := mi - grand
		ssb += d * d
	}
	for _, v := range u {
		wbar += v
	}
	wbar /= fm * ft
	bm := ssb / (fm - 1)
	bw := ssw / (fm * (ft - 1))
	res, err := poolMoments(DPSynthesis, m, grand, wbar, bm, opt)
	if err != nil {
		return NestedResult{}, err
	}
	if math.IsInf(bw, 0) || math.IsNaN(bw) {
		return NestedResult{}, fmt.Errorf("%w: within-nest variance overflows", ErrInvalid)
	}
	return NestedResult{Result: res, T: t, WithinNest: bw, Sanitization: bm - bw/ft, Synthesis: bw}, nil
}
