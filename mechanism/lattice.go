package mechanism

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// This file holds the lattice machinery shared by the secure releases of
// Laplace, Gaussian and Bounded: the choice of a power-of-two grid, exact
// rational noise scales, the *rand.Rand entry points of the exact samplers
// (geometric.go, gaussstrip.go), truncated draws and the pool of
// operating-system generators that the other mechanisms' Release draws
// from (the lattice releases draw operating-system bits, entropy.go).

// osRands caches generators backed by the operating system's secure
// generator (CryptoSource), so that a Release does not allocate one per
// call. It holds no seed and no state that results could depend on: every
// value it yields is fresh operating-system entropy.
var osRands = sync.Pool{New: func() any { return NewCryptoRand() }}

// withOSRand runs f with a generator drawing from the operating system.
func withOSRand(f func(r *rand.Rand) error) error {
	r := osRands.Get().(*rand.Rand)
	err := f(r)
	osRands.Put(r)
	return err
}

// maxGridIndex bounds |s/γ|: below 2^52 every grid index and every sum of
// an index and a noise draw below 2^52 is an exactly representable
// integer, so every release is an exact multiple of γ.
const maxGridIndex = 1 << 52

// gridIndex returns round(x·2^-gridExp) and whether it is below 2^52 in
// magnitude (false also for NaN and ±Inf).
func gridIndex(x float64, gridExp int) (float64, bool) {
	k := latticeIndex(x, gridExp)
	return k, math.Abs(k) < maxGridIndex
}

// latticeIndex returns math.Round(math.Ldexp(x, −gridExp)), the grid
// index of x rounded half away from zero, bit for bit (signed zeros,
// NaN and ±Inf included): ldexp gives the same rounded index as
// math.Ldexp, and roundHalfAway the same integer as math.Round.
func latticeIndex(x float64, gridExp int) float64 {
	return roundHalfAway(ldexp(x, -gridExp))
}

// latticeUnit returns 2^{−gridExp} when it is a normal float64, so that
// x·latticeUnit(gridExp) is ldexp(x, −gridExp), and 0 otherwise.
func latticeUnit(gridExp int) float64 {
	if uint(-gridExp+1022) > 2045 {
		return 0
	}
	return math.Float64frombits(uint64(-gridExp+1023) << 52)
}

// roundHalfAway is math.Round computed from the hardware's truncation:
// the fraction x − Trunc(x) is exact (it is x itself for |x| < 1, and
// Trunc(x) ≤ |x| < Trunc(x) + 1 ≤ 2·Trunc(x) in magnitude beyond), so
// comparing it with ½ decides the rounding exactly; t keeps the sign of x
// (−0 for x ∈ (−½, 0]); an integer, ±Inf or NaN is returned unchanged.
func roundHalfAway(x float64) float64 {
	t := math.Trunc(x)
	if math.Abs(x-t) >= 0.5 {
		t += math.Copysign(1, x)
	}
	return t
}

// ldexp returns math.Ldexp(x, e). When 2^e is a normal float64 it
// multiplies by it: the product is then exact, or overflows to ±Inf, or
// (for |x·2^e| < 2^-1022) rounds within the subnormal range, which for the
// grid index (rounded to an integer) and the lattice value (an integer
// times 2^e, e ≥ −1022) gives the same results as math.Ldexp.
func ldexp(x float64, e int) float64 {
	if uint(e+1022) > 2045 {
		return slowLdexp(x, e)
	}
	return x * math.Float64frombits(uint64(e+1023)<<52)
}

// slowLdexp is math.Ldexp, kept out of line to keep ldexp's fast path
// small.
//
//go:noinline
func slowLdexp(x float64, e int) float64 { return math.Ldexp(x, e) }

// checkGrid validates a release statistic against the lattice: finite and
// |s_i/γ_i| < 2^52 for every coordinate. gridExp(i) gives the exponent of
// coordinate i.
func checkGrid(s []float64, gridExp func(i int) int) error {
	for i, v := range s {
		if _, ok := gridIndex(v, gridExp(i)); !ok {
			return fmt.Errorf("%w: statistic entry %d = %v is too large for the release grid 2^%d (|s/grid| must be < 2^52)", ErrInvalid, i, v, gridExp(i))
		}
	}
	return nil
}

// latticeValue returns γ·(k + z), exact while |k|, |z| < 2^52.
func latticeValue(k float64, z int64, gridExp int) float64 {
	return ldexp(k+float64(z), gridExp)
}

// floorLog2 returns ⌊log2 x⌋ for finite x > 0.
func floorLog2(x float64) int {
	_, e := math.Frexp(x) // x = f·2^e, f ∈ [½, 1)
	return e - 1
}

// ratScale is a positive rational noise scale num/den in grid units, with
// num < 2^42 and den a power of two, so that the discrete Laplace sampler
// works in 64-bit integers.
type ratScale struct {
	num, den uint64
}

// value returns num/den as a float64.
func (t ratScale) value() float64 { return float64(t.num) / float64(t.den) }

