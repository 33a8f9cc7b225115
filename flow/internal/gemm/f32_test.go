package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// check32 compares c against C0 + A·B with the tolerance of a float32
// product: (min(k, Block32) + 3)·2⁻²⁴·(|C0| + Σ|A||B|) (operands rounded
// to float32, then a recursive float32 sum of at most Block32 products per
// block; the float64 additions of the blocks are far inside this).
func (l layout) check32(t *testing.T, name string, c0, c []float64) {
	t.Helper()
	l.checkTol(t, name, c0, c, float64(min(l.k, Block32)+3)*0x1p-24)
}

// shapes32 adds to shapes the long sums of weight and bias gradients
// (k of several Block32 blocks, a tail block, and A read with stride 0).
var shapes32 = append([][3]int{{50, 50, 1000}, {50, 29, 333}, {10, 50, 257}, {1, 50, 700}, {9, 33, 129}}, shapes...)

// to32 rounds the operands of l to float32, A padded to Len32 with
// values that must not reach C (NaN).
func (l layout) to32() (a32, b32 []float32) {
	la := (l.m-1)*l.sai + (l.k-1)*l.sap + 1
	a32 = make([]float32, max(la, Len32(l.m, l.k, l.sai, l.sap)))
	for i := range a32 {
		a32[i] = float32(math.NaN())
	}
	ToFloat32(a32, l.a[:la])
	b32 = make([]float32, len(l.b))
	ToFloat32(b32, l.b)
	return a32, b32
}

func TestMulAdd32(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(21, 22))
	all := append([][3]int(nil), shapes32...)
	for it := 0; it < 200; it++ {
		all = append(all, [3]int{1 + r.IntN(40), 1 + r.IntN(70), 1 + r.IntN(300)})
	}
	for _, sh := range all {
		for _, trans := range []bool{false, true} {
			l := newLayout(r, sh[0], sh[1], sh[2], trans)
			a32, b32 := l.to32()
			c := append([]float64(nil), l.c...)
			MulAdd32(l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, c, l.ldc)
			l.check32(t, "MulAdd32 "+Kernel(), l.c, c)
			g := append([]float64(nil), l.c...)
			mulAdd32Go(l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, g, l.ldc, g, l.ldc)
			l.check32(t, "MulAdd32 go", l.c, g)
		}
	}
}

// TestMul32 checks Mul32 with and without a bias on every shape,
// the bias row read with stride 0, and that a one-element A read with
// both strides 0 (a bias gradient, 1ᵀ·D) works.
func TestMul32(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(23, 24))
	for _, sh := range shapes32 {
		for _, withBias := range []bool{true, false} {
			l, bias, c0 := biasLayout(r, sh, withBias)
			a32, b32 := l.to32()
			got := append([]float64(nil), l.c...)
			Mul32(l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, bias, got, l.ldc)
			l.check32(t, "Mul32 "+Kernel(), c0, got)
			g := append([]float64(nil), l.c...)
			mulAdd32Go(l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, bias, 0, g, l.ldc)
			l.check32(t, "Mul32 go", c0, g)
		}
	}
	// Column sums 1ᵀ·D of a 700×50 D.
	k, n := 700, 50
	d := randVec(r, k*n)
	got := make([]float64, n)
	l := layout{m: 1, n: n, k: k, a: []float64{1}, b: d, c: make([]float64, n), sai: 0, sap: 0, ldb: n, ldc: n}
	a32, b32 := l.to32()
	Mul32(1, n, k, a32, 0, 0, b32, n, nil, got, n)
	l.check32(t, "column sums", l.c, got)
	// k = 0 stores the bias.
	c := []float64{9, 9}
	Mul32(1, 2, 0, nil, 0, 1, nil, 2, []float64{1, 2}, c, 2)
	if c[0] != 1 || c[1] != 2 {
		t.Fatalf("k = 0 with a bias: %v", c)
	}
}

