package mechanism

import (
	"math"
	"strconv"
)

// RhoFromEpsilonDelta returns the largest ρ for which ρ-zCDP implies
// (ε, δ)-DP under the conversion ZCDPEpsilon uses (Canonne, Kamath &
// Steinke 2020, Cor. 13): the inverse of ZCDPEpsilon in ρ at fixed δ,
// found by bisection between the ρ of the classical conversion,
// (√(log(1/δ) + ε) − √log(1/δ))² (Bun & Steinke 2016, Prop. 1.3, solved
// for ρ), which is always admissible, and a bound that is not. The result
// is admissible: ZCDPEpsilon(ρ, δ) ≤ ε, and equal to ε to about 1e-14
// relative. It is how an (ε, δ) budget is spent on zCDP mechanisms such as
// the discrete Gaussian. Errors wrap ErrInvalid unless ε > 0 is
// finite and δ ∈ (0, 1).
func RhoFromEpsilonDelta(epsilon, delta float64) (float64, error) {
	if err := checkEpsilon(epsilon); err != nil {
		return 0, err
	}
	if err := checkDeltaPositive(delta); err != nil {
		return 0, err
	}
	l := -math.Log(delta)
	s := math.Sqrt(l+epsilon) - math.Sqrt(l)
	lo := s * s // the classical conversion's ρ: admissible since CKS ≤ BS
	ok := func(rho float64) bool {
		e, err := ZCDPEpsilon(rho, delta)
		return err == nil && e <= epsilon
	}
	if !(lo > 0) || !ok(lo) {
		// ρ underflowed or rounding broke the bound: fall back to a
		// smaller admissible value.
		for lo = math.Max(lo, math.SmallestNonzeroFloat64) / 2; lo > 0 && !ok(lo); lo /= 2 {
		}
		if lo == 0 {
			return 0, invalidf("RhoFromEpsilonDelta: no positive ρ gives ε = %v at δ = %v", epsilon, delta)
		}
	}
	return bisectRho(lo, ok), nil
}

// bisectRho returns the largest ρ ≥ lo with ok(ρ), for ok true at lo and
// monotone (true up to a threshold), to about 1e-15 relative.
func bisectRho(lo float64, ok func(float64) bool) float64 {
	hi := 2 * lo
	for ok(hi) {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 1) {
			return lo
		}
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi || hi-lo <= 1e-15*hi {
			break
		}
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// RemainingRho returns the largest ρ that SpendRho would still admit: the
// zCDP budget left given the total (ε, δ) and everything spent so far,
// composed as described on Accountant. It is 0 for a total with δ = 0, for
// an accountant whose δ is used up by (ε, δ) spends that are not all pure,
// and for a nil or zero-value Accountant. Spending exactly RemainingRho is
// admitted (the value is found by bisection on the admission test
// itself); spending more is refused as soon as the composed ε exceeds the
// total by more than the accountant's 1e-12 relative rounding slack.
// Concurrent spends between the call and a SpendRho may of course take
// some of it.
func (a *Accountant) RemainingRho() float64 {
	if a.usable() != nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.total.Delta == 0 {
		return 0
	}
	ok := func(x float64) bool {
		return a.admit(a.spent, a.pureSq, a.rho+x, func() string { return "" }) == nil
	}
	// A small admissible starting point: halve from the ρ the whole total
	// would allow until admitted.
	lo, err := RhoFromEpsilonDelta(a.total.Epsilon, a.total.Delta)
	if err != nil {
		return 0
	}
	for lo > 0 && !ok(lo) {
		lo /= 2
	}
	if lo == 0 {
		return 0
	}
	return bisectRho(lo, ok)
}

// formatBudgetValue formats an ε or δ for Budget.String: v rounded to 12
// significant digits, then written as the shortest decimal that reads back
// as that rounded value, so that sums such as 0.1 + 0.2
// (0.30000000000000004) print as 0.3.
func formatBudgetValue(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil {
		r = v
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}
