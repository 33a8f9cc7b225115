package gemm

import "fmt"

// Block32 is the number of terms of p that Mul32 and MulAdd32 sum in one
// float32 accumulator before adding the partial sum to C in float64.
const Block32 = 128

// Rows32 is the largest row block of the float32 kernels: A must be
// readable for Rows32−1 rows past the last (see MulAdd32).
const Rows32 = 8

// MulAdd32 computes C(i, j) += Σ_{p<k} A(i, p)·B(p, j) with float32
// operands, addressed as in MulAdd, and a float64 C: the products are
// summed in float32 over blocks of at most Block32 consecutive p and each
// block's sum is converted to float64 and added to C(i, j). An element then
// differs from the float64 product of the same float32 operands by at most
// about (Block32 + 1)·2⁻²⁴ times Σ_p |A(i,p)·B(p,j)|, and from the float64
// product of float64 operands rounded to float32 by at most 2⁻²⁴ more of
// it for each rounded operand. It is meant for training steps, where half
// the work per multiply-add matters more than the last digits.
//
// The kernels compute blocks of up to Rows32 rows and read the rows of A
// past the last of a partial block (their results are discarded): a must
// hold at least (m+Rows32−2)·sai + (k−1)·sap + 1 values (Len32). Each
// element is summed in one fixed order, so the result depends only on the
// operands, for a given kernel: assembly on amd64 machines with AVX-512
// (blocks of 8 rows × 32 columns) or AVX2+FMA (6 × 16), both with the
// last 1–4 columns past a multiple of 16 of a wider C, when A's rows are
// contiguous, as dot products summed in eight lanes, then pairwise, and
// when A is held transposed, in one float32 sum per element (the two
// give the same bits), a portable Go kernel elsewhere. It panics if a
// slice is too short.
func MulAdd32(m, n, k int, a []float32, sai, sap int, b []float32, ldb int, c []float64, ldc int) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	check32(m, n, k, a, sai, sap, b, ldb, c, ldc)
	mulAdd32(m, n, k, a, sai, sap, b, ldb, nil, 0, c, ldc, c, ldc)
}

// Mul32 is MulAdd32 storing C(i, j) = bias[j] + the sum (the block sums
// added to the bias, or to +0 when bias is nil) instead of adding to C.
func Mul32(m, n, k int, a []float32, sai, sap int, b []float32, ldb int, bias, c []float64, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	if bias != nil && len(bias) < n {
		panic(fmt.Sprintf("gemm: bias has %d values, need %d", len(bias), n))
	}
	if k <= 0 {
		Mul(m, n, 0, nil, 0, 0, nil, n, bias, c, ldc)
		return
	}
	check32(m, n, k, a, sai, sap, b, ldb, c, ldc)
	mulAdd32(m, n, k, a, sai, sap, b, ldb, nil, 0, bias, 0, c, ldc)
}

// Mul32T is Mul32 given B's transpose as well: bt holds n rows, ldbt
// apart, row j holding column j of B followed by zeros up to Stride32(k)
// (a held transposed weight matrix of the flow's layers, whose padding is
// zero). Kernels that read columns of B (the AVX2 tail of dot products)
// read them from bt instead of gathering them; the result is the same,
// bit for bit. It panics if bt is too short or ldbt below Stride32(k).
func Mul32T(m, n, k int, a []float32, sai, sap int, b []float32, ldb int, bt []float32, ldbt int, bias, c []float64, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	if k <= 0 {
		Mul32(m, n, k, a, sai, sap, b, ldb, bias, c, ldc)
		return
	}
	if ldbt < Stride32(k) || (n-1)*ldbt+Stride32(k) > len(bt) {
		panic(fmt.Sprintf("gemm: bt has %d values with stride %d, need rows of %d for %d columns", len(bt), ldbt, Stride32(k), n))
	}
	if bias != nil && len(bias) < n {
		panic(fmt.Sprintf("gemm: bias has %d values, need %d", len(bias), n))
	}
	check32(m, n, k, a, sai, sap, b, ldb, c, ldc)
	mulAdd32(m, n, k, a, sai, sap, b, ldb, bt, ldbt, bias, 0, c, ldc)
}

// Len32 returns the length a float32 A of m×k elements addressed with
// strides sai and sap must have for Mul32 and MulAdd32.
func Len32(m, k, sai, sap int) int { return (m+Rows32-2)*sai + (k-1)*sap + 1 }

// ToFloat32 rounds src to float32 (to nearest, ties to even, as Go's
// conversion) into dst, which must be at least as long.
func ToFloat32(dst []float32, src []float64) {
	if len(dst) < len(src) {
		panic(fmt.Sprintf("gemm: ToFloat32 into %d values from %d", len(dst), len(src)))
	}
	toFloat32(dst[:len(src)], src)
}

// Stride32 returns the row stride, in float32 values, at which a matrix
// of cols columns should be stored for the float32 kernels: cols rounded
// up to a multiple of 8, so that every row starts 32-byte aligned relative
// to the first. Row strides that are not (50 columns of 4 bytes) make
// many of the kernels' vector loads straddle cache lines: a weight
// gradient xᵀ·dy of 50×50 values over 120 rows ran 1.4 times as long with
// both operands at stride 50 as at stride 56 on an AVX2 machine.
func Stride32(cols int) int { return (cols + 7) &^ 7 }

