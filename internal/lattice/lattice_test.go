package lattice

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/privinfer/privinfer/internal/cpu"
	"github.com/privinfer/privinfer/internal/testutil"
)

// special holds rounding boundaries: halves of both signs, the largest
// double below one half, values around 2^52 and 2^53 and huge ones.
var special = []float64{0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
	0x1p52 - 0.5, -(0x1p52 - 0.5), 0x1p52 - 1.5, 0x1p51 + 0.5, 0x1p52, 0x1p52 + 1, 0x1p53 - 1, 0x1p53 + 2,
	-0x1p53 - 2, 0x1p900, -0x1p900, 0x1p-1074, 1e300, -7.5, 1234567.5, -1234567.5}

// input returns d·n column-major contributions and d offsets: most values
// random on the scale of the records in grid units, with every fourth
// slot set so that z_k − t is one of the special values (exact halves
// among them) or a random half-integer.
func input(r *rand.Rand, n, d int) (t, z []float64) {
	t, z = make([]float64, d*n), make([]float64, d)
	for k := range z {
		z[k] = math.Round(r.NormFloat64()*0x1p20) + float64(r.IntN(2))*0.5
	}
	for k := range d {
		for i := range n {
			v := r.NormFloat64() * 0x1p20
			switch i % 4 {
			case 1:
				v = z[k] - special[r.IntN(len(special))]
			case 3:
				v = z[k] - (float64(r.IntN(2001)-1000) + 0.5)
			}
			t[k*n+i] = v
		}
	}
	return t, z
}

func coef(t *testing.T, r *rand.Rand, d int) *Coef {
	k, lam, ell, gl := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	for j := range d {
		k[j] = math.Round(r.NormFloat64() * 0x1p20)
		lam[j] = math.Ldexp(1+r.Float64(), -20-r.IntN(3))
		ell[j] = math.Log(-math.Expm1(-lam[j])) - math.Log1p(math.Exp(-lam[j]))
		gl[j] = float64(-20-r.IntN(5)) * math.Ln2
	}
	c, err := NewCoef(CoefConfig{K: k, Lam: lam, Ell: ell, GL: gl})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// kernels lists the levels this machine can run, Go first.
func kernels() []cpu.Level {
	ks := []cpu.Level{cpu.Go}
	for _, l := range []cpu.Level{cpu.AVX2, cpu.AVX512} {
		if l <= detected {
			ks = append(ks, l)
		}
	}
	return ks
}

// TestKernelsMatchGo checks every kernel the machine offers against the Go
// loop bit for bit, and their maxima against Max (NaN included), for d ∈ {1, 2, 9} and n = 1…40 (every tail length of
// the 16- and 8-slot blocks) plus random n up to 1000, on inputs with
// exact halves of both signs, boundaries of the rounding and huge values.
// The output slice is pre-filled with garbage and guarded by sentinels
// that the kernels must not overwrite.
func TestKernelsMatchGo(t *testing.T) {
	defer func(l cpu.Level) { level = l }(level)
	t.Logf("detected kernel %q", Kernel())
	r := rand.New(rand.NewPCG(5, 6))
	var ns []int
	for n := 1; n <= 40; n++ {
		ns = append(ns, n)
	}
	for range 12 {
		ns = append(ns, 41+r.IntN(960))
	}
	ns = append(ns, 1000)
	for _, d := range []int{1, 2, 9} {
		c := coef(t, r, d)
		for _, n := range ns {
			tg, z := input(r, n, d)
			if err := c.SetZ(z); err != nil {
				t.Fatal(err)
			}
			if n%7 == 3 {
				tg[r.IntN(d*n)] = math.NaN() // the maximum must be NaN
			}
			want := make([]float64, n)
			weightsGo(want, tg, c.p, d)
			for _, l := range kernels() {
				level = l
				buf := make([]float64, n+2)
				for i := range buf {
					buf[i] = math.NaN()
				}
				buf[0], buf[n+1] = 7, 9
				got := buf[1 : n+1]
				mx, err := c.LogWeights(got, tg)
				if err != nil {
					t.Fatal(err)
				}
				if want := Max(want); mx != want && !(math.IsNaN(mx) && math.IsNaN(want)) {
					t.Fatalf("%s d=%d n=%d: maximum %v, want %v", Kernel(), d, n, mx, want)
				}
				if buf[0] != 7 || buf[n+1] != 9 {
					t.Fatalf("%s d=%d n=%d: wrote outside logw", Kernel(), d, n)
				}
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s d=%d n=%d slot %d: %v (%#x), Go loop %v (%#x)", Kernel(), d, n, i,
							got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
					}
				}
			}
		}
	}
}

