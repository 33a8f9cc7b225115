//go:build amd64 && !purego

package gemm

import "github.com/privinfer/privinfer/flow/internal/cpu"

// kern512 adds to C the 4×16 block A·B over k steps of p with AVX-512: a
// points at A(i0, 0); the other three rows start o1, o2, o3 elements after
// it (0 for rows past mr, which are computed but not stored); b points at
// B(0, j0) and c at C(i0, j0). The low 16 bits of mask select the valid
// columns.
//
//go:noescape
func kern512(k int, a *float64, o1, o2, o3, sap int, b *float64, ldb int, c *float64, ldc, mr int, mask uint64)

// kern256 is kern512 for AVX2+FMA on a 4×8 block; mask points at eight
// int64 lane masks (−1 for a valid column, 0 otherwise).
//
//go:noescape
func kern256(k int, a *float64, o1, o2, o3, sap int, b *float64, ldb int, c *float64, ldc, mr int, mask *int64)

const (
	useGo = iota
	useAVX2
	useAVX512
)

var kernelUsed = detect()

var kernelName = [...]string{"go", "avx2", "avx512"}[kernelUsed]

// laneMask holds eight −1 followed by eight 0: &laneMask[8−nc] points at
// the AVX2 masks of an nc-column block.
var laneMask = [16]int64{-1, -1, -1, -1, -1, -1, -1, -1}

func detect() int {
	switch f := cpu.Features(); {
	case f.AVX512:
		return useAVX512
	case f.AVX2FMA:
		return useAVX2
	}
	return useGo
}

func mulAdd(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, c []float64, ldc int) {
	switch kernelUsed {
	case useAVX512:
		drive(useAVX512, 16, m, n, k, a, sai, sap, b, ldb, c, ldc)
	case useAVX2:
		drive(useAVX2, 8, m, n, k, a, sai, sap, b, ldb, c, ldc)
	default:
		mulAddGo(m, n, k, a, sai, sap, b, ldb, c, ldc)
	}
}

// drive tiles C into blocks of 4 rows × nb columns. When the k×n panel of
// B fits in the level-1 cache the row blocks are the outer loop (B stays
// in cache); otherwise the column blocks are (a k×nb strip of B stays in
// cache while A is streamed). Each block is computed by one kernel call,
// so the loop order does not change any result.
func drive(kind, nb, m, n, k int, a []float64, sai, sap int, b []float64, ldb int, c []float64, ldc int) {
	block := func(i0, j0 int) {
		mr := min(4, m-i0)
		nc := min(nb, n-j0)
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
		if kind == useAVX512 {
			kern512(k, &a[i0*sai], o1, o2, o3, sap, &b[j0], ldb, &c[i0*ldc+j0], ldc, mr, 1<<nc-1)
		} else {
			kern256(k, &a[i0*sai], o1, o2, o3, sap, &b[j0], ldb, &c[i0*ldc+j0], ldc, mr, &laneMask[8-nc])
		}
	}
	if k*n <= 3072 {
		for i0 := 0; i0 < m; i0 += 4 {
			for j0 := 0; j0 < n; j0 += nb {
				block(i0, j0)
			}
		}
		return
	}
	for j0 := 0; j0 < n; j0 += nb {
		for i0 := 0; i0 < m; i0 += 4 {
			block(i0, j0)
		}
	}
}
