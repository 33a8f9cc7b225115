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
// a NaN statistic with ErrNonFinite, and ClampSlice, NormalizeSlice and
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
// ErrNonFinite, naming the entry and writing nothing, when some x_i is
// NaN (NaN has no place in [lo, hi], and a NaN that reached a release
// would carry no guarantee), and an error wrapping ErrInvalidParameter for
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
		return fmt.Errorf("mechanism: dst has length %d, x %d: %w", len(dst), len(x), ErrDimension)
	}
	return checkNoNaN(x)
}

// checkNoNaN returns an error wrapping ErrNonFinite naming the first NaN
// entry of x.
func checkNoNaN(x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) {
			return fmt.Errorf("mechanism: x[%d] is NaN, which no clamp or normalisation maps into the bounds: %w", i, ErrNonFinite)
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
// path: every Release refuses a NaN statistic with ErrNonFinite.)
func Normalize(x, lo, hi float64) float64 {
	return 2*(Clamp(x, lo, hi)-lo)/(hi-lo) - 1
}

// NormalizeSlice writes Normalize(x_i, lo, hi) into dst (which may alias
// x): ±Inf maps to ±1. Errors as for ClampSlice (a NaN entry wraps
// ErrNonFinite and nothing is written).
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
			return 0, 0, fmt.Errorf("mechanism: x[%d] is NaN: %w", i, ErrNonFinite)
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

// LinRegStatDim returns the length of the linear-regression statistic of
// LinRegStats for p predictors: (p+1) + 1 + ((p+1)(p+2)/2 − 1).
func LinRegStatDim(p int) int { return (p + 1) + 1 + (p+1)*(p+2)/2 - 1 }

// LinRegStats computes the sufficient statistics of the SBI paper §4.2 for
// data already clamped and normalised to [-1, 1]: with design rows
// (1, x_i1, …, x_ip) (intercept first) and responses y_i, it writes
//
//	(x'y/n [p+1], y'y/n [1], upper triangle of x'x/n row by row without
//	the constant (0,0) entry [(p+1)(p+2)/2 − 1])
//
// into dst (length LinRegStatDim(p)), the vector order of the paper's
// App. E.2. x is row-major n×p without the intercept column. Entries
// outside [-1, 1] are an error (the sensitivity needs them bounded).
func LinRegStats(x []float64, y []float64, p int, dst []float64) error {
	if p < 1 {
		return invalidf("p must be >= 1, got %d", p)
	}
	n := len(y)
	if n == 0 {
		return invalidf("y must be non-empty")
	}
	if len(x) != n*p {
		return fmt.Errorf("mechanism: x has length %d, want n·p = %d: %w", len(x), n*p, ErrDimension)
	}
	if len(dst) != LinRegStatDim(p) {
		return fmt.Errorf("mechanism: dst has length %d, want %d: %w", len(dst), LinRegStatDim(p), ErrDimension)
	}
	for i, v := range x {
		if !(v >= -1 && v <= 1) {
			return fmt.Errorf("mechanism: x[%d] = %v outside [-1, 1] (clamp and normalise first): %w", i, v, ErrOutOfDomain)
		}
	}
	for i, v := range y {
		if !(v >= -1 && v <= 1) {
			return fmt.Errorf("mechanism: y[%d] = %v outside [-1, 1] (clamp and normalise first): %w", i, v, ErrOutOfDomain)
		}
	}
	for i := range dst {
		dst[i] = 0
	}
	q := p + 1
	for i := 0; i < n; i++ {
		row := x[i*p : (i+1)*p]
		yi := y[i]
		// x'y
		dst[0] += yi
		for j, v := range row {
			dst[1+j] += v * yi
		}
		// y'y
		dst[q] += yi * yi
		// upper triangle of x'x without (0,0)
		k := q + 1
		for a := 0; a < q; a++ {
			xa := 1.0
			if a > 0 {
				xa = row[a-1]
			}
			for b := a; b < q; b++ {
				if a == 0 && b == 0 {
					continue
				}
				xb := 1.0
				if b > 0 {
					xb = row[b-1]
				}
				dst[k] += xa * xb
				k++
			}
		}
	}
	fn := float64(n)
	for i := range dst {
		dst[i] /= fn
	}
	return nil
}

// LinRegSensitivity returns the ℓ1 sensitivity (p² + 3p + 3)/n that the
// SBI paper (§4.2, refining Ju et al. 2022) states for LinRegStats on n
// records with p predictors in [-1, 1].
//
// The entry-by-entry bound is (p² + 4p + 3)/n ((p+1) cross products and p
// intercept terms moving by 2/n, y² and p squares by 1/n, p(p−1)/2
// products by 2/n); using |a − a'| + |a² − a'²| ≤ 9/4 jointly for y and
// each x_j gives (p² + 3.25p + 2.25)/n, which is below the paper's value
// for p ≤ 3 (the paper uses p = 2). LinRegSensitivityConservative
// returns the bound that holds for every p.
func LinRegSensitivity(p, n int) (float64, error) {
	if p < 1 || n < 1 {
		return 0, invalidf("p and n must be >= 1, got p=%d n=%d", p, n)
	}
	fp := float64(p)
	return result("sensitivity (p² + 3p + 3)/n", (fp*fp+3*fp+3)/float64(n))
}

// LinRegSensitivityConservative returns max((p² + 3p + 3), (p² + 3.25p +
// 2.25))/n, an ℓ1 sensitivity of LinRegStats valid for every p (see
// LinRegSensitivity).
func LinRegSensitivityConservative(p, n int) (float64, error) {
	if p < 1 || n < 1 {
		return 0, invalidf("p and n must be >= 1, got p=%d n=%d", p, n)
	}
	fp := float64(p)
	return result("sensitivity", math.Max(fp*fp+3*fp+3, fp*fp+3.25*fp+2.25)/float64(n))
}

// NaiveBayesLaplaceScale returns the Laplace scale 2K/(nε) that the SBI
// paper (App. E.3) adds to every count proportion r^k_ij = n^k_ij/n of a
// naive Bayes model with K features on n records: changing one record
// moves two cells of each of the K feature tables by 1/n, an ℓ1
// sensitivity of 2K/n.
func NaiveBayesLaplaceScale(K, n int, epsilon float64) (float64, error) {
	if K < 1 || n < 1 {
		return 0, invalidf("K and n must be >= 1, got K=%d n=%d", K, n)
	}
	if err := checkEpsilon(epsilon); err != nil {
		return 0, err
	}
	return result("scale 2K/(nε)", 2*float64(K)/(float64(n)*epsilon))
}

// LDPLinRegSensitivity returns the ℓ2 sensitivity of Lemma 3.1 of the
// LDP paper for the per-user linear-regression statistic
// t(x, y) = [t2(x), y·x, y²] released with Gaussian noise of standard
// deviations σ1 (on t2), σ2 (on y·x), σ3 (on y²), ‖x‖2 ≤ R, |y| ≤ Ry,
// expressed for a Gaussian mechanism of noise σ1:
//
//	Δ2 = √(σ1⁴Ry⁴/(2σ2⁴) + 2R⁴ + 2σ1²Ry²R²/σ2² + σ1²Ry⁴/σ3²).
func LDPLinRegSensitivity(R, Ry, sigma1, sigma2, sigma3 float64) (float64, error) {
	for _, a := range []struct {
		n string
		v float64
	}{{"R", R}, {"Ry", Ry}, {"sigma1", sigma1}, {"sigma2", sigma2}, {"sigma3", sigma3}} {
		if err := checkPositive(a.n, a.v); err != nil {
			return 0, err
		}
	}
	c1 := sigma1 * sigma1 / (sigma2 * sigma2)
	c2 := sigma1 * sigma1 / (sigma3 * sigma3)
	ry2 := Ry * Ry
	r2 := R * R
	return result("sensitivity", math.Sqrt(c1*c1*ry2*ry2/2+2*r2*r2+2*c1*ry2*r2+c2*ry2*ry2))
}

// LDPLinRegSensitivityEqual is Corollary 3.1 of the LDP paper (R = 1,
// σ1 = σ2 = σ3): Δ2 = √(3Ry⁴/2 + 2Ry² + 2).
func LDPLinRegSensitivityEqual(Ry float64) (float64, error) {
	if err := checkPositive("Ry", Ry); err != nil {
		return 0, err
	}
	r2 := Ry * Ry
	return result("sensitivity", math.Sqrt(1.5*r2*r2+2*r2+2))
}

// LDPLogRegSensitivity returns the ℓ2 sensitivity of Lemma 13.1 of the
// LDP paper for the logistic-regression statistics s1 = y·x (noise σ1)
// and s2 = t2(x) (noise σ2), ‖x‖2 ≤ R, y ∈ {−1, 1}, expressed for a
// Gaussian mechanism of noise σ1:
//
//	Δ2 = √(σ2²/(2σ1²) + 2R² + 2σ1²R⁴/σ2²)
//
// as printed in the paper.
func LDPLogRegSensitivity(R, sigma1, sigma2 float64) (float64, error) {
	for _, a := range []struct {
		n string
		v float64
	}{{"R", R}, {"sigma1", sigma1}, {"sigma2", sigma2}} {
		if err := checkPositive(a.n, a.v); err != nil {
			return 0, err
		}
	}
	r2 := R * R
	return result("sensitivity", math.Sqrt(sigma2*sigma2/(2*sigma1*sigma1)+2*r2+2*sigma1*sigma1*r2*r2/(sigma2*sigma2)))
}

// LDPLogRegSensitivityEqual is Corollary 13.1 (R = 1, σ1 = σ2):
// Δ2 = √(9/2).
func LDPLogRegSensitivityEqual() float64 { return math.Sqrt(4.5) }

// LDPInputSensitivity returns 2R, the ℓ2 sensitivity of releasing an input
// vector with ‖x‖2 ≤ R (LDP paper eq. 45).
func LDPInputSensitivity(R float64) (float64, error) {
	if err := checkPositive("R", R); err != nil {
		return 0, err
	}
	return result("sensitivity 2R", 2*R)
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
