package ldp

import (
	"math"

	"github.com/privinfer/privinfer/internal/special"
)

// logSqrt2Pi is log √(2π).
const logSqrt2Pi = 0.91893853320467274178032973640562

// logPhi returns log φ(x), the log standard normal density.
func logPhi(x float64) float64 { return -0.5*x*x - logSqrt2Pi }

// gl8 holds the 8-point Gauss–Legendre nodes and weights on [−1, 1].
var gl8x = [8]float64{
	-0.96028985649753623168, -0.79666647741362673959, -0.52553240991632898582, -0.18343464249564980494,
	0.18343464249564980494, 0.52553240991632898582, 0.79666647741362673959, 0.96028985649753623168,
}
var gl8w = [8]float64{
	0.10122853629037625915, 0.22238103445337447054, 0.31370664587788728734, 0.36268378337836198297,
	0.36268378337836198297, 0.31370664587788728734, 0.22238103445337447054, 0.10122853629037625915,
}

// logNormDiff returns log(Φ(hi) − Φ(lo)) and its partial derivatives with
// respect to lo and hi, accurate to a few ulps of the result's relative size
// in either tail. lo may be −Inf and hi +Inf; hi ≤ lo gives −Inf with zero
// derivatives.
func logNormDiff(lo, hi float64) (v, dlo, dhi float64) {
	if !(hi > lo) {
		return math.Inf(-1), 0, 0
	}
	w := hi - lo
	m := 0.5 * (hi + lo)
	if !math.IsInf(w, 0) && w*(1+math.Max(math.Abs(lo), math.Abs(hi))) < 0.25 {
		// Short interval: Φ(hi) − Φ(lo) would cancel; integrate φ by
		// 8-point Gauss–Legendre relative to φ(m) instead (the integrand
		// varies by less than a factor e^{1/4} across the interval, so
		// the rule is exact to rounding).
		lm := logPhi(m)
		s := 0.0
		for i := range gl8x {
			x := m + 0.5*w*gl8x[i]
			s += gl8w[i] * math.Exp(logPhi(x)-lm)
		}
		v = lm + math.Log(0.5*w*s)
	} else if lo > 0 {
		// Right tail: Φ(hi) − Φ(lo) = Φ(−lo) − Φ(−hi).
		v = special.LogDiffExp(special.NormLogCDF(-lo), special.NormLogCDF(-hi))
	} else {
		v = special.LogDiffExp(special.NormLogCDF(hi), special.NormLogCDF(lo))
	}
	if !math.IsInf(lo, -1) {
		dlo = -math.Exp(logPhi(lo) - v)
	}
	if !math.IsInf(hi, 1) {
		dhi = math.Exp(logPhi(hi) - v)
	}
	return v, dlo, dhi
}

// millsInv returns φ(x)/Φ(x), the derivative of log Φ(x), stably for all x:
// for x ≤ 0 it is e^{−log √(2π) − logMills(x)}, which avoids subtracting
// log φ(x) and log Φ(x), two numbers near −x²/2 whose difference loses
// all accuracy for x ≪ −1e8.
func millsInv(x float64) float64 {
	if x <= 0 {
		return math.Exp(-logSqrt2Pi - logMills(x))
	}
	return math.Exp(logPhi(x) - special.NormLogCDF(x))
}

// logExprel returns log((e^t − 1)/t), with the value 0 at t = 0, stably for
// all finite t.
func logExprel(t float64) float64 {
	switch {
	case t == 0:
		return 0
	case math.Abs(t) < 0.5:
		return math.Log(math.Expm1(t) / t)
	case t > 0:
		return t + math.Log(-math.Expm1(-t)) - math.Log(t)
	default:
		return math.Log(-math.Expm1(t)) - math.Log(-t)
	}
}

// dLogExprel returns d/dt log((e^t − 1)/t) = 1/(1 − e^{−t}) − 1/t.
func dLogExprel(t float64) float64 {
	if math.Abs(t) < 1e-3 {
		return 0.5 + t/12 - t*t*t/720
	}
	return 1/(-math.Expm1(-t)) - 1/t
}

