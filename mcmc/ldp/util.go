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

// Pivots of the truncated normal mean returned by lndShift: E[Y] for Y ~ N(0, 1)
// truncated to [lo, hi] is the pivot plus an offset computed without
// cancellation.
const (
	pivLo   = iota // E[Y] = lo + g
	pivHi          // E[Y] = hi + g
	pivMid         // E[Y] = (lo + hi)/2 + g
	pivZero        // E[Y] = g
)

// lndShift returns A + log(Φ(hi) − Φ(lo)), where the caller supplies the
// width w = hi − lo computed without the rounding of lo and hi (which may
// be of order 1e8 while w is 1e-8), and its prefactor A in two
// algebraically equal forms: A itself and As = A − ref²/2 with ref = hi if
// refHi and lo otherwise, each computed without cancellation
// (for the clipped-Gaussian terms A contains c²σ²/2, which may be of order
// 1e11, while As is −λ²/2). In the tails, where log(Φ(hi) − Φ(lo)) ≈ −ref²/2,
// the result is As + [log(Φ(hi) − Φ(lo)) + ref²/2] with the bracket
// evaluated directly (logMills); when [lo, hi] straddles 0 the logarithm is
// moderate and A is used. pl and ph optionally carry cached tail functions
// of lo and hi (noEnd when absent).
//
// If grad is set it also returns the mean of Y ~ N(0, 1) truncated to
// [lo, hi] as a pivot piv (pivLo, pivHi, pivMid or pivZero) and an offset g
// from it: the end nearer 0 in the tails, where E[Y] − pivot is of order
// 1/|pivot| while E[Y] itself may be of order 1e6, so that a caller which
// knows the pivot exactly in shifted coordinates (lo = α − cσ, say) forms
// the shifted mean without cancelling cσ against E[Y].
func lndShift(lo, hi, w float64, refHi bool, A, As float64, pl, ph endpoint, grad bool) (v float64, piv int, g float64) {
	if !(w > 0) {
		return math.Inf(-1), pivZero, 0
	}
	m := 0.5 * (hi + lo)
	switch {
	case !math.IsInf(w, 0) && w*(1+math.Max(math.Abs(lo), math.Abs(hi))) < 0.25:
		s, s1 := 0.0, 0.0
		for i := range gl8x {
			d := 0.5 * w * gl8x[i] // node − m
			e := gl8w[i] * math.Exp(-0.5*d*(2*m+d))
			s += e
			s1 += e * gl8x[i]
		}
		// (ref − m)(ref + m)/2 with ref − m = ±w/2 exactly.
		adj := -0.25 * w * (2*m - 0.5*w)
		if refHi {
			adj = 0.25 * w * (2*m + 0.5*w)
		}
		v = As + (adj - logSqrt2Pi + math.Log(0.5*w*s))
		return v, pivMid, 0.5 * w * s1 / s
	case lo > 0:
		// Φ(hi) − Φ(lo) = Φ(−lo) − Φ(−hi), scaled by e^{lo²/2}.
		a := pl.lmr
		if math.IsNaN(a) {
			a = logMills(-lo)
		}
		v0 := a
		b := math.Inf(-1)
		if !math.IsInf(hi, 1) {
			b = ph.lmr
			if math.IsNaN(b) {
				b = logMills(-hi)
			}
			v0 = a + special.Log1mExp(b-a-w*m)
		}
		adj := 0.0 // (ref² − lo²)/2
		if refHi {
			adj = w * m
		}
		v = shiftTail(lo, adj, A, As, v0)
		if grad {
			// Y ↦ −Y maps [lo, hi] to [−hi, −lo], whose upper end is −lo.
			g = -truncMeanLeft(-hi, -lo, w, a, b)
		}
		return v, pivLo, g
	case hi <= 0:
		a := ph.lm
		if math.IsNaN(a) {
			a = logMills(hi)
		}
		v0 := a
		b := math.Inf(-1)
		if !math.IsInf(lo, -1) {
			b = pl.lm
			if math.IsNaN(b) {
				b = logMills(lo)
			}
			v0 = a + special.Log1mExp(b-a+w*m)
		}
		adj := 0.0 // (ref² − hi²)/2
		if !refHi {
			adj = -w * m
		}
		v = shiftTail(hi, adj, A, As, v0)
		if grad {
			g = truncMeanLeft(lo, hi, w, a, b)
		}
		return v, pivHi, g
	}
	lc, hc := pl.lc, ph.lc
	if math.IsNaN(lc) {
		lc = special.NormLogCDF(lo)
	}
	if math.IsNaN(hc) {
		hc = special.NormLogCDF(hi)
	}
	ld := special.LogDiffExp(hc, lc)
	v = A + ld
	if grad {
		// [lo, hi] straddles 0: E[Y] = (φ(lo) − φ(hi))/(Φ(hi) − Φ(lo)) is of
		// order 1 and computed directly.
		if !math.IsInf(lo, -1) {
			g += math.Exp(logPhi(lo) - ld)
		}
		if !math.IsInf(hi, 1) {
			g -= math.Exp(logPhi(hi) - ld)
		}
	}
	return v, pivZero, g
}

