package cli

import "math"

// MeanSE returns the mean of x and its standard error, the sample standard
// deviation (divisor n − 1) over √n: the mean ± s.e. that the examples print
// over seeds or observations. The standard error is 0 for one value; both
// are NaN for none.
func MeanSE(x []float64) (mean, se float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) > 1 {
		for _, v := range x {
			se += (v - mean) * (v - mean)
		}
		se = math.Sqrt(se / float64(len(x)-1) / float64(len(x)))
	}
	return mean, se
}
