//go:build amd64 && !purego

package gemm

import (
	"math/rand/v2"
	"testing"
)

// TestAVX2Kernel runs the AVX2 kernel directly (it is not MulAdd's choice
// on machines with AVX-512) on every test shape.
func TestAVX2Kernel(t *testing.T) {
	if detect() < useAVX2 {
		t.Skip("no AVX2+FMA on this machine")
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, sh := range shapes {
		for _, trans := range []bool{false, true} {
			l := newLayout(r, sh[0], sh[1], sh[2], trans)
			c := append([]float64(nil), l.c...)
			drive(useAVX2, 8, l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, c, l.ldc)
			l.check(t, "avx2", l.c, c)
		}
	}
}

func TestDetect(t *testing.T) {
	t.Logf("kernel: %s", Kernel())
}
