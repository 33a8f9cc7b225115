package spline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// relErr is |a−b| / max(|a|, |b|, 1e-4): the relative error, and for
// gradients below 1e-4 (including exact zeros, where the finite difference
// returns rounding noise of order 1e-12) the absolute error times 1e4.
func relErr(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-4)
}

func mustNew(t testing.TB, bins int, B float64) *Spline {
	s, err := New(Config{Bins: bins, TailBound: B, MinWidth: DefaultMinWidth, MinHeight: DefaultMinHeight, MinDerivative: DefaultMinDerivative})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func randRaw(r *rand.Rand, s *Spline, scale float64) []float64 {
	raw := make([]float64, s.NumParams())
	for i := range raw {
		raw[i] = scale * r.NormFloat64()
	}
	return raw
}

func TestNewErrors(t *testing.T) {
	bad := []struct {
		k          int
		b, w, h, d float64
	}{
		{1, 3, 1e-3, 1e-3, 1e-3},
		{0, 3, 1e-3, 1e-3, 1e-3},
		{10, 0, 1e-3, 1e-3, 1e-3},
		{10, -1, 1e-3, 1e-3, 1e-3},
		{10, math.NaN(), 1e-3, 1e-3, 1e-3},
		{10, math.Inf(1), 1e-3, 1e-3, 1e-3},
		{10, 3, 0, 1e-3, 1e-3},
		{10, 3, 0.1, 1e-3, 1e-3},
		{10, 3, 1e-3, -1, 1e-3},
		{10, 3, 1e-3, 1e-3, 0},
		{10, 3, 1e-3, 1e-3, math.NaN()},
	}
	for _, c := range bad {
		if _, err := New(Config{Bins: c.k, TailBound: c.b, MinWidth: c.w, MinHeight: c.h, MinDerivative: c.d}); err == nil {
			t.Errorf("New(%v): expected an error", c)
		}
	}
}

// TestKnotsGradient checks KnotsBackward (softmax, minimum widths,
// cumulative sums, softplus derivatives) against finite differences.
func TestKnotsGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, K := range []int{2, 3, 10} {
		s := mustNew(t, K, 2.5)
		raw := randRaw(r, s, 1.5)
		k := s.NewKnots()
		RX, RY, RD := randRaw(r, s, 1)[:K+1], randRaw(r, s, 1)[:K+1], randRaw(r, s, 1)[:K+1]
		if len(RX) < K+1 {
			RX = append(RX, r.NormFloat64())
		}
		loss := func() float64 {
			s.SetKnots(k, raw)
			v := 0.0
			for j := 0; j <= K; j++ {
				v += RX[j]*k.X[j] + RY[j]*k.Y[j] + RD[j]*k.D[j]
			}
			return v
		}
		loss()
		g := make([]float64, s.NumParams())
		s.KnotsBackward(k, RX, RY, RD, g)
		worst := 0.0
		for i := range raw {
			worst = math.Max(worst, relErr(g[i], testutil.FD5(loss, raw, i, 1e-3)))
		}
		t.Logf("K=%d: knots worst rel. error %.2g", K, worst)
		if worst > 1e-6 {
			t.Errorf("K=%d: knots gradient worst relative error %.3g", K, worst)
		}
	}
}