// ToFloat32Rows rounds the rows×cols matrix src (rows lds apart) to
// float32 into dst (rows ldd apart), as ToFloat32 rounds each row. The
// ldd−cols values after each row of dst are left alone. It panics if a
// stride is smaller than cols or a slice too short.
func ToFloat32Rows(dst []float32, ldd int, src []float64, lds, rows, cols int) {
	toFloat32RowsChecked(dst, ldd, src, lds, rows, cols, false)
}

// ReLUToFloat32Rows is ToFloat32Rows rounding max(x, 0) instead of x, a
// NaN giving +0 (as the flow's float64 ReLU does): the input of a layer
// that follows a ReLU, rounded for the float32 products in one pass.
func ReLUToFloat32Rows(dst []float32, ldd int, src []float64, lds, rows, cols int) {
	toFloat32RowsChecked(dst, ldd, src, lds, rows, cols, true)
}

// MaskToFloat32Rows is ToFloat32Rows rounding x where the matching value
// of a (a rows×cols matrix, rows lda apart) is greater than 0 and writing
// +0 where it is not (a NaN in a included), as the flow's float64 ReLU
// gradient masks: the output gradient of a layer that follows a ReLU,
// masked and rounded for the float32 products in one pass.
func MaskToFloat32Rows(dst []float32, ldd int, src []float64, lds int, a []float64, lda, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	if lda < cols || (rows-1)*lda+cols > len(a) {
		panic(fmt.Sprintf("gemm: MaskToFloat32Rows mask of %d values with stride %d for %d×%d", len(a), lda, rows, cols))
	}
	checkRows32(dst, ldd, src, lds, rows, cols)
	maskToFloat32Rows(dst, ldd, src, lds, a, lda, rows, cols)
}

// maskToFloat32RowsGo is the portable MaskToFloat32Rows.
func maskToFloat32RowsGo(dst []float32, ldd int, src []float64, lds int, a []float64, lda, rows, cols int) {
	for r := 0; r < rows; r++ {
		d, m := dst[r*ldd:r*ldd+cols], a[r*lda:r*lda+cols]
		for j, v := range src[r*lds : r*lds+cols] {
			if m[j] > 0 {
				d[j] = float32(v)
			} else {
				d[j] = 0
			}
		}
	}
}

// reluToFloat32RowsGo is the portable ReLUToFloat32Rows.
func reluToFloat32RowsGo(dst []float32, ldd int, src []float64, lds, rows, cols int) {
	for r := 0; r < rows; r++ {
		d := dst[r*ldd : r*ldd+cols]
		for j, v := range src[r*lds : r*lds+cols] {
			if v > 0 {
				d[j] = float32(v)
			} else {
				d[j] = 0
			}
		}
	}
}

func toFloat32RowsChecked(dst []float32, ldd int, src []float64, lds, rows, cols int, relu bool) {
	if rows <= 0 || cols <= 0 {
		return
	}
	checkRows32(dst, ldd, src, lds, rows, cols)
	if ldd == cols && lds == cols && !relu {
		toFloat32(dst[:rows*cols], src[:rows*cols])
		return
	}
	toFloat32Rows(dst, ldd, src, lds, rows, cols, relu)
}

// checkRows32 panics unless dst and src hold rows×cols matrices with rows
// ldd and lds apart.
func checkRows32(dst []float32, ldd int, src []float64, lds, rows, cols int) {
	switch {
	case ldd < cols || lds < cols:
		panic(fmt.Sprintf("gemm: ToFloat32Rows strides %d and %d for %d columns", ldd, lds, cols))
	case (rows-1)*ldd+cols > len(dst):
		panic(fmt.Sprintf("gemm: ToFloat32Rows into %d values, need %d", len(dst), (rows-1)*ldd+cols))
	case (rows-1)*lds+cols > len(src):
		panic(fmt.Sprintf("gemm: ToFloat32Rows from %d values, need %d", len(src), (rows-1)*lds+cols))
	}
}

func check32(m, n, k int, a []float32, sai, sap int, b []float32, ldb int, c []float64, ldc int) {
	switch {
	case sai < 0 || sap < 0 || ldb < n || ldc < n:
		panic(fmt.Sprintf("gemm: bad strides sai=%d sap=%d ldb=%d ldc=%d for n=%d", sai, sap, ldb, ldc, n))
	case Len32(m, k, sai, sap) > len(a):
		panic(fmt.Sprintf("gemm: a has %d values, need %d", len(a), Len32(m, k, sai, sap)))
	case (k-1)*ldb+n > len(b):
		panic(fmt.Sprintf("gemm: b has %d values, need %d", len(b), (k-1)*ldb+n))
	case (m-1)*ldc+n > len(c):
		panic(fmt.Sprintf("gemm: c has %d values, need %d", len(c), (m-1)*ldc+n))
	}
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
