package variate

import (
	"math"
	"math/rand/v2"
)

// sferr[n] is stirlerr(n) = log(n!) − log(sqrt(2πn)·(n/e)^n) for n = 1..15,
// computed with mpmath at 40 digits (sferr[0] is a placeholder; stirlerr(0)
// is never used).
var sferr = [16]float64{
	0,
	0.08106146679532725822,
	0.041340695955409294094,
	0.027677925684998339149,
	0.020790672103765093112,
	0.016644691189821192163,
	0.013876128823070747999,
	0.011896709945891770095,
	0.010411265261972096497,
	0.0092554621827127329177,
	0.0083305634333628712565,
	0.007573675487951840795,
	0.0069428401072095298657,
	0.0064089941880042070684,
	0.0059513701127588477356,
	0.005554733551962801371,
}

// stirlerr returns log Γ(n+1) − log(sqrt(2πn)·(n/e)^n) for n > 0.
func stirlerr(n float64) float64 {
	if n <= 15 {
		if n == math.Floor(n) {
			return sferr[int(n)]
		}
		lg := lgammaf(n + 1)
		return lg - (n+0.5)*logf(n) + n - lnSqrt2Pi
	}
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	nn := n * n
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// bd0 returns the deviance term x·log(x/m) + m − x for x ≥ 0, m > 0, without
// cancellation when x ≈ m (Loader 2000).
func bd0(x, m float64) float64 {
	if x == 0 {
		return m
	}
	d := x - m
	if math.Abs(d) < 0.1*(x+m) {
		v := d / (x + m)
		s := d * v
		ej := 2 * x * v
		v *= v
		for j := 3.0; j < 1000; j += 2 {
			ej *= v
			s1 := s + ej/j
			if s1 == s {
				return s1
			}
			s = s1
		}
		return s
	}
	if r := x / m; r > 0x1p-1022 && r < math.MaxFloat64 {
		return x*logf(r) + m - x
	}
	return x*(logf(x)-logf(m)) + m - x // x/m overflows or underflows
}

// binomLogPmf returns log P(X = k) for X ~ Binomial(n, p) by Loader's
// saddle-point formula; k and n are integer-valued, 0 ≤ p ≤ 1.
func binomLogPmf(k, n, p float64) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	if p > 0.5 {
		k, p = n-k, 1-p // 1−p is exact for p ≥ 1/2
	}
	return binomLogPmfPQ(k, n, p, 1-p)
}

// binomLogPmfPQ is Loader's saddle-point log mass of Binomial(n, p) at k with
// q = 1 − p passed separately (as in R's dbinom_raw); k and n may be
// non-integer, which BetaLogPdf uses.
func binomLogPmfPQ(k, n, p, q float64) float64 {
	if p == 0 {
		if k == 0 {
			return 0
		}
		return math.Inf(-1)
	}
	if q == 0 {
		if k == n {
			return 0
		}
		return math.Inf(-1)
	}
	switch {
	case k == 0:
		if p < 0.5 {
			return n * math.Log1p(-p)
		}
		return n * logf(q)
	case k == n:
		return n * logf(p)
	}
	lc := stirlerr(n) - stirlerr(k) - stirlerr(n-k) - bd0(k, n*p) - bd0(n-k, n*q)
	lf := ln2Pi + logf(k) + math.Log1p(-k/n)
	return lc - 0.5*lf
}

// poisLogPmf returns log P(X = k) for X ~ Poisson(lambda), k integer-valued,
// by Loader's saddle-point formula.
func poisLogPmf(k, lambda float64) float64 {
	switch {
	case k < 0:
		return math.Inf(-1)
	case lambda == 0:
		if k == 0 {
			return 0
		}
		return math.Inf(-1)
	case k == 0:
		return -lambda
	}
	return -stirlerr(k) - bd0(k, lambda) - 0.5*(ln2Pi+logf(k))
}

// BinomialLogPmf returns log P(X = k) for X ~ Binomial(n, p), accurate to
// near machine precision for every n (Loader's saddle-point algorithm, as in
// R's dbinom). It returns −Inf for k outside [0, n] and NaN if n < 0 or p is
// not in [0, 1].
func BinomialLogPmf(k, n int64, p float64) float64 {
	if n < 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	// n−k is formed in int64 so that it stays exact before conversion.
	if p > 0.5 {
		return binomLogPmf(float64(n-k), float64(n), 1-p)
	}
	return binomLogPmf(float64(k), float64(n), p)
}