// TestForwardGradient checks ForwardBackward with respect to x, to the
// knots directly, and composed with KnotsBackward with respect to the
// unconstrained parameters, for both outputs y and log|f′|.
func TestForwardGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	worstX, worstK, worstRaw := 0.0, 0.0, 0.0
	for trial := 0; trial < 200; trial++ {
		K := 2 + trial%9
		s := mustNew(t, K, 3)
		raw := randRaw(r, s, 1.2)
		k := s.NewKnots()
		s.SetKnots(k, raw)
		x := 3.6 * (2*r.Float64() - 1) // ~1/6 of the points in the tails
		a, b := r.NormFloat64(), r.NormFloat64()
		// Skip points within the stencil of a knot: f is only C¹ there.
		near := false
		for _, xk := range k.X {
			near = near || math.Abs(x-xk) < 3e-3
		}
		if near {
			continue
		}
		gX, gY, gD := make([]float64, K+1), make([]float64, K+1), make([]float64, K+1)
		_, _, gx := s.ForwardBackward(k, x, a, b, gX, gY, gD)
		lossRaw := func() float64 {
			s.SetKnots(k, raw)
			y, l := s.Forward(k, x)
			return a*y + b*l
		}
		xs := []float64{x}
		lossX := func() float64 { y, l := s.Forward(k, xs[0]); return a*y + b*l }
		s.SetKnots(k, raw)
		worstX = math.Max(worstX, relErr(gx, testutil.FD5(lossX, xs, 0, 1e-4)))
		// Knots directly (interior entries, small steps keep x in its bin).
		for _, v := range []struct {
			knots, g []float64
		}{{k.X, gX}, {k.Y, gY}, {k.D, gD}} {
			for j := 1; j < K; j++ {
				num := testutil.FD5(func() float64 { y, l := s.Forward(k, x); return a*y + b*l }, v.knots, j, 1e-5)
				worstK = math.Max(worstK, math.Abs(num-v.g[j])/math.Max(math.Max(math.Abs(num), math.Abs(v.g[j])), 1e-3))
			}
		}
		graw := make([]float64, s.NumParams())
		s.KnotsBackward(k, gX, gY, gD, graw)
		for i := range raw {
			num := testutil.FD5(lossRaw, raw, i, 1e-4)
			worstRaw = math.Max(worstRaw, relErr(graw[i], num))
		}
		s.SetKnots(k, raw)
	}
	t.Logf("worst rel. errors: wrt x %.2g, wrt knots %.2g, wrt raw params %.2g", worstX, worstK, worstRaw)
	if worstX > 1e-6 || worstK > 1e-6 || worstRaw > 1e-6 {
		t.Errorf("gradient errors too large: x %.3g knots %.3g raw %.3g", worstX, worstK, worstRaw)
	}
}

// TestInvertibility checks inverse(forward(x)) = x on a grid inside and
// outside the tail bound that includes the bounds and every knot exactly.
// For moderate parameters (raw scale ≤ 2) the error must be ≤ 1e-10. For
// extreme parameters the inverse is ill-conditioned (f′ down to e⁻¹²) and
// the bound is the conditioning limit 1e-10 + 64·ε·max(1,|y|)/f′(x).
func TestInvertibility(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	worst, worstL, worstExtreme := 0.0, 0.0, 0.0
	for trial := 0; trial < 150; trial++ {
		K := 2 + trial%12
		B := []float64{1, 3, 5}[trial%3]
		s := mustNew(t, K, B)
		scale := []float64{0.5, 1, 2, 6}[trial%4]
		raw := randRaw(r, s, scale)
		k := s.NewKnots()
		s.SetKnots(k, raw)
		xs := append([]float64{}, k.X...)
		xs = append(xs, -B, B, -B-1e-12, B+1e-12, math.Nextafter(B, 0), math.Nextafter(-B, 0), -7*B, 7*B, 1e300, -1e300)
		for i := 0; i < 400; i++ {
			xs = append(xs, (2*r.Float64()-1)*1.5*B)
		}
		for _, x := range xs {
			y, l := s.Forward(k, x)
			x2, l2 := s.Inverse(k, y)
			if math.IsNaN(y) || math.IsNaN(l) || math.IsNaN(x2) || math.IsNaN(l2) {
				t.Fatalf("NaN at x=%v: y=%v l=%v x2=%v l2=%v", x, y, l, x2, l2)
			}
			e := math.Abs(x2-x) / math.Max(1, math.Abs(x))
			if scale <= 2 {
				worstL = math.Max(worstL, math.Abs(l+l2))
				worst = math.Max(worst, e)
				continue
			}
			bound := 1e-10 + 64*0x1p-52*math.Max(1, math.Abs(y))*math.Exp(-l)
			worstExtreme = math.Max(worstExtreme, e/bound)
		}
	}
	t.Logf("moderate parameters: worst |x − f⁻¹(f(x))|/max(1,|x|) = %.2g; extreme parameters: worst error/conditioning bound = %.2g; moderate: worst |log f′ + log f⁻¹′| = %.2g", worst, worstExtreme, worstL)
	if worst > 1e-10 || worstExtreme > 1 || worstL > 1e-10 {
		t.Errorf("invertibility error %.3g, extreme %.3g, log-det mismatch %.3g", worst, worstExtreme, worstL)
	}
}

