package qmc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestHaltonValues checks the unscrambled Halton sequence against radical
// inverses computed by hand.
func TestHaltonValues(t *testing.T) {
	h, err := NewHalton(HaltonConfig{Dim: 3, Scrambled: false}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{0, 0, 0},
		{1. / 2, 1. / 3, 1. / 5},
		{1. / 4, 2. / 3, 2. / 5},
		{3. / 4, 1. / 9, 3. / 5},
		{1. / 8, 4. / 9, 4. / 5},
		{5. / 8, 7. / 9, 1. / 25},
		{3. / 8, 2. / 9, 6. / 25},
	}
	got := make([]float64, len(want)*3)
	if err := h.Fill(got, len(want)); err != nil {
		t.Fatal(err)
	}
	for i, row := range want {
		for j, w := range row {
			if math.Abs(got[i*3+j]-w) > 1e-15 {
				t.Errorf("point %d coordinate %d: got %v, want %v", i, j, got[i*3+j], w)
			}
		}
	}
	if err := h.Seek(5); err != nil {
		t.Fatal(err)
	}
	row := make([]float64, 3)
	h.Fill(row, 1)
	if math.Abs(row[2]-1./25) > 1e-15 {
		t.Errorf("Seek(5): got %v", row)
	}
	if _, err := NewHalton(HaltonConfig{Dim: 0, Scrambled: false}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewHalton(0): %v", err)
	}
	if _, err := NewHalton(HaltonConfig{Dim: MaxHaltonDim + 1, Scrambled: false}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewHalton(MaxHaltonDim+1): %v", err)
	}
	if _, err := NewHalton(HaltonConfig{Dim: 2, Scrambled: true}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("scrambled Halton with nil rand: %v", err)
	}
	if err := h.Seek(1 << 53); err != nil {
		t.Fatal(err)
	}
	if err := h.Fill(row, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("Halton beyond 2^53: %v", err)
	}
}

// TestScrambledHaltonStratified: with random digit permutations the first
// p^k points of coordinate j still fall one per interval of length p^-k
// (a permutation of digit k maps the k-digit grid onto itself).
func TestScrambledHaltonStratified(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	h, _ := NewHalton(HaltonConfig{Dim: 4, Scrambled: true}, r)
	pts := make([]float64, 125*4)
	h.Fill(pts, 125)
	for j, nb := range []struct{ b, k int }{{2, 6}, {3, 4}, {5, 3}} {
		n := 1
		for i := 0; i < nb.k; i++ {
			n *= nb.b
		}
		seen := make([]bool, n)
		for i := 0; i < n; i++ {
			c := int(pts[i*4+j] * float64(n))
			if seen[c] {
				t.Fatalf("base %d: two of the first %d points share an interval", nb.b, n)
			}
			seen[c] = true
		}
	}
}

// TestRotationAndMC checks the rotation formula and Monte Carlo replay.
func TestRotationAndMC(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	s, _ := NewSobol(SobolConfig{Dim: 2}, nil)
	c, err := NewRotation(s, r)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, 8)
	c.Fill(got, 4)
	base := []float64{0, 0, .5, .5, .75, .25, .25, .75}
	for i, b := range base {
		w := b + c.Shift()[i%2]
		if w >= 1 {
			w--
		}
		if got[i] != w {
			t.Fatalf("rotated value %d: got %v want %v", i, got[i], w)
		}
	}
	if _, err := NewRotation(nil, r); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil base: %v", err)
	}
	if addMod1(0x1.fffffffffffffp-1, 0x1.fffffffffffffp-1) >= 1 || addMod1(0.75, 0.25) != 0 {
		t.Error("addMod1 left [0,1)")
	}
	m, err := NewMonteCarlo(3, r)
	if err != nil {
		t.Fatal(err)
	}
	a, b := make([]float64, 30), make([]float64, 30)
	m.Fill(a, 10)
	m.Reset()
	m.Fill(b, 10)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("MonteCarlo.Reset does not replay")
		}
	}
	if _, err := NewMonteCarlo(0, r); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewMonteCarlo(0): %v", err)
	}
}

