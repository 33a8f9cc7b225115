// Package linalg provides small dense linear algebra on row-major float64
// slices: Cholesky factorisation with a jitter fallback, triangular solves,
// log-determinants, inverses of symmetric positive-definite matrices, a
// symmetric eigendecomposition and a cache-friendly matrix product.
//
// An m×n matrix is a []float64 of length at least m*n holding element (i, j)
// at index i*n+j; an n×n matrix therefore has length n*n. The package targets
// the small matrices of inference code (dimensions up to a few hundred;
// SymEigen up to about 50×50). Only SymEigen (one work matrix) and
// CholeskyJitter called in place (one copy) allocate.
//
// Functions that return an error report non-finite input, matrices that are
// not positive definite and slices shorter than the stated dimensions. The
// kernels without an error result (MatMul, MatVec, SolveLower, SolveUpperT,
// CholSolve) treat short slices as a programmer error and panic with a
// message naming the argument; they never panic on the values stored.
package linalg

import (
	"errors"
	"fmt"
	"math"

	"github.com/privinfer/privinfer/internal/argcheck"
)

// ErrNotPositiveDefinite is returned when a matrix that must be symmetric
// positive definite is not (numerically) so.
var ErrNotPositiveDefinite = errors.New("linalg: matrix is not positive definite")

// ErrInvalid is wrapped by every error reporting an invalid argument:
// ErrNotFinite, ErrDimension and ErrNotSymmetric wrap it.
var ErrInvalid = errors.New("linalg: invalid argument")

// ErrNotFinite is returned when an input matrix contains NaN or ±Inf. It
// wraps ErrInvalid.
var ErrNotFinite error = argcheck.Sentinel("linalg: matrix has a non-finite element", ErrInvalid)

// ErrDimension is returned when a dimension is negative or a slice is shorter
// than its stated dimensions require. It wraps ErrInvalid.
var ErrDimension error = argcheck.Sentinel("linalg: dimension mismatch", ErrInvalid)

// ErrNotSymmetric is returned by SymEigen when its input is not symmetric.
// It wraps ErrInvalid.
var ErrNotSymmetric error = argcheck.Sentinel("linalg: matrix is not symmetric", ErrInvalid)

// ErrNoConvergence is returned when an iterative method does not converge.
var ErrNoConvergence = errors.New("linalg: iteration did not converge")

func checkSquare(name string, a []float64, n int) error {
	if n < 0 {
		return fmt.Errorf("%w: n must be >= 0, got %d", ErrDimension, n)
	}
	if n > 0 && len(a)/n < n {
		return fmt.Errorf("%w: %s has length %d, need n*n for n = %d", ErrDimension, name, len(a), n)
	}
	return nil
}

func mustLen(fn, name string, s []float64, need int) {
	if need < 0 || len(s) < need {
		panic(fmt.Sprintf("linalg.%s: %s has length %d, need %d", fn, name, len(s), need))
	}
}

// Cholesky computes the lower-triangular L with A = L·Lᵀ for the symmetric
// positive-definite n×n matrix a and writes it into l (the strict upper
// triangle of l is set to zero). Only the lower triangle of a is read, so a
// need not be exactly symmetric. l may be the same slice as a (in-place
// factorisation), in which case a is overwritten even on failure.
//
// It returns ErrNotPositiveDefinite when a pivot is not strictly positive,
// ErrNotFinite when the lower triangle of a holds NaN or ±Inf, and
// ErrDimension for short slices.
func Cholesky(a []float64, n int, l []float64) error {
	if err := checkSquare("a", a, n); err != nil {
		return err
	}
	if err := checkSquare("l", l, n); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		row := a[i*n : i*n+i+1]
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return ErrNotFinite
			}
		}
	}
	return cholShift(a, n, l, 0)
}

// cholShift factorises a + shift·I into l. The lower triangle of a must be
// finite.
func cholShift(a []float64, n int, l []float64, shift float64) error {
	for i := 0; i < n; i++ {
		li := l[i*n : i*n+n]
		ai := a[i*n : i*n+n]
		for j := 0; j < i; j++ {
			lj := l[j*n : j*n+j+1]
			lik := li[:j]
			s := ai[j]
			for k, v := range lj[:j] {
				s -= lik[k] * v
			}
			li[j] = s / lj[j]
		}
		s := ai[i] + shift
		for _, v := range li[:i] {
			s -= v * v
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("%w: pivot %d is %g", ErrNotPositiveDefinite, i, s)
		}
		li[i] = math.Sqrt(s)
		for j := i + 1; j < n; j++ {
			li[j] = 0
		}
	}
	return nil
}