// TestMul32ExactSlices runs the float32 products on slices with no spare
// capacity (masked loads and stores must stay inside them; A exactly
// Len32 long) and checks that short slices panic.
func TestMul32ExactSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, sh := range shapes32 {
		m, n, k := sh[0], sh[1], sh[2]
		l := layout{m: m, n: n, k: k, a: randVec(r, m*k), b: randVec(r, k*n), c: make([]float64, m*n), sai: k, sap: 1, ldb: n, ldc: n}
		a32, b32 := l.to32()
		la := Len32(m, k, k, 1)
		a32, b32 = a32[:la:la], b32[:k*n:k*n]
		c := make([]float64, m*n)[: m*n : m*n]
		MulAdd32(m, n, k, a32, k, 1, b32, n, c, n)
		l.check32(t, "MulAdd32 exact", l.c, c)
	}
	for _, f := range []func(){
		func() { MulAdd32(2, 2, 2, make([]float32, 4), 2, 1, make([]float32, 4), 2, make([]float64, 4), 2) },
		func() { MulAdd32(1, 2, 2, make([]float32, 2+6), 1, 1, make([]float32, 3), 2, make([]float64, 2), 2) },
		func() {
			Mul32(2, 2, 2, make([]float32, 20), 2, 1, make([]float32, 4), 2, []float64{1}, make([]float64, 4), 2)
		},
		func() { ToFloat32(make([]float32, 1), make([]float64, 2)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("a short slice did not panic")
				}
			}()
			f()
		}()
	}
}

// TestMul32Reproducible checks that an element does not depend on the row
// block it falls in: C computed in two pieces split inside a block of 8
// rows equals C computed at once, bit for bit, on the machine's kernel
// and the Go kernel.
func TestMul32Reproducible(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	m, n, k := 37, 50, 300
	l := newLayout(r, m, n, k, true)
	a32, b32 := l.to32()
	c1 := append([]float64(nil), l.c...)
	MulAdd32(m, n, k, a32, l.sai, l.sap, b32, l.ldb, c1, l.ldc)
	c2 := append([]float64(nil), l.c...)
	h := 13
	MulAdd32(h, n, k, a32, l.sai, l.sap, b32, l.ldb, c2, l.ldc)
	MulAdd32(m-h, n, k, a32[h*l.sai:], l.sai, l.sap, b32, l.ldb, c2[h*l.ldc:], l.ldc)
	for i := range c1 {
		if c1[i] != c2[i] {
			t.Fatalf("element %d: %v vs %v", i, c1[i], c2[i])
		}
	}
}

// TestToFloat32 checks the vector conversion against Go's float32
// conversion bit for bit (round to nearest even), on lengths around the
// vector block and on values that round, overflow and underflow.
func TestToFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	special := []float64{0, math.Copysign(0, -1), 1 + 0x1p-24, 1 + 0x1p-23 + 0x1p-24, 1e39, -1e39, 1e-46,
		math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat32, 0x1p-149, 0x1p-150, 3 * 0x1p-151}
	for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 100, 1000} {
		src := randVec(r, n)
		for i := range src {
			if r.IntN(4) == 0 {
				src[i] = special[r.IntN(len(special))]
			}
		}
		got, want := make([]float32, n), make([]float32, n)
		ToFloat32(got, src)
		toFloat32Go(want, src)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n=%d: element %d (%v): %v, want %v", n, i, src[i], got[i], want[i])
			}
		}
	}
}

