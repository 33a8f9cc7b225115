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

// TestBest checks that the best level is the widest feature reported.
func TestBest(t *testing.T) {
	f := Features()
	want := Go
	if f.AVX2FMA {
		want = AVX2
	}
	if f.AVX512 {
		want = AVX512
	}
	if got := Best(); got != want {
		t.Fatalf("Best() = %d with %+v, want %d", got, f, want)
	}
}

// TestLevelString checks the levels' names, which the kernels' tests and
// Kernel functions report.
func TestLevelString(t *testing.T) {
	for l, want := range map[Level]string{Go: "go", AVX2: "avx2", AVX512: "avx512"} {
		if got := l.String(); got != want {
			t.Errorf("Level(%d).String() = %q, want %q", l, got, want)
		}
	}
}
