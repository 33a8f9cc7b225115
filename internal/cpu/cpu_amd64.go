//go:build amd64 && !purego

package cpu

// cpuid returns the registers of the CPUID instruction for leaf and
// subleaf.
func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// xgetbv returns the low and high halves of XCR0, the register stating
// which register states the operating system saves on context switches.
func xgetbv() (lo, hi uint32)

// detect reads CPUID and XCR0: AVX-512 needs AVX512F and the OS saving the
// opmask and upper-ZMM state; AVX2 needs AVX2, FMA and the YMM state.
func detect() X86 {
	var f X86
	maxLeaf, _, _, _ := cpuid(0, 0)
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, avx, fma = 1 << 27, 1 << 28, 1 << 12
	if c1&osxsave == 0 || c1&avx == 0 || c1&fma == 0 || maxLeaf < 7 {
		return f
	}
	xcr0, _ := xgetbv()
	if xcr0&6 != 6 { // SSE and AVX state
		return f
	}
	_, b7, _, _ := cpuid(7, 0)
	const avx2, avx512f = 1 << 5, 1 << 16
	f.AVX2FMA = b7&avx2 != 0
	f.AVX512 = f.AVX2FMA && b7&avx512f != 0 && xcr0&0xe6 == 0xe6 // + opmask, ZMM_Hi256, Hi16_ZMM
	return f
}
