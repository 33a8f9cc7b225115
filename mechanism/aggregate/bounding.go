package aggregate

import (
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// Contribution bounding: the plain functions a pipeline applies per
// privacy unit before aggregating, on which every sensitivity of Params
// rests. For each unit: BoundPartitions keeps at most L0 of the
// partitions it contributes to, CapContributions keeps at most L∞ of its
// records in each kept partition, and the accumulators clamp each value
// (Params.ClampValue). Sampling is uniform and drawn from the operating system's
// generator unless a generator is given for a reproducible test.

// BoundPartitions returns a uniform sample of at most l0 distinct keys
// among keys (all of them, in order of first appearance, when there are
// at most l0): the partitions one privacy unit may contribute to. r nil
// draws from the operating system's generator (mechanism.CryptoSource);
// pass a generator only in tests. It returns an error wrapping
// ErrInvalid if l0 < 1.
func BoundPartitions[K comparable](keys []K, l0 int, r *rand.Rand) ([]K, error) {
	if l0 < 1 {
		return nil, invalidf("MaxPartitionsContributed (L0) must be at least 1, got %d", l0)
	}
	seen := make(map[K]struct{}, len(keys))
	out := make([]K, 0, min(len(keys), 64))
	for _, k := range keys {
		if _, ok := seen[k]; !ok {
			seen[k] = struct{}{}
			out = append(out, k)
		}
	}
	return sampleUniform(out, l0, r), nil
}

// CapContributions returns a uniform sample of at most limit of one privacy
// unit's records in one partition (all of them when there are at most
// limit), reordering values in place and returning a prefix of it. r nil
// draws from the operating system's generator. It returns an error
// wrapping ErrInvalid if limit < 1.
func CapContributions[V any](values []V, limit int, r *rand.Rand) ([]V, error) {
	if limit < 1 {
		return nil, invalidf("MaxContributionsPerPartition must be at least 1, got %d", limit)
	}
	return sampleUniform(values, limit, r), nil
}

// sampleUniform moves a uniform sample of min(k, len(xs)) elements of xs
// to its front by a partial Fisher–Yates shuffle and returns them.
func sampleUniform[T any](xs []T, k int, r *rand.Rand) []T {
	if len(xs) <= k {
		return xs
	}
	if r == nil {
		r = mechanism.NewCryptoRand()
	}
	for i := range k {
		j := i + r.IntN(len(xs)-i)
		xs[i], xs[j] = xs[j], xs[i]
	}
	return xs[:k]
}

// ClampValue returns the value the accumulators of p take for the record
// v before rounding: clamped to [Lo, Hi] (±Inf to the nearer bound) and
// true, or 0 and false for a NaN v, which the accumulators drop. It
// returns false also if p has no valid bounds (Lo ≥ Hi, a NaN bound, or
// both unset), which Params.Validate refuses before any accumulator
// exists.
func (p Params) ClampValue(v float64) (float64, bool) {
	if (p.Lo == 0 && p.Hi == 0) || checkBounds("Params", p.Lo, p.Hi) != nil {
		return 0, false
	}
	return clampValue(v, p.Lo, p.Hi)
}

// clampValue returns mechanism.Clamp(v, lo, hi) and true, or 0 and false
// where Clamp gives NaN (a NaN v, or bounds with no interval).
func clampValue(v, lo, hi float64) (float64, bool) {
	c := mechanism.Clamp(v, lo, hi)
	if math.IsNaN(c) {
		return 0, false
	}
	return c, true
}

// RoundValue returns the value the accumulators of p add for the record
// v: clamped to [Lo, Hi] and rounded to the lattice γ, and false for NaN.
// A simulator for a noise-aware posterior sums these to get the statistic
// of Result.Mechanism. It returns false also if p has no valid bounds.
func (p Params) RoundValue(v float64) (float64, bool) {
	l, err := p.lattice()
	if err != nil {
		return 0, false
	}
	i, ok := l.indexOf(v, p.Lo, p.Hi, math.Ldexp(1, -l.k))
	return math.Ldexp(float64(i), l.k), ok
}