// BenchmarkMul32 times MulAdd against MulAdd32 on the shapes of the flow's
// hidden layers (f32cvt includes rounding A and B to float32).
func BenchmarkMul32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, sh := range [][3]int{{200, 50, 50}, {50, 50, 200}, {1600, 50, 50}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, bb, c := randVec(r, m*k), randVec(r, k*n), make([]float64, m*n)
		a32, b32 := make([]float32, Len32(m, k, k, 1)), make([]float32, k*n)
		for _, prec := range []string{"f64", "f32", "f32cvt"} {
			b.Run(prec+"/"+itoa(m)+"x"+itoa(n)+"x"+itoa(k), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					switch prec {
					case "f64":
						MulAdd(m, n, k, a, k, 1, bb, n, c, n)
					case "f32cvt":
						ToFloat32(a32, a)
						ToFloat32(b32, bb)
						fallthrough
					default:
						MulAdd32(m, n, k, a32, k, 1, b32, n, c, n)
					}
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestToFloat32Rows checks the strided conversions, plain, after a ReLU
// and masked by a second matrix, against Go's float32 conversion bit for
// bit on row widths around the vector block, with and without padding (the
// ReLU maps NaN and −0 to +0; the mask keeps a value where the mask's is
// greater than 0, not where it is NaN or −0), and that they leave the
// padding of dst alone and panic on strides smaller than the rows or
// short slices.
func TestToFloat32Rows(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, mode := range []string{"plain", "relu", "mask"} {
		for _, cols := range []int{1, 2, 7, 8, 9, 16, 29, 50, 51} {
			for _, rows := range []int{1, 3, 120} {
				for _, pad := range []int{0, 3, 6} {
					checkToFloat32Rows(t, r, mode, rows, cols, cols+pad%4, Stride32(cols)+pad)
				}
			}
		}
	}
	for _, f := range []func(){
		func() { ToFloat32Rows(make([]float32, 10), 4, make([]float64, 10), 5, 2, 5) },
		func() { ToFloat32Rows(make([]float32, 10), 5, make([]float64, 10), 4, 2, 5) },
		func() { ToFloat32Rows(make([]float32, 9), 5, make([]float64, 10), 5, 2, 5) },
		func() { ToFloat32Rows(make([]float32, 10), 5, make([]float64, 9), 5, 2, 5) },
		func() { ReLUToFloat32Rows(make([]float32, 9), 5, make([]float64, 10), 5, 2, 5) },
		func() { MaskToFloat32Rows(make([]float32, 10), 5, make([]float64, 10), 5, make([]float64, 9), 5, 2, 5) },
		func() {
			MaskToFloat32Rows(make([]float32, 10), 5, make([]float64, 10), 5, make([]float64, 10), 4, 2, 5)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("a bad stride or short slice did not panic")
				}
			}()
			f()
		}()
	}
}

// checkToFloat32Rows checks one conversion: plain, after a ReLU, or
// masked by a second matrix (stride lds+1) holding the awkward values too.
func checkToFloat32Rows(t *testing.T, r *rand.Rand, mode string, rows, cols, lds, ldd int) {
	t.Helper()
	special := []float64{1 + 0x1p-24, 1e39, math.NaN(), math.Copysign(0, -1), -1e39, math.Inf(-1), math.Inf(1), 0}
	src := randVec(r, (rows-1)*lds+cols)
	for i, v := range special {
		if i < len(src) {
			src[i] = v
		}
	}
	lda := lds + 1
	a := randVec(r, (rows-1)*lda+cols)
	for i, v := range special {
		if j := len(a) - 1 - i; j >= 0 {
			a[j] = v
		}
	}
	dst := make([]float32, (rows-1)*ldd+cols)
	for i := range dst {
		dst[i] = -7
	}
	switch mode {
	case "relu":
		ReLUToFloat32Rows(dst, ldd, src, lds, rows, cols)
	case "mask":
		MaskToFloat32Rows(dst, ldd, src, lds, a, lda, rows, cols)
	default:
		ToFloat32Rows(dst, ldd, src, lds, rows, cols)
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < ldd && i*ldd+j < len(dst); j++ {
			got := dst[i*ldd+j]
			want := float32(-7)
			if j < cols {
				v := src[i*lds+j]
				want = float32(v)
				if mode == "relu" && !(v > 0) || mode == "mask" && !(a[i*lda+j] > 0) {
					want = 0
				}
			}
			if math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("%s rows=%d cols=%d ldd=%d lds=%d: (%d, %d) = %v, want %v", mode, rows, cols, ldd, lds, i, j, got, want)
			}
		}
	}
}

