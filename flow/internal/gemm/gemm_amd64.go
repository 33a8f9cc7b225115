//go:build amd64 && !purego

package gemm

import "github.com/privinfer/privinfer/internal/cpu"

// kern512 stores Cin + A·B into the 4×16 block of C, the product summed
// over k steps of p with AVX-512: a points at A(i0, 0); the other three
// rows start o1, o2, o3 elements after it (0 for rows past mr, which are
// computed but not stored); b points at B(0, j0), cin at Cin(i0, j0) (rows
// ldcin apart: ldcin = ldc and cin = c for C += A·B, ldcin = 0 to add one
// row to every row) and c at C(i0, j0). The low 16 bits of mask select the
// valid columns.
//
//go:noescape
func kern512(k int, a *float64, o1, o2, o3, sap int, b *float64, ldb int, cin *float64, ldcin int, c *float64, ldc, mr int, mask uint64)

// kern512x8 is kern512 for a block of 8 rows, all valid, row i starting
// i·sai elements after a.
//
//go:noescape
func kern512x8(k int, a *float64, sai, sap int, b *float64, ldb int, cin *float64, ldcin int, c *float64, ldc int, mask uint64)

// kern64x6 is kern512 for AVX2+FMA over m ≥ 1 rows of a block of nc ≤ 8
// columns, 6 rows at a time (in a last block of fewer, row 0 of the block
// is read in place of the missing rows, which are computed but not
// stored); mask points at the columns' eight int64 lane masks (−1 for a
// valid column, 0 otherwise).
//
//go:noescape
func kern64x6(k int, a *float64, sai, sap int, b *float64, ldb int, cin *float64, ldcin int, c *float64, ldc, m, nc int, mask *int64)

var kernelUsed = cpu.Best()

var kernelName = kernelUsed.String()

// laneMask holds eight −1 followed by eight 0: &laneMask[8−nc] points at
// the lane masks of an nc-column block of kern64x6.
var laneMask = [16]int64{-1, -1, -1, -1, -1, -1, -1, -1}

// zeros is the row the kernels add when C = A·B is stored without an
// input (one column block wide; the kernels read it with stride 0).
var zeros [16]float64

// drive64x6 is drive512 for kern64x6: column blocks of 8, the kernel
// running down all m rows of each in blocks of 6 while the block's panel
// of B stays in cache.
func drive64x6(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, in []float64, ldin int, c []float64, ldc int) {
	for j0 := 0; j0 < n; j0 += 8 {
		nc := min(8, n-j0)
		cin, ldcin := &zeros[0], 0
		if in != nil {
			cin, ldcin = &in[j0], ldin
		}
		kern64x6(k, &a[0], sai, sap, &b[j0], ldb, cin, ldcin, &c[j0], ldc, m, nc, &laneMask[8-nc])
	}
}

func mulAdd(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, in []float64, ldin int, c []float64, ldc int) {
	switch kernelUsed {
	case cpu.AVX512:
		drive512(m, n, k, a, sai, sap, b, ldb, in, ldin, c, ldc)
	case cpu.AVX2:
		drive64x6(m, n, k, a, sai, sap, b, ldb, in, ldin, c, ldc)
	default:
		mulAddGo(m, n, k, a, sai, sap, b, ldb, in, ldin, c, ldc)
	}
}

// drive512 tiles C into blocks of rows × 16 columns for the AVX-512
// kernels: 8 rows, and the rows left at the bottom of C in blocks of up to
// 4. When the k×n panel of B fits in the level-1 cache the row blocks are
// the outer loop (B stays in cache); otherwise the column blocks are (a
// k×nb strip of B stays in cache while A is streamed). Every element of C
// is computed by one kernel call summing over p in order, so neither the
// loop order nor the blocking changes any result. C receives In + A·B,
// In(i, j) = in[i·ldin + j] (ldin = 0 repeats one row; in = nil adds
// nothing).
func drive512(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, in []float64, ldin int, c []float64, ldc int) {
	const nb = 16
	// rows returns the height of the row block starting at i0.
	rows := func(i0 int) int {
		if m-i0 >= 8 {
			return 8
		}
		return min(4, m-i0)
	}
	block := func(i0, mr, j0 int) {
		nc := min(nb, n-j0)
		cin, ldcin := &zeros[0], 0
		if in != nil {
			cin, ldcin = &in[i0*ldin+j0], ldin
		}
		if mr == 8 {
			kern512x8(k, &a[i0*sai], sai, sap, &b[j0], ldb, cin, ldcin, &c[i0*ldc+j0], ldc, 1<<nc-1)
			return
		}
		var o1, o2, o3 int
		if mr > 1 {
			o1 = sai
		}
		if mr > 2 {
			o2 = 2 * sai
		}
		if mr > 3 {
			o3 = 3 * sai
		}
		kern512(k, &a[i0*sai], o1, o2, o3, sap, &b[j0], ldb, cin, ldcin, &c[i0*ldc+j0], ldc, mr, 1<<nc-1)
	}
	if k*n <= 3072 {
		for i0 := 0; i0 < m; {
			mr := rows(i0)
			for j0 := 0; j0 < n; j0 += nb {
				block(i0, mr, j0)
			}
			i0 += mr
		}
		return
	}
	for j0 := 0; j0 < n; j0 += nb {
		for i0 := 0; i0 < m; {
			mr := rows(i0)
			block(i0, mr, j0)
			i0 += mr
		}
	}
}

