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

// Level orders the kernel paths of the SIMD packages, from portable Go to
// the widest vectors.
type Level int

const (
	Go     Level = iota // portable Go, no assembly
	AVX2                // AVX2 and FMA with 256-bit vectors
	AVX512              // AVX-512 F with 512-bit vectors and opmasks
)

// String returns the level's name: "go", "avx2" or "avx512".
func (l Level) String() string {
	switch l {
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return "go"
}

// Best returns the widest level this machine supports.
func Best() Level {
	switch f := Features(); {
	case f.AVX512:
		return AVX512
	case f.AVX2FMA:
		return AVX2
	}
	return Go
}
