package mechanism

import (
	"math"
	"math/big"
	"math/bits"
	"sync"
)

// This file holds the exact sampler of the discrete Gaussian N_Z(0, S),
// P(Y = y) ∝ exp(−y²/(2S)), used by the secure Gaussian releases.
//
// Y = ±V with V ≥ 0 drawn from P(V = v) ∝ exp(−v²/(2S)) and a fair sign,
// the negative zero redrawn. V is drawn by rejection from a proposal made
// of strips: strip i < K covers [i·w, (i+1)·w), w = 2^k about σ/8 to σ/16,
// and strip K the tail v ≥ K·w ≥ 7σ. A strip is chosen with probability
// W_i/2^62 for integer weights W_i ≥ c·e_i, e_i = exp(−(iw)²/(2S)) the
// largest value of the target in the strip (c a constant), by comparing
// the random bits with the cumulative weights; v is uniform in the strip
// and is accepted with probability
//
//	c·exp(−v²/(2S))/W_i = r_i·exp(−(v − iw)(v + iw)/(2S)), r_i = c·e_i/W_i ≤ 1,
//
// in one exact comparison (the first 64 bits of r_i are tabled, the
// exponential comes from the chunk tables within a window of relative
// width 2^-31, and the rare comparison inside the window computes the
// first 64 bits of c·exp(−v²/(2S))/W_i exactly). In the tail, v = K·w + G
// with G geometric of ratio exp(−K·w/S), accepted with probability
// r_K·exp(−G²/(2S)), r_K = c·e_K/(w·W_K·(1 − exp(−K·w/S))), both exact
// trials; W_K ≥ c·e_K/(w·(1 − exp(−K·w/S))) makes the proposal dominate
// the target there as well. Every accepted v therefore has probability
// proportional to c·exp(−v²/(2S))/2^62: the law is exactly the discrete
// Gaussian (draws at or beyond 2^52 are redrawn, see maxNoise).
//
// The acceptance rate is about 0.95, and a draw reads about
// log2(K) + k + 5 random bits (37 at σ = 2^29.2) instead of about 70 for
// discrete Laplace proposals (Canonne, Kamath & Steinke 2020, Alg. 3).

// stripBits is N: the strip weights sum to 2^N.
const stripBits = 62

// maxCached bounds the number of scales whose tables the process keeps
// (strip samplers and geometric tables each): mechanisms with the same
// scale, such as one built per release, share them.
const maxCached = 64

// stripCache holds the strip samplers built so far, by S.
var stripCache = newScaleCache[uint64, *gaussStrips]()

// scaleCache is a bounded map from a scale to its immutable tables,
// evicting the oldest entry when full. It is consulted once per
// mechanism (the mechanism keeps the pointer).
type scaleCache[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]V
	order []K
}

func newScaleCache[K comparable, V any]() *scaleCache[K, V] {
	return &scaleCache[K, V]{m: make(map[K]V)}
}

