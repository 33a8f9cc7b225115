package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// check32 compares c against C0 + A·B in extended precision with the
// tolerance of an F32 product: (min(k, Block32) + 3)·2⁻²⁴·(|C0| + Σ|A||B|)
// (operands rounded to float32, then a recursive float32 sum of at most
// Block32 products per block; the float64 additions of the blocks are far
// inside this). Padding columns of C must not change.
func (l layout) check32(t *testing.T, name string, c0, c []float64) {
	t.Helper()
	const u = 0x1p-24
	for i := 0; i < l.m; i++ {
		for j := 0; j < l.ldc; j++ {
			idx := i*l.ldc + j
			if idx >= len(c) {
				break
			}
			if j >= l.n {
				if c[idx] != c0[idx] {
					t.Fatalf("%s %dx%dx%d: padding C(%d,%d) changed", name, l.m, l.n, l.k, i, j)
				}
				continue
			}
			ref, mag := c0[idx], math.Abs(c0[idx])
			for p := 0; p < l.k; p++ {
				x := l.a[i*l.sai+p*l.sap] * l.b[p*l.ldb+j]
				ref += x
				mag += math.Abs(x)
			}
			tol := float64(min(l.k, Block32)+3) * u * mag
			if d := math.Abs(c[idx] - ref); d > tol || math.IsNaN(c[idx]) {
				t.Fatalf("%s %dx%dx%d: C(%d,%d) = %v, want %v (|diff| %.3g > tol %.3g)",
					name, l.m, l.n, l.k, i, j, c[idx], ref, d, tol)
			}
		}
	}
}

// shapes32 adds to shapes the long sums of weight and bias gradients
// (k of several Block32 blocks, a tail block, and A read with stride 0).
var shapes32 = append([][3]int{{50, 50, 1000}, {50, 29, 333}, {10, 50, 257}, {1, 50, 700}, {9, 33, 129}}, shapes...)

// goF32 runs the portable float32 kernel as F32.mulAdd runs the machine's.
func goF32(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, in []float64, ldin int, c []float64, ldc int) {
	la, lb := (m-1)*sai+(k-1)*sap+1, (k-1)*ldb+n
	a32, b32 := make([]float32, la+7*sai), make([]float32, lb)
	toFloat32Go(a32[:la], a[:la])
	toFloat32Go(b32, b[:lb])
	mulAdd32Go(m, n, k, a32, sai, sap, b32, ldb, in, ldin, c, ldc)
}

func TestF32MulAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	var f F32
	all := append([][3]int(nil), shapes32...)
	for it := 0; it < 200; it++ {
		all = append(all, [3]int{1 + r.IntN(40), 1 + r.IntN(70), 1 + r.IntN(300)})
	}
	for _, sh := range all {
		for _, trans := range []bool{false, true} {
			l := newLayout(r, sh[0], sh[1], sh[2], trans)
			c := append([]float64(nil), l.c...)
			f.MulAdd(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, c, l.ldc)
			l.check32(t, "F32 "+Kernel(), l.c, c)
			g := append([]float64(nil), l.c...)
			goF32(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, g, l.ldc, g, l.ldc)
			l.check32(t, "F32 go", l.c, g)
		}
	}
}

