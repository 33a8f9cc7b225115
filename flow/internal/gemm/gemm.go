// Package gemm multiplies small dense float64 matrices, C += A·B, with a
// register-blocked kernel: on amd64 with AVX-512 or AVX2+FMA an assembly
// micro-kernel chosen at run time from CPUID, elsewhere (or with the purego
// build tag) a portable Go kernel.
//
// A is addressed through two strides, A(i, p) = a[i·sai + p·sap], so the
// same routine computes X·W (sai = row length, sap = 1) and Xᵀ·D
// (sai = 1, sap = row length). B and C are row-major with leading
// dimensions ldb and ldc.
//
// Every element of C receives C(i, j) + Σ_p A(i, p)·B(p, j) with the sum
// taken in increasing p in one accumulator, whatever the loop order and
// the machine's core count, so results are reproducible on a given
// machine and kernel path. The assembly kernels use fused multiply-adds,
// so they differ from the Go kernel by rounding only.
package gemm

import "fmt"

// MulAdd computes C(i, j) += Σ_{p<k} A(i, p)·B(p, j) for i < m, j < n,
// with A(i, p) = a[i·sai + p·sap], B(p, j) = b[p·ldb + j] and
// C(i, j) = c[i·ldc + j]. It panics if a slice is too short for the
// shapes and strides (a programming error, not a data error).
func MulAdd(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, c []float64, ldc int) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	check(m, n, k, a, sai, sap, b, ldb, c, ldc)
	mulAdd(m, n, k, a, sai, sap, b, ldb, c, ldc, c, ldc)
}

// Mul computes C(i, j) = bias[j] + Σ_{p<k} A(i, p)·B(p, j) for i < m,
// j < n, overwriting C (C = A·B when bias is nil), with A, B and C
// addressed as in MulAdd. Each element is bias[j] plus the sum taken in one
// accumulator, exactly what MulAdd stores into a C holding bias in every
// row, without the pass that copies it there. It panics if a slice is too
// short (a programming error).
func Mul(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, bias, c []float64, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	if bias != nil && len(bias) < n {
		panic(fmt.Sprintf("gemm: bias has %d values, need %d", len(bias), n))
	}
	if k <= 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if bias == nil {
				clear(row)
			} else {
				copy(row, bias[:n])
			}
		}
		return
	}
	check(m, n, k, a, sai, sap, b, ldb, c, ldc)
	mulAdd(m, n, k, a, sai, sap, b, ldb, bias, 0, c, ldc)
}

// Kernel names the micro-kernel MulAdd uses on this machine: "avx512",
// "avx2" or "go".
func Kernel() string { return kernelName }

func check(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, c []float64, ldc int) {
	switch {
	case sai < 0 || sap < 0 || ldb < n || ldc < n:
		panic(fmt.Sprintf("gemm: bad strides sai=%d sap=%d ldb=%d ldc=%d for n=%d", sai, sap, ldb, ldc, n))
	case (m-1)*sai+(k-1)*sap >= len(a):
		panic(fmt.Sprintf("gemm: a has %d values, need %d", len(a), (m-1)*sai+(k-1)*sap+1))
	case (k-1)*ldb+n > len(b):
		panic(fmt.Sprintf("gemm: b has %d values, need %d", len(b), (k-1)*ldb+n))
	case (m-1)*ldc+n > len(c):
		panic(fmt.Sprintf("gemm: c has %d values, need %d", len(c), (m-1)*ldc+n))
	}
}

// mulAddGo is the portable kernel: blocks of four rows of C, the four
// A values of a step of p shared across a row of B. C receives In + A·B,
// In(i, j) = in[i·ldin + j] (ldin = 0 repeats one row; in = nil adds
// nothing).
func mulAddGo(m, n, k int, a []float64, sai, sap int, b []float64, ldb int, in []float64, ldin int, c []float64, ldc int) {
	const nb = 64
	var acc [4][nb]float64
	for j0 := 0; j0 < n; j0 += nb {
		nc := min(nb, n-j0)
		i := 0
		for ; i+4 <= m; i += 4 {
			s0, s1, s2, s3 := acc[0][:nc], acc[1][:nc], acc[2][:nc], acc[3][:nc]
			clear(s0)
			clear(s1)
			clear(s2)
			clear(s3)
			ai := i * sai
			for p := 0; p < k; p++ {
				o := ai + p*sap
				a0, a1, a2, a3 := a[o], a[o+sai], a[o+2*sai], a[o+3*sai]
				bp := b[p*ldb+j0 : p*ldb+j0+nc]
				for j, v := range bp {
					s0[j] += a0 * v
					s1[j] += a1 * v
					s2[j] += a2 * v
					s3[j] += a3 * v
				}
			}
			for r, s := range [4][]float64{s0, s1, s2, s3} {
				store(c[(i+r)*ldc+j0:(i+r)*ldc+j0+nc], s, in, (i+r)*ldin+j0)
			}
		}
		for ; i < m; i++ {
			s := acc[0][:nc]
			clear(s)
			for p := 0; p < k; p++ {
				av := a[i*sai+p*sap]
				bp := b[p*ldb+j0 : p*ldb+j0+nc]
				for j, v := range bp {
					s[j] += av * v
				}
			}
			store(c[i*ldc+j0:i*ldc+j0+nc], s, in, i*ldin+j0)
		}
	}
}

// store writes in[off+j] + s[j] to cr[j], in[off+j] taken as +0 when in is
// nil (as the assembly kernels add their zero row: a sum of −0 is stored
// as +0, exactly as when C is cleared and then accumulated into).
func store(cr, s, in []float64, off int) {
	if in == nil {
		for j, v := range s {
			cr[j] = 0 + v
		}
		return
	}
	in = in[off : off+len(s)]
	for j, v := range s {
		cr[j] = in[j] + v
	}
}