// ratAtLeast returns the rational num/2^j ≥ x (x > 0) with
// num ∈ [2^40, 2^41) when that needs j ≥ 0, and a whole number otherwise:
// the returned scale is never below x, so rounding can only add noise.
// It fails if x > 2^41 or x < 2^-20.
func ratAtLeast(x *big.Rat) (ratScale, error) {
	xf, _ := x.Float64()
	if !(xf >= 0x1p-20) || xf > 0x1p41 {
		return ratScale{}, invalidf("noise scale %v grid units is outside [2^-20, 2^41]; choose a different grid", xf)
	}
	j := 40 - floorLog2(xf)
	if j < 0 {
		j = 0
	}
	// num = ⌈x·2^j⌉.
	v := new(big.Rat).Mul(x, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(j))))
	n := new(big.Int).Quo(v.Num(), v.Denom())
	if new(big.Rat).SetInt(n).Cmp(v) < 0 {
		n.Add(n, big.NewInt(1))
	}
	num := n.Uint64()
	den := uint64(1) << uint(j)
	for num%2 == 0 && den > 1 {
		num, den = num/2, den/2
	}
	return ratScale{num: num, den: den}, nil
}

// bernoulliExpNeg returns true with probability exp(−num/den) exactly,
// drawing the bits of its exact trial (see bitSource.bernExpNeg) from r.
func bernoulliExpNeg(r *rand.Rand, num, den uint64) bool {
	var ok bool
	_ = withSeededBits(r, func(b *bitSource) error {
		ok = b.bernExpNeg(0, num, den, universalExp())
		return nil
	})
	return ok
}

// maxNoise bounds |Z|: draws with |Z| ≥ 2^52 are redrawn, so that
// γ·(k + Z) stays exact. For the scales used here (at most 2^41 grid
// units for the Laplace noise, 2^31 for the Gaussian) such a draw has
// probability below exp(−2048); the truncation is the only departure
// from the exact discrete laws.
const maxNoise = 1 << 52

// sampleDiscreteLaplace draws Z with P(Z = z) ∝ exp(−|z|·den/num), i.e.
// scale t = num/den, exactly, drawing the bits of its trials from r.
func sampleDiscreteLaplace(r *rand.Rand, num, den uint64) int64 {
	var z int64
	_ = withSeededBits(r, func(b *bitSource) error {
		var g geoLaw
		g.init(num, den, false)
		z = g.laplaceUniv(b, universalExp())
		return nil
	})
	return z
}

// errTruncMiss reports a truncated draw whose box is too improbable for
// rejection sampling.
var errTruncMiss = fmt.Errorf("%w: truncation box too improbable to sample", ErrInvalid)

// maxTruncTries bounds the rejection loops of truncated draws.
const maxTruncTries = 1 << 22

// sampleTruncated draws Z from the discrete law (Laplace with scale
// num/den when g is nil, else the discrete Gaussian g) conditioned on
// [a, b], exactly, by one of three rejection samplers chosen by the width
// of the box relative to the law's local scale ℓ (t for the Laplace law;
// √S, or S/a beyond one standard deviation, for the Gaussian):
//
//   - a box narrower than 4ℓ: a uniform lattice point of the box,
//     accepted with probability p(z)/max_box p (at least e^-8);
//   - a box in one tail: the memoryless geometric law from the box edge
//     (Laplace) or a geometric proposal of scale S/a accepted with
//     probability exp(−(z−a)²/(2S)) (Gaussian), cut at the far edge;
//   - a box straddling 0 and wider than 4ℓ: the full law, cut to the box.
//
// Each accepts with probability bounded away from zero; after 2^22
// misses it returns errTruncMiss (an astronomically unlikely event).
func sampleTruncated(bs *bitSource, num, den uint64, g *dgauss, a, b int64) (int64, error) {
	if a > b {
		return 0, errTruncMiss
	}
	if b < 0 {
		z, err := sampleTruncated(bs, num, den, g, -b, -a)
		return -z, err
	}
	et := universalExp()
	width := float64(b - a)
	var local float64
	var lap geoLaw // the Laplace law, or the Gaussian's geometric proposal
	switch {
	case g == nil:
		local = float64(num) / float64(den)
		lap.init(num, den, false)
	case a > 0 && float64(a)*float64(a) >= float64(g.s):
		local = float64(g.s) / float64(a)
		// Proposal ∝ exp(−a·w/S); target/proposal ∝ exp(−w²/(2S)).
		lap.init(g.s, uint64(a), false)
	default:
		local = math.Sqrt(float64(g.s))
		if a > 0 {
			lap.init(g.s, uint64(a), false)
		}
	}
	for try := 0; try < maxTruncTries; try++ {
		var z int64
		switch {
		case width <= 4*local:
			// Uniform proposal over the box; the target's maximum on the
			// box is at a (a ≥ 0) or at 0 (a < 0 ≤ b).
			z = a + int64(uniformBelow(bs, uint64(b-a)+1))
			ref := uint64(0)
			if a > 0 {
				ref = uint64(a)
			}
			az := uint64(z)
			if z < 0 {
				az = uint64(-z)
			}
			var hi, lo, d uint64
			if g == nil {
				// exp(−(|z| − ref)/t) = exp(−(|z| − ref)·den/num).
				hi, lo = bits.Mul64(az-ref, den)
				d = num
			} else {
				// exp(−(z² − ref²)/(2S)), z² − ref² = (|z|−ref)(|z|+ref).
				hi, lo = bits.Mul64(az-ref, az+ref)
				d = 2 * g.s
			}
			if !bs.bernExpNeg(hi, lo, d, et) {
				continue
			}
		case a > 0:
			w := lap.sampleUniv(bs, et)
			if g != nil {
				hi, lo := bits.Mul64(w, w)
				if !bs.bernExpNeg(hi, lo, 2*g.s, et) {
					continue
				}
			}
			if w > uint64(b-a) {
				continue
			}
			z = a + int64(w)
		default:
			if g == nil {
				z = lap.laplaceUniv(bs, et)
			} else {
				z = g.sampleBits(bs)
			}
			if z < a || z > b {
				continue
			}
		}
		return z, nil
	}
	return 0, errTruncMiss
}

