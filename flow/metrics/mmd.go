package metrics

import (
	"context"
	"fmt"
	"math"

	"github.com/privinfer/privinfer/internal/kernel"
)

// checkSample validates a flat sample of dimension d and returns its size.
func checkSample(name string, x []float64, d int) (int, error) {
	if d < 1 {
		return 0, fmt.Errorf("%w: d: must be ≥ 1, got %d", ErrInvalid, d)
	}
	if len(x) == 0 || len(x)%d != 0 {
		return 0, fmt.Errorf("%w: %s: must hold a positive multiple of d = %d values, got %d", ErrInvalid, name, d, len(x))
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%w: %s[%d]: must be finite, got %v", ErrInvalid, name, i, v)
		}
	}
	return len(x) / d, nil
}

// checkPair validates a sample x and a reference sample ref of dimension
// d and returns their sizes.
func checkPair(x, ref []float64, d int) (n, m int, err error) {
	if n, err = checkSample("x", x, d); err != nil {
		return 0, 0, err
	}
	if m, err = checkSample("ref", ref, d); err != nil {
		return 0, 0, err
	}
	return n, m, nil
}

// MMDOptions configures MMD.
type MMDOptions struct {
	// Bandwidth is the Gaussian kernel's length scale h in
	// k(a, b) = exp(−‖a − b‖²/(2h²)); 0 means the median heuristic on the
	// reference sample: the median Euclidean distance between distinct
	// points among its first 1000 (the bandwidth abc.MedianHeuristic
	// returns).
	Bandwidth float64
	// Biased selects the biased V-statistic (which includes the diagonal
	// terms and is never negative) instead of the default unbiased
	// U-statistic.
	Biased bool
}

// MMD returns the squared maximum mean discrepancy between the sample x and
// the reference sample ref (both of dimension d) with a Gaussian kernel,
// by default the unbiased estimate
//
//	MMD² = 1/(n(n−1)) Σ_{i≠j} k(x_i, x_j) + 1/(m(m−1)) Σ_{i≠j} k(y_i, y_j) − 2/(nm) Σ_{i,j} k(x_i, y_j)
//
// (Gretton et al. 2012, eq. 3), which can be slightly negative when the
// distributions agree. The bandwidth defaults to the median heuristic on the
// reference sample, so a metric computed against one reference is comparable
// across methods. The O((n+m)²d) kernel sums run on all cores
// (internal/kernel), with a result independent of GOMAXPROCS.
func MMD(x, ref []float64, d int, opt MMDOptions) (float64, error) {
	n, m, err := checkPair(x, ref, d)
	if err != nil {
		return 0, err
	}
	h := opt.Bandwidth
	if h == 0 {
		if h, err = kernel.MedianHeuristic(ref, d, 1000); err != nil {
			return 0, fmt.Errorf("%w: ref: the default bandwidth (median heuristic): %v", ErrInvalid, err)
		}
	}
	if !(h > 0) || math.IsInf(h, 0) {
		return 0, fmt.Errorf("%w: MMDOptions.Bandwidth: must be finite and > 0, got %v", ErrInvalid, h)
	}
	if !opt.Biased && (n < 2 || m < 2) {
		return 0, fmt.Errorf("%w: x, ref: the unbiased MMD needs at least 2 points in each, got %d and %d", ErrInvalid, n, m)
	}
	v, err := kernel.MMD2(context.Background(), x, ref, d, h, !opt.Biased)
	if err != nil {
		return 0, fmt.Errorf("%w: x, ref: %v", ErrInvalid, err)
	}
	return v, nil
}
