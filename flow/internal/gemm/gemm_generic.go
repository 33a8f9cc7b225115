//go:build !amd64 || purego

package gemm

const kernelName = "go"

func mulAdd(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, in []float64, ldin int, c []float64, ldc int) {
	mulAddGo(m, n, k, a, sai, sap, b, ldb, in, ldin, c, ldc)
}

func mulAdd32(m, n, k int, a []float32, sai, sap int, b []float32, ldb int, _ []float32, _ int, in []float64, ldin int, c []float64, ldc int) {
	mulAdd32Go(m, n, k, a, sai, sap, b, ldb, in, ldin, c, ldc)
}

func toFloat32(dst []float32, src []float64) { toFloat32Go(dst, src) }

func toFloat32Rows(dst []float32, ldd int, src []float64, lds, rows, cols int, relu bool) {
	if relu {
		reluToFloat32RowsGo(dst, ldd, src, lds, rows, cols)
		return
	}
	for r := 0; r < rows; r++ {
		toFloat32Go(dst[r*ldd:r*ldd+cols], src[r*lds:r*lds+cols])
	}
}

func maskToFloat32Rows(dst []float32, ldd int, src []float64, lds int, a []float64, lda, rows, cols int) {
	maskToFloat32RowsGo(dst, ldd, src, lds, a, lda, rows, cols)
}
