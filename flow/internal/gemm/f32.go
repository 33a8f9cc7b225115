package gemm

import "fmt"

// Block32 is the number of terms of p an F32 product sums in one float32
// accumulator before adding the partial sum to C in float64.
const Block32 = 128

// F32 computes the products of MulAdd and Mul with float32 arithmetic, for
// training steps where half the work per multiply-add matters more than
// the last digits: the operands are rounded to float32 (into buffers the
// F32 keeps and reuses, so that after the first call of a given size it
// allocates nothing), the products are summed in float32 over blocks of
// at most Block32 consecutive p, and each block's sum is added to C (or
// to the bias) in float64. An element of C then differs from the float64
// result by at most about (Block32 + 2)·2⁻²⁴ times Σ_p |A(i,p)·B(p,j)|.
//
// The results depend only on the operands (not on the machine's core
// count) for a given kernel: AVX-512 assembly on amd64 machines that have
// it, a portable Go kernel elsewhere, which is slower than the float64
// assembly on AVX2 machines. A nil *F32 computes in float64, exactly as
// the package-level MulAdd and Mul. An F32 must not be used by two
// goroutines at once.
type F32 struct {
	a, b []float32
}

// MulAdd is the package-level MulAdd computed in float32 (see F32).
func (f *F32) MulAdd(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, c []float64, ldc int) {
	if f == nil {
		MulAdd(m, n, k, a, sai, sap, b, ldb, c, ldc)
		return
	}
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	check(m, n, k, a, sai, sap, b, ldb, c, ldc)
	f.mulAdd(m, n, k, a, sai, sap, b, ldb, c, ldc, c, ldc)
}

// Mul is the package-level Mul computed in float32 (see F32): the bias is
// added in float64.
func (f *F32) Mul(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, bias, c []float64, ldc int) {
	if f == nil || k <= 0 {
		Mul(m, n, k, a, sai, sap, b, ldb, bias, c, ldc)
		return
	}
	if m <= 0 || n <= 0 {
		return
	}
	if bias != nil && len(bias) < n {
		panic(fmt.Sprintf("gemm: bias has %d values, need %d", len(bias), n))
	}
	check(m, n, k, a, sai, sap, b, ldb, c, ldc)
	f.mulAdd(m, n, k, a, sai, sap, b, ldb, bias, 0, c, ldc)
}

// mulAdd rounds the operands to float32 and stores In + A·B into C
// (In as in mulAddGo). The copy of A has room for 7 rows past the last
// (never stored), so the kernels can always compute blocks of 8 rows.
func (f *F32) mulAdd(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, in []float64, ldin int, c []float64, ldc int) {
	la := (m-1)*sai + (k-1)*sap + 1
	lb := (k-1)*ldb + n
	f.a = grow32(f.a, la+7*sai)
	f.b = grow32(f.b, lb)
	toFloat32(f.a[:la], a[:la])
	toFloat32(f.b[:lb], b[:lb])
	mulAdd32(m, n, k, f.a, sai, sap, f.b, ldb, in, ldin, c, ldc)
}

func grow32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// toFloat32Go rounds src to float32 into dst (the lengths are equal).
func toFloat32Go(dst []float32, src []float64) {
	for i, v := range src {
		dst[i] = float32(v)
	}
}

// mulAdd32Go is the portable float32 kernel. For each block of Block32
// steps of p every element is accumulated in one float32 sum in
// increasing p and added to C in float64; the first block adds In
// (ldin = 0 repeats one row; in = nil adds +0), the later ones C itself.
// The a slice must hold 7 rows past the last (see F32.mulAdd): rows
// i ≥ m are read but not stored, as by the assembly kernel.
func mulAdd32Go(m, n, k int, a []float32, sai, sap int, b []float32, ldb int, in []float64, ldin int, c []float64, ldc int) {
	var acc [32]float32
	for p0 := 0; p0 < k; p0 += Block32 {
		kb := min(Block32, k-p0)
		for i := 0; i < m; i++ {
			for j0 := 0; j0 < n; j0 += 32 {
				nc := min(32, n-j0)
				s := acc[:nc]
				clear(s)
				for p := p0; p < p0+kb; p++ {
					av := a[i*sai+p*sap]
					for j, v := range b[p*ldb+j0 : p*ldb+j0+nc] {
						s[j] += float32(av * v)
					}
				}
				cr := c[i*ldc+j0 : i*ldc+j0+nc]
				switch {
				case p0 > 0:
					for j, v := range s {
						cr[j] += float64(v)
					}
				case in == nil:
					for j, v := range s {
						cr[j] = 0 + float64(v)
					}
				default:
					ir := in[i*ldin+j0 : i*ldin+j0+nc]
					for j, v := range s {
						cr[j] = ir[j] + float64(v)
					}
				}
			}
		}
	}
}
