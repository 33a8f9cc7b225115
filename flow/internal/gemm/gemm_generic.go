//go:build !amd64 || purego

package gemm

const kernelName = "go"

func mulAdd(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, in []float64, ldin int, c []float64, ldc int) {
	mulAddGo(m, n, k, a, sai, sap, b, ldb, in, ldin, c, ldc)
}
