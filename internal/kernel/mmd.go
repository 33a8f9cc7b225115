// Package kernel computes Gaussian-kernel two-sample quantities, the maximum
// mean discrepancy (biased V-statistic and unbiased U-statistic) and the
// median-heuristic bandwidth, for samples stored as flat slices of
// d-dimensional points.
//
// The O(n²) kernel sums are evaluated in square tiles on all cores; tiles are
// added in a fixed order, so results do not depend on GOMAXPROCS.
package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/privinfer/privinfer/internal/parallel"
)

// ErrInput is wrapped by the errors this package returns for invalid
// dimensions, sample lengths, bandwidths or non-finite points.
var ErrInput = errors.New("kernel: invalid input")

func inputf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInput}, args...)...)
}

// MMD2 returns an estimate of the squared maximum mean discrepancy between
// the samples x and y (points of dimension d ≥ 1 stored back to back) under
// the Gaussian kernel k(a, b) = exp(−‖a − b‖²/(2h²)), h = bandwidth. With
// unbiased false it is the biased V-statistic
//
//	(1/m²)Σ_{i,j} k(x_i,x_j) + (1/n²)Σ_{i,j} k(y_i,y_j) − (2/mn)Σ_{i,j} k(x_i,y_j),
//
// the squared RKHS distance between the empirical mean embeddings (never
// negative up to rounding); with unbiased true it is the U-statistic of
// Gretton et al. (2012, eq. 3), which leaves out the diagonal terms i = j of
// the within-sample sums, is unbiased for the population MMD² and can be
// negative. It honours ctx between tiles and returns an error wrapping
// ErrInput when ctx is nil, d < 1, the bandwidth is not finite and positive, a length is
// not a positive multiple of d, or (unbiased) a sample has fewer than two
// points. Points are not checked for finiteness.
func MMD2(ctx context.Context, x, y []float64, d int, bandwidth float64, unbiased bool) (float64, error) {
	if ctx == nil {
		return 0, inputf("context is nil")
	}
	if d < 1 {
		return 0, inputf("dimension must be >= 1, got %d", d)
	}
	if !(bandwidth > 0) || math.IsInf(bandwidth, 0) {
		return 0, inputf("bandwidth must be finite and > 0, got %v", bandwidth)
	}
	if len(x) == 0 || len(y) == 0 || len(x)%d != 0 || len(y)%d != 0 {
		return 0, inputf("samples of length %d and %d are not positive multiples of d = %d", len(x), len(y), d)
	}
	nx, ny := len(x)/d, len(y)/d
	if unbiased && (nx < 2 || ny < 2) {
		return 0, inputf("the unbiased MMD needs at least 2 points per sample, got %d and %d", nx, ny)
	}
	g := 1 / (2 * bandwidth * bandwidth)
	kxx, err := Sum(ctx, x, x, d, g, true)
	if err != nil {
		return 0, err
	}
	kyy, err := Sum(ctx, y, y, d, g, true)
	if err != nil {
		return 0, err
	}
	kxy, err := Sum(ctx, x, y, d, g, false)
	if err != nil {
		return 0, err
	}
	fx, fy := float64(nx), float64(ny)
	if unbiased {
		// Remove the diagonal terms k(a, a) = 1.
		return (kxx-fx)/(fx*(fx-1)) + (kyy-fy)/(fy*(fy-1)) - 2*kxy/(fx*fy), nil
	}
	return kxx/(fx*fx) + kyy/(fy*fy) - 2*kxy/(fx*fy), nil
}

// block is the side of the square tiles of the kernel matrix; a tile's
// points stay in cache.
const block = 256

