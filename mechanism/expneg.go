package mechanism

import (
	"math/big"
	"math/bits"
	"sync"
	"sync/atomic"
)

// This file holds exact Bernoulli(exp(−x)) trials for rational x. A trial
// compares the uniform of a bitSource with the binary expansion of
// exp(−x): the first 64 bits come from a table computed once, and the
// rare comparison that needs more (probability 2^-64) computes further
// bits exactly in big-integer arithmetic, so no trial ever rounds.

// expArg is a rational exponent x = mul·den·2^sh / num > 0 (num > 0).
type expArg struct {
	mul, den, num uint64
	sh            uint
}

// rat returns x as a numerator and denominator.
func (x expArg) rat() (a, b *big.Int) {
	a = new(big.Int).SetUint64(x.mul)
	a.Mul(a, new(big.Int).SetUint64(x.den))
	a.Lsh(a, x.sh)
	return a, new(big.Int).SetUint64(x.num)
}

// expNegFloor returns ⌊exp(−a/b)·2^p⌋ exactly for integers a ≥ 0, b > 0.
// exp(−a/b) is irrational for a > 0, so the floor is decided by bounds of
// enough precision; the precision grows until it is.
func expNegFloor(a, b *big.Int, p uint) *big.Int {
	if a.Sign() == 0 {
		return new(big.Int).Lsh(big.NewInt(1), p)
	}
	// exp(−x) < 2^-p when x ≥ 0.6932·p > p·ln 2: the floor is 0.
	l := new(big.Int).Mul(a, big.NewInt(10000))
	r := new(big.Int).Mul(b, big.NewInt(int64(6932)))
	r.Mul(r, new(big.Int).SetUint64(uint64(p)))
	if p > 0 && l.Cmp(r) >= 0 {
		return new(big.Int)
	}
	for g := uint(64); ; g += 64 {
		lo, hi := expNegBounds(a, b, p+g)
		lo.Rsh(lo, g)
		hi.Rsh(hi, g)
		if lo.Cmp(hi) == 0 {
			return lo
		}
	}
}

// expNegBounds returns integers lo ≤ exp(−a/b)·2^q ≤ hi (a, b > 0): the
// alternating Taylor series of exp(−y), y = a/(b·2^s) ≤ 1, bracketed term
// by term with floors and ceilings, then squared s times with outward
// rounding.
func expNegBounds(a, b *big.Int, q uint) (lo, hi *big.Int) {
	s := uint(0)
	if d := a.BitLen() - b.BitLen() + 1; d > 0 {
		s = uint(d) // a/(b·2^s) < 1
	}
	den := new(big.Int).Lsh(b, s)
	one := new(big.Int).Lsh(big.NewInt(1), q)
	tLo, tHi := new(big.Int).Set(one), new(big.Int).Set(one)
	lo, hi = new(big.Int).Set(one), new(big.Int).Set(one)
	var k, dk big.Int
	for i := int64(1); ; i++ {
		k.SetInt64(i)
		dk.Mul(den, &k)
		// Terms y^i/i!·2^q, bracketed: tLo ≤ term ≤ tHi.
		tLo.Mul(tLo, a)
		tLo.Quo(tLo, &dk)
		tHi.Mul(tHi, a)
		quoCeil(tHi, &dk)
		if i%2 == 1 {
			lo.Sub(lo, tHi)
			hi.Sub(hi, tLo)
		} else {
			lo.Add(lo, tLo)
			hi.Add(hi, tHi)
		}
		// The terms decrease (y ≤ 1), so the tail beyond term i is at most
		// term i itself in magnitude.
		if tHi.Cmp(big.NewInt(2)) <= 0 {
			lo.Sub(lo, tHi)
			hi.Add(hi, tHi)
			break
		}
	}
	if lo.Sign() < 0 {
		lo.SetInt64(0)
	}
	if hi.Cmp(one) > 0 {
		hi.Set(one)
	}
	for ; s > 0; s-- {
		lo.Mul(lo, lo)
		lo.Rsh(lo, q)
		hi.Mul(hi, hi)
		quoCeil(hi, one)
	}
	return lo, hi
}

