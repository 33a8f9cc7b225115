package rqs32

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow/spline"
)

// block is one block's inputs and outputs.
type block struct {
	raw, st, graw   []float32
	x, y, ld, gy    [Lanes]float32
	gl, gx          [Lanes]float32
	raw64, x64, y64 []float64
}

// randomBlock draws the parameters (normal, sd sdRaw) and inputs of a
// block: inputs uniform on [−1.2B, 1.2B], with lane 0 at −B, lane 1 at B
// and lane 2 at an interior knot once the knots are known (see run).
func randomBlock(r *rand.Rand, s *Spline, sdRaw float64) *block {
	b := &block{raw: make([]float32, s.RawLen()), st: make([]float32, s.StateLen()), graw: make([]float32, s.RawLen())}
	for i := range b.raw {
		b.raw[i] = float32(sdRaw * r.NormFloat64())
	}
	for l := range b.x {
		b.x[l] = float32((2.4*r.Float64() - 1.2) * float64(s.B))
		b.gy[l] = float32(r.NormFloat64())
		b.gl[l] = float32(r.NormFloat64())
	}
	b.x[0], b.x[1] = -s.B, s.B
	return b
}

// run evaluates the block with the kernels useAsm selects.
func (b *block) run(s *Spline) {
	s.Knots(b.st, b.raw)
	b.x[2] = b.st[(s.offX()+s.K/2)*Lanes+2] // exactly on a knot
	s.Forward(b.st, &b.x, &b.y, &b.ld)
	s.Backward(b.st, &b.x, &b.gy, &b.gl, &b.gx, b.graw)
}

// reference returns lane l's output, log-derivative, input gradient and
// parameter gradient from package spline in float64 at the block's
// float32 input, with the block's float32 knots and derivatives (X, Y
// and D) and float64 probabilities and sigmoids: the comparison isolates
// the formulas' rounding from the knots' (which checkKnots bounds). The
// float32 probabilities do not sum to 1 exactly, and the float64 code's
// softmax gradient p_i(a_i − Σ p_j a_j) would amplify that defect by
// 1/p_i when a narrow bin's a_i almost cancels.
func reference(t *testing.T, s *Spline, b *block, l int) (y, ld, gx float64, graw []float64) {
	ref := refSpline(t, s)
	k := ref.NewKnots()
	raw := make([]float64, ref.NumParams())
	for j := range raw {
		raw[j] = float64(b.raw[j*Lanes+l])
	}
	ref.SetKnots(k, raw)
	state := make([]float64, ref.KnotsLen())
	k.Save(state)
	for j := range state[:3*(s.K+1)] {
		state[j] = float64(b.st[j*Lanes+l])
	}
	k.Load(state)
	K := s.K
	gX, gY, gD := make([]float64, K+1), make([]float64, K+1), make([]float64, K+1)
	x := float64(b.x[l])
	y, ld, gx = ref.ForwardBackward(k, x, float64(b.gy[l]), float64(b.gl[l]), gX, gY, gD)
	graw = make([]float64, ref.NumParams())
	ref.KnotsBackward(k, gX, gY, gD, graw)
	return y, ld, gx, graw
}

