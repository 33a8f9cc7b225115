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
			drive(useAVX2, 8, l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, c, l.ldc, c, l.ldc)
			l.check(t, "avx2", l.c, c)
			// C = bias + A·B: the bias row read with stride 0.
			bias := randVec(r, l.n)
			c0 := append([]float64(nil), l.c...)
			for i := 0; i < l.m; i++ {
				copy(c0[i*l.ldc:i*l.ldc+l.n], bias)
			}
			cb := append([]float64(nil), l.c...)
			drive(useAVX2, 8, l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, bias, 0, cb, l.ldc)
			l.check(t, "avx2 bias", c0, cb)
		}
	}
}

func TestDetect(t *testing.T) {
	t.Logf("kernel: %s", Kernel())
}