// quoCeil sets x to ⌈x/d⌉ for x ≥ 0 and d > 0.
func quoCeil(x, d *big.Int) {
	var r big.Int
	x.QuoRem(x, d, &r)
	if r.Sign() != 0 {
		x.Add(x, big.NewInt(1))
	}
}

// expNegWord returns bits [64k, 64k+64) of the binary expansion of
// exp(−x) (k = 0: the first 64 bits after the binary point), for x > 0.
func expNegWord(x expArg, k int) uint64 {
	a, b := x.rat()
	return low64(expNegFloor(a, b, uint(64*(k+1))))
}

// expNegScaledWord returns bits [64k, 64k+64) of the binary expansion of
// exp(−x)·cn/cd ≤ 1 (cn, cd > 0; x = 0 allowed).
func expNegScaledWord(x expArg, cn, cd uint64, k int) uint64 {
	a, b := x.rat()
	p := uint(64 * (k + 1))
	n, d := new(big.Int).SetUint64(cn), new(big.Int).SetUint64(cd)
	if a.Sign() == 0 {
		f := new(big.Int).Lsh(n, p)
		return low64(f.Quo(f, d))
	}
	for g := uint(64); ; g += 64 {
		lo, hi := expNegBounds(a, b, p+g)
		lo.Mul(lo, n)
		lo.Quo(lo, d)
		hi.Mul(hi, n)
		quoCeil(hi, d)
		lo.Rsh(lo, g)
		hi.Rsh(hi, g)
		if lo.Cmp(hi) == 0 {
			return low64(lo)
		}
	}
}

// low64 returns the low 64 bits of x ≥ 0.
func low64(x *big.Int) uint64 {
	var m big.Int
	m.SetUint64(^uint64(0))
	return m.And(&m, x).Uint64()
}

// belowExp reports whether U < exp(−x) for the uniform U of the unread
// bits, given a = the first 64 bits of exp(−x) (a = expNegWord(x, 0)).
func (b *bitSource) belowExp(a uint64, x expArg) bool {
	less, ok := b.below(a)
	if ok {
		return less
	}
	return b.belowExpDeep(x)
}

// belowApprox reports whether U < p for the uniform U of the unread bits
// and a probability p known to lie in [a, a + e]·2^-64 (a + e < 2^64). It
// returns decided = false, consuming nothing, when the next 64 bits fall
// in [a, a + e]; otherwise the comparison is decided by the bits up to
// the first one that differs from those of every point of the window
// (the window's lower end for bits below it, its upper end above), and
// it consumes exactly those: since the first 64 bits A of p lie in the
// window, the bits that decide U < p are among them.
func (b *bitSource) belowApprox(a, e uint64) (less, decided bool) {
	w := b.peek()
	if w < a {
		b.skip(uint(bits.LeadingZeros64(w^a)) + 1)
		return true, true
	}
	if w-a > e {
		b.skip(uint(bits.LeadingZeros64(w^(a+e))) + 1)
		return false, true
	}
	return false, false
}

// belowExpDeep continues belowExp past the first 64 bits.
func (b *bitSource) belowExpDeep(x expArg) bool {
	for k := 1; ; k++ {
		less, ok := b.below(expNegWord(x, k))
		if ok {
			return less
		}
	}
}

// fix128 is a fixed-point number (hi·2^64 + lo)/2^128 in [0, 1).
type fix128 struct{ hi, lo uint64 }

// mul returns ⌊x·y·2^128⌋/2^128, never above the exact product.
func (x fix128) mul(y fix128) fix128 {
	// Partial products of (x.hi·2^64 + x.lo)(y.hi·2^64 + y.lo); keep bits
	// [128, 256) of the 256-bit product.
	hh, hl := bits.Mul64(x.hi, y.hi)
	h1, l1 := bits.Mul64(x.hi, y.lo)
	h2, l2 := bits.Mul64(x.lo, y.hi)
	h3, _ := bits.Mul64(x.lo, y.lo)
	// Bits [64, 128): l1 + l2 + h3, carry into bits [128, ...).
	mid, c1 := bits.Add64(l1, l2, 0)
	_, c2 := bits.Add64(mid, h3, 0)
	lo, c3 := bits.Add64(hl, h1, 0)
	lo, c4 := bits.Add64(lo, h2, 0)
	lo, c5 := bits.Add64(lo, c1+c2, 0)
	return fix128{hh + c3 + c4 + c5, lo}
}

