package mechanism

import (
	"math"

	"github.com/privinfer/privinfer/internal/variate"
)

// This file implements the binomial law used by the infection-trajectory
// mechanism: the accurate log probability mass function of
// internal/variate (Loader's saddle-point form, as in R's dbinom) and an
// exact inverse CDF that searches outward from a normal-approximation
// start using pmf ratios.

// binomQuantile returns min{k : P(X ≤ k) ≥ u} for X ~ Binomial(n, p),
// u ∈ (0, 1), p ∈ (0, 1). It is a non-decreasing function of u, so that
// pushing a uniform through it gives exactly the binomial law, up to the
// floating-point evaluation of the CDF (tail sums accurate to better than
// 1e-12 relative in whichever tail u lies; checked against mpmath up to
// n = 2·10^7). The cost is O(√(np(1−p))) pmf ratios per call: the tail
// sum at a normal-approximation start, then a short walk.
func binomQuantile(u float64, n int64, p float64) int64 {
	return binomQuantileLow(u, n, p)
}

// binomQuantileLow implements binomQuantile: the lower tail is searched
// for u ≤ ½ and the upper tail (with 1−u, exact there) otherwise.
func binomQuantileLow(u float64, n int64, p float64) int64 {
	fn := float64(n)
	q := 1 - p
	mean := fn * p
	sd := math.Sqrt(mean * q)
	// Normal approximation with the Cornish–Fisher skewness correction.
	z := normQuantileStart(u)
	skew := (q - p) / sd
	x := mean + sd*(z+skew*(z*z-1)/6) - 0.5
	k := int64(0)
	if x > 0 {
		k = int64(math.Min(math.Ceil(x), fn))
	}
	if u <= 0.5 {
		return binomSearchLower(u, n, p, k)
	}
	return binomSearchUpper(1-u, n, p, k)
}

// binomCDFAt returns P(X ≤ k) and P(X = k) by summing the pmf downwards
// from k until the terms no longer change the sum.
func binomCDFAt(k, n int64, p float64) (cdf, pmf float64) {
	pmf = math.Exp(variate.BinomialLogPmf(k, n, p))
	r := (1 - p) / p
	t, sum := pmf, pmf
	for j := k; j > 0; j-- {
		// P(X = j−1) = P(X = j)·j/(n−j+1)·q/p.
		t *= float64(j) / float64(n-j+1) * r
		sum += t
		if t <= sum*1e-17 {
			break
		}
	}
	return sum, pmf
}

// binomSFAt returns P(X > k) and P(X = k) by summing the pmf upwards from
// k+1.
func binomSFAt(k, n int64, p float64) (sf, pmf float64) {
	pmf = math.Exp(variate.BinomialLogPmf(k, n, p))
	if k >= n {
		return 0, pmf
	}
	r := p / (1 - p)
	t := math.Exp(variate.BinomialLogPmf(k+1, n, p))
	sum := t
	for j := k + 1; j < n; j++ {
		// P(X = j+1) = P(X = j)·(n−j)/(j+1)·p/q.
		t *= float64(n-j) / float64(j+1) * r
		sum += t
		if t <= sum*1e-17 {
			break
		}
	}
	return sum, pmf
}

// binomSearchLower finds min{k : F(k) ≥ u} for u ≤ ½ starting from k.
// Walking down subtracts pmf terms from F, which loses relative accuracy
// when F shrinks a lot; after a long walk the CDF is recomputed afresh.
func binomSearchLower(u float64, n int64, p float64, k int64) int64 {
	r := (1 - p) / p
	for restart := 0; ; restart++ {
		F, f := binomCDFAt(k, n, p)
		if f == 0 && restart == 0 {
			// The start lies so deep in a tail that the pmf underflows:
			// restart from the mode.
			k = int64(math.Floor(float64(n+1) * p))
			F, f = binomCDFAt(k, n, p)
		}
		if F < u {
			// Walk up: F(k+1) = F(k) + f(k+1), a stable addition.
			for F < u && k < n {
				f *= float64(n-k) / float64(k+1) / r
				k++
				F += f
				if f == 0 {
					break
				}
			}
			return k
		}
		steps := 0
		for k > 0 {
			Fm := F - f // F(k−1)
			if Fm < u {
				return k
			}
			f *= float64(k) / float64(n-k+1) * r
			F = Fm
			k--
			steps++
			if steps > 16 && restart < 8 {
				break
			}
		}
		if k == 0 {
			return 0
		}
	}
}

// binomSearchUpper finds min{k : S(k) ≤ t} with S(k) = P(X > k), t = 1−u
// < ½, starting from k.
func binomSearchUpper(t float64, n int64, p float64, k int64) int64 {
	r := p / (1 - p)
	for restart := 0; ; restart++ {
		S, f := binomSFAt(k, n, p)
		if f == 0 && restart == 0 {
			k = int64(math.Floor(float64(n+1) * p))
			S, f = binomSFAt(k, n, p)
		}
		if S <= t {
			// Walk down while S(k−1) = S(k) + f(k) ≤ t (stable addition).
			for k > 0 {
				Sm := S + f
				if Sm > t {
					return k
				}
				f *= float64(k) / float64(n-k+1) / r
				S = Sm
				k--
			}
			return 0
		}
		// Walk up: S(k+1) = S(k) − f(k+1) loses relative accuracy as S
		// shrinks; restart with a fresh tail sum after a long walk.
		steps := 0
		for k < n {
			f *= float64(n-k) / float64(k+1) * r
			k++
			S -= f
			if S <= t {
				return k
			}
			steps++
			if steps > 16 && restart < 8 {
				break
			}
		}
		if k >= n {
			return n
		}
	}
}

// normQuantileStart is a cheap approximation of Φ⁻¹(u) (no refinement),
// good enough for a search start.
func normQuantileStart(u float64) float64 {
	if u > 1e-12 && u < 1-1e-12 {
		return -sqrt2 * math.Erfinv(1-2*u)
	}
	lu := u
	if u > 0.5 {
		lu = 1 - u
	}
	t := -2 * math.Log(lu)
	x := math.Sqrt(t - math.Log(t) - 2*lnSqrt2Pi)
	if u < 0.5 {
		return -x
	}
	return x
}
