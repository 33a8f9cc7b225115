package mechanism

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// This file holds the exact samplers of the secure lattice releases: the
// geometric law P(Y = y) ∝ q^y, q = exp(−λ), λ = den/num, the discrete
// Laplace law built from it and the discrete Gaussian law of Canonne,
// Kamath & Steinke (2020, Alg. 3) built on that.
//
// With 2^m ≤ num/den < 2^(m+1) (m = 0 below 1), write Y = L + 2^m·H with
// L < 2^m. Since q^y factorises over the bits of y, L and H are
// independent: L has P(L = l) ∝ exp(−l·λ) on [0, 2^m), H is geometric
// with ratio ρ = exp(−2^m·λ) ≤ e^-1/2.
//
// With per-scale tables (the mechanisms' path), L is m uniform bits (drawn
// with the sign of the Laplace noise) accepted with probability
// exp(−l·λ) ≥ exp(−1): the product of the table entries
// exp(−d_j·2^(8j)·λ) of its base-256 digits d_j, each exact to its first
// 64 bits, gives exp(−l·λ)·2^64 within 2·levels units, and one comparison
// with the random bits decides unless they fall in that window
// (probability below 2^-59), where the first 64 bits of exp(−l·λ) are
// computed exactly. H is drawn by inversion, comparing the same random
// bits with the table of ρ^h. Every comparison is exact (expneg.go), so
// the law is the exact geometric law; a discrete Laplace draw of scale
// 2^24 reads about 46 random bits (a float64 noise draw reads 64).
//
// Without tables (the exported samplers, truncated draws), each base-256
// digit of L is drawn alone and accepted by an exact exp(−x) trial
// against the universal table of exp(−i/256), and H by successive exact
// exp(−2^m·λ) trials.

// maxLevels bounds the number of base-256 digits (m ≤ 63).
const maxLevels = 8

// maxTabled bounds the number of distinct scales per mechanism that get
// tables (up to 16 KiB each); further scales use the universal table.
const maxTabled = 16

// hBits is the resolution of the inversion table of H: it holds ρ^h
// while ρ^h ≥ 2^-hBits (and h ≤ maxHTab).
const (
	hBits   = 40
	maxHTab = 64
)

// geoLaw is the geometric law P(Y = y) ∝ exp(−y·den/num) on y ≥ 0 (num,
// den > 0), prepared for exact sampling.
type geoLaw struct {
	num, den uint64
	m        uint // 2^m ≤ num/den < 2^(m+1), or 0 when num/den < 1
	levels   int
	width    [maxLevels]uint
	hLimit   uint64 // H < hLimit keeps Y below maxNoise

	tabled bool
	ready  atomic.Bool // tables built
	once   sync.Once
	// tab[j<<8|d]: first 64 bits of exp(−d·2^(8j)·λ), and 2^64 − 1 for
	// d = 0 (1 rounded down).
	tab []uint64
	// hTab[h−1]: first 64 bits of ρ^h, h = 1 … hK.
	hTab []uint64
	hK   uint64
}

// newGeoLaw prepares the geometric law of ratio exp(−den/num); with
// tabled (and m < 52), the first sample computes the per-scale tables.
func newGeoLaw(num, den uint64, tabled bool) *geoLaw {
	g := &geoLaw{}
	g.init(num, den, tabled)
	return g
}

// init sets the digit layout.
func (g *geoLaw) init(num, den uint64, tabled bool) {
	g.num, g.den = num, den
	g.m = 0
	if den <= num {
		m := bits.Len64(num) - bits.Len64(den)
		if den<<uint(m) > num {
			m--
		}
		g.m = uint(m)
	}
	g.tabled = tabled && g.m < 52 // and the sign and L share one 64-bit peek
	g.levels = int(g.m+7) / 8
	for j := 0; j < g.levels; j++ {
		g.width[j] = min(8, g.m-uint(8*j))
	}
	g.hLimit = 1
	if g.m < 52 {
		g.hLimit = 1 << (52 - g.m)
	}
}

// tables returns whether g samples with per-scale tables, computing them
// on first use.
func (g *geoLaw) tables() bool {
	if g.tabled && !g.ready.Load() {
		g.once.Do(g.build)
	}
	return g.tabled
}

// geoTables are the per-scale tables of a geometric law.
type geoTables struct {
	tab, hTab []uint64
	hK        uint64
}

// geoCache holds the tables built so far, by scale.
var geoCache = newScaleCache[[2]uint64, *geoTables]()

// build fetches or computes the tables.
func (g *geoLaw) build() {
	t := geoCache.get([2]uint64{g.num, g.den}, g.compute)
	g.tab, g.hTab, g.hK = t.tab, t.hTab, t.hK
	g.ready.Store(true)
}

// compute computes the tables.
func (g *geoLaw) compute() *geoTables {
	tab := make([]uint64, g.levels<<8)
	for j := 0; j < g.levels; j++ {
		lv := tab[j<<8 : j<<8+1<<g.width[j]]
		expNegPowers(lv, expArg{mul: 1, den: g.den, num: g.num, sh: uint(8 * j)})
		lv[0] = ^uint64(0)
	}
	h := make([]uint64, maxHTab+1)
	expNegPowers(h, g.rho(1))
	// Keep ρ^h ≥ 2^-hBits, and at least ρ^1: consecutive entries then
	// differ by far more than one unit (ρ ≤ e^-1/2).
	k := 1
	for k < maxHTab && h[k+1] >= 1<<(64-hBits) {
		k++
	}
	return &geoTables{tab: tab, hTab: h[1 : k+1], hK: uint64(k)}
}

