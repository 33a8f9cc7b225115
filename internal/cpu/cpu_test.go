package cpu

import "testing"

// TestFeatures checks that AVX-512 is only reported together with
// AVX2+FMA (the kernels assume it) and logs what was found.
func TestFeatures(t *testing.T) {
	f := Features()
	if f.AVX512 && !f.AVX2FMA {
		t.Fatal("AVX-512 reported without AVX2+FMA")
	}
	t.Logf("AVX2+FMA %v, AVX-512 %v", f.AVX2FMA, f.AVX512)
}