// TestIntegrateCoverage checks unbiasedness and the standard error: for
// f(u) = Π (1 + (u_j − ½)·c_j) + u_0² (exact integral 1 + 1/3) the
// z-score |mean − I|/SE over 200 independent Integrate calls (R = 8
// replicates each, so z ~ Student-t with 7 df) must exceed 3.5
// (two-sided p ≈ 0.01) in at most 8 calls (Binomial(200, 0.01):
// P(> 8) ≈ 4e-4), and the average z² must be near the t_7 variance 7/5
// (within ±0.5, a > 4σ band).
func TestIntegrateCoverage(t *testing.T) {
	const d = 3
	cs := []float64{0.8, -0.6, 0.5}
	f := func(u []float64) float64 {
		p := 1.0
		for j, c := range cs {
			p *= 1 + (u[j]-0.5)*c
		}
		return p + u[0]*u[0]
	}
	exact := 1 + 1.0/3
	r := rand.New(rand.NewPCG(31, 32))
	for _, name := range []string{"owen", "lms", "mc"} {
		var seq Randomized
		switch name {
		case "owen":
			seq, _ = NewSobol(SobolConfig{Dim: d, Scramble: Owen}, r)
		case "lms":
			seq, _ = NewSobol(SobolConfig{Dim: d, Scramble: LinearMatrixShift}, r)
		default:
			seq, _ = NewMonteCarlo(d, r)
		}
		big, sumZ2 := 0, 0.0
		for call := 0; call < 200; call++ {
			est, err := Integrate(context.Background(), seq, f, 64, 8, r)
			if err != nil {
				t.Fatal(err)
			}
			z := (est.Mean - exact) / est.StdErr
			sumZ2 += z * z
			if math.Abs(z) > 3.5 {
				big++
			}
		}
		if big > 8 || math.Abs(sumZ2/200-1.4) > 0.5 {
			t.Errorf("%s: %d of 200 |z| > 3.5, mean z² = %.3f (want ≈ 1.4)", name, big, sumZ2/200)
		}
	}
}

func TestIntegrateErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s, _ := NewSobol(SobolConfig{Dim: 2, Scramble: Owen}, r)
	f := func(u []float64) float64 { return u[0] }
	ctx := context.Background()
	if _, err := Integrate(ctx, s, f, 0, 4, r); !errors.Is(err, ErrInvalid) {
		t.Errorf("n = 0: %v", err)
	}
	if _, err := Integrate(ctx, s, f, 8, 0, r); !errors.Is(err, ErrInvalid) {
		t.Errorf("R = 0: %v", err)
	}
	if _, err := Integrate(ctx, s, nil, 8, 2, r); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil f: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Integrate(cctx, s, f, 8, 2, r); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	small, _ := NewSobol(SobolConfig{Dim: 1, Scramble: Owen}, r)
	small.Seek(0)
	est, err := Integrate(ctx, small, f, 1, 1, r)
	if err != nil || !math.IsNaN(est.StdErr) {
		t.Errorf("R = 1: est %+v err %v, want NaN StdErr", est, err)
	}
}

// TestFillNoAlloc checks that filling points allocates nothing.
func TestFillNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]float64, 64*10)
	for _, sc := range []Scramble{NoScramble, DigitalShift, LinearMatrixShift, Owen, OwenTree} {
		s, _ := NewSobol(SobolConfig{Dim: 10, Scramble: sc}, r)
		if a := testing.AllocsPerRun(100, func() {
			if s.Index() > 1<<20 {
				s.Reset()
			}
			s.Fill(buf, 64)
		}); a != 0 {
			t.Errorf("%v: %v allocs per Fill", sc, a)
		}
	}
	h, _ := NewHalton(HaltonConfig{Dim: 10, Scrambled: true}, r)
	m, _ := NewMonteCarlo(10, r)
	rot, _ := NewRotation(h, r)
	for name, seq := range map[string]Sequence{"halton": h, "mc": m, "rotation": rot} {
		if a := testing.AllocsPerRun(100, func() { seq.Fill(buf, 64) }); a != 0 {
			t.Errorf("%s: %v allocs per Fill", name, a)
		}
	}
}

// TestIntegrateParallelDeterministic checks that the parallel estimate
// depends on the seed only (same result with 1 and 2 workers) and agrees
// with the exact integral.
func TestIntegrateParallelDeterministic(t *testing.T) {
	f := func(u []float64) float64 { return u[0]*u[0] + u[1] }
	mk := func() (Randomized, Integrand, error) {
		s, err := NewSobol(SobolConfig{Dim: 2, Scramble: Owen}, rand.New(rand.NewPCG(0, 0)))
		return s, f, err
	}
	ctx := context.Background()
	prev := runtime.GOMAXPROCS(1)
	a, err := IntegrateParallel(ctx, mk, 256, 16, 7)
	runtime.GOMAXPROCS(2)
	b, err2 := IntegrateParallel(ctx, mk, 256, 16, 7)
	runtime.GOMAXPROCS(prev)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	if a != b {
		t.Fatalf("GOMAXPROCS changed the estimate: %+v vs %+v", a, b)
	}
	if z := (a.Mean - (1.0/3 + 0.5)) / a.StdErr; math.Abs(z) > 4 {
		t.Fatalf("estimate %v ± %v is %.1f SE from 5/6", a.Mean, a.StdErr, z)
	}
	if _, err := IntegrateParallel(ctx, nil, 8, 2, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil constructor: %v", err)
	}
}