// rho returns the exponent of ρ^h: h·2^m·λ.
func (g *geoLaw) rho(h uint64) expArg {
	return expArg{mul: h, den: g.den, num: g.num, sh: g.m}
}

// laplace draws Z with P(Z = z) ∝ exp(−|z|·den/num) exactly: a sign and
// Y, redrawing the negative zero. Draws at or beyond 2^52 are redrawn
// (see maxNoise).
func (g *geoLaw) laplace(b *bitSource) int64 {
	if g.tables() {
		return g.laplaceTab(b)
	}
	return g.laplaceUniv(b, universalExp())
}

// laplaceTab is laplace with the per-scale tables (built).
func (g *geoLaw) laplaceTab(b *bitSource) int64 {
	m := g.m
	for {
		// The sign bit and L, accepted with probability exp(−L·λ).
		var sign, l uint64
		for {
			v := b.take(m + 1)
			sign, l = v>>m, v&(1<<m-1)
			if l == 0 || g.acceptL(b, l) {
				break
			}
		}
		y := l | g.sampleH(b)<<m
		if sign == 0 {
			return int64(y)
		}
		if y != 0 {
			return -int64(y)
		}
	}
}

// acceptL returns true with probability exp(−l·λ) exactly.
func (g *geoLaw) acceptL(b *bitSource, l uint64) bool {
	p := g.tab[l&255]
	for j := 1; j < g.levels; j++ {
		p, _ = bits.Mul64(p, g.tab[j<<8|int(l>>(8*uint(j))&255)])
	}
	// exp(−l·λ)·2^64 ∈ [p, p + 2·levels].
	less, ok := b.belowApprox(p, uint64(2*g.levels))
	if ok {
		return less
	}
	x := expArg{mul: l, den: g.den, num: g.num}
	return b.belowExp(expNegWord(x, 0), x)
}

// sampleH draws H conditioned below hLimit (a redraw beyond it, an event
// of probability below exp(−2^50)).
func (g *geoLaw) sampleH(b *bitSource) uint64 {
	for {
		if h := g.drawH(b); h < g.hLimit {
			return h
		}
	}
}

// drawH draws H, P(H = h) ∝ ρ^h, by inversion: H = h for U in
// [ρ^(h+1), ρ^h), comparing the random bits with the table of ρ^h and
// consuming the bits up to the later of the first ones that decide the
// two comparisons. U < ρ^hK (beyond the table) adds hK to H and continues
// with fresh bits (H is memoryless).
func (g *geoLaw) drawH(b *bitSource) uint64 {
	base := uint64(0)
	for {
		w := b.peek()
		h := uint64(0)
		for h < g.hK && w < g.hTab[h] { // hTab[h]: ρ^(h+1)
			h++
		}
		if h == g.hK {
			b.skip(uint(bits.LeadingZeros64(w^g.hTab[h-1])) + 1)
			base += h
			continue
		}
		if w == g.hTab[h] {
			// The first 64 bits are those of ρ^(h+1): compare further.
			// ρ^(h+2) (if tabled) lies below these 64 bits, ρ^h above.
			b.skip(64)
			if b.belowExpDeep(g.rho(h + 1)) {
				if h++; h == g.hK {
					base += h
					continue
				}
			}
			return base + h
		}
		k := bits.LeadingZeros64(w ^ g.hTab[h])
		if h > 0 {
			k = max(k, bits.LeadingZeros64(w^g.hTab[h-1]))
		}
		b.skip(uint(k) + 1)
		return base + h
	}
}

// laplaceUniv is laplace with the universal table.
func (g *geoLaw) laplaceUniv(b *bitSource, t *expTable) int64 {
	for {
		neg := b.take(1) == 1
		y := g.sampleUniv(b, t)
		if !neg {
			return int64(y)
		}
		if y != 0 {
			return -int64(y)
		}
	}
}

// sampleUniv draws Y with the universal table: each base-256 digit of L by
// its own accepted proposal (the exponent d·2^(8j)·den/num < 1 of each
// trial has a numerator below num), H by successive trials. Draws at or
// beyond 2^52 are redrawn (see maxNoise).
func (g *geoLaw) sampleUniv(b *bitSource, t *expTable) uint64 {
	for {
		var y uint64
		for j := 0; j < g.levels; j++ {
			w := g.width[j]
			for {
				d := b.take(w)
				hi, lo := bits.Mul64(d<<uint(8*j), g.den)
				if d == 0 || b.bernExpNeg(hi, lo, g.num, t) {
					y |= d << uint(8*j)
					break
				}
			}
		}
		h := uint64(0)
		hhi, hlo := bits.Mul64(uint64(1)<<g.m, g.den)
		for b.bernExpNeg(hhi, hlo, g.num, t) {
			if h++; h == g.hLimit {
				h = 0
			}
		}
		if y |= h << g.m; y < maxNoise {
			return y
		}
	}
}

// sampleBits draws one exact N_Z(0, S) variate from b.
func (g dgauss) sampleBits(b *bitSource) int64 {
	return g.lazy.get().sample(b, universalExp())
}