// expNegFix returns ⌊exp(−x)·2^128⌋ as a fix128 (x > 0).
func expNegFix(x expArg) fix128 {
	a, b := x.rat()
	f := expNegFloor(a, b, 128)
	return fix128{low64(new(big.Int).Rsh(f, 64)), low64(f)}
}

// expNegPowers fills dst[d] (1 ≤ d < len(dst)) with the first 64 bits of
// exp(−d·x), x = base (d = 0 is left 0: exp(0) = 1 needs no trial). The
// powers of ⌊exp(−x)·2^128⌋ are computed in 128-bit fixed point,
// truncating; each stays below exp(−d·x) by less than d·2^-127, so its
// first 64 bits are exact unless its low 64 bits are within 2^14 of 2^64,
// in which case the entry is computed exactly in big arithmetic.
func expNegPowers(dst []uint64, base expArg) {
	if len(dst) > 1<<13 {
		panic("mechanism: expNegPowers table too long for its error bound")
	}
	e := expNegFix(base)
	p := e
	for d := 1; d < len(dst); d++ {
		if d > 1 {
			p = p.mul(e)
		}
		if p.lo > ^uint64(0)-1<<14 {
			x := base
			x.mul *= uint64(d)
			dst[d] = expNegWord(x, 0)
			continue
		}
		dst[d] = p.hi
	}
}

// expFrac is the resolution 2^-expFracBits of the table of exp(−i/256).
const expFracBits = 8

// expTabUnits is the range [0, expTabUnits) of x covered by expTab.
const expTabUnits = 8

// expTable holds the first 64 bits of exp(−i/256), 0 ≤ i < 8·256, and of
// exp(−8), for trials with arbitrary rational exponents, and the chunk
// tables of exp(−X·2^-32) for X < 2^38 (sq).
type expTable struct {
	w  [expTabUnits << expFracBits]uint64
	e8 uint64
	// sq[k<<8|c]: first 64 bits of exp(−c·2^(8k−32)), c < 256 (c < 64 for
	// k = 4), and 2^64 − 1 for c = 0.
	sq [5 << 8]uint64
}

var (
	expTab     atomic.Pointer[expTable]
	expTabOnce sync.Once
)

// universalExp returns the table, computing it on first use.
func universalExp() *expTable {
	if t := expTab.Load(); t != nil {
		return t
	}
	return buildUniversalExp()
}

// buildUniversalExp computes the table once.
func buildUniversalExp() *expTable {
	expTabOnce.Do(func() {
		t := new(expTable)
		expNegPowers(t.w[:], expArg{mul: 1, den: 1, num: 1 << expFracBits})
		t.e8 = expNegWord(expArg{mul: expTabUnits, den: 1, num: 1}, 0)
		for k := 0; k < 5; k++ {
			lv := t.sq[k<<8 : k<<8+256]
			if k == 4 {
				lv = lv[:64]
			}
			expNegPowers(lv, expArg{mul: 1, den: 1, num: 1 << (32 - 8*k)})
			lv[0] = ^uint64(0)
		}
		expTab.Store(t)
	})
	return expTab.Load()
}

// bernExpNeg returns true with probability exp(−n/den) exactly, for the
// 128-bit n = hi·2^64 + lo and den > 0: whole units beyond 8 pass one
// exp(−8) trial each, the rest x = i/256 + f (f < 1/256) passes an
// exp(−i/256) trial from the table and an exp(−f) trial by Canonne, Kamath
// & Steinke (2020, Alg. 1), whose first step, a Bernoulli(f) trial, fails
// with probability above 1 − 2^-8 and then ends the trial.
func (b *bitSource) bernExpNeg(hi, lo, den uint64, t *expTable) bool {
	qhi, rhi := hi/den, hi%den
	q, r := bits.Div64(rhi, lo, den)
	// Peel whole units in steps of 8 while the quotient is 8 or more.
	for qhi > 0 || q >= expTabUnits {
		if !b.belowExp(t.e8, expArg{mul: expTabUnits, den: 1, num: 1}) {
			return false
		}
		if q < expTabUnits {
			qhi--
		}
		q -= expTabUnits
	}
	// x = q + r/den = i/256 + r2/(256·den).
	i, r2 := bits.Div64(r>>(64-expFracBits), r<<expFracBits, den)
	idx := q<<expFracBits + i
	if idx != 0 && !b.belowExp(t.w[idx], expArg{mul: idx, den: 1, num: 1 << expFracBits}) {
		return false
	}
	return b.bernExpNegSmall(r2, den)
}