// TestLogDetNumerical compares log|f′| with a numerical derivative of f,
// and log|(f⁻¹)′| with a numerical derivative of f⁻¹.
func TestLogDetNumerical(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	s := mustNew(t, 10, 3)
	k := s.NewKnots()
	worst := 0.0
	for trial := 0; trial < 50; trial++ {
		s.SetKnots(k, randRaw(r, s, 1.5))
		for i := 0; i < 20; i++ {
			x := (2*r.Float64() - 1) * 4
			near := false
			for j := range k.X {
				near = near || math.Abs(x-k.X[j]) < 1e-3 || math.Abs(x-k.Y[j]) < 1e-3
			}
			if near {
				continue
			}
			// The finite difference has absolute error ~ε·|f|/h ≈ 1e-10,
			// so compare derivatives with that allowance.
			_, l := s.Forward(k, x)
			xs := []float64{x}
			d := testutil.FD5(func() float64 { y, _ := s.Forward(k, xs[0]); return y }, xs, 0, 1e-5)
			worst = math.Max(worst, math.Abs(math.Exp(l)-d)/(math.Exp(l)+1e-2))
			_, li := s.Inverse(k, x)
			di := testutil.FD5(func() float64 { v, _ := s.Inverse(k, xs[0]); return v }, xs, 0, 1e-5)
			worst = math.Max(worst, math.Abs(math.Exp(li)-di)/(math.Exp(li)+1e-2))
		}
	}
	t.Logf("worst |exp(log-det) − numerical derivative|/(exp(log-det)+0.01) = %.2g", worst)
	if worst > 1e-8 {
		t.Errorf("log-det differs from numerical derivative by %.3g", worst)
	}
}

// TestNoNaNExtremes feeds extreme parameters and inputs at the bounds and
// at every knot to both directions.
func TestNoNaNExtremes(t *testing.T) {
	s := mustNew(t, 10, 3)
	k := s.NewKnots()
	r := rand.New(rand.NewPCG(5, 5))
	for trial := 0; trial < 200; trial++ {
		raw := randRaw(r, s, []float64{1e-8, 30, 500, 1e6}[trial%4])
		s.SetKnots(k, raw)
		pts := append(append([]float64{}, k.X...), k.Y...)
		for _, v := range k.Y {
			pts = append(pts, math.Nextafter(v, -10), math.Nextafter(v, 10))
		}
		pts = append(pts, -3, 3, 0, math.Inf(1), math.Inf(-1), 1e-300)
		for _, v := range pts {
			y, l := s.Forward(k, v)
			x, li := s.Inverse(k, v)
			if math.IsNaN(y) || math.IsNaN(l) || math.IsNaN(x) || math.IsNaN(li) || math.IsInf(l, 0) || math.IsInf(li, 0) {
				t.Fatalf("trial %d v=%v: forward (%v, %v) inverse (%v, %v)", trial, v, y, l, x, li)
			}
			if x < math.Min(v, -3) || x > math.Max(v, 3) {
				t.Fatalf("inverse out of range: %v -> %v", v, x)
			}
		}
	}
}

// TestShape checks the spline's endpoints, monotonicity and continuity of
// the derivative at the bounds (the linear tails have derivative 1).
func TestShape(t *testing.T) {
	s := mustNew(t, 8, 2)
	k := s.NewKnots()
	r := rand.New(rand.NewPCG(6, 6))
	s.SetKnots(k, randRaw(r, s, 2))
	if y, _ := s.Forward(k, -2); math.Abs(y+2) > 1e-14 {
		t.Errorf("f(−B) = %v", y)
	}
	if y, l := s.Forward(k, 2); math.Abs(y-2) > 1e-14 || math.Abs(l) > 1e-12 {
		t.Errorf("f(B) = %v, log f′(B) = %v (want B, 0)", y, l)
	}
	if _, l := s.Forward(k, -2); math.Abs(l) > 1e-12 {
		t.Errorf("log f′(−B) = %v, want 0", l)
	}
	prev := math.Inf(-1)
	for x := -2.5; x <= 2.5; x += 1e-3 {
		y, _ := s.Forward(k, x)
		if !(y > prev) {
			t.Fatalf("not increasing at %v", x)
		}
		prev = y
	}
}