// uniformBelow returns a uniform integer in [0, n) (n > 0) exactly:
// rejection from the smallest power of two at least n.
func uniformBelow(b *bitSource, n uint64) uint64 {
	if n == 1 {
		return 0
	}
	k := uint(bits.Len64(n - 1))
	for {
		if v := b.take(k); v < n {
			return v
		}
	}
}

// dgauss holds the parameters of a discrete Gaussian N_Z(0, σ²) with
// σ² = S = m·t an integer (grid units), sampled exactly by the strip
// sampler (gaussstrip.go), whose tables are computed on the first draw.
type dgauss struct {
	t, m, s uint64
	lazy    *lazyStrips
}

// lazyStrips builds the strip sampler of N_Z(0, S) on first use.
type lazyStrips struct {
	s     uint64
	ready atomic.Pointer[gaussStrips]
	once  sync.Once
}

// get returns the strip sampler.
func (l *lazyStrips) get() *gaussStrips {
	if st := l.ready.Load(); st != nil {
		return st
	}
	l.once.Do(func() {
		l.ready.Store(stripCache.get(l.s, func() *gaussStrips { return newGaussStrips(l.s, 0) }))
	})
	return l.ready.Load()
}

// newDGauss returns the discrete Gaussian whose variance is the smallest
// multiple of t = ⌊σ⌋ + 1 that is at least σ² (σ in grid units,
// 2^10 ≤ σ ≤ 2^30).
func newDGauss(sigma float64) (dgauss, error) {
	if !(sigma >= 0x1p10) || sigma > 0x1p30 {
		return dgauss{}, invalidf("discrete Gaussian sigma %v grid units is outside [2^10, 2^30]", sigma)
	}
	t := uint64(math.Floor(sigma)) + 1
	m := ceilSquareOver(sigma, t)
	return dgauss{t: t, m: m, s: m * t, lazy: &lazyStrips{s: m * t}}, nil
}

// ceilSquareOver returns ⌈σ²/t⌉ exactly for σ ∈ [2^10, 2^30] and
// 0 < t ≤ 2^31, in 128-bit integer arithmetic: with σ = M·2^-j (M the
// 53-bit significand, j = 53 − exponent ∈ [22, 42]), σ²/t = M²/(t·2^{2j})
// and ⌈M²/(t·2^{2j})⌉ = ⌈⌈M²/t⌉/2^{2j}⌉.
func ceilSquareOver(sigma float64, t uint64) uint64 {
	fr, exp := math.Frexp(sigma) // σ = fr·2^exp, fr ∈ [½, 1)
	mant := uint64(math.Ldexp(fr, 53))
	k := uint(2 * (53 - exp)) // σ² = M²/2^k, k ∈ [44, 84]
	hi, lo := bits.Mul64(mant, mant)
	// q = ⌈M²/t⌉ = q1·2^64 + q0.
	q1, r := hi/t, hi%t
	q0, r0 := bits.Div64(r, lo, t)
	if r0 != 0 {
		q0++
		if q0 == 0 {
			q1++
		}
	}
	// ⌈q/2^k⌉ = ⌈σ²/t⌉ ≤ 2^60 fits in 64 bits.
	var m uint64
	var rest bool
	if k >= 64 {
		m = q1 >> (k - 64)
		rest = q0 != 0 || q1&(1<<(k-64)-1) != 0
	} else {
		m = q1<<(64-k) | q0>>k
		rest = q0&(1<<k-1) != 0
	}
	if rest {
		m++
	}
	return m
}

// sigma returns √S.
func (g dgauss) sigma() float64 { return math.Sqrt(float64(g.s)) }

// sample draws one exact N_Z(0, S) variate, drawing the bits of its
// trials from r.
func (g dgauss) sample(r *rand.Rand) int64 {
	var z int64
	_ = withSeededBits(r, func(b *bitSource) error {
		z = g.sampleBits(b)
		return nil
	})
	return z
}