// Jitter schedule of CholeskyJitter: the first retry adds JitterStart times
// the mean absolute diagonal, each further retry multiplies the jitter by
// ten, and at most JitterTries retries are made (the last adds 1e-3 times
// the mean absolute diagonal).
const (
	JitterStart = 1e-10
	JitterTries = 8
)

// CholeskyJitter factorises a like Cholesky and, if a is not numerically
// positive definite, retries with a + δ·I for increasing δ. The schedule is
// δ = JitterStart·s, 10·JitterStart·s, …, for JitterTries retries, where s is
// the mean absolute diagonal of a (or 1 if that is zero). It returns the δ
// that succeeded (0 when a itself factorised) and ErrNotPositiveDefinite if
// every retry failed. A caller that needs the exact matrix should use
// Cholesky and treat failure as an error; the returned jitter tells how far
// from a the factorised matrix is.
//
// l may be the same slice as a; a copy of a is then made (one allocation)
// so that the retries see the original values.
func CholeskyJitter(a []float64, n int, l []float64) (jitter float64, err error) {
	if err := checkSquare("a", a, n); err != nil {
		return 0, err
	}
	if err := checkSquare("l", l, n); err != nil {
		return 0, err
	}
	scale := 0.0
	for i := 0; i < n; i++ {
		for _, v := range a[i*n : i*n+i+1] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, ErrNotFinite
			}
		}
		scale += math.Abs(a[i*n+i])
	}
	if n > 0 {
		scale /= float64(n)
	}
	if scale == 0 {
		scale = 1
	}
	src := a
	if n > 0 && &a[0] == &l[0] {
		src = append([]float64(nil), a[:n*n]...)
	}
	if err := cholShift(src, n, l, 0); err == nil {
		return 0, nil
	}
	d := JitterStart * scale
	for t := 0; t < JitterTries; t++ {
		if err := cholShift(src, n, l, d); err == nil {
			return d, nil
		}
		d *= 10
	}
	return 0, fmt.Errorf("%w even with jitter %g", ErrNotPositiveDefinite, d/10)
}

// SolveLower solves L·x = b in place (b becomes x) for the n×n
// lower-triangular l; the strict upper triangle of l is not read.
// Short slices panic (programmer error).
func SolveLower(l []float64, n int, b []float64) {
	mustLen("SolveLower", "l", l, n*n)
	mustLen("SolveLower", "b", b, n)
	for i := 0; i < n; i++ {
		s := b[i]
		li := l[i*n : i*n+i]
		for k, v := range li {
			s -= v * b[k]
		}
		b[i] = s / l[i*n+i]
	}
}

// SolveUpperT solves Lᵀ·x = b in place (b becomes x) for the n×n
// lower-triangular l, i.e. the upper-triangular system with the transpose of
// a Cholesky factor. Short slices panic (programmer error).
func SolveUpperT(l []float64, n int, b []float64) {
	mustLen("SolveUpperT", "l", l, n*n)
	mustLen("SolveUpperT", "b", b, n)
	for i := n - 1; i >= 0; i-- {
		li := l[i*n : i*n+i+1]
		x := b[i] / li[i]
		b[i] = x
		for k, v := range li[:i] {
			b[k] -= v * x
		}
	}
}

// CholSolve solves A·x = b in place for the SPD matrix A = L·Lᵀ given its
// Cholesky factor l. Short slices panic (programmer error).
func CholSolve(l []float64, n int, b []float64) {
	SolveLower(l, n, b)
	SolveUpperT(l, n, b)
}

// LogDetChol returns log det A = 2·Σ log L_ii for A = L·Lᵀ given the Cholesky
// factor l. It returns NaN if l is shorter than n*n.
func LogDetChol(l []float64, n int) float64 {
	if n < 0 || len(l) < n*n {
		return math.NaN()
	}
	s := 0.0
	for i := 0; i < n; i++ {
		s += math.Log(l[i*n+i])
	}
	return 2 * s
}