// Sum returns Σ_{i,j} exp(−g‖a_i − b_j‖²) over all pairs of points of a and
// b (dimension d, lengths multiples of d, as MMD2 checks). When sym is set, a
// and b must be the same sample: only tiles on and above the diagonal are
// evaluated and the diagonal terms contribute exactly 1 each. Tiles are
// summed in a fixed order, so the result does not depend on the number of
// workers. It returns ctx's error if ctx is cancelled.
//
// It returns an error wrapping ErrInput for a nil ctx, d < 1, a g that is
// not finite and ≥ 0, lengths that are not multiples of d, or sym with
// samples of different lengths.
func Sum(ctx context.Context, a, b []float64, d int, g float64, sym bool) (float64, error) {
	if ctx == nil {
		return 0, inputf("context is nil")
	}
	if d < 1 || len(a)%d != 0 || len(b)%d != 0 {
		return 0, inputf("samples of length %d and %d are not multiples of d = %d", len(a), len(b), d)
	}
	if !(g >= 0) || math.IsInf(g, 0) {
		return 0, inputf("kernel rate g must be finite and >= 0, got %v", g)
	}
	if sym && len(a) != len(b) {
		return 0, inputf("a symmetric sum needs one sample, got lengths %d and %d", len(a), len(b))
	}
	na, nb := len(a)/d, len(b)/d
	ta, tb := (na+block-1)/block, (nb+block-1)/block
	partial := make([]float64, ta*tb)
	err := parallel.For(ctx, ta*tb, func(lo, hi int) error {
		for t := lo; t < hi; t++ {
			bi, bj := t/tb, t%tb
			if sym && bj < bi {
				continue
			}
			i0, i1 := bi*block, min((bi+1)*block, na)
			j0, j1 := bj*block, min((bj+1)*block, nb)
			s := 0.0
			if d == 1 {
				for i := i0; i < i1; i++ {
					xi := a[i]
					jstart := j0
					if sym && bi == bj {
						jstart = i + 1
						s += 0.5 // half of k(x_i, x_i) = 1; doubled below
					}
					for j := jstart; j < j1; j++ {
						e := xi - b[j]
						s += math.Exp(-g * e * e)
					}
				}
			} else {
				for i := i0; i < i1; i++ {
					xi := a[i*d : (i+1)*d]
					jstart := j0
					if sym && bi == bj {
						jstart = i + 1
						s += 0.5
					}
					for j := jstart; j < j1; j++ {
						yj := b[j*d : (j+1)*d]
						e2 := 0.0
						for k, v := range xi {
							e := v - yj[k]
							e2 += e * e
						}
						s += math.Exp(-g * e2)
					}
				}
			}
			if sym {
				s *= 2 // off-diagonal tiles and pairs count twice
			}
			partial[t] = s
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	sum := 0.0
	for _, v := range partial {
		sum += v
	}
	return sum, nil
}

// MedianHeuristic returns the median of the pairwise Euclidean distances
// ‖x_i − x_j‖, i < j, among the first maxPoints points of x (points of
// dimension d back to back; maxPoints ≤ 0 means 1000), the usual bandwidth
// of a Gaussian kernel. For an even number of pairs it is the mean of the
// two middle distances. It returns an error wrapping ErrInput for d < 1, a
// length that is not a multiple of d, fewer than two points, a non-finite
// coordinate among the points used, an overflowing distance or a zero
// median.
func MedianHeuristic(x []float64, d, maxPoints int) (float64, error) {
	if d < 1 || len(x)%d != 0 {
		return 0, inputf("median heuristic: length %d is not a multiple of dimension %d", len(x), d)
	}
	if maxPoints <= 0 {
		maxPoints = 1000
	}
	n := min(len(x)/d, maxPoints)
	if n < 2 {
		return 0, inputf("the median heuristic needs at least 2 points, got %d", n)
	}
	for i, v := range x[:n*d] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, inputf("median heuristic: x[%d] is %v", i, v)
		}
	}
	ds := make([]float64, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		xi := x[i*d : (i+1)*d]
		for j := i + 1; j < n; j++ {
			xj := x[j*d : (j+1)*d]
			e2 := 0.0
			for k, v := range xi {
				e := v - xj[k]
				e2 += e * e
			}
			ds = append(ds, math.Sqrt(e2))
		}
	}
	slices.Sort(ds)
	k := len(ds)
	if math.IsInf(ds[k-1], 0) {
		return 0, inputf("median heuristic: a pairwise distance overflows")
	}
	med := ds[k/2]
	if k%2 == 0 {
		med = 0.5 * (ds[k/2-1] + ds[k/2])
	}
	if !(med > 0) {
		return 0, inputf("median heuristic: the median pairwise distance is zero")
	}
	return med, nil
}
