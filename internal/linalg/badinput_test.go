package linalg

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds invalid matrices and dimensions to the
// error-returning factorizations: every call returns an error wrapping
// ErrInvalid and nothing panics. (The allocation-free kernels SolveLower,
// SolveUpperT, CholSolve, MatMul and MatVec panic on short slices, a
// documented programmer error tested by TestKernelsPanicOnShortSlices.)
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	id := []float64{1, 0, 0, 1}
	out := make([]float64, 4)
	type B = testutil.BadInput
	cases := []B{
		{Category: "nonpositive", Name: "Cholesky n -1", Err: func() error { return Cholesky(id, -1, out) }},
		{Category: "mismatched", Name: "Cholesky a short", Err: func() error { return Cholesky(id[:3], 2, out) }},
		{Category: "mismatched", Name: "Cholesky l short", Err: func() error { return Cholesky(id, 2, out[:3]) }},
		{Category: "empty", Name: "Cholesky nil with n 2", Err: func() error { return Cholesky(nil, 2, out) }},
		{Category: "nan", Name: "Cholesky NaN", Err: func() error { return Cholesky([]float64{nan, 0, 0, 1}, 2, out) }},
		{Category: "inf", Name: "Cholesky Inf", Err: func() error { return Cholesky([]float64{1, 0, 0, inf}, 2, out) }},
		{Category: "huge", Name: "Cholesky n 1<<40", Err: func() error { return Cholesky(id, 1<<40, out) }},
		{Category: "nan", Name: "CholeskyJitter NaN", Err: func() error { _, err := CholeskyJitter([]float64{1, nan, nan, 1}, 2, out); return err }},
		{Category: "mismatched", Name: "CholeskyJitter short", Err: func() error { _, err := CholeskyJitter(id[:2], 2, out); return err }},
		{Category: "nan", Name: "InvSPD NaN", Err: func() error { return InvSPD([]float64{1, 0, 0, nan}, 2, out) }},
		{Category: "mismatched", Name: "InvSPD inv short", Err: func() error { return InvSPD(id, 2, out[:1]) }},
		{Category: "nonpositive", Name: "InvSPD n -3", Err: func() error { return InvSPD(id, -3, out) }},
		{Category: "nan", Name: "SymEigen NaN", Err: func() error { return SymEigen([]float64{nan, 0, 0, 1}, 2, make([]float64, 2), out) }},
		{Category: "inf", Name: "SymEigen Inf", Err: func() error { return SymEigen([]float64{1, 0, 0, -inf}, 2, make([]float64, 2), out) }},
		{Category: "mismatched", Name: "SymEigen vals short", Err: func() error { return SymEigen(id, 2, make([]float64, 1), out) }},
		{Category: "mismatched", Name: "SymEigen not symmetric", Err: func() error { return SymEigen([]float64{1, 2, 3, 1}, 2, make([]float64, 2), out) }},
		{Category: "nonpositive", Name: "SymEigen n -1", Err: func() error { return SymEigen(id, -1, nil, nil) }},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