func refSpline(t *testing.T, s *Spline) *spline.Spline {
	ref, err := spline.New(spline.Config{Bins: s.K, TailBound: float64(s.B), MinWidth: float64(s.MinW), MinHeight: float64(s.MinH), MinDerivative: float64(s.MinD)})
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// checkKnots compares the block's state with package spline's float64
// state at the same (float32) parameters: knot positions to 8K·2⁻²⁴·B
// (the float32 cumulative sums' rounding), everything else to a relative
// 10⁻⁶ (with an absolute floor of 10⁻³⁰ for the smallest probabilities).
func checkKnots(t *testing.T, s *Spline, b *block) {
	t.Helper()
	ref := refSpline(t, s)
	k := ref.NewKnots()
	raw := make([]float64, ref.NumParams())
	state := make([]float64, ref.KnotsLen())
	K := s.K
	for l := 0; l < Lanes; l++ {
		for j := range raw {
			raw[j] = float64(b.raw[j*Lanes+l])
		}
		ref.SetKnots(k, raw)
		k.Save(state)
		for j, want := range state {
			got := float64(b.st[j*Lanes+l])
			// exp's argument is rounded once: relative errors grow with
			// its size, |log p|.
			tol := 4e-7*(1+math.Abs(math.Log(math.Abs(want))))*math.Abs(want) + 1e-30
			if j < 2*(K+1) {
				tol = 8 * float64(K) * 0x1p-24 * float64(s.B)
			}
			if !(math.Abs(got-want) <= tol) {
				t.Fatalf("lane %d: state[%d] = %v, float64 %v", l, j, got, want)
			}
		}
	}
}

// compare checks every lane of b against package spline: outputs to
// tolY·(1+|y|), log-derivatives to tolL, gradients to tol relative to the
// largest gradient of the lane (at least 1). It returns the largest
// errors seen.
func compare(t *testing.T, s *Spline, b *block, tolY, tolL, tolG float64) (ey, el, eg float64) {
	t.Helper()
	checkKnots(t, s, b)
	for l := 0; l < Lanes; l++ {
		y, ld, gx, graw := reference(t, s, b, l)
		dy := math.Abs(float64(b.y[l])-y) / (1 + math.Abs(y))
		dl := math.Abs(float64(b.ld[l]) - ld)
		scale := math.Max(1, math.Abs(gx))
		for _, v := range graw {
			scale = math.Max(scale, math.Abs(v))
		}
		dg := math.Abs(float64(b.gx[l])-gx) / scale
		for j, v := range graw {
			dg = math.Max(dg, math.Abs(float64(b.graw[j*Lanes+l])-v)/scale)
		}
		if !(dy <= tolY) || !(dl <= tolL) || !(dg <= tolG) {
			t.Errorf("lane %d at x = %v: errors y %.3g, log-derivative %.3g, gradient %.3g (want ≤ %g, %g, %g)",
				l, b.x[l], dy, dl, dg, tolY, tolL, tolG)
		}
		ey, el, eg = math.Max(ey, dy), math.Max(el, dl), math.Max(eg, dg)
	}
	return ey, el, eg
}

// kernels lists the kernel paths of this machine: the twin, and the
// assembly where it runs.
func kernels() []bool {
	if useAsm {
		return []bool{false, true}
	}
	return []bool{false}
}

func setAsm(t *testing.T, on bool) {
	old := useAsm
	useAsm = on
	t.Cleanup(func() { useAsm = old })
}

// TestAgainstSpline compares both kernel paths with package spline's
// float64 evaluation on random blocks of the paper's spline (10 bins,
// bound 3) and of others: float32 rounding of the knots and of the
// formulas bounds the errors near 10⁻⁶; a wrong formula gives errors of
// order one.
func TestAgainstSpline(t *testing.T) {
	for _, asm := range kernels() {
		setAsm(t, asm)
		for _, c := range []struct {
			K     int
			B, sd float64
		}{{10, 3, 1}, {10, 3, 3}, {2, 1, 1}, {5, 5, 2}, {16, 3, 1}} {
			s, err := New(c.K, c.B, 1e-3, 1e-3, 1e-3)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(uint64(c.K), 7))
			var ey, el, eg float64
			for it := 0; it < 200; it++ {
				b := randomBlock(r, s, c.sd)
				b.run(s)
				y, l, g := compare(t, s, b, 2e-6, 5e-5, 5e-5)
				ey, el, eg = math.Max(ey, y), math.Max(el, l), math.Max(eg, g)
			}
			t.Logf("asm %v K %d B %g sd %g: largest errors y %.2g, log-derivative %.2g, gradient %.2g", asm, c.K, c.B, c.sd, ey, el, eg)
		}
	}
}