// kern32 stores Cin + A·B into rows i0 … i0+mr−1 (mr ≤ 8) of a block of
// 32 columns of C, the products of the float32 operands summed over k
// steps of p in float32 with AVX-512 and converted to float64 before Cin
// is added: a points at A(i0, 0) with rows sai and steps sap float32
// apart (all 8 rows are read), b at B(0, j0), cin at Cin(i0, j0) (rows
// ldcin apart, 0 to add one row to every row), c at C(i0, j0). The low 32
// bits of mask select the valid columns.
//
//go:noescape
func kern32(k int, a *float32, sai, sap int, b *float32, ldb int, cin *float64, ldcin int, c *float64, ldc, mr int, mask uint64)

// cvt32 rounds n float64 values (n a multiple of 16) to float32.
//
//go:noescape
func cvt32(dst *float32, src *float64, n int)

// zeros32 is the row kern32 adds when there is no input (32 columns, read
// with stride 0).
var zeros32 [32]float64

// kern32x6 is kern32 for AVX2+FMA over m ≥ 1 rows: it stores Cin + A·B into
// the m rows of a block of nc ≤ 16 columns of C, 6 rows at a time, all 6
// rows of A read in the last block too. mask32 points at sixteen int32 lane masks of the float32 columns
// of B (−1 for a valid column, 0 otherwise); C and Cin are written and
// read without masks, column by column past the last whole group of four.
//
//go:noescape
func kern32x6(k int, a *float32, sai, sap int, b *float32, ldb int, cin *float64, ldcin int, c *float64, ldc, m, nc int, mask32 *int32)

// cvt32x8 rounds n float64 values (n a multiple of 8) to float32 with AVX.
//
//go:noescape
func cvt32x8(dst *float32, src *float64, n int)

// cvt32x8rows rounds rows ≥ 1 rows of cols ≥ 1 float64 values, lds
// apart, to float32 rows ldd apart with AVX (VCVTSD2SS for the last
// cols mod 8 of each row).
//
//go:noescape
func cvt32x8rows(dst *float32, ldd int, src *float64, lds int, rows, cols int)

// cvt32x8rowsMask is cvt32x8rows rounding x where the matching value of a
// (rows lda apart) is greater than 0 and writing +0 elsewhere (a NaN in a
// included). With a = src it rounds max(x, 0), a NaN giving +0: the ReLU.
//
//go:noescape
func cvt32x8rowsMask(dst *float32, ldd int, src *float64, lds int, a *float64, lda int, rows, cols int)

// dot32x2 stores Cin + A·B into two tail columns of C for rows 0 …
// rows−1, each element a dot product of a row of A (rows sai float32
// values apart, consecutive within a row) with a column of B held
// contiguously: bt0 and bt1, zero-padded to a whole number of 8-value
// chunks. kf chunks of 8 are summed whole and, when kt is 1, one more
// with the lanes of mask (eight int32 lane masks) read from A, in eight
// float32 lane sums that are then added pairwise. Column 0 goes to c0
// (Cin at cin0), column 1 to c1 (Cin at cin1); C rows are ldc apart, Cin
// rows ldcin apart (0 repeats one row). For one tail column the caller
// passes the same column twice (bt1 = bt0, c1 = c0, cin1 = cin0): both
// Cin values are read before either store.
//
//go:noescape
func dot32x2(kf, kt int, a *float32, sai int, bt0, bt1 *float32, cin0, cin1 *float64, ldcin int, c0, c1 *float64, ldc, rows int, mask *int32)

// tdot32 stores Cin + A·B into two tail columns of C for rows of A held
// transposed (sai = 1: the rows of a step p consecutive, steps sap
// float32 values apart), summing over k ≥ 1 steps in float32 with one
// vector multiply-add per 8 rows, column and step: 48 rows, or up to 8
// read with mask (eight int32 lane masks; unused for 48). B's two columns
// are read from b0 and b1, ldb values apart, and broadcast. Cin and C are
// addressed as in dot32x2 (the same column twice for one tail column).
//
//go:noescape
func tdot32(k int, a *float32, sap int, b0, b1 *float32, ldb int, cin0, cin1 *float64, ldcin int, c0, c1 *float64, ldc, rows int, mask *int32)

