package mechanism

import (
	"fmt"
	"math"
)

// This file holds the pre-processing functions that give statistics a
// finite sensitivity, and the sensitivities the papers derive for them.

// Clamp returns x limited to [lo, hi] (±Inf maps to the nearer bound).
// It returns NaN for a NaN x and for bounds with no such interval (lo >
// hi, or a NaN bound), a value no release accepts: every Release refuses
// a NaN statistic with ErrInvalid, and ClampSlice, NormalizeSlice and
// BITSlice refuse these arguments with an error.
func Clamp(x, lo, hi float64) float64 {
	if !(lo <= hi) {
		return math.NaN()
	}
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// ClampSlice writes Clamp(x_i, lo, hi) into dst (which may alias x):
// ±Inf maps to the nearer bound. It returns an error wrapping
// ErrInvalid, naming the entry and writing nothing, when some x_i is
// NaN (NaN has no place in [lo, hi], and a NaN that reached a release
// would carry no guarantee), and an error wrapping ErrInvalid for
// bounds that are not finite with lo < hi or a dst of another length.
func ClampSlice(dst, x []float64, lo, hi float64) error {
	if err := checkSliceMap(dst, x, lo, hi); err != nil {
		return err
	}
	for i, v := range x {
		dst[i] = Clamp(v, lo, hi)
	}
	return nil
}

// checkSliceMap validates the arguments of ClampSlice and NormalizeSlice:
// the bounds, and dst as long as x.
func checkSliceMap(dst, x []float64, lo, hi float64) error {
	if err := checkInterval(lo, hi); err != nil {
		return err
	}
	if len(dst) != len(x) {
		return fmt.Errorf("%w: dst has length %d, x %d", ErrInvalid, len(dst), len(x))
	}
	return checkNoNaN(x)
}

// checkNoNaN returns an error wrapping ErrInvalid naming the first NaN
// entry of x.
func checkNoNaN(x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) {
			return fmt.Errorf("%w: x[%d] is NaN, which no clamp or normalisation maps into the bounds", ErrInvalid, i)
		}
	}
	return nil
}

// checkInterval validates bounds: finite, lo < hi, and a width hi − lo
// that does not overflow.
func checkInterval(lo, hi float64) error {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo < hi) {
		return invalidf("bounds must be finite with lo < hi, got [%v, %v]", lo, hi)
	}
	if math.IsInf(hi-lo, 0) {
		return invalidf("bounds [%v, %v] are too far apart: hi − lo overflows", lo, hi)
	}
	return nil
}

// Normalize maps x ∈ [lo, hi] affinely to [-1, 1] after clamping:
// 2(Clamp(x) − lo)/(hi − lo) − 1 (SBI paper §4.2). It returns NaN for a
// NaN x and, like the formula, for lo = hi; NormalizeSlice validates the
// bounds and refuses NaN with an error. (A NaN never leaves a release
// path: every Release refuses a NaN statistic with ErrInvalid.)
func Normalize(x, lo, hi float64) float64 {
	return 2*(Clamp(x, lo, hi)-lo)/(hi-lo) - 1
}

// NormalizeSlice writes Normalize(x_i, lo, hi) into dst (which may alias
// x): ±Inf maps to ±1. Errors as for ClampSlice (a NaN entry wraps
// ErrInvalid and nothing is written).
func NormalizeSlice(dst, x []float64, lo, hi float64) error {
	if err := checkSliceMap(dst, x, lo, hi); err != nil {
		return err
	}
	for i, v := range x {
		dst[i] = Normalize(v, lo, hi)
	}
	return nil
}

// ClampedMean returns the mean of x clamped to [lo, hi] and its ℓ1
// sensitivity (hi − lo)/n under substitution of one record (modips §5;
// paper-values "l1_sensitivity.mean").
func ClampedMean(x []float64, lo, hi float64) (mean, sens float64, err error) {
	if err := checkInterval(lo, hi); err != nil {
		return 0, 0, err
	}
	if len(x) == 0 {
		return 0, 0, invalidf("x must be non-empty")
	}
	s := 0.0
	for i, v := range x {
		if math.IsNaN(v) {
			return 0, 0, fmt.Errorf("%w: x[%d] is NaN", ErrInvalid, i)
		}
		s += Clamp(v, lo, hi)
	}
	n := float64(len(x))
	mean = s / n
	if math.IsInf(mean, 0) {
		return 0, 0, invalidf("the clamped values' sum overflows; rescale x and the bounds")
	}
	sens, err = result("sensitivity (hi − lo)/n", (hi-lo)/n)
	if err != nil {
		return 0, 0, err
	}
	return mean, sens, nil
}

// ClampedVarianceSensitivity returns (hi − lo)²/n, the ℓ1 sensitivity of
// the variance of n values clamped to [lo, hi] that modips §5.3 uses.
func ClampedVarianceSensitivity(lo, hi float64, n int) (float64, error) {
	if err := checkInterval(lo, hi); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, invalidf("n must be >= 1, got %d", n)
	}
	return result("sensitivity (hi − lo)²/n", (hi-lo)*(hi-lo)/float64(n))
}

// MMDSensitivity returns Δρ = 2√B_k/N, the sensitivity of the MMD
// distance between N observations and a pseudo data set of the same size
// with a kernel bounded by B_k (ABCDP Lemma 4.1; B_k = 1 for the Gaussian
// kernel).
func MMDSensitivity(bk float64, n int) (float64, error) {
	if err := checkPositive("kernel bound B_k", bk); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, invalidf("N must be >= 1, got %d", n)
	}
	return result("sensitivity 2√B_k/N", 2*math.Sqrt(bk)/float64(n))
}
