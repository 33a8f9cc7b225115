// Package stats computes the summary statistics and goodness-of-fit tests the
// inference code needs: means, variances and weighted covariances of samples,
// type-7 quantiles, importance-weight effective sample sizes, histograms,
// Kolmogorov–Smirnov and chi-square tests with p-values, and Clopper–Pearson
// intervals.
//
// Multivariate samples are flat row-major slices: n samples of dimension d
// are a []float64 of length n*d with sample i in x[i*d:(i+1)*d]. Weights are
// a []float64 of length n; nil weights mean equal weights.
//
// Functions with a scalar result return NaN for invalid input (empty
// samples, NaN or negative weights, probabilities outside [0, 1]) as
// documented on each; functions that fill slices return an error.
package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/privinfer/privinfer/internal/argcheck"
)

// ErrInvalid is wrapped by every error reporting an invalid argument,
// including ErrDimension and ErrWeights.
var ErrInvalid = errors.New("stats: invalid argument")

// ErrDimension is returned when slice lengths do not match the stated
// dimensions. It wraps ErrInvalid.
var ErrDimension error = argcheck.Sentinel("stats: dimension mismatch", ErrInvalid)

// ErrWeights is returned for weights that are negative, NaN, infinite or sum
// to zero. It wraps ErrInvalid.
var ErrWeights error = argcheck.Sentinel("stats: invalid weights", ErrInvalid)

// Mean returns the arithmetic mean of x, or NaN if x is empty. It uses a
// second pass to correct the rounding error of the first.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	m := s / float64(len(x))
	c := 0.0
	for _, v := range x {
		c += v - m
	}
	return m + c/float64(len(x))
}

// Variance returns the unbiased sample variance Σ(x−x̄)²/(n−1) of x, or NaN
// if x has fewer than two elements. It uses the corrected two-pass algorithm.
func Variance(x []float64) float64 {
	n := len(x)
	if n < 2 {
		return math.NaN()
	}
	m := Mean(x)
	ss, c := 0.0, 0.0
	for _, v := range x {
		d := v - m
		ss += d * d
		c += d
	}
	return (ss - c*c/float64(n)) / float64(n-1)
}

// weightSum validates w for n samples and returns Σw. nil w means equal unit
// weights.
func weightSum(w []float64, n int) (float64, error) {
	if w == nil {
		if n == 0 {
			return 0, fmt.Errorf("%w: no samples", ErrWeights)
		}
		return float64(n), nil
	}
	if len(w) != n {
		return 0, fmt.Errorf("%w: %d weights for %d samples", ErrDimension, len(w), n)
	}
	s, err := argcheck.Weights(w)
	if err != nil {
		return 0, fmt.Errorf("%w: weights: %v", ErrWeights, err)
	}
	return s, nil
}

func wt(w []float64, i int) float64 {
	if w == nil {
		return 1
	}
	return w[i]
}

// WeightedMean writes into mean (length d) the weighted mean Σ w_i x_i / Σ w_i
// of the n = len(x)/d samples in the flat row-major slice x (sample i is
// x[i*d:(i+1)*d]). w has length n and holds non-negative, not necessarily
// normalised weights; nil means equal weights. It returns ErrDimension if
// d < 1, len(x) is not a multiple of d or len(w) or len(mean) is wrong, and
// ErrWeights for negative, non-finite or all-zero weights.
func WeightedMean(x []float64, d int, w []float64, mean []float64) error {
	if d < 1 || len(x)%d != 0 {
		return fmt.Errorf("%w: len(x) = %d is not a positive multiple of d = %d", ErrDimension, len(x), d)
	}
	if len(mean) != d {
		return fmt.Errorf("%w: len(mean) = %d, want d = %d", ErrDimension, len(mean), d)
	}
	n := len(x) / d
	sw, err := weightSum(w, n)
	if err != nil {
		return err
	}
	for j := range mean {
		mean[j] = 0
	}
	inv := 1 / sw
	for i := 0; i < n; i++ {
		wi := wt(w, i) * inv
		if wi == 0 {
			continue
		}
		xi := x[i*d : i*d+d]
		for j, v := range xi {
			mean[j] += wi * v
		}
	}
	return nil
}