// InvSPD writes the inverse of the symmetric positive-definite n×n matrix a
// into inv, through its Cholesky factor; only the lower triangle of a is
// read and inv is exactly symmetric. inv may be the same slice as a. Errors
// are those of Cholesky, and ErrNotPositiveDefinite also when the inverse
// overflows (a numerically singular a). It allocates nothing.
func InvSPD(a []float64, n int, inv []float64) error {
	if err := Cholesky(a, n, inv); err != nil {
		return err
	}
	w := inv
	// In-place inverse of the lower-triangular factor, column by column.
	for j := 0; j < n; j++ {
		w[j*n+j] = 1 / w[j*n+j]
		for i := j + 1; i < n; i++ {
			s := 0.0
			for k := j; k < i; k++ {
				s += w[i*n+k] * w[k*n+j]
			}
			w[i*n+j] = -s / w[i*n+i]
		}
	}
	// A⁻¹ = Wᵀ·W with W = L⁻¹: entry (i,j), j ≥ i, is Σ_{k≥j} W_ki W_kj.
	// Row i of the result only needs rows k ≥ i of W, so rows are finished
	// top-down and the lower triangle is mirrored once row i is done.
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s := 0.0
			for k := j; k < n; k++ {
				s += w[k*n+i] * w[k*n+j]
			}
			w[i*n+j] = s
		}
		s := 0.0
		for k := i; k < n; k++ {
			v := w[k*n+i]
			s += v * v
		}
		w[i*n+i] = s
		for m := 0; m < i; m++ {
			w[i*n+m] = w[m*n+i]
		}
	}
	for _, v := range w[:n*n] {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("%w: the inverse overflows", ErrNotPositiveDefinite)
		}
	}
	return nil
}

// Block size of MatMul's loop tiling (elements); 64×64 float64 tiles of B
// (32 KiB) fit in a typical L1/L2 cache.
const mmBlock = 64

// MatMul computes C = A·B for the m×k matrix a and the k×n matrix b, writing
// the m×n result into c. c must not share memory with a or b. The kernel
// runs the i-k-j loop order (unit-stride inner loop over rows of B and C)
// tiled over k and j, and allocates nothing. Short slices panic (programmer
// error).
func MatMul(c, a, b []float64, m, k, n int) {
	if m < 0 || k < 0 || n < 0 {
		panic(fmt.Sprintf("linalg.MatMul: negative dimension m=%d k=%d n=%d", m, k, n))
	}
	mustLen("MatMul", "c", c, m*n)
	mustLen("MatMul", "a", a, m*k)
	mustLen("MatMul", "b", b, k*n)
	c = c[:m*n]
	for i := range c {
		c[i] = 0
	}
	for kk := 0; kk < k; kk += mmBlock {
		kmax := min(kk+mmBlock, k)
		for jj := 0; jj < n; jj += mmBlock {
			jmax := min(jj+mmBlock, n)
			w := jmax - jj
			for i := 0; i < m; i++ {
				ci := c[i*n+jj : i*n+jmax]
				ai := a[i*k+kk : i*k+kmax]
				// Four rows of B per pass: one load and store of C[i,j]
				// for four multiply-adds.
				p := 0
				for ; p+4 <= len(ai); p += 4 {
					a0, a1, a2, a3 := ai[p], ai[p+1], ai[p+2], ai[p+3]
					o := (kk+p)*n + jj
					b0 := b[o : o+w]
					b1 := b[o+n : o+n+w]
					b2 := b[o+2*n : o+2*n+w]
					b3 := b[o+3*n : o+3*n+w]
					b0, b1, b2, b3 = b0[:len(ci)], b1[:len(ci)], b2[:len(ci)], b3[:len(ci)]
					for j := range ci {
						ci[j] += a0*b0[j] + a1*b1[j] + a2*b2[j] + a3*b3[j]
					}
				}
				for ; p < len(ai); p++ {
					aip := ai[p]
					o := (kk+p)*n + jj
					bp := b[o : o+w]
					bp = bp[:len(ci)]
					for j := range ci {
						ci[j] += aip * bp[j]
					}
				}
			}
		}
	}
}

// MatVec computes y = A·x for the m×n matrix a and the n-vector x, writing
// the m-vector y. y must not share memory with x. Short slices panic
// (programmer error).
func MatVec(y, a, x []float64, m, n int) {
	if m < 0 || n < 0 {
		panic(fmt.Sprintf("linalg.MatVec: negative dimension m=%d n=%d", m, n))
	}
	mustLen("MatVec", "y", y, m)
	mustLen("MatVec", "a", a, m*n)
	mustLen("MatVec", "x", x, n)
	x = x[:n]
	for i := 0; i < m; i++ {
		ai := a[i*n : i*n+n]
		s := 0.0
		for j, v := range ai {
			s += v * x[j]
		}
		y[i] = s
	}
}

// SqDist returns the squared Euclidean distance Σₖ (a[k] − b[k])² over the
// first len(a) coordinates; b must be at least as long as a (a shorter b
// panics: programmer error).
func SqDist(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for k, v := range a {
		t := v - b[k]
		s += t * t
	}
	return s
}