// laneMask32 holds sixteen −1 followed by sixteen 0: &laneMask32[16−nc]
// points at the masks of an nc-column block of kern32x6.
var laneMask32 = [32]int32{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}

func toFloat32(dst []float32, src []float64) {
	n := len(src)
	switch kernelUsed {
	case cpu.AVX512:
		if v := n &^ 15; v > 0 {
			cvt32(&dst[0], &src[0], v)
			dst, src = dst[v:], src[v:]
		}
	case cpu.AVX2:
		if v := n &^ 7; v > 0 {
			cvt32x8(&dst[0], &src[0], v)
			dst, src = dst[v:], src[v:]
		}
	}
	toFloat32Go(dst, src)
}

// maskToFloat32Rows is MaskToFloat32Rows after its checks (rows, cols ≥ 1).
// The AVX2 conversion serves AVX-512 machines too (they have AVX2): the
// portable loop branches on every value's sign, and a ReLU's signs are as
// good as random, so it ran several times as long as the products it feeds
// (a third of an SPPE training step's CPU time on an AVX-512 machine).
func maskToFloat32Rows(dst []float32, ldd int, src []float64, lds int, a []float64, lda, rows, cols int) {
	if kernelUsed >= cpu.AVX2 {
		cvt32x8rowsMask(&dst[0], ldd, &src[0], lds, &a[0], lda, rows, cols)
		return
	}
	maskToFloat32RowsGo(dst, ldd, src, lds, a, lda, rows, cols)
}

// toFloat32Rows is ToFloat32Rows, or ReLUToFloat32Rows with relu set,
// after their checks (rows, cols ≥ 1). AVX-512 machines use the AVX2
// conversion too: one call for all the rows, where cvt32 would take one
// per row and leave the last cols mod 16 values of each (2 of the flow's
// 50-unit rows) to Go's conversion.
func toFloat32Rows(dst []float32, ldd int, src []float64, lds, rows, cols int, relu bool) {
	switch {
	case kernelUsed >= cpu.AVX2 && relu:
		cvt32x8rowsMask(&dst[0], ldd, &src[0], lds, &src[0], lds, rows, cols)
	case kernelUsed >= cpu.AVX2:
		cvt32x8rows(&dst[0], ldd, &src[0], lds, rows, cols)
	case relu:
		reluToFloat32RowsGo(dst, ldd, src, lds, rows, cols)
	default:
		for r := 0; r < rows; r++ {
			toFloat32(dst[r*ldd:r*ldd+cols], src[r*lds:r*lds+cols])
		}
	}
}

func mulAdd32(m, n, k int, a []float32, sai, sap int, b []float32, ldb int, bt []float32, ldbt int, in []float64, ldin int, c []float64, ldc int) {
	switch kernelUsed {
	case cpu.AVX512, cpu.AVX2:
		drive32(kernelUsed, m, n, k, a, sai, sap, b, ldb, bt, ldbt, in, ldin, c, ldc)
	default:
		mulAdd32Go(m, n, k, a, sai, sap, b, ldb, in, ldin, c, ldc)
	}
}

