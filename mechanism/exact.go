package mechanism

import "math/rand/v2"

// SampleDiscreteLaplace draws an integer Z with P(Z = z) ∝ exp(−|z|·den/num),
// the discrete Laplace law of scale t = num/den (Canonne, Kamath & Steinke
// 2020), exactly: every trial compares random bits drawn from r with the
// exact binary expansion of its probability, so no probability is rounded.
// It is the law of the Laplace mechanism's lattice noise, exported for
// releases that build their own lattice (the curator's aggregations). num
// and den must be positive and r non-nil; it panics otherwise (a
// programmer error: callers derive them from validated parameters).
func SampleDiscreteLaplace(r *rand.Rand, num, den uint64) int64 {
	if num == 0 || den == 0 {
		panic("mechanism: SampleDiscreteLaplace needs num, den > 0")
	}
	return sampleDiscreteLaplace(r, num, den)
}

// BernoulliExpNeg returns true with probability exp(−num/den) exactly,
// comparing random bits drawn from r with the exact binary expansion of
// exp(−i/256) for the leading part of the exponent and finishing with
// Canonne, Kamath & Steinke (2020, Alg. 1) on the rest. den must be
// positive and r non-nil; it panics otherwise (a programmer error).
func BernoulliExpNeg(r *rand.Rand, num, den uint64) bool {
	if den == 0 {
		panic("mechanism: BernoulliExpNeg needs den > 0")
	}
	return bernoulliExpNeg(r, num, den)
}
