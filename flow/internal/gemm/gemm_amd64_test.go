//go:build amd64 && !purego

package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/cpu"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestAVX2Kernel runs the AVX2 kernel directly (it is not MulAdd's choice
// on machines with AVX-512) on every test shape.
func TestAVX2Kernel(t *testing.T) {
	if kernelUsed < cpu.AVX2 {
		t.Skip("no AVX2+FMA on this machine")
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, sh := range shapes {
		for _, trans := range []bool{false, true} {
			l := newLayout(r, sh[0], sh[1], sh[2], trans)
			c := append([]float64(nil), l.c...)
			drive64x6(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, c, l.ldc, c, l.ldc)
			l.check(t, "avx2", l.c, c)
			// C = bias + A·B: the bias row read with stride 0.
			bias := randVec(r, l.n)
			c0 := append([]float64(nil), l.c...)
			for i := 0; i < l.m; i++ {
				copy(c0[i*l.ldc:i*l.ldc+l.n], bias)
			}
			cb := append([]float64(nil), l.c...)
			drive64x6(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, bias, 0, cb, l.ldc)
			l.check(t, "avx2 bias", c0, cb)
		}
	}
}

func TestDetect(t *testing.T) {
	t.Logf("kernel: %s", Kernel())
}

// TestAVX2Kernel32 runs the AVX2 float32 kernels and conversion directly
// (none is the choice on machines with AVX-512): products on every
// float32 test shape, shapes with tail columns and random ones, as
// C += A·B, with an input row read with stride 0 and with no input, A
// exactly Len32 long and NaN past its last values, which must not reach
// C; the conversion bit for bit against Go's.
func TestAVX2Kernel32(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	if kernelUsed < cpu.AVX2 {
		t.Skip("no AVX2+FMA on this machine")
	}
	r := rand.New(rand.NewPCG(31, 32))
	all := append([][3]int(nil), shapes32...)
	// Shapes whose last 1–4 columns go to dot32x2 (A's rows contiguous) or
	// tdot32 (A held transposed): steps of p below one
	// vector, whole vectors only, several Block32 blocks, row counts
	// around their blocks of 4, 8 and 48 rows, one and two tail columns.
	all = append(all, [][3]int{{1, 17, 5}, {3, 18, 8}, {4, 19, 13}, {7, 20, 128}, {9, 50, 50}, {13, 33, 300}, {5, 49, 129},
		{120, 50, 50}, {8, 66, 7}, {48, 50, 120}, {51, 50, 120}, {47, 18, 3}, {101, 33, 260}, {96, 49, 1}}...)
	for it := 0; it < 100; it++ {
		all = append(all, [3]int{1 + r.IntN(40), 1 + r.IntN(70), 1 + r.IntN(300)})
	}
	for _, sh := range all {
		for _, trans := range []bool{false, true} {
			l := newLayout(r, sh[0], sh[1], sh[2], trans)
			a32, b32 := l.to32()
			a32 = a32[:Len32(l.m, l.k, l.sai, l.sap)]
			c := append([]float64(nil), l.c...)
			drive32(cpu.AVX2, l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, nil, 0, c, l.ldc, c, l.ldc)
			l.check32(t, "avx2 f32", l.c, c)
			bias := randVec(r, l.n)
			c0 := append([]float64(nil), l.c...)
			for i := 0; i < l.m; i++ {
				copy(c0[i*l.ldc:i*l.ldc+l.n], bias)
			}
			cb := append([]float64(nil), l.c...)
			drive32(cpu.AVX2, l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, nil, 0, bias, 0, cb, l.ldc)
			l.check32(t, "avx2 f32 bias", c0, cb)
			for i := 0; i < l.m; i++ {
				clear(c0[i*l.ldc : i*l.ldc+l.n])
			}
			cz := append([]float64(nil), l.c...)
			drive32(cpu.AVX2, l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, nil, 0, nil, 0, cz, l.ldc)
			l.check32(t, "avx2 f32 no input", c0, cz)
		}
	}
	for _, n := range []int{8, 16, 24, 1000} {
		src := randVec(r, n)
		src[0], src[1], src[2], src[3] = 1+0x1p-24, 1e39, 0x1p-150, math.NaN()
		got, want := make([]float32, n), make([]float32, n)
		cvt32x8(&got[0], &src[0], n)
		toFloat32Go(want, src)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("cvt32x8 n=%d: element %d (%v): %v, want %v", n, i, src[i], got[i], want[i])
			}
		}
	}
}