func FuzzInverse(f *testing.F) {
	f.Add(uint64(1), 0.0, 1.0)
	f.Add(uint64(2), 3.0, 100.0)
	f.Add(uint64(3), -2.999999, 1e-9)
	f.Fuzz(func(t *testing.T, seed uint64, y, scale float64) {
		if math.IsNaN(y) || math.IsNaN(scale) || math.IsInf(scale, 0) || math.Abs(scale) > 1e6 {
			return
		}
		s := mustNew(t, 10, 3)
		k := s.NewKnots()
		s.SetKnots(k, randRaw(rand.New(rand.NewPCG(seed, 0)), s, scale))
		x, l := s.Inverse(k, y)
		if math.IsNaN(x) || math.IsNaN(l) {
			t.Fatalf("NaN inverse of %v", y)
		}
		y2, _ := s.Forward(k, x)
		if math.Abs(y2-y) > 1e-9*math.Max(1, math.Abs(y)) {
			t.Fatalf("f(f⁻¹(%v)) = %v", y, y2)
		}
	})
}

func BenchmarkForward(b *testing.B) {
	s := mustNew(b, 10, 3)
	k := s.NewKnots()
	raw := randRaw(rand.New(rand.NewPCG(1, 1)), s, 1)
	b.ReportAllocs()
	x := 0.0
	for b.Loop() {
		s.SetKnots(k, raw)
		y, _ := s.Forward(k, x)
		x = 0.5 * y
	}
}

func BenchmarkInverse(b *testing.B) {
	s := mustNew(b, 10, 3)
	k := s.NewKnots()
	raw := randRaw(rand.New(rand.NewPCG(1, 1)), s, 1)
	b.ReportAllocs()
	x := 0.0
	for b.Loop() {
		s.SetKnots(k, raw)
		y, _ := s.Inverse(k, x)
		x = 0.5 * y
	}
}

func ExampleSpline() {
	s, err := New(Config{Bins: 4, TailBound: 3, MinWidth: DefaultMinWidth, MinHeight: DefaultMinHeight, MinDerivative: DefaultMinDerivative})
	if err != nil {
		panic(err)
	}
	k := s.NewKnots()
	// Equal bins and unit interior derivatives (softplus(u) + min = 1):
	// the identity map.
	u := math.Log(math.Expm1(1 - DefaultMinDerivative))
	s.SetKnots(k, []float64{0, 0, 0, 0, 0, 0, 0, 0, u, u, u})
	y, ld := s.Forward(k, 1.2)
	x, _ := s.Inverse(k, y)
	fmt.Printf("f(1.2) = %.4f, |log f'| < 1e-12: %v, f⁻¹(f(1.2)) = %.4f\n", y, math.Abs(ld) < 1e-12, x)
	y, ld = s.Forward(k, 7) // linear tail
	fmt.Printf("f(7) = %.1f, log f' = %.1f\n", y, ld)
	// Output:
	// f(1.2) = 1.2000, |log f'| < 1e-12: true, f⁻¹(f(1.2)) = 1.2000
	// f(7) = 7.0, log f' = 0.0
}