// PoissonLogPmf returns log P(X = k) for X ~ Poisson(lambda), accurate for
// every λ (Loader's saddle-point algorithm). It returns −Inf for k < 0 and
// NaN if lambda is negative, infinite or NaN.
func PoissonLogPmf(k int64, lambda float64) float64 {
	if !(lambda >= 0) || math.IsInf(lambda, 1) {
		return math.NaN()
	}
	return poisLogPmf(float64(k), lambda)
}

// maxExactFloat bounds the counts that BTPE and PTRS handle in float64
// arithmetic with every integer (and half-integer) representable.
const maxExactFloat = 1 << 52

// Binomial returns a Binomial(n, p) variate, exact for every n ≥ 0 that fits
// in int64. It uses inversion by sequential search when n·min(p, 1−p) < 10
// (expected cost O(np)) and BTPE otherwise (expected cost O(1)); counts above
// 2^52 are split into chunks of at most 2^52 trials whose binomial draws are
// summed, which is exact by additivity and costs one BTPE draw per chunk
// (about 220 for n = 1e18). It returns −1 if n < 0 or p is not in [0, 1].
func Binomial(r *rand.Rand, n int64, p float64) int64 {
	if n < 0 || !(p >= 0 && p <= 1) {
		return -1
	}
	if n == 0 || p == 0 {
		return 0
	}
	if p == 1 {
		return n
	}
	if p > 0.5 {
		return n - binomialLow(r, n, 1-p)
	}
	return binomialLow(r, n, p)
}

// binomialLow samples Binomial(n, p) for n ≥ 1 and 0 < p ≤ 1/2.
func binomialLow(r *rand.Rand, n int64, p float64) int64 {
	if float64(n)*p < 10 {
		return binomialInv(r, n, p)
	}
	if n <= maxExactFloat {
		return btpe(r, n, p)
	}
	var s int64
	for n > 0 {
		c := min(n, maxExactFloat)
		s += binomialLow(r, c, p)
		n -= c
	}
	return s
}

// binomialInv samples Binomial(n, p), 0 < p ≤ 1/2, n·p < 10, by sequential
// inversion from 0. Values above 110 (probability below 1e-60 when n·p < 10)
// trigger a restart, which also guards against rounding in the running sum.
func binomialInv(r *rand.Rand, n int64, p float64) int64 {
	q := 1 - p
	s := p / q
	a := (float64(n) + 1) * s
	return seqInversion(r, math.Exp(float64(n)*math.Log1p(-p)), a, s, min(n, 110))
}

// seqInversion samples the count whose law has P(0) = f0 and P(x)/P(x−1)
// = a/x − s by sequential inversion from 0; a value above limit triggers a
// restart, which also guards against rounding in the running sum.
func seqInversion(r *rand.Rand, f0, a, s float64, limit int64) int64 {
	for {
		u := r.Float64()
		f := f0
		var x int64
		for u > f {
			u -= f
			x++
			if x > limit {
				break
			}
			f *= a/float64(x) - s
		}
		if x <= limit {
			return x
		}
	}
}