// TestDot32x2Adjacent checks that dot32x2 gives the same bits for two
// adjacent columns, whose rows of four it reduces together (DOT4ROWS), as
// for each column alone (one row at a time, HSUM32): with a Cin, with a
// repeated Cin row and with none, for row counts around the blocks of 4.
func TestDot32x2Adjacent(t *testing.T) {
	if kernelUsed < cpu.AVX2 {
		t.Skip("no AVX2+FMA on this machine")
	}
	r := rand.New(rand.NewPCG(41, 42))
	for _, m := range []int{1, 3, 4, 5, 8, 13} {
		for _, k := range []int{3, 8, 50, 64} {
			kp := (k + 7) &^ 7
			a := make([]float32, (m+8)*kp)
			for i := range a {
				a[i] = float32(r.NormFloat64())
			}
			bt := make([]float32, 2*kp)
			for j := 0; j < 2; j++ {
				for p := 0; p < k; p++ {
					bt[j*kp+p] = float32(r.NormFloat64())
				}
			}
			const ldc = 5
			cin := randVec(r, m*ldc)
			for _, mode := range []string{"cin", "repeated", "zeros"} {
				in, ldcin := cin, ldc
				switch mode {
				case "repeated":
					ldcin = 0
				case "zeros":
					in, ldcin = zeros32[:], 0
				}
				kt := 0
				if k%8 != 0 {
					kt = 1
				}
				mask := &laneMask32[16-k%8]
				both := make([]float64, m*ldc)
				dot32x2(k/8, kt, &a[0], kp, &bt[0], &bt[kp], &in[0], &in[1], ldcin, &both[1], &both[2], ldc, m, mask)
				alone := make([]float64, m*ldc)
				for j := 0; j < 2; j++ {
					dot32x2(k/8, kt, &a[0], kp, &bt[j*kp], &bt[j*kp], &in[j], &in[j], ldcin, &alone[1+j], &alone[1+j], ldc, m, mask)
				}
				for i := range both {
					if math.Float64bits(both[i]) != math.Float64bits(alone[i]) {
						t.Fatalf("m %d, k %d, %s: element %d = %v together, %v alone", m, k, mode, i, both[i], alone[i])
					}
				}
			}
		}
	}
}

// TestKernel32Agree checks that the AVX-512 and AVX2 float32 products
// give the same bits (both sum every element over p in float32 in the same
// order, and both send the last 1–4 columns past a multiple of 16 to the
// same dot-product kernels), so that float32 training gives the same
// results on machines with either: on the float32 test shapes, the
// flow's chunk shapes and random ones, as C += A·B, with an input row read
// with stride 0 and with no input, A's rows contiguous or held transposed.
func TestKernel32Agree(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	if kernelUsed < cpu.AVX512 {
		t.Skip("no AVX-512 on this machine")
	}
	r := rand.New(rand.NewPCG(51, 52))
	all := append([][3]int(nil), shapes32...)
	all = append(all, [][3]int{{64, 50, 50}, {51, 50, 64}, {64, 29, 50}, {64, 50, 29}, {8, 50, 50}, {51, 50, 8},
		{100, 50, 300}, {13, 33, 7}, {64, 49, 50}, {64, 66, 50}, {9, 17, 129}, {96, 20, 1}}...)
	for it := 0; it < 100; it++ {
		all = append(all, [3]int{1 + r.IntN(70), 1 + r.IntN(70), 1 + r.IntN(300)})
	}
	for _, sh := range all {
		for _, trans := range []bool{false, true} {
			l := newLayout(r, sh[0], sh[1], sh[2], trans)
			a32, b32 := l.to32()
			a32 = a32[:Len32(l.m, l.k, l.sai, l.sap)]
			bias := randVec(r, l.n)
			for _, mode := range []string{"C += A·B", "bias", "no input"} {
				run := func(kind cpu.Level) []float64 {
					c := append([]float64(nil), l.c...)
					switch mode {
					case "bias":
						drive32(kind, l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, nil, 0, bias, 0, c, l.ldc)
					case "no input":
						drive32(kind, l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, nil, 0, nil, 0, c, l.ldc)
					default:
						drive32(kind, l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, nil, 0, c, l.ldc, c, l.ldc)
					}
					return c
				}
				c512, c2 := run(cpu.AVX512), run(cpu.AVX2)
				for i := range c512 {
					if math.Float64bits(c512[i]) != math.Float64bits(c2[i]) {
						t.Fatalf("%v transposed %v, %s: element %d is %v with AVX-512, %v with AVX2", sh, trans, mode, i, c512[i], c2[i])
					}
				}
			}
		}
	}
}