// TestMul32T checks that Mul32T, given B's zero-padded transpose, stores
// what Mul32 stores, bit for bit, on shapes with tail columns (k below one
// vector, whole vectors, several Block32 blocks; A's rows contiguous and
// held transposed), with and without a bias, and panics on a short
// transpose or a stride below Stride32(k).
func TestMul32T(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for _, sh := range [][3]int{{9, 50, 50}, {120, 50, 50}, {7, 18, 5}, {13, 33, 300}, {5, 49, 129}, {3, 29, 16}, {51, 50, 120}} {
		for _, trans := range []bool{false, true} {
			l := newLayout(r, sh[0], sh[1], sh[2], trans)
			a32, b32 := l.to32()
			ldbt := Stride32(l.k) + 3
			bt := make([]float32, l.n*ldbt)
			for j := 0; j < l.n; j++ {
				for p := 0; p < l.k; p++ {
					bt[j*ldbt+p] = b32[p*l.ldb+j]
				}
			}
			for _, bias := range [][]float64{nil, randVec(r, l.n)} {
				want := append([]float64(nil), l.c...)
				got := append([]float64(nil), l.c...)
				Mul32(l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, bias, want, l.ldc)
				Mul32T(l.m, l.n, l.k, a32, l.sai, l.sap, b32, l.ldb, bt, ldbt, bias, got, l.ldc)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%v trans %v: element %d = %v, Mul32 %v", sh, trans, i, got[i], want[i])
					}
				}
			}
		}
	}
	l := newLayout(r, 4, 18, 10, false)
	a32, b32 := l.to32()
	for _, f := range []func(){
		func() {
			Mul32T(4, 18, 10, a32, l.sai, l.sap, b32, l.ldb, make([]float32, 18*16-1), 16, nil, l.c, l.ldc)
		},
		func() { Mul32T(4, 18, 10, a32, l.sai, l.sap, b32, l.ldb, make([]float32, 18*16), 10, nil, l.c, l.ldc) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("a short transpose or stride did not panic")
				}
			}()
			f()
		}()
	}
}

// BenchmarkChunk32 times the float32 products of one 64-row chunk of the
// flow's 50-unit hidden layers, laid out as the training step lays them
// out (rows padded to Stride32, held weights and their transposes): the
// forward product x·W (fwd), the input gradient dy·Wᵀ (dx) and the weight
// and bias gradient [x, 1]ᵀ·dy with x held transposed (dw). It reports
// the arithmetic rate the step's dense layers can reach on these shapes,
// per second of wall time and, for comparison with the step's figures on a
// busy machine, per second of the process's CPU time (cpu-GFLOP/s).
func BenchmarkChunk32(b *testing.B) {
	const n, h = 64, 50
	r := rand.New(rand.NewPCG(1, 1))
	ld, lx := Stride32(h), Stride32(h+1)
	rnd := func(size int) []float32 {
		v := make([]float32, size)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	x, dy := rnd((n+Rows32)*lx), rnd((n+Rows32)*ld)
	w, wt := make([]float32, h*ld), make([]float32, h*ld)
	for i := range h {
		for j := range h {
			v := float32(r.NormFloat64())
			w[i*ld+j], wt[j*ld+i] = v, v
		}
	}
	c, bias := make([]float64, max(n, h+1)*h), make([]float64, h)
	for _, op := range []string{"fwd", "dx", "dw"} {
		b.Run(op, func(b *testing.B) {
			m, k := n, h
			b.ReportAllocs()
			c0, cpuOK := testutil.ProcessCPU()
			for b.Loop() {
				switch op {
				case "fwd":
					Mul32T(n, h, h, x, lx, 1, w, ld, wt, ld, bias, c, h)
				case "dx":
					Mul32T(n, h, h, dy, ld, 1, wt, ld, w, ld, nil, c, h)
				default:
					m, k = h+1, n
					Mul32(h+1, h, n, x, 1, lx, dy, ld, nil, c, h)
				}
			}
			flops := 2 * float64(m*h*k) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if c1, _ := testutil.ProcessCPU(); cpuOK && c1 > c0 {
				b.ReportMetric(flops/(c1-c0).Seconds()/1e9, "cpu-GFLOP/s")
			}
		})
	}
}