// btpe samples Binomial(n, p) for 0 < p ≤ 1/2, n·p ≥ 10 and n ≤ 2^52 by the
// BTPE algorithm of Kachitvichyanukul and Schmeiser (1988): a triangular
// centre, parallelogram shoulders and exponential tails, with the squeeze of
// step 5.3 and, beyond 20 of the mode, an exact final test against Loader's
// log mass (which stays accurate for any n, unlike log-gamma differences).
func btpe(r *rand.Rand, n int64, p float64) int64 {
	nf := float64(n)
	q := 1 - p
	npq := nf * p * q
	fm := nf*p + p
	m := math.Floor(fm)
	p1 := math.Floor(2.195*math.Sqrt(npq)-4.6*q) + 0.5
	xm := m + 0.5
	xl := xm - p1
	xr := xm + p1
	c := 0.134 + 20.5/(15.3+m)
	al := (fm - xl) / (fm - xl*p)
	laml := al * (1 + 0.5*al)
	ar := (xr - fm) / (xr * q)
	lamr := ar * (1 + 0.5*ar)
	p2 := p1 * (1 + 2*c)
	p3 := p2 + c/laml
	p4 := p3 + c/lamr
	s := p / q
	lfm := math.NaN() // log f(m), computed on first use
	for {
		u := r.Float64() * p4
		v := Uniform01Open(r)
		var y float64
		switch {
		case u <= p1:
			// Triangular region: always accepted.
			return int64(math.Floor(xm - p1*v + u))
		case u <= p2:
			x := xl + (u-p1)/c
			v = v*c + 1 - math.Abs(xm-x)/p1
			if v > 1 || v <= 0 {
				continue
			}
			y = math.Floor(x)
		case u <= p3:
			y = math.Floor(xl + logf(v)/laml)
			if y < 0 {
				continue
			}
			v *= (u - p2) * laml
		default:
			y = math.Floor(xr - logf(v)/lamr)
			if y > nf {
				continue
			}
			v *= (u - p3) * lamr
		}
		// Accept iff v ≤ f(y)/f(m).
		k := math.Abs(y - m)
		if k <= 20 {
			// Step 5.1: f(y)/f(m) by the recursion f(i)/f(i−1) = (n+1−i)/i·p/q,
			// at most 20 factors, each with relative error ≤ 2^-52.
			f := 1.0
			if m < y {
				for i := m + 1; i <= y; i++ {
					f *= (nf + 1 - i) / i * s
				}
			} else {
				for i := y + 1; i <= m; i++ {
					f /= (nf + 1 - i) / i * s
				}
			}
			if v <= f {
				return int64(y)
			}
			continue
		}
		lv := logf(v)
		if k < 0.5*npq-1 {
			rho := (k / npq) * ((k*(k/3+0.625)+1.0/6)/npq + 0.5)
			t := -k * k / (2 * npq)
			if lv < t-rho {
				return int64(y)
			}
			if lv > t+rho {
				continue
			}
		}
		if math.IsNaN(lfm) {
			lfm = binomLogPmf(m, nf, p)
		}
		if lv <= binomLogPmf(y, nf, p)-lfm {
			return int64(y)
		}
	}
}

// MaxPoissonLambda is the largest mean Poisson accepts; larger means would
// give counts that overflow int64.
const MaxPoissonLambda = 1 << 62

// Poisson returns a Poisson(lambda) variate, exact for every λ up to
// MaxPoissonLambda: inversion by sequential search for λ < 10 and Hörmann's
// (1993) PTRS transformed rejection otherwise (expected cost O(1)). Means
// above 2^52 are split into equal parts of at most 2^51 whose Poisson draws
// are summed (exact by additivity). It returns −1 if lambda is NaN, negative
// or above MaxPoissonLambda.
func Poisson(r *rand.Rand, lambda float64) int64 {
	if !(lambda >= 0 && lambda <= MaxPoissonLambda) {
		return -1
	}
	switch {
	case lambda == 0:
		return 0
	case lambda < 10:
		return poissonInv(r, lambda)
	case lambda <= maxExactFloat:
		return ptrs(r, lambda)
	}
	parts := math.Ceil(lambda / (maxExactFloat / 2))
	l := lambda / parts
	var s int64
	for i := 0; i < int(parts); i++ {
		s += ptrs(r, l)
	}
	return s
}

// poissonInv samples Poisson(lambda), 0 < λ < 10, by sequential inversion;
// values above 110 (probability below 1e-60) trigger a restart.
func poissonInv(r *rand.Rand, lambda float64) int64 {
	return seqInversion(r, math.Exp(-lambda), lambda, 0, 110)
}

// ptrs samples Poisson(lambda), 10 ≤ λ ≤ 2^52, by Hörmann's PTRS algorithm
// with the final test against Loader's log mass.
func ptrs(r *rand.Rand, lambda float64) int64 {
	slam := math.Sqrt(lambda)
	b := 0.931 + 2.53*slam
	a := -0.059 + 0.02483*b
	lInvAlpha := logf(1.1239 + 1.1328/(b-3.4))
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := r.Float64() - 0.5
		v := r.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + lambda + 0.43)
		if us >= 0.07 && v <= vr {
			return int64(k)
		}
		if !(k >= 0) || (us < 0.013 && v > us) || k > 4*maxExactFloat {
			continue
		}
		if logf(v)+lInvAlpha-logf(a/(us*us)+b) <= poisLogPmf(k, lambda) {
			return int64(k)
		}
	}
}