// TestGoLoopIsTheFormula checks the Go loop against the formula written
// out slot by slot with math.Round, so that the kernels (compared with
// the Go loop) compute the documented sum.
func TestGoLoopIsTheFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	d, n := 9, 37
	c := coef(t, r, d)
	tg, z := input(r, n, d)
	if err := c.SetZ(z); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, n)
	weightsGo(got, tg, c.p, d)
	for i := range n {
		want := 0.0
		for k := range d {
			q := c.p[stride*k : stride*k+5]
			want += (q[3] - q[2]*math.Abs(q[1]-math.Round(z[k]-tg[k*n+i]))) - q[4]
		}
		if math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Fatalf("slot %d: %v, formula %v", i, got[i], want)
		}
	}
}

// TestRound checks Round against math.Round on the special values, their
// neighbours and random values of every magnitude.
func TestRound(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	xs := []float64{math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}
	for _, v := range special {
		xs = append(xs, v, -v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)))
	}
	for range 100000 {
		xs = append(xs, math.Ldexp(r.Float64()-0.5, r.IntN(120)-60))
	}
	for _, x := range xs {
		if got, want := Round(x), math.Round(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Round(%v) = %v, want %v", x, got, want)
		}
	}
}

// TestInvalid checks the argument errors.
func TestInvalid(t *testing.T) {
	if _, err := NewCoef(CoefConfig{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty k: %v", err)
	}
	if _, err := NewCoef(CoefConfig{K: []float64{1}, Lam: []float64{1, 2}, Ell: []float64{1}, GL: []float64{1}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short lam: %v", err)
	}
	c, err := NewCoef(CoefConfig{K: []float64{1, 2}, Lam: []float64{1, 2}, Ell: []float64{1, 2}, GL: []float64{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetZ([]float64{1}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short z: %v", err)
	}
	if _, err := c.LogWeights(make([]float64, 3), make([]float64, 5)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short t: %v", err)
	}
	if _, err := new(Coef).LogWeights(make([]float64, 3), make([]float64, 6)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("zero Coef: %v", err)
	}
	if mx, err := c.LogWeights(nil, nil); err != nil || !math.IsInf(mx, -1) {
		t.Fatalf("n = 0: %v, %v", mx, err)
	}
}

// BenchmarkLogWeights reports wall and process CPU ns per record weight
// (d = 9 coordinates) of each kernel at n = 100 and 1000.
func BenchmarkLogWeights(b *testing.B) {
	defer func(l cpu.Level) { level = l }(level)
	for _, n := range []int{100, 1000} {
		for _, l := range kernels() {
			level = l
			name := Kernel()
			b.Run(name+"/n="+strconv.Itoa(n), func(b *testing.B) {
				level = l
				r := rand.New(rand.NewPCG(1, 1))
				k, lam, ell, gl := make([]float64, 9), make([]float64, 9), make([]float64, 9), make([]float64, 9)
				for j := range 9 {
					k[j], lam[j], ell[j], gl[j] = 1000, 1e-6, -14, -14
				}
				c, _ := NewCoef(CoefConfig{K: k, Lam: lam, Ell: ell, GL: gl})
				tg, z := input(r, n, 9)
				_ = c.SetZ(z)
				logw := make([]float64, n)
				cpu0, ok := testutil.ProcessCPU()
				for b.Loop() {
					_, _ = c.LogWeights(logw, tg)
				}
				cpu1, _ := testutil.ProcessCPU()
				w := float64(b.N) * float64(n)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/w, "ns/weight")
				if ok {
					b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/w, "cpu-ns/weight")
				}
			})
		}
	}
}