// TestF32Mul checks F32.Mul with and without a bias on every shape,
// the bias row read with stride 0, and that a one-element A read with
// both strides 0 (a bias gradient, 1ᵀ·D) works.
func TestF32Mul(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	var f F32
	for _, sh := range shapes32 {
		for _, withBias := range []bool{true, false} {
			l := newLayout(r, sh[0], sh[1], sh[2], r.IntN(2) == 0)
			var bias []float64
			c0 := append([]float64(nil), l.c...)
			for i := 0; i < l.m; i++ {
				row := c0[i*l.ldc : i*l.ldc+l.n]
				if withBias {
					if bias == nil {
						bias = randVec(r, l.n)
					}
					copy(row, bias)
				} else {
					clear(row)
				}
			}
			got := append([]float64(nil), l.c...)
			f.Mul(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, bias, got, l.ldc)
			l.check32(t, "F32.Mul "+Kernel(), c0, got)
			g := append([]float64(nil), l.c...)
			goF32(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, bias, 0, g, l.ldc)
			l.check32(t, "F32.Mul go", c0, g)
		}
	}
	// Column sums 1ᵀ·D of a 700×50 D.
	k, n := 700, 50
	d := randVec(r, k*n)
	got := make([]float64, n)
	f.Mul(1, n, k, []float64{1}, 0, 0, d, n, nil, got, n)
	l := layout{m: 1, n: n, k: k, a: []float64{1}, b: d, c: make([]float64, n), sai: 0, sap: 0, ldb: n, ldc: n}
	l.check32(t, "column sums", l.c, got)
}

// TestF32ExactSlices runs F32 on slices with no spare capacity (masked
// loads and stores must stay inside them) and checks that a nil *F32 is
// the float64 MulAdd and Mul bit for bit.
func TestF32ExactSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	var f F32
	for _, sh := range shapes32 {
		m, n, k := sh[0], sh[1], sh[2]
		a := randVec(r, m*k)[: m*k : m*k]
		b := randVec(r, k*n)[: k*n : k*n]
		c := make([]float64, m*n)[: m*n : m*n]
		f.MulAdd(m, n, k, a, k, 1, b, n, c, n)
		l := layout{m: m, n: n, k: k, a: a, b: b, c: make([]float64, m*n), sai: k, sap: 1, ldb: n, ldc: n}
		l.check32(t, "F32 exact", l.c, c)

		var nilF *F32
		c1, c2 := randVec(r, m*n), make([]float64, m*n)
		copy(c2, c1)
		nilF.MulAdd(m, n, k, a, k, 1, b, n, c1, n)
		MulAdd(m, n, k, a, k, 1, b, n, c2, n)
		bias := randVec(r, n)
		nilF.Mul(m, n, k, a, k, 1, b, n, bias, c1, n)
		Mul(m, n, k, a, k, 1, b, n, bias, c2, n)
		for i := range c1 {
			if c1[i] != c2[i] {
				t.Fatalf("%v: nil *F32 differs from the float64 product at %d", sh, i)
			}
		}
	}
}

// TestF32Reproducible checks that an element does not depend on the row
// block it falls in: C computed in two pieces split inside a block of 8
// rows equals C computed at once, bit for bit, on the machine's kernel
// and the Go kernel.
func TestF32Reproducible(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	m, n, k := 37, 50, 300
	l := newLayout(r, m, n, k, true)
	var f F32
	c1 := append([]float64(nil), l.c...)
	f.MulAdd(m, n, k, l.a, l.sai, l.sap, l.b, l.ldb, c1, l.ldc)
	c2 := append([]float64(nil), l.c...)
	h := 13
	f.MulAdd(h, n, k, l.a, l.sai, l.sap, l.b, l.ldb, c2, l.ldc)
	f.MulAdd(m-h, n, k, l.a[h*l.sai:], l.sai, l.sap, l.b, l.ldb, c2[h*l.ldc:], l.ldc)
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
		toFloat32(got, src)
		toFloat32Go(want, src)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n=%d: element %d (%v): %v, want %v", n, i, src[i], got[i], want[i])
			}
		}
	}
}

func BenchmarkF32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, sh := range [][3]int{{200, 50, 50}, {50, 50, 200}, {1600, 50, 50}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, bb, c := randVec(r, m*k), randVec(r, k*n), make([]float64, m*n)
		var f F32
		for _, prec := range []string{"f64", "f32"} {
			b.Run(prec+"/"+itoa(m)+"x"+itoa(n)+"x"+itoa(k), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if prec == "f64" {
						MulAdd(m, n, k, a, k, 1, bb, n, c, n)
					} else {
						f.MulAdd(m, n, k, a, k, 1, bb, n, c, n)
					}
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
