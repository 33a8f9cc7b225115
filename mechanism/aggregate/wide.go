package aggregate

import (
	"math"
	"math/bits"
)

// wide is a signed 128-bit integer in two's complement, hi·2^64 + lo. The
// accumulators keep their sums in it: one record adds at most 2^31 in
// magnitude, so no sum of fewer than 2^96 records overflows, and
// addition of wides is exact, commutative and associative (integer
// addition), which is why no merge order can change a released bit.
type wide struct {
	hi int64
	lo uint64
}

// add adds v.
func (w *wide) add(v int64) {
	lo, c := bits.Add64(w.lo, uint64(v), 0)
	w.hi += v>>63 + int64(c)
	w.lo = lo
}

// plus adds o.
func (w *wide) plus(o wide) {
	lo, c := bits.Add64(w.lo, o.lo, 0)
	w.hi += o.hi + int64(c)
	w.lo = lo
}

// mulSub subtracts n·c (n ≥ 0).
func (w *wide) mulSub(n uint64, c int64) {
	a := uint64(c)
	if c < 0 {
		a = uint64(-c)
	}
	hi, lo := bits.Mul64(n, a)
	p := wide{hi: int64(hi), lo: lo}
	if c >= 0 {
		// negate p
		p.lo = ^p.lo + 1
		p.hi = ^p.hi
		if p.lo == 0 {
			p.hi++
		}
	}
	w.plus(p)
}

// clamp returns the value clamped to [−m, m] (0 < m < 2^63).
func (w wide) clamp(m int64) int64 {
	switch {
	case w.hi > 0 || (w.hi == 0 && w.lo > uint64(m)):
		return m
	case w.hi < -1 || (w.hi == -1 && int64(w.lo) < -m):
		return -m
	case w.hi == -1 && int64(w.lo) >= 0:
		// below −2^63
		return -m
	}
	return int64(w.lo)
}

// satAdd returns min(a + b, 2^63 − 1) for a, b ≥ 0: saturating addition
// of non-negative counts is still commutative and associative
// (min(min(a+b, M)+c, M) = min(a+b+c, M)), so merge order cannot matter
// even for counts no data set reaches.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