// truncMeanLeft returns E[Y] − hi for Y ~ N(0, 1) truncated to [lo, hi]
// with hi ≤ 0, given w = hi − lo, a = logMills(hi) and b = logMills(lo)
// (−Inf for lo = −Inf). With r(x) = φ(x)/Φ(x) and e^t = Φ(lo)/Φ(hi),
//
//	E[Y] − hi = [−(r(hi) + hi) + e^t (r(lo) + lo + hi − lo)] / (1 − e^t),
//
// where r(x) + x, of order 1/|x| for x ≪ 0, comes from millsInvPlusX
// without cancellation. lndShift calls it only for intervals too long for
// its quadrature, so 1 − e^t is not small.
func truncMeanLeft(lo, hi, w, a, b float64) float64 {
	q0 := millsInvPlusX(hi, a)
	if math.IsInf(lo, -1) {
		return -q0
	}
	t := b - a + 0.5*w*(lo+hi)
	et := math.Exp(t)
	if et == 0 {
		return -q0
	}
	return (-q0 + et*(millsInvPlusX(lo, b)+w)) / -math.Expm1(t)
}

// millsInvPlusX returns φ(x)/Φ(x) + x for x ≤ 0, given lm = logMills(x):
// for x ≤ −30 from the asymptotic series of logMills, as
// −x·(1 − s)/s with 1 − s = r − 3r² + 15r³ − … (r = 1/x²) summed
// directly (relative error below 1e-12), otherwise as e^{−log √(2π) − lm} + x
// (absolute error below 1e-11).
func millsInvPlusX(x, lm float64) float64 {
	if x > -30 {
		return math.Exp(-logSqrt2Pi-lm) + x
	}
	r := 1 / (x * x)
	oms := r * (1 + r*(-3+r*(15+r*(-105+r*(945+r*-10395)))))
	return -x * oms / (1 - oms)
}

// shiftTail returns A + log(Φ(hi) − Φ(lo)) for lndShift's tail cases from
// v0 = log(Φ(hi) − Φ(lo)) + x²/2, x the end nearer 0, and
// adj = (ref² − x²)/2, in whichever of the equal forms As + (v0 + adj) and
// A + (v0 − x²/2) has the smaller terms. The first is the one the caller's
// As is built for (A of order (cσ)², the mass near ref); the second is
// needed when the mass sits at the other end, where As and adj are large
// and opposite (−1e9 and 1e9 for σ = 1.3e-4 on [−3, 3] with the report
// beyond b and μ just below a, losing 1e-7 of log Pr), and when adj
// overflows (|ref| or |x| beyond 1e154).
func shiftTail(x, adj, A, As, v0 float64) float64 {
	h := 0.5 * x * x
	c1 := math.Max(math.Abs(As), math.Abs(adj))
	c2 := math.Max(math.Abs(A), h)
	if c2 < c1 || math.IsNaN(c1) || math.IsInf(adj, 0) {
		return A + (v0 - h)
	}
	return As + (v0 + adj)
}