// lse4 returns log(e^a + e^b + e^c + e^d) and the softmax weights.
func lse4(a, b, c, d float64) (v, wa, wb, wc, wd float64) {
	m := math.Max(math.Max(a, b), math.Max(c, d))
	if math.IsInf(m, -1) {
		return m, 0, 0, 0, 0
	}
	ea, eb, ec, ed := math.Exp(a-m), math.Exp(b-m), math.Exp(c-m), math.Exp(d-m)
	s := ea + eb + ec + ed
	return m + math.Log(s), ea / s, eb / s, ec / s, ed / s
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// logMills returns log Φ(x) + x²/2 for x ≤ 0 without the cancellation of
// forming the two large terms separately: for x ≤ −30 by the asymptotic
// series Φ(x) e^{x²/2} = φ(0)/(−x) · (1 − 1/x² + 3/x⁴ − …) (truncation
// error below 3e-16), otherwise from NormLogCDF (absolute error below
// 1e-13).
func logMills(x float64) float64 {
	if x > -30 {
		return special.NormLogCDF(x) + 0.5*x*x
	}
	if math.IsInf(x, -1) {
		return math.Inf(-1)
	}
	r := 1 / (x * x)
	s := 1 + r*(-1+r*(3+r*(-15+r*(105+r*(-945+r*10395)))))
	return -logSqrt2Pi - math.Log(-x) + math.Log(s)
}

// endpoint caches the normal tail functions of a fixed integration limit x:
// lm = logMills(x) (x ≤ 0), lmr = logMills(−x) (x ≥ 0), lc = log Φ(x).
type endpoint struct{ lm, lmr, lc float64 }

func newEndpoint(x float64) endpoint {
	e := endpoint{lm: math.NaN(), lmr: math.NaN(), lc: special.NormLogCDF(x)}
	if x <= 0 {
		e.lm = logMills(x)
	}
	if x >= 0 {
		e.lmr = logMills(-x)
	}
	return e
}

var noEnd = endpoint{math.NaN(), math.NaN(), math.NaN()}

// lndShift returns A + log(Φ(hi) − Φ(lo)) and the derivatives of
// log(Φ(hi) − Φ(lo)) with respect to lo and hi, where the caller supplies
// its prefactor A in two algebraically equal forms: A itself and
// As = A − ref²/2 with ref ∈ {lo, hi}, each computed without cancellation
// (for the clipped-Gaussian terms A contains c²σ²/2, which may be of order
// 1e11, while As is −λ²/2). In the tails, where log(Φ(hi) − Φ(lo)) ≈ −ref²/2,
// the result is As + [log(Φ(hi) − Φ(lo)) + ref²/2] with the bracket
// evaluated directly (logMills); when [lo, hi] straddles 0 the logarithm is
// moderate and A is used. pl and ph optionally carry cached tail functions
// of lo and hi (noEnd when absent); the derivatives are computed only if
// grad is set.
func lndShift(lo, hi, ref, A, As float64, pl, ph endpoint, grad bool) (v, dlo, dhi float64) {
	if !(hi > lo) {
		return math.Inf(-1), 0, 0
	}
	w := hi - lo
	m := 0.5 * (hi + lo)
	// The derivatives are formed relative to a pivot p, with
	// sp = log(Φ(hi) − Φ(lo)) + p²/2: p = ref for short intervals, and in
	// the tails the end nearer 0, so that no p² − lo² or p² − hi² with
	// p ≠ ref can overflow.
	var p, sp float64
	switch {
	case !math.IsInf(w, 0) && w*(1+math.Max(math.Abs(lo), math.Abs(hi))) < 0.25:
		s := 0.0
		for i := range gl8x {
			x := m + 0.5*w*gl8x[i]
			s += gl8w[i] * math.Exp(0.5*(m-x)*(m+x))
		}
		sc := 0.5*(ref-m)*(ref+m) - logSqrt2Pi + math.Log(0.5*w*s)
		v = As + sc
		p, sp = ref, sc
	case lo > 0:
		// Φ(hi) − Φ(lo) = Φ(−lo) − Φ(−hi), scaled by e^{lo²/2}.
		a := pl.lmr
		if math.IsNaN(a) {
			a = logMills(-lo)
		}
		v0 := a
		if !math.IsInf(hi, 1) {
			b := ph.lmr
			if math.IsNaN(b) {
				b = logMills(-hi)
			}
			v0 = a + special.Log1mExp(b-a-0.5*(hi-lo)*(hi+lo))
		}
		v = shiftTail(lo, ref, A, As, v0)
		p, sp = lo, v0
	case hi <= 0:
		a := ph.lm
		if math.IsNaN(a) {
			a = logMills(hi)
		}
		v0 := a
		if !math.IsInf(lo, -1) {
			b := pl.lm
			if math.IsNaN(b) {
				b = logMills(lo)
			}
			v0 = a + special.Log1mExp(b-a-0.5*(lo-hi)*(lo+hi))
		}
		v = shiftTail(hi, ref, A, As, v0)
		p, sp = hi, v0
	default:
		lc, hc := pl.lc, ph.lc
		if math.IsNaN(lc) {
			lc = special.NormLogCDF(lo)
		}
		if math.IsNaN(hc) {
			hc = special.NormLogCDF(hi)
		}
		ld := special.LogDiffExp(hc, lc)
		v = A + ld
		if !grad {
			return v, 0, 0
		}
		// Derivatives from log D directly.
		if !math.IsInf(lo, -1) {
			dlo = -math.Exp(logPhi(lo) - ld)
		}
		if !math.IsInf(hi, 1) {
			dhi = math.Exp(logPhi(hi) - ld)
		}
		return v, dlo, dhi
	}
	if !grad {
		return v, 0, 0
	}
	if !math.IsInf(lo, -1) {
		dlo = -math.Exp(0.5*(p-lo)*(p+lo) - logSqrt2Pi - sp)
	}
	if !math.IsInf(hi, 1) {
		dhi = math.Exp(0.5*(p-hi)*(p+hi) - logSqrt2Pi - sp)
	}
	return v, dlo, dhi
}

// shiftTail returns A + log(Φ(hi) − Φ(lo)) for lndShift's tail cases from
// v0 = log(Φ(hi) − Φ(lo)) + x²/2, x the end nearer 0, as
// As + v0 + (ref² − x²)/2. When (ref² − x²)/2 overflows (|ref| or |x|
// beyond 1e154, as for α = (a−μ)/σ at σ ≪ 1e-150) it uses A − x²/2 + v0
// instead, which is then −Inf for a finite A rather than −Inf + Inf.
func shiftTail(x, ref, A, As, v0 float64) float64 {
	adj := 0.5 * (ref - x) * (ref + x)
	if math.IsInf(adj, 0) {
		return A - 0.5*x*x + v0
	}
	return As + (v0 + adj)
}