// get returns the tables of key, building them with build if absent (the
// build runs outside the lock; concurrent builds of one key agree).
func (c *scaleCache[K, V]) get(key K, build func() V) V {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = build()
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[key]; ok {
		return old
	}
	if len(c.order) >= maxCached {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.m[key] = v
	c.order = append(c.order, key)
	return v
}

// gaussStrips is the strip sampler of N_Z(0, S).
type gaussStrips struct {
	s2       uint64   // 2S
	k        uint     // strip width w = 2^k
	n        int      // K: flat strips 0 … K−1, tail strip K
	bound    []uint64 // bound[i] = (W_0 + … + W_(i−1))·2^(64−N), i ≤ K
	guide    [256]uint16
	r        []uint64 // first 64 bits of r_i, i < K
	w        []uint64 // W_i, i ≤ K
	c        uint64
	tailR    uint64 // first 64 bits of r_K, computed on the first tail draw
	tailOnce sync.Once
	tail     geoLaw // G: ratio exp(−K·w/S)
	bigS     uint64 // S
	// The reciprocal of 2S for window: inv = ⌊(2^(63+ℓ) − 1)/(2S)⌋,
	// ℓ = bit length of 2S, and n64 = min(64·2S, 2^64 − 1).
	inv, n64 uint64
	invSh    uint
}

// newGaussStrips prepares the sampler of N_Z(0, S) (2^20 ≤ S < 2^62) with
// strips of width 2^k covering [0, K·2^k), K·2^k ≥ 7·√S unless cover > 0
// sets K·2^k ≥ cover·√S (tests use a narrow cover to reach the tail). At
// 7σ the last strip's e_i is above 2^-36, so its weight is above 2^22 and
// r_i follows from the 128-bit bounds of e_i; the tail strip is drawn with
// probability below 10^-10.
func newGaussStrips(s uint64, cover float64) *gaussStrips {
	sigma := math.Sqrt(float64(s))
	k := uint(floorLog2(sigma) - 3)
	w := uint64(1) << k
	if cover <= 0 {
		cover = 7
	}
	n := int(math.Ceil(cover * sigma / float64(w)))
	g := &gaussStrips{s2: 2 * s, k: k, n: n, bigS: s}
	l := uint(bits.Len64(g.s2))
	g.inv, _ = bits.Div64(1<<(l-1)-1, ^uint64(0), g.s2)
	g.invSh = 31 + l
	g.n64 = ^uint64(0)
	if g.s2 < 1<<58 {
		g.n64 = 64 * g.s2
	}
	// e_i = exp(−i²·μ), μ = w²/(2S), as 128-bit lower bounds ẽ_i with
	// e_i − ẽ_i ≤ (i+2)²·2^-128: e_i = e_(i−1)·f_i, f_i = exp(−(2i−1)μ) =
	// f_(i−1)·exp(−2μ), all truncating (see expNegPowers for the bound
	// per multiplication).
	mu := expArg{mul: w, den: w, num: 2 * s}
	mu2 := expArg{mul: w, den: w, num: s}
	em, em2 := expNegFix(mu), expNegFix(mu2)
	e := make([]fix128, n+1)
	f := em
	for i := 1; i <= n; i++ {
		if i == 1 {
			e[i] = em
		} else {
			f = f.mul(em2)
			e[i] = e[i-1].mul(f)
		}
	}
	// Upper bounds of c·e_i and of the tail mass c·e_K/(w(1 − ρ)),
	// ρ = exp(−K·w/S), choose c so that they sum to at most
	// 2^N·(1 − 2^-20); the rest pads strip 0 (which then has W_0 > c).
	two128 := new(big.Int).Lsh(big.NewInt(1), 128)
	eUp := make([]*big.Int, n) // (ẽ_i + (i+2)²) as an integer over 2^128
	total := 1.0
	for i := 1; i < n; i++ {
		v := new(big.Int).SetUint64(e[i].hi)
		v.Lsh(v, 64)
		v.Add(v, new(big.Int).SetUint64(e[i].lo))
		v.Add(v, big.NewInt(int64((i+2)*(i+2))))
		eUp[i] = v
		total += math.Ldexp(float64(e[i].hi)+1, -64) // ≥ e_i, up to rounding
	}
	// The tail mass: e_K ≤ (ẽ_K + (K+2)²)/2^128 and, with x = a/S, a = K·w,
	// 1 − ρ = 1 − e^-x ≥ x(1 − x/2) = a(2S − a)/(2S²), so
	// e_K/(w(1 − ρ)) ≤ (ẽ_K + (K+2)²)·2S²/(2^128·w·a·(2S − a)).
	a := uint64(n) << k
	tailNum := new(big.Int).SetUint64(e[n].hi)
	tailNum.Lsh(tailNum, 64)
	tailNum.Add(tailNum, new(big.Int).SetUint64(e[n].lo))
	tailNum.Add(tailNum, big.NewInt(int64((n+2)*(n+2))))
	bs := new(big.Int).SetUint64(s)
	tailNum.Mul(tailNum, bs)
	tailNum.Mul(tailNum, bs)
	tailNum.Lsh(tailNum, 1)
	tailDen := new(big.Int).Lsh(new(big.Int).SetUint64(w), 128)
	tailDen.Mul(tailDen, new(big.Int).SetUint64(a))
	tailDen.Mul(tailDen, new(big.Int).SetUint64(2*s-a))
	total += math.Ldexp(float64(e[n].hi)+1, -64) / (float64(w) * float64(a) * float64(2*s-a) / (2 * float64(s) * float64(s)))
	c := uint64(math.Ldexp(1-0x1p-20, stripBits) / total / (1 + 0x1p-30))
	for {
		g.c = c
		g.w = make([]uint64, n+1)
		sum := new(big.Int)
		bc := new(big.Int).SetUint64(c)
		for i := 1; i < n; i++ {
			v := new(big.Int).Mul(bc, eUp[i])
			v.Add(v, new(big.Int).Sub(two128, big.NewInt(1)))
			v.Rsh(v, 128) // ⌈c·ẽ_i^+⌉
			g.w[i] = v.Uint64()
			sum.Add(sum, v)
		}
		tw := new(big.Int).Mul(tailNum, bc)
		tw.Quo(tw, tailDen)
		tw.Add(tw, big.NewInt(1)) // > c·e_K/(w(1 − ρ))
		g.w[n] = tw.Uint64()
		sum.Add(sum, tw)
		sum.Add(sum, bc) // W_0 ≥ c
		limit := new(big.Int).Lsh(big.NewInt(1), stripBits)
		if sum.Cmp(limit) < 0 {
			g.w[0] = c + new(big.Int).Sub(limit, sum).Uint64()
			break
		}
		c -= c >> 20 // cannot happen with the margin above; stay safe
	}
	// Cumulative bounds and the guide table.
	g.bound = make([]uint64, n+1)
	acc := uint64(0)
	for i := 0; i <= n; i++ {
		g.bound[i] = acc << (64 - stripBits)
		acc += g.w[i]
	}
	j := 0
	for t := range g.guide {
		for j < n && g.bound[j+1] <= uint64(t)<<56 {
			j++
		}
		g.guide[t] = uint16(j)
	}
	// r_i = c·e_i/W_i: exact when the bounds of ẽ_i agree on the first
	// 64 bits of the quotient, else computed in big arithmetic.
	g.r = make([]uint64, n)
	g.r[0] = expNegScaledWord(expArg{den: 1, num: 1}, c, g.w[0], 0)
	for i := 1; i < n; i++ {
		lo := new(big.Int).SetUint64(e[i].hi)
		lo.Lsh(lo, 64)
		lo.Add(lo, new(big.Int).SetUint64(e[i].lo))
		lo.Mul(lo, new(big.Int).SetUint64(c))
		hi := new(big.Int).Mul(eUp[i], new(big.Int).SetUint64(c))
		d := new(big.Int).SetUint64(g.w[i])
		d.Lsh(d, 64)
		lo.Quo(lo, d)
		hi.Quo(hi, d)
		if lo.Cmp(hi) == 0 {
			g.r[i] = lo.Uint64()
		} else {
			g.r[i] = expNegScaledWord(g.stripArg(uint64(i)<<k), c, g.w[i], 0)
		}
	}
	g.tail.init(s, a, false)
	return g
}

// stripArg returns the exponent v²/(2S).
func (g *gaussStrips) stripArg(v uint64) expArg {
	return expArg{mul: v, den: v, num: g.s2}
}

// tailWord returns bits [64k, 64k+64) of r_K = c·e_K/(w·W_K·(1 − ρ)),
// e_K = exp(−a²/(2S)), ρ = exp(−a/S), a = K·w, from bounds of e_K and ρ
// refined until the floors of the bounds of r_K·2^(64(k+1)) agree (r_K
// is irrational).
func (g *gaussStrips) tailWord(k int) uint64 {
	a := uint64(g.n) << g.k
	ta, tb := expArg{mul: a, den: a, num: g.s2}.rat()
	ra, rb := expArg{mul: a, den: 1, num: g.bigS}.rat()
	p := uint(64 * (k + 1))
	c := new(big.Int).SetUint64(g.c)
	div := new(big.Int).SetUint64(g.w[g.n])
	div.Lsh(div, g.k)
	for q := p + 64; ; q += 64 {
		eLo, eHi := expNegBounds(ta, tb, q)
		rLo, rHi := expNegBounds(ra, rb, q)
		one := new(big.Int).Lsh(big.NewInt(1), q)
		// r_K·2^p ∈ [c·eLo·2^p/(w·W_K·(2^q − rLo)), c·eHi·2^p/(w·W_K·(2^q − rHi))].
		lo := new(big.Int).Mul(eLo, c)
		lo.Lsh(lo, p)
		dl := new(big.Int).Sub(one, rLo)
		lo.Quo(lo, dl.Mul(dl, div))
		hi := new(big.Int).Mul(eHi, c)
		hi.Lsh(hi, p)
		dh := new(big.Int).Sub(one, rHi)
		hi.Quo(hi, dh.Mul(dh, div))
		if lo.Cmp(hi) == 0 {
			return low64(lo)
		}
	}
}

// belowTail reports whether U < r_K exactly.
func (b *bitSource) belowTail(g *gaussStrips) bool {
	g.tailOnce.Do(func() { g.tailR = g.tailWord(0) })
	less, ok := b.below(g.tailR)
	for k := 1; !ok; k++ {
		less, ok = b.below(g.tailWord(k))
	}
	return less
}

// sample draws one exact N_Z(0, S) variate from b.
func (g *gaussStrips) sample(b *bitSource, t *expTable) int64 {
	for {
		// The strip: bound[i] ≤ U < bound[i+1] on the first N bits.
		u := b.peek()
		i := int(g.guide[u>>56])
		for i < g.n && u >= g.bound[i+1] {
			i++
		}
		used := 0
		if i > 0 {
			used = min(bits.LeadingZeros64(u^g.bound[i])+1, stripBits)
		}
		if i < g.n {
			used = max(used, bits.LeadingZeros64(u^g.bound[i+1])+1)
		}
		b.skip(uint(used))
		if i == g.n {
			if v, ok := g.sampleTail(b, t); ok {
				return v
			}
			continue
		}
		// The sign and the position in the strip.
		sv := b.take(g.k + 1)
		sign := sv >> g.k
		lo := uint64(i) << g.k
		v := lo | sv&(1<<g.k-1)
		if sign == 1 && v == 0 {
			continue
		}
		if g.accept(b, i, v, t) {
			if sign == 1 {
				return -int64(v)
			}
			return int64(v)
		}
	}
}

// accept returns true with probability r_i·exp(−(v − iw)(v + iw)/(2S)) =
// c·exp(−v²/(2S))/W_i exactly, for v in strip i < K.
func (g *gaussStrips) accept(b *bitSource, i int, v uint64, t *expTable) bool {
	lo := uint64(i) << g.k
	nh, nl := bits.Mul64(v-lo, v+lo)
	// With r_i·2^64 ∈ [R, R+1) and the exponential's ·2^64 in
	// [pl, pu + 1], the product's first 64 bits lie in
	// [⌊R·pl/2^64⌋, ⌊R·pu/2^64⌋ + 2].
	pl, pu := ^uint64(0), ^uint64(0) // exp(0)·2^64 = pu + 1
	if nh == 0 && nl != 0 && nl < g.n64 {
		pl, pu = g.window(nl, t)
	} else if nh != 0 || nl != 0 {
		pl, pu = expNegWindow(nh, nl, g.s2, t)
	}
	r := g.r[i]
	a, _ := bits.Mul64(r, pl)
	up, _ := bits.Mul64(r, pu)
	if up += 2; up < 2 {
		up = ^uint64(0)
	}
	less, ok := b.belowApprox(a, up-a)
	if !ok {
		x := g.stripArg(v)
		less = b.belowScaledExp(expNegScaledWord(x, g.c, g.w[i], 0), x, g.c, g.w[i])
	}
	return less
}

// window is expNegWindow for a 64-bit numerator 0 < n < 64·2S, with the
// quotient X = ⌊n·2^32/(2S)⌋ replaced by X' = ⌊n·inv/2^(31+ℓ)⌋: since
// 2^(63+ℓ)/(2S) − inv ≤ 2 and n < 2^(6+ℓ), X' ∈ {X − 1, X}, so
// exp(−X'·2^-32) lies between exp(−n/(2S)) and exp(−n/(2S))·exp(2^-31);
// the lower bound carries the extra factor 1 − 2^-31.
func (g *gaussStrips) window(n uint64, t *expTable) (pl, pu uint64) {
	hi, lo := bits.Mul64(n, g.inv)
	var x uint64
	if g.invSh >= 64 {
		x = hi >> (g.invSh - 64)
	} else {
		x = hi<<(64-g.invSh) | lo>>g.invSh
	}
	// exp(−X'·2^-32)·2^64 ∈ [p, p + 10], so exp(−n/(2S))·2^64 ∈
	// [p·(1 − 2^-31), p + 10], below 2^64.
	return t.window(x, 31)
}

// sampleTail draws from the tail strip: v = K·w + G accepted with
// probability r_K·exp(−G²/(2S)); ok is false on rejection.
func (g *gaussStrips) sampleTail(b *bitSource, t *expTable) (int64, bool) {
	a := uint64(g.n) << g.k
	neg := b.take(1) == 1
	gg := g.tail.sampleUniv(b, t)
	v := a + gg
	if v >= maxNoise || !b.belowTail(g) || !b.bernExpNegSq(gg, g.s2, t) {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// belowScaledExp reports whether U < exp(−x)·cn/cd, given a = its first
// 64 bits.
func (b *bitSource) belowScaledExp(a uint64, x expArg, cn, cd uint64) bool {
	less, ok := b.below(a)
	for k := 1; !ok; k++ {
		less, ok = b.below(expNegScaledWord(x, cn, cd, k))
	}
	return less
}