// WeightedCov writes the weighted mean into mean (length d) and the weighted
// covariance matrix Σ w_i (x_i−μ)(x_i−μ)ᵀ / Σ w_i into cov (d×d, row-major)
// for the samples in the flat row-major slice x, as WeightedMean. The
// divisor is Σw (the importance-sampling / maximum-likelihood form; with nil
// weights it is n, not n−1). For an estimator unbiased under reliability
// weights multiply cov by ESS/(ESS−1), with ESS = (Σw)²/Σw² (see ESS); with
// equal weights that is n/(n−1). Errors are those of WeightedMean and
// ErrDimension for len(cov) ≠ d*d. It allocates nothing.
func WeightedCov(x []float64, d int, w []float64, mean, cov []float64) error {
	if err := WeightedMean(x, d, w, mean); err != nil {
		return err
	}
	if len(cov) != d*d {
		return fmt.Errorf("%w: len(cov) = %d, want d*d = %d", ErrDimension, len(cov), d*d)
	}
	n := len(x) / d
	sw, _ := weightSum(w, n)
	inv := 1 / sw
	for k := range cov {
		cov[k] = 0
	}
	for i := 0; i < n; i++ {
		wi := wt(w, i) * inv
		if wi == 0 {
			continue
		}
		xi := x[i*d : i*d+d]
		for a := 0; a < d; a++ {
			da := wi * (xi[a] - mean[a])
			row := cov[a*d : a*d+a+1]
			for b := range row {
				row[b] += da * (xi[b] - mean[b])
			}
		}
	}
	for a := 0; a < d; a++ {
		for b := 0; b < a; b++ {
			cov[b*d+a] = cov[a*d+b]
		}
	}
	return nil
}

// Quantile returns the type-7 sample quantile (the default of R's quantile
// and of NumPy) of the ascending sorted sample: with h = (n−1)p it
// interpolates linearly between sorted[⌊h⌋] and sorted[⌊h⌋+1]. It returns
// NaN if sorted is empty or p is NaN or outside [0, 1]. The input is assumed
// sorted and is not checked.
func Quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	f := h - float64(lo)
	a, b := sorted[lo], sorted[lo+1]
	if f == 0 {
		return a
	}
	return a + f*(b-a)
}

// Quantiles writes the type-7 quantiles of x at the probabilities ps into
// dst (len(ps)), sorting a copy of x; x is not modified. It returns
// ErrDimension if len(dst) ≠ len(ps); invalid probabilities give NaN entries.
func Quantiles(x, ps, dst []float64) error {
	if len(dst) != len(ps) {
		return fmt.Errorf("%w: len(dst) = %d, len(ps) = %d", ErrDimension, len(dst), len(ps))
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	for i, p := range ps {
		dst[i] = Quantile(s, p)
	}
	return nil
}

// ESS returns the effective sample size (Σw)²/Σw² of the importance weights
// w (not necessarily normalised), which lies in [1, len(w)]. It returns NaN
// if w is empty, holds a negative, NaN or infinite weight, or sums to zero.
// The weights are rescaled by their maximum so that neither tiny nor huge
// weights overflow.
func ESS(w []float64) float64 {
	mx := 0.0
	for _, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return math.NaN()
		}
		if v > mx {
			mx = v
		}
	}
	if mx == 0 {
		return math.NaN()
	}
	// u = w/max(w) as a product; tiny maxima (whose reciprocal overflows)
	// are first scaled up by 2^600, exactly.
	fac := 1.0
	if mx < 0x1p-900 {
		fac = 0x1p600
	}
	inv := 1 / (mx * fac)
	s, s2 := 0.0, 0.0
	for _, v := range w {
		u := v * fac * inv
		s += u
		s2 += u * u
	}
	return s * s / s2
}

// ESSLog returns the effective sample size of the importance weights
// exp(logw[i]) given on the log scale, as ESS. −Inf entries are zero
// weights; NaN or +Inf entries, an empty slice or all −Inf give NaN.
func ESSLog(logw []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range logw {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			return math.NaN()
		}
		mx = math.Max(mx, v)
	}
	if math.IsInf(mx, -1) {
		return math.NaN()
	}
	s, s2 := 0.0, 0.0
	for _, v := range logw {
		u := math.Exp(v - mx)
		s += u
		s2 += u * u
	}
	return s * s / s2
}