// TestAsmAgainstTwin compares the assembly with the twin on many random
// blocks: their states, then their outputs and gradients from the same
// state (the twin's), so that the knots' last bits, which a narrow bin
// with steep derivatives amplifies, do not mask the formulas. They differ
// only where the assembly fuses a multiply-add: by a few units in the
// last place in the state, outputs and log-derivatives (10⁻⁶ relative to
// their scale allowed), and in the gradients, where the log-derivative's
// partial derivatives cancel at the ends of a bin, by up to 10⁻⁶ of the
// block's largest one (10⁻⁵ allowed). A wrong term gives errors of order
// one.
func TestAsmAgainstTwin(t *testing.T) {
	if !useAsm {
		t.Skip("no AVX2 kernels on this machine")
	}
	s, err := New(10, 3, 1e-3, 1e-3, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, a, w []float32, scale float32, tol float64) {
		t.Helper()
		for i := range a {
			if d := math.Abs(float64(a[i] - w[i])); !(d <= tol*float64(scale)) {
				t.Fatalf("%s[%d]: assembly %v, twin %v", what, i, a[i], w[i])
			}
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 500; it++ {
		b := randomBlock(r, s, 2)
		c := *b
		c.st, c.graw = make([]float32, len(b.st)), make([]float32, len(b.graw))
		setAsm(t, true)
		s.Knots(b.st, b.raw)
		setAsm(t, false)
		s.Knots(c.st, c.raw)
		near("state", b.st, c.st, 3, 1e-6)
		copy(b.st, c.st)
		b.x[2] = b.st[(s.offX()+s.K/2)*Lanes+2] // exactly on a knot
		c.x = b.x
		for _, k := range []struct {
			asm bool
			b   *block
		}{{true, b}, {false, &c}} {
			setAsm(t, k.asm)
			s.Forward(k.b.st, &k.b.x, &k.b.y, &k.b.ld)
			s.Backward(k.b.st, &k.b.x, &k.b.gy, &k.b.gl, &k.b.gx, k.b.graw)
		}
		near("y", b.y[:], c.y[:], 3, 1e-6)
		near("log-derivative", b.ld[:], c.ld[:], 10, 1e-6)
		var gs float32 = 1
		for _, v := range append(c.graw, c.gx[:]...) {
			gs = max(gs, float32(math.Abs(float64(v))))
		}
		near("gx", b.gx[:], c.gx[:], gs, 1e-5)
		near("graw", b.graw, c.graw, gs, 1e-5)
	}
}

// TestExpLog checks the float32 exp and log against math's over their
// ranges: relative error at most 3·2⁻²⁴.
func TestExpLog(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		x := float32(174*r.Float64() - 87)
		got, want := float64(expf(x)), math.Exp(float64(x))
		if math.Abs(got-want) > 3*0x1p-24*want {
			t.Fatalf("expf(%v) = %v, want %v", x, got, want)
		}
		y := float32(math.Exp(80 * (2*r.Float64() - 1)))
		gl, wl := float64(logf(y)), math.Log(float64(y))
		if math.Abs(gl-wl) > 3*0x1p-24*math.Max(1, math.Abs(wl)) {
			t.Fatalf("logf(%v) = %v, want %v", y, gl, wl)
		}
	}
	if v := expf(float32(math.NaN())); v == v {
		t.Errorf("expf(NaN) = %v", v)
	}
}

// TestSoftplusSigmoid checks softplus and σ against float64 references,
// far into both tails, and that NaN stays NaN.
func TestSoftplusSigmoid(t *testing.T) {
	for _, x := range []float64{-200, -90, -30, -17, -5, -1e-3, -1e-9, 0, 1e-9, 1e-3, 0.5, 5, 17, 30, 90, 200} {
		sp, sg := softplusSigmoid(float32(x))
		wsp := math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x)))
		wsg := 1 / (1 + math.Exp(-x))
		// Below e^−87.3 the exponential is clamped, as in Cephes' expf:
		// absolute errors up to 2⁻¹²⁶ there.
		if e := math.Abs(float64(sp) - wsp); e > 4e-7*wsp && e > 0x1p-126 {
			t.Errorf("softplus at %v: %v, want %v", x, sp, wsp)
		}
		if e := math.Abs(float64(sg) - wsg); e > 4e-7*wsg && e > 0x1p-126 {
			t.Errorf("σ at %v: %v, want %v", x, sg, wsg)
		}
	}
	if sp, sg := softplusSigmoid(float32(math.NaN())); sp == sp || sg == sg {
		t.Errorf("softplus, σ at NaN: %v, %v", sp, sg)
	}
}

