package lattice

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/internal/cpu"
)

// ExpShift sets w[i] = math.Exp(x[i] − m) for every i < len(x) and
// returns an error if w is shorter than x. With AVX-512 (AVX2) the
// exponentials are computed eight (four) at a time by the algorithm of
// math.Exp's amd64 assembly, operation for operation: its
// fused-multiply-add path, the one math.Exp takes on every processor with
// AVX and FMA, which both kernels require. So the values are math.Exp's
// bits; without the kernels ExpShift calls math.Exp. w may be x itself.
func ExpShift(w, x []float64, m float64) error {
	if len(w) < len(x) {
		return fmt.Errorf("lattice: w must have length at least len(x) = %d, got %d: %w", len(x), len(w), ErrInvalid)
	}
	if len(x) == 0 {
		return nil
	}
	switch level {
	case cpu.AVX512:
		expShift512(&w[0], &x[0], len(x), m)
		return nil
	case cpu.AVX2:
		expShift256(&w[0], &x[0], len(x), m)
		return nil
	}
	expShiftGo(w, x, m)
	return nil
}

// expShiftGo is ExpShift's Go twin.
func expShiftGo(w, x []float64, m float64) {
	w = w[:len(x)]
	for i, v := range x {
		w[i] = math.Exp(v - m)
	}
}

// Max returns the largest element of x, −Inf for an empty x and NaN if any
// element is NaN. It keeps four running maxima, so a zero maximum may come
// out as +0 where a scan keeping the first of equal values would give −0.
func Max(x []float64) float64 {
	m0, m1, m2, m3 := math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)
	i := 0
	for ; i+4 <= len(x); i += 4 {
		m0, m1, m2, m3 = max(m0, x[i]), max(m1, x[i+1]), max(m2, x[i+2]), max(m3, x[i+3])
	}
	for ; i < len(x); i++ {
		m0 = max(m0, x[i])
	}
	return max(max(m0, m1), max(m2, m3))
}
