//go:build amd64 && !purego

package lattice

// cpuid returns the registers of the CPUID instruction for leaf and
// subleaf.
func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// xgetbv returns the low and high halves of XCR0, the register stating
// which register states the operating system saves on context switches.
func xgetbv() (lo, hi uint32)

//go:noescape
func weights512(logw, t, p *float64, n, d int) float64

//go:noescape
func weights256(logw, t, p *float64, n, d int) float64

var detected = detect()

// detect reads CPUID and XCR0: AVX-512 needs AVX512F and the OS saving
// the opmask and upper-ZMM state; AVX2 needs AVX2 and FMA (the AVX2
// kernel uses neither FMA nor anything beyond AVX2, but AVX2 without it
// does not occur) and the YMM state.
func detect() int {
	maxLeaf, _, _, _ := cpuid(0, 0)
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, avx, fma = 1 << 27, 1 << 28, 1 << 12
	if c1&osxsave == 0 || c1&avx == 0 || c1&fma == 0 || maxLeaf < 7 {
		return levelGo
	}
	xcr0, _ := xgetbv()
	if xcr0&6 != 6 { // SSE and AVX state
		return levelGo
	}
	_, b7, _, _ := cpuid(7, 0)
	const avx2, avx512f = 1 << 5, 1 << 16
	switch {
	case b7&avx2 == 0:
		return levelGo
	case b7&avx512f != 0 && xcr0&0xe6 == 0xe6: // + opmask, ZMM_Hi256, Hi16_ZMM
		return levelAVX512
	}
	return levelAVX2
}

//go:noescape
func expShift512(w, x *float64, n int, m float64)

//go:noescape
func expShift256(w, x *float64, n int, m float64)