// TestNew rejects bad arguments by name.
func TestNew(t *testing.T) {
	for _, c := range []struct {
		bins          int
		b, mw, mh, md float64
	}{{1, 3, 1e-3, 1e-3, 1e-3}, {10, 0, 1e-3, 1e-3, 1e-3}, {10, math.NaN(), 1e-3, 1e-3, 1e-3},
		{10, 3, 0.1, 1e-3, 1e-3}, {10, 3, 1e-3, 0, 1e-3}, {10, 3, 1e-3, 1e-3, math.Inf(1)}} {
		if _, err := New(c.bins, c.b, c.mw, c.mh, c.md); err == nil {
			t.Errorf("New(%v) gave no error", c)
		}
	}
}

// BenchmarkBlock times a training step's work on one block of the
// paper's splines (10 bins): knots, forward map and gradients; ns/spline
// is per spline.
func BenchmarkBlock(b *testing.B) {
	for _, asm := range kernels() {
		name := "go"
		if asm {
			name = "avx2"
		}
		b.Run(name, func(b *testing.B) {
			old := useAsm
			useAsm = asm
			defer func() { useAsm = old }()
			s, err := New(10, 3, 1e-3, 1e-3, 1e-3)
			if err != nil {
				b.Fatal(err)
			}
			blk := randomBlock(rand.New(rand.NewPCG(1, 2)), s, 1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.Knots(blk.st, blk.raw)
				s.Forward(blk.st, &blk.x, &blk.y, &blk.ld)
				s.Backward(blk.st, &blk.x, &blk.gy, &blk.gl, &blk.gx, blk.graw)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*Lanes), "ns/spline")
		})
	}
}

// TestLoadStore compares Load and Store on every path with their
// definitions, bit for bit, for value counts around multiples of 4 and
// the paper's 29, and checks that they write nothing past the block.
func TestLoadStore(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, asm := range kernels() {
		setAsm(t, asm)
		for _, n := range []int{1, 3, 4, 5, 8, 11, 29} {
			src := make([]float64, Lanes*n)
			scale := make([]float64, n)
			for i := range src {
				src[i] = r.NormFloat64() * 3
			}
			for j := range scale {
				scale[j] = 1
				if j%3 == 0 {
					scale[j] = 0.1414
				}
			}
			dst := make([]float32, Lanes*n+1)
			Load(dst, src, scale)
			back := make([]float64, Lanes*n+1)
			Store(back, dst, scale)
			for l := 0; l < Lanes; l++ {
				for j := 0; j < n; j++ {
					if got, want := dst[Lanes*j+l], float32(src[l*n+j]*scale[j]); got != want {
						t.Fatalf("asm %v, n %d: Load lane %d value %d = %v, want %v", asm, n, l, j, got, want)
					}
					if got, want := back[l*n+j], float64(dst[Lanes*j+l])*scale[j]; got != want {
						t.Fatalf("asm %v, n %d: Store lane %d value %d = %v, want %v", asm, n, l, j, got, want)
					}
				}
			}
			if dst[Lanes*n] != 0 || back[Lanes*n] != 0 {
				t.Fatalf("asm %v, n %d: wrote past the block", asm, n)
			}
		}
	}
}
