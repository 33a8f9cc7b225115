package lattice

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/cpu"
)

// TestRoundHalfBias checks the identity the AVX2 kernel rounds by:
// trunc(x + copysign(h, x)) with h = 0.5 − 2^−54, the largest double
// below one half, is math.Round(x) for every x, infinities included.
func TestRoundHalfBias(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	h := math.Nextafter(0.5, 0)
	xs := []float64{math.Inf(1), math.Inf(-1), math.Copysign(0, -1), math.MaxFloat64, -math.MaxFloat64,
		0x1p1023, -0x1p1023, math.SmallestNonzeroFloat64, h, -h, 1 - 0x1p-53}
	for _, v := range special {
		xs = append(xs, v, -v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)))
	}
	for e := -60; e <= 60; e++ {
		for _, f := range []float64{0.5, 1, 1.5} {
			v := math.Ldexp(f, e)
			xs = append(xs, v, -v, math.Nextafter(v, 0), -math.Nextafter(v, 0))
		}
	}
	for range 100000 {
		xs = append(xs, math.Ldexp(r.Float64()-0.5, r.IntN(120)-60))
	}
	for _, x := range xs {
		got, want := math.Trunc(x+math.Copysign(h, x)), math.Round(x)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trunc(%v + copysign(h, %v)) = %v, math.Round %v", x, x, got, want)
		}
	}
}

// TestKernelsEdges checks every kernel against the Go loop on n = 0…17
// (every block and tail length, and n below one vector), on unaligned
// sub-slices of logw and t, and with offsets z_k − t at and beyond 2^1023
// where doubling would overflow (not for the AVX-512 kernel, which
// doubles); logw is guarded on both sides.
func TestKernelsEdges(t *testing.T) {
	defer func(l cpu.Level) { level = l }(level)
	r := rand.New(rand.NewPCG(17, 18))
	huge := []float64{math.MaxFloat64, -math.MaxFloat64, 0x1p1023, -0x1p1023, 0x1.8p1023, -0x1.8p1023}
	for _, d := range []int{1, 3, 9} {
		c := coef(t, r, d)
		for n := range 18 {
			for _, off := range []int{0, 1, 3} {
				tg, z := input(r, n, d)
				hasHuge := false
				for i := range n {
					if i%5 == 2 {
						hasHuge = true
						k := r.IntN(d)
						tg[k*n+i] = z[k] - huge[r.IntN(len(huge))]
					}
				}
				if err := c.SetZ(z); err != nil {
					t.Fatal(err)
				}
				tbuf := make([]float64, off+d*n)
				copy(tbuf[off:], tg)
				want := make([]float64, n)
				weightsGo(want, tg, c.p, d)
				for _, l := range kernels() {
					if l == cpu.AVX512 && hasHuge {
						// The AVX-512 rounding doubles its argument, which
						// overflows at offsets of 2^1023 and beyond (see the
						// package comment).
						continue
					}
					level = l
					buf := make([]float64, off+n+1)
					for i := range buf {
						buf[i] = 5
					}
					got := buf[off : off+n]
					mx, err := c.LogWeights(got, tbuf[off:])
					if err != nil {
						t.Fatal(err)
					}
					if wm := Max(want); mx != wm && !(math.IsNaN(mx) && math.IsNaN(wm)) {
						t.Fatalf("%s d=%d n=%d off=%d: maximum %v, want %v", Kernel(), d, n, off, mx, wm)
					}
					for i := range off {
						if buf[i] != 5 {
							t.Fatalf("%s d=%d n=%d off=%d: wrote before logw", Kernel(), d, n, off)
						}
					}
					if buf[off+n] != 5 {
						t.Fatalf("%s d=%d n=%d off=%d: wrote past logw", Kernel(), d, n, off)
					}
					for i := range got {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%s d=%d n=%d off=%d slot %d: %v, Go loop %v", Kernel(), d, n, off, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestExpShiftEdges checks ExpShift with every kernel against math.Exp on
// n = 0…40 with arguments in SOMA's range [−30, 0] (every lane in the
// exponent's normal range) but for one lane at each position in turn that
// is not (subnormal or zero results, overflow, ±Inf, NaN), on unaligned
// sub-slices and in place (w = x).
func TestExpShiftEdges(t *testing.T) {
	defer func(l cpu.Level) { level = l }(level)
	r := rand.New(rand.NewPCG(19, 20))
	odd := []float64{-708.5, -720, -745.2, -1e10, 709.8, 1e10, math.Inf(1), math.Inf(-1), math.NaN(), -707.5, 709.7}
	for _, l := range kernels() {
		level = l
		for n := range 41 {
			for pos := -1; pos < n; pos++ {
				off := (n + pos + 2) % 3
				x := make([]float64, off+n)[off:]
				for i := range x {
					x[i] = -30 * r.Float64()
				}
				if pos >= 0 {
					x[pos] = odd[r.IntN(len(odd))]
				}
				for _, inPlace := range []bool{false, true} {
					w := make([]float64, off+n+1)[off:]
					w[n] = 42
					src := x
					if inPlace {
						copy(w, x)
						src = w[:n]
					}
					if err := ExpShift(w, src, 0.25); err != nil {
						t.Fatal(err)
					}
					if w[n] != 42 {
						t.Fatalf("%s n=%d: wrote past len(x)", Kernel(), n)
					}
					for i, v := range x {
						want := math.Exp(v - 0.25)
						if math.Float64bits(w[i]) != math.Float64bits(want) && !(math.IsNaN(w[i]) && math.IsNaN(want)) {
							t.Fatalf("%s n=%d pos=%d in place %v: exp(%v − m) = %v, math.Exp %v", Kernel(), n, pos, inPlace, v, w[i], want)
						}
					}
				}
			}
		}
	}
}