// bernExpNegSmall returns true with probability exp(−f), f = r/(256·den)
// < 2^-8, by Canonne, Kamath & Steinke (2020, Alg. 1): K is the first k
// with a failed Bernoulli(f/k) trial, and the result is K odd. A
// Bernoulli(f/k) trial is the conjunction of independent Bernoulli(2^-8),
// Bernoulli(r/den) and Bernoulli(1/k) trials.
func (b *bitSource) bernExpNegSmall(r, den uint64) bool {
	k := uint64(1)
	for r != 0 && b.bernPow2(expFracBits) && b.bernRat(r, den) && b.bernRat(1, k) {
		k++
	}
	return k%2 == 1
}

// expNegWindow returns bounds pl ≤ exp(−n/den)·2^64 ≤ pu < 2^64 for the
// 128-bit n = hi·2^64 + lo > 0 and den > 0, with pu − pl below
// 2^-32·exp(−n/den)·2^64 + 12: with X = ⌊n·2^32/den⌋ < 2^38, the product
// of the chunk tables at the five base-256 digits of X gives
// exp(−X·2^-32)·2^64 within 10 units, and exp(−n/den) lies between that
// times exp(−2^-32) and it. For n/den ≥ 64 the bounds are [0, 1].
func expNegWindow(hi, lo, den uint64, t *expTable) (pl, pu uint64) {
	// n < 64·den ⇔ X < 2^38.
	dhi, dlo := den>>58, den<<6
	if !(hi < dhi || hi == dhi && lo < dlo) {
		return 0, 1
	}
	x, _ := bits.Div64(hi<<32|lo>>32, lo<<32, den)
	// exp(−X·2^-32)·2^64 ∈ [p, p + 10], so exp(−n/den)·2^64 ∈
	// [p·(1 − 2^-32), p + 10], and it is below 2^64 (n > 0).
	return t.window(x, 32)
}

// window returns [p − ⌊p/2^shift⌋ − 1, p + 10] (clamped to [0, 2^64 − 1])
// ⊇ [p·(1 − 2^-shift), p + 10], where p, the product of the chunk tables
// at the five base-256 digits of x < 2^38, satisfies
// exp(−x·2^-32)·2^64 ∈ [p, p + 10].
func (t *expTable) window(x uint64, shift uint) (pl, pu uint64) {
	p := t.sq[x&255]
	p, _ = bits.Mul64(p, t.sq[1<<8|x>>8&255])
	p, _ = bits.Mul64(p, t.sq[2<<8|x>>16&255])
	p, _ = bits.Mul64(p, t.sq[3<<8|x>>24&255])
	p, _ = bits.Mul64(p, t.sq[4<<8|x>>32&63])
	if c := p>>shift + 1; c <= p {
		pl = p - c
	}
	pu = p + 10
	if pu < p {
		pu = ^uint64(0)
	}
	return pl, pu
}

// bernExpNegSq returns true with probability exp(−d²/den) exactly (den >
// 0): one comparison with the window of expNegWindow decides unless the
// random bits fall in it (probability below 2^-32), when the first 64
// bits of exp(−d²/den) are computed exactly.
func (b *bitSource) bernExpNegSq(d, den uint64, t *expTable) bool {
	if d == 0 {
		return true
	}
	hi, lo := bits.Mul64(d, d)
	pl, pu := expNegWindow(hi, lo, den, t)
	less, ok := b.belowApprox(pl, pu-pl)
	if ok {
		return less
	}
	x := expArg{mul: d, den: d, num: den}
	return b.belowExp(expNegWord(x, 0), x)
}
