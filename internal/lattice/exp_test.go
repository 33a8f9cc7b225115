package lattice

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/cpu"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestExpShiftMatchesMathExp checks ExpShift with every kernel the machine
// offers against math.Exp bit for bit
// on every tail length 0…17 and longer runs, with arguments spread over
// the whole range: the ordinary SOMA range [−50, 0], the subnormal
// results below −708, the underflow below −745, the overflow threshold,
// ±Inf, NaN and ±0.
func TestExpShiftMatchesMathExp(t *testing.T) {
	defer func(l cpu.Level) { level = l }(level)
	for _, l := range kernels() {
		level = l
		t.Run(Kernel(), testExpShift)
	}
}

func testExpShift(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -708.3, -708.4, -709.5,
		-744.4, -745.1, -745.2, -746, -1e10, -1e300, 709.78, 709.782712893384, 709.7827128933841, 710, 1e10,
		0.5 * math.Ln2, -0.5 * math.Ln2, 1e-300, -1e-300, 88.7, -88.7, 1, -1}
	for n := range 18 {
		check(t, r, n, special)
	}
	for _, n := range []int{31, 100, 257, 1000} {
		check(t, r, n, special)
	}
	if err := ExpShift(make([]float64, 2), make([]float64, 3), 0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short w: %v", err)
	}
}

func check(t *testing.T, r *rand.Rand, n int, special []float64) {
	t.Helper()
	x := make([]float64, n)
	for i := range x {
		switch i % 5 {
		case 0:
			x[i] = -50 * r.Float64()
		case 1:
			x[i] = special[r.IntN(len(special))]
		case 2:
			x[i] = -760 * r.Float64()
		case 3:
			x[i] = 1420*r.Float64() - 710
		default:
			x[i] = math.Ldexp(r.Float64()-0.5, r.IntN(80)-60)
		}
	}
	for _, m := range []float64{0, -3.25, 12.5} {
		w := make([]float64, n+1)
		w[n] = 42
		if err := ExpShift(w, x, m); err != nil {
			t.Fatal(err)
		}
		if w[n] != 42 {
			t.Fatalf("n=%d: wrote past len(x)", n)
		}
		for i, v := range x {
			want := math.Exp(v - m)
			if math.Float64bits(w[i]) != math.Float64bits(want) && !(math.IsNaN(w[i]) && math.IsNaN(want)) {
				t.Fatalf("n=%d m=%v: exp(%v − m) = %v (%#x), math.Exp %v (%#x)", n, m, v, w[i], math.Float64bits(w[i]), want, math.Float64bits(want))
			}
		}
	}
}

// TestMax checks Max against a scan on random lengths, with −Inf, NaN and
// the empty slice.
func TestMax(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for n := range 40 {
		x := make([]float64, n)
		want := math.Inf(-1)
		for i := range x {
			x[i] = r.NormFloat64()
			want = math.Max(want, x[i])
		}
		if got := Max(x); got != want {
			t.Fatalf("n=%d: Max = %v, want %v", n, got, want)
		}
		if n > 0 {
			x[r.IntN(n)] = math.NaN()
			if got := Max(x); !math.IsNaN(got) {
				t.Fatalf("n=%d: Max with NaN = %v", n, got)
			}
		}
	}
	if got := Max([]float64{math.Inf(-1), math.Inf(-1)}); !math.IsInf(got, -1) {
		t.Fatalf("Max(−Inf, −Inf) = %v", got)
	}
}

// BenchmarkExpShift reports wall and process CPU ns per exponential of
// each kernel on 1000 arguments in SOMA's range [−30, 0].
func BenchmarkExpShift(b *testing.B) {
	defer func(l cpu.Level) { level = l }(level)
	r := rand.New(rand.NewPCG(1, 1))
	x, w := make([]float64, 1000), make([]float64, 1000)
	for i := range x {
		x[i] = -30 * r.Float64()
	}
	for _, l := range kernels() {
		level = l
		b.Run(Kernel(), func(b *testing.B) {
			level = l
			cpu0, ok := testutil.ProcessCPU()
			for b.Loop() {
				_ = ExpShift(w, x, 0)
			}
			cpu1, _ := testutil.ProcessCPU()
			v := float64(b.N) * float64(len(x))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/v, "ns/value")
			if ok {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/v, "cpu-ns/value")
			}
		})
	}
}