// drive32 tiles C into blocks of rows × cols for the float32 kernels (8
// rows × 32 columns for kern32 with AVX-512, 6 × 16 for kern32x6 with
// AVX2), one block of Block32 steps of p at a time (the first adds In, the
// later ones C itself), so that the block's panel of B stays in cache
// while the rows of A stream past. bt, when not nil, is B's transpose
// (see Mul32T).
func drive32(kind cpu.Level, m, n, k int, a []float32, sai, sap int, b []float32, ldb int, bt []float32, ldbt int, in []float64, ldin int, c []float64, ldc int) {
	rows, cols := 8, 32
	if kind == cpu.AVX2 {
		rows, cols = 6, 16
	}
	// The last 1–4 columns past a multiple of 16 of a wider C whose A rows
	// are contiguous go to dot32x2: kern32x6 and kern32 would spend a whole
	// vector of multiply-adds per row and step of p on them (the 2 columns
	// past 48 of the flow's 50-unit layers cost kern32x6 nearly what 16
	// columns do, and made kern32's second block of 32 columns as costly
	// as its first). When A is held transposed (sai = 1), they go to
	// tdot32, which runs down its rows eight at a time instead. Both
	// kernels then leave the same columns to the same tail kernels, and
	// sum the others in the same order: their results agree bit for bit.
	nk := n
	if t := n % 16; (sap == 1 || sai == 1) && n > 16 && t <= 4 {
		nk = n - t
	}
	for p0 := 0; p0 < k; p0 += Block32 {
		kb := min(Block32, k-p0)
		switch {
		case nk == n:
		case sap == 1:
			dotTail(m, n, nk, kb, p0, a, sai, b, ldb, bt, ldbt, in, ldin, c, ldc)
		default:
			tdotTail(m, n, nk, kb, p0, a, sap, b, ldb, in, ldin, c, ldc)
		}
		if kind == cpu.AVX2 {
			// kern32x6 runs down all m rows of a block of columns itself,
			// 6 at a time, the block's panel of B staying in cache.
			for j0 := 0; j0 < nk; j0 += cols {
				nc := min(cols, n-j0)
				cin, ldcin := &zeros32[0], 0
				switch {
				case p0 > 0:
					cin, ldcin = &c[j0], ldc
				case in != nil:
					cin, ldcin = &in[j0], ldin
				}
				kern32x6(kb, &a[p0*sap], sai, sap, &b[p0*ldb+j0], ldb, cin, ldcin, &c[j0], ldc, m, nc, &laneMask32[16-nc])
			}
			continue
		}
		for i0 := 0; i0 < m; i0 += rows {
			mr := min(rows, m-i0)
			for j0 := 0; j0 < nk; j0 += cols {
				nc := min(cols, nk-j0)
				cin, ldcin := &zeros32[0], 0
				switch {
				case p0 > 0:
					cin, ldcin = &c[i0*ldc+j0], ldc
				case in != nil:
					cin, ldcin = &in[i0*ldin+j0], ldin
				}
				kern32(kb, &a[i0*sai+p0*sap], sai, sap, &b[p0*ldb+j0], ldb, cin, ldcin, &c[i0*ldc+j0], ldc, mr, 1<<nc-1)
			}
		}
	}
}

// dotTail computes columns nk … n−1 of C for the block of kb steps of p
// from p0 with dot32x2, two columns per call, A's rows contiguous (sap =
// 1). The first block adds In (or +0), the later ones C itself, as in
// drive32; the tail is done before the block's kern32x6 calls, which do
// not touch these columns.
func dotTail(m, n, nk, kb, p0 int, a []float32, sai int, b []float32, ldb int, bt []float32, ldbt int, in []float64, ldin int, c []float64, ldc int) {
	var col [2][Block32]float32
	for j := nk; j < n; j += 2 {
		j1 := min(j+1, n-1) // the second column, or the first again
		var b0, b1 *float32
		if bt != nil {
			// Rows of the transpose, zero past k (Mul32T).
			b0, b1 = &bt[j*ldbt+p0], &bt[j1*ldbt+p0]
		} else {
			for p := range kb {
				col[0][p] = b[(p0+p)*ldb+j]
				col[1][p] = b[(p0+p)*ldb+j1]
			}
			for p := kb; p < (kb+7)&^7; p++ {
				col[0][p], col[1][p] = 0, 0
			}
			b0, b1 = &col[0][0], &col[1][0]
		}
		var cin0, cin1 *float64
		ldcin := 0
		switch {
		case p0 > 0:
			cin0, cin1, ldcin = &c[j], &c[j1], ldc
		case in != nil:
			cin0, cin1, ldcin = &in[j], &in[j1], ldin
		default:
			cin0, cin1 = &zeros32[0], &zeros32[0]
		}
		kt := 0
		if kb%8 != 0 {
			kt = 1
		}
		dot32x2(kb/8, kt, &a[p0], sai, b0, b1, cin0, cin1, ldcin, &c[j], &c[j1], ldc, m, &laneMask32[16-kb%8])
	}
}

// tdotTail is dotTail for an A held transposed (sai = 1): tdot32 on
// blocks of 48 rows, then on the rest eight rows at a time.
func tdotTail(m, n, nk, kb, p0 int, a []float32, sap int, b []float32, ldb int, in []float64, ldin int, c []float64, ldc int) {
	for j := nk; j < n; j += 2 {
		j1 := min(j+1, n-1) // the second column, or the first again
		for i0 := 0; i0 < m; {
			var cin0, cin1 *float64
			ldcin := 0
			switch {
			case p0 > 0:
				cin0, cin1, ldcin = &c[i0*ldc+j], &c[i0*ldc+j1], ldc
			case in != nil:
				cin0, cin1, ldcin = &in[i0*ldin+j], &in[i0*ldin+j1], ldin
			default:
				cin0, cin1 = &zeros32[0], &zeros32[0]
			}
			r, mask := 48, (*int32)(nil)
			if m-i0 < 48 {
				r = min(8, m-i0)
				mask = &laneMask32[16-r]
			}
			tdot32(kb, &a[i0+p0*sap], sap, &b[p0*ldb+j], &b[p0*ldb+j1], ldb, cin0, cin1, ldcin, &c[i0*ldc+j], &c[i0*ldc+j1], ldc, r, mask)
			i0 += r
		}
	}
}
