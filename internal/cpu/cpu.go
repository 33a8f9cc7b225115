// Package cpu reports which SIMD instruction sets the processor offers and
// the operating system enables, read once from CPUID and XCR0 on amd64.
// With the purego build tag, or on other architectures, it reports none.
package cpu

// X86 holds the features the SIMD kernels (flow's and internal/lattice's) can use.
type X86 struct {
	AVX2FMA bool // AVX2 and FMA, with the YMM state enabled by the OS
	AVX512  bool // AVX-512 F, with the opmask and ZMM state enabled by the OS
}

var features = detect()

// Features returns the features of this machine.
func Features() X86 { return features }
