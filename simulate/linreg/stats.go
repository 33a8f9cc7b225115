package linreg

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// This file holds the model's statistic computed from a data set already
// clamped and normalised to [-1, 1] (a curator's view, as opposed to the
// record model's Contribution, which clamps and scales raw records) and
// the ℓ1 sensitivity the SBI paper states for it.

// StatDim returns the length of the statistic of Stats (and of
// Model.ContribDim) for p predictors: (p+1) + 1 + ((p+1)(p+2)/2 − 1), 9
// for p = 2; 0 for p < 1 or p > 2^12.
func StatDim(p int) int {
	if p < 1 || p > maxP {
		return 0
	}
	return (p + 1) + 1 + (p+1)*(p+2)/2 - 1
}

// Stats computes the sufficient statistics of the SBI paper §4.2 for data
// already clamped and normalised to [-1, 1]: with design rows (1, x_i1,
// …, x_ip) (intercept first) and responses y_i, it writes
//
//	(x'y/n [p+1], y'y/n [1], upper triangle of x'x/n row by row without
//	the constant (0,0) entry [(p+1)(p+2)/2 − 1])
//
// into dst (length StatDim(p)), the vector order of the paper's App. E.2
// and of Model's contribution. x is row-major n×p without the intercept
// column. Errors wrap simulate.ErrInvalid: p outside [1, 2^12], no
// records, mismatched lengths, or an entry outside [-1, 1] (the
// sensitivity needs them bounded; clamp and normalise first, for example
// with mechanism.NormalizeSlice).
func Stats(x []float64, y []float64, p int, dst []float64) error {
	if p < 1 || p > maxP {
		return fmt.Errorf("%w: linreg.Stats: p must be in [1, 2^12], got %d", simulate.ErrInvalid, p)
	}
	n := len(y)
	if n == 0 {
		return fmt.Errorf("%w: linreg.Stats: y must be non-empty", simulate.ErrInvalid)
	}
	if len(x) != n*p {
		return fmt.Errorf("%w: linreg.Stats: x has length %d, want n·p = %d", simulate.ErrInvalid, len(x), n*p)
	}
	if len(dst) != StatDim(p) {
		return fmt.Errorf("%w: linreg.Stats: dst has length %d, want %d", simulate.ErrInvalid, len(dst), StatDim(p))
	}
	for i, v := range x {
		if !(v >= -1 && v <= 1) {
			return fmt.Errorf("%w: linreg.Stats: x[%d] = %v outside [-1, 1] (clamp and normalise first)", simulate.ErrInvalid, i, v)
		}
	}
	for i, v := range y {
		if !(v >= -1 && v <= 1) {
			return fmt.Errorf("%w: linreg.Stats: y[%d] = %v outside [-1, 1] (clamp and normalise first)", simulate.ErrInvalid, i, v)
		}
	}
	for i := range dst {
		dst[i] = 0
	}
	q := p + 1
	for i := range n {
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
		for a := range q {
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

// Sensitivity returns the ℓ1 sensitivity (p² + 3p + 3)/n that the SBI
// paper (§4.2, refining Ju et al. 2022) states for Stats on n records
// with p predictors in [-1, 1]: 13/100 for the paper's p = 2, n = 100.
//
// The entry-by-entry bound is (p² + 4p + 3)/n ((p+1) cross products and p
// intercept terms moving by 2/n, y² and p squares by 1/n, p(p−1)/2
// products by 2/n); using |a − a'| + |a² − a'²| ≤ 9/4 jointly for y and
// each x_j gives (p² + 3.25p + 2.25)/n, which is below the paper's value
// for p ≤ 3 (the paper uses p = 2). SensitivityConservative returns the
// bound that holds for every p. Errors wrap simulate.ErrInvalid.
func Sensitivity(p, n int) (float64, error) {
	if p < 1 || n < 1 {
		return 0, fmt.Errorf("%w: linreg.Sensitivity: p and n must be >= 1, got p=%d n=%d", simulate.ErrInvalid, p, n)
	}
	fp := float64(p)
	return modelutil.Result("linear-regression sensitivity (p² + 3p + 3)/n", (fp*fp+3*fp+3)/float64(n))
}

// SensitivityConservative returns max((p² + 3p + 3), (p² + 3.25p +
// 2.25))/n, an ℓ1 sensitivity of Stats valid for every p (see
// Sensitivity). Errors wrap simulate.ErrInvalid.
func SensitivityConservative(p, n int) (float64, error) {
	if p < 1 || n < 1 {
		return 0, fmt.Errorf("%w: linreg.SensitivityConservative: p and n must be >= 1, got p=%d n=%d", simulate.ErrInvalid, p, n)
	}
	fp := float64(p)
	return modelutil.Result("linear-regression sensitivity", math.Max(fp*fp+3*fp+3, fp*fp+3.25*fp+2.25)/float64(n))
}