// TestBackwardMatchesForwardBackward checks that Backward returns the
// gradient with respect to x and accumulates the knot gradients of
// ForwardBackward bit for bit (and ForwardBackward the y and
// log-derivative of Forward), inside the bound, at the knots and bounds,
// and in the tails.
func TestBackwardMatchesForwardBackward(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 300; trial++ {
		K := 2 + trial%9
		s := mustNew(t, K, 3)
		k := s.NewKnots()
		s.SetKnots(k, randRaw(r, s, 0.5+3*r.Float64()))
		x := 3.6 * (2*r.Float64() - 1)
		switch trial % 5 {
		case 1:
			x = k.X[r.IntN(K+1)]
		case 2:
			x = math.Nextafter(k.X[r.IntN(K+1)], math.Inf(1))
		}
		gy, gl := r.NormFloat64(), r.NormFloat64()
		a := [3][]float64{randRaw(r, s, 1)[:K+1], randRaw(r, s, 1)[:K+1], randRaw(r, s, 1)[:K+1]}
		var b [3][]float64
		for i := range b {
			b[i] = append([]float64(nil), a[i]...)
		}
		y, l, gx := s.ForwardBackward(k, x, gy, gl, a[0], a[1], a[2])
		gx2 := s.Backward(k, x, gy, gl, b[0], b[1], b[2])
		yf, lf := s.Forward(k, x)
		same := func(u, v float64) bool { return math.Float64bits(u) == math.Float64bits(v) }
		if !same(gx, gx2) || !same(y, yf) || !same(l, lf) {
			t.Fatalf("K=%d x=%v: Backward gx %v, ForwardBackward (%v, %v, %v), Forward (%v, %v)", K, x, gx2, y, l, gx, yf, lf)
		}
		for i := range a {
			for j := range a[i] {
				if !same(a[i][j], b[i][j]) {
					t.Fatalf("K=%d x=%v: knot gradient %d[%d] = %v, ForwardBackward %v", K, x, i, j, b[i][j], a[i][j])
				}
			}
		}
	}
}

// TestSetKnotsRows checks that SetKnotsRows gives, spline by spline, the
// bits of SetKnots (one spline, unscaled) on the scaled parameters (for several batch sizes, so
// that splines fall in every lane and in the vector kernels' masked
// tails, and for parameters from tiny to overflowing, ±Inf and NaN
// included), and that a Knots pointed at a state by Use evaluates as one
// that loaded it.
func TestSetKnotsRows(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, K := range []int{2, 3, 5, 10} {
		s, err := New(Config{Bins: K, TailBound: 3, MinWidth: DefaultMinWidth, MinHeight: DefaultMinHeight, MinDerivative: DefaultMinDerivative})
		if err != nil {
			t.Fatal(err)
		}
		P, kl := s.NumParams(), s.KnotsLen()
		for _, n := range []int{1, 2, 3, 7, 33} {
			stride := P + n%3
			raw := make([]float64, n*stride)
			for i := range raw {
				raw[i] = math.Exp(6*r.Float64()-3) * r.NormFloat64()
				switch r.IntN(60) {
				case 0:
					raw[i] = math.Inf(1)
				case 1:
					raw[i] = math.Inf(-1)
				case 2:
					raw[i] = math.NaN()
				case 3:
					raw[i] = 800 * r.NormFloat64()
				case 4:
					raw[i] = math.Copysign(0, -1)
				}
			}
			scale := 1 / math.Sqrt(float64(3+n))
			dst := make([]float64, n*kl)
			s.SetKnotsRows(dst, raw, n, stride, scale, make([]float64, s.RowsScratch(n)))
			want, view := s.NewKnots(), s.NewKnots()
			kr := make([]float64, P)
			for i := 0; i < n; i++ {
				copy(kr, raw[i*stride:i*stride+P])
				for j := 0; j < 2*K; j++ {
					kr[j] *= scale
				}
				s.SetKnots(want, kr)
				wantState := make([]float64, kl)
				want.Save(wantState)
				for j, v := range dst[i*kl : (i+1)*kl] {
					if math.Float64bits(v) != math.Float64bits(wantState[j]) && !(math.IsNaN(v) && math.IsNaN(wantState[j])) {
						t.Fatalf("K=%d n=%d spline %d: state[%d] = %v, SetKnots gives %v", K, n, i, j, v, wantState[j])
					}
				}
				view.Use(dst[i*kl : (i+1)*kl])
				for _, x := range []float64{-2.5, -0.3, 0, 1.1, 2.9} {
					y1, l1 := s.Forward(want, x)
					y2, l2 := s.Forward(view, x)
					if !sameBits(y1, y2) || !sameBits(l1, l2) {
						t.Fatalf("K=%d spline %d: Forward(%v) through Use = (%v, %v), want (%v, %v)", K, i, x, y2, l2, y1, l1)
					}
				}
			}
		}
	}
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}
