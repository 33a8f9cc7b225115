package vec

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func randVec(r *rand.Rand, n int, s float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = s * r.NormFloat64()
	}
	return v
}

// lengths covers empty, shorter than a vector, exact vectors and tails.
var lengths = []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 50, 200, 1603}

// TestExactOps checks ReLU, ReLUMask, AddPos and GateBackward against the
// Go twins bit for bit (no fused operations are involved), including
// zeros, signed zeros and NaN.
func TestExactOps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range lengths {
		x := randVec(r, n, 1)
		if n > 4 {
			x[0], x[1], x[2], x[3] = 0, math.Copysign(0, -1), math.NaN(), math.Inf(-1)
		}
		dy, src := randVec(r, n, 1), randVec(r, n, 1)
		a, b := make([]float64, n), make([]float64, n)
		ReLU(a, x)
		reluGo(b, x)
		same(t, "ReLU", n, a, b)
		ReLUMask(a, dy, x)
		reluMaskGo(b, dy, x)
		same(t, "ReLUMask", n, a, b)
		copy(a, src)
		copy(b, src)
		AddPos(a, dy, x)
		addPosGo(b, dy, x)
		same(t, "AddPos", n, a, b)
		g := make([]float64, n)
		for i := range g {
			g[i] = r.Float64()
		}
		a2, b2 := make([]float64, n), make([]float64, n)
		GateBackward(dy, g, src, a, a2)
		gateBwdGo(dy, g, src, b, b2)
		same(t, "GateBackward gt", n, a, b)
		same(t, "GateBackward ga", n, a2, b2)
	}
	// Aliasing: ReLU in place.
	x := randVec(r, 21, 1)
	y := append([]float64(nil), x...)
	ReLU(x, x)
	reluGo(y, y)
	same(t, "ReLU in place", 21, x, y)
}

func same(t *testing.T, name string, n int, a, b []float64) {
	t.Helper()
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(a[i] == 0 && b[i] == 0) {
			t.Fatalf("%s n=%d: [%d] = %v, Go twin %v", name, n, i, a[i], b[i])
		}
	}
}

// TestGateForward checks σ against the Go twin to 4 ulp relative (the
// assembly exp differs by rounding), on arguments from −800 to 800
// including the saturated ranges, and the gated sum to 4 ulp of its terms.
func TestGateForward(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const tol = 4 * 0x1p-52
	for _, n := range lengths {
		s := randVec(r, n, 8)
		for i := 0; i < n && i < 12; i++ {
			s[i] = []float64{0, 1e-300, -1e-300, 36, -36, 40, -40, 700, -700, 745, -745, 800}[i]
		}
		h, tt := randVec(r, n, 1), randVec(r, n, 1)
		sa, sb := append([]float64(nil), s...), append([]float64(nil), s...)
		na, nb := make([]float64, n), make([]float64, n)
		GateForward(sa, h, tt, na)
		gateFwdGo(sb, h, tt, nb)
		for i := range sa {
			if d := math.Abs(sa[i] - sb[i]); d > tol*math.Abs(sb[i]) {
				t.Fatalf("n=%d: σ(%v) = %v, Go twin %v (rel %.3g)", n, s[i], sa[i], sb[i], d/math.Abs(sb[i]))
			}
			scale := math.Abs(h[i]) + math.Abs(tt[i]*sb[i])
			if d := math.Abs(na[i] - nb[i]); d > tol*scale {
				t.Fatalf("n=%d: gated sum %v, Go twin %v", n, na[i], nb[i])
			}
		}
	}
	s := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	GateForward(s, make([]float64, 3), make([]float64, 3), make([]float64, 3))
	if !math.IsNaN(s[0]) || s[1] != 1 || s[2] != 0 {
		t.Fatalf("σ(NaN, +Inf, −Inf) = %v, want NaN, 1, 0", s)
	}
}

func BenchmarkGateForward(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	n := 10000
	s0, h, tt, next := randVec(r, n, 3), randVec(r, n, 1), randVec(r, n, 1), make([]float64, n)
	s := make([]float64, n)
	for _, name := range []string{"asm", "go"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				copy(s, s0)
				if name == "go" {
					gateFwdGo(s, h, tt, next)
				} else {
					GateForward(s, h, tt, next)
				}
			}
		})
	}
}

// TestSigmoids checks the batch sigmoid against GateForward's gates
// (the same exp) bit for bit and against the scalar Sigmoid to 4 ulp.
func TestSigmoids(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range lengths {
		s := randVec(r, n, 10)
		a := append([]float64(nil), s...)
		Sigmoids(a)
		b := append([]float64(nil), s...)
		GateForward(b, make([]float64, n), make([]float64, n), make([]float64, n))
		same(t, "Sigmoids", n, a, b)
		for i, v := range s {
			if d := math.Abs(a[i] - Sigmoid(v)); d > 4*0x1p-52*Sigmoid(v) {
				t.Fatalf("σ(%v) = %v, want %v", v, a[i], Sigmoid(v))
			}
		}
	}
}

// TestExpShift checks e^(x−m) against math.Exp to 2 ulp over the whole
// range, including underflow to subnormals and zero, overflow to +Inf,
// and NaN.
func TestExpShift(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range lengths {
		x := randVec(r, n, 200)
		for i := 0; i < n && i < 8; i++ {
			x[i] = []float64{0, -700, -740, -800, 700, 720, 1e-300, -1e-17}[i]
		}
		shift := r.NormFloat64()
		d := make([]float64, n)
		ExpShift(d, x, shift)
		for i, v := range x {
			want := math.Exp(v - shift)
			if math.IsInf(want, 1) && math.IsInf(d[i], 1) {
				continue
			}
			tol := 2*0x1p-52*want + 0x1p-1074*2
			if math.Abs(d[i]-want) > tol {
				t.Fatalf("e^(%v−%v) = %v, want %v", v, shift, d[i], want)
			}
		}
	}
	d := []float64{math.NaN(), math.Inf(-1), math.Inf(1)}
	ExpShift(d, d, 0)
	if !math.IsNaN(d[0]) || d[1] != 0 || !math.IsInf(d[2], 1) {
		t.Fatalf("e^(NaN, −Inf, +Inf) = %v", d)
	}
}

// TestRowOps checks MulAddRows and GateAccumulateRows on one row, and
// Add, against their definitions to one rounding of a fused multiply-add.
func TestRowOps(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const tol = 2 * 0x1p-52
	for _, n := range lengths {
		h, tt, g, gn := randVec(r, n, 1), randVec(r, n, 1), randVec(r, n, 1), randVec(r, n, 1)
		next := make([]float64, n)
		MulAddRows(next, h, tt, g, 1)
		gt := make([]float64, n)
		acc := randVec(r, n, 1)
		acc0 := append([]float64(nil), acc...)
		GateAccumulateRows(gt, acc, gn, g, tt, 1)
		sum := append([]float64(nil), h...)
		Add(sum, g)
		for i := 0; i < n; i++ {
			if d := math.Abs(next[i] - (h[i] + tt[i]*g[i])); d > tol*(math.Abs(h[i])+math.Abs(tt[i]*g[i])) {
				t.Fatalf("MulAdd[%d] = %v", i, next[i])
			}
			if gt[i] != gn[i]*g[i] {
				t.Fatalf("GateAccumulate gt[%d] = %v, want %v", i, gt[i], gn[i]*g[i])
			}
			if d := math.Abs(acc[i] - (acc0[i] + gn[i]*tt[i])); d > tol*(math.Abs(acc0[i])+math.Abs(gn[i]*tt[i])) {
				t.Fatalf("GateAccumulate acc[%d] = %v", i, acc[i])
			}
			if sum[i] != h[i]+g[i] {
				t.Fatalf("Add[%d] = %v", i, sum[i])
			}
		}
	}
}

// TestSoftplusSigmoid checks the batch softplus and sigmoid against the Go
// twin: bit for bit wherever the two exponentials agree (the logarithm
// follows math.Log's steps exactly), and to 4 ulp (plus 2⁻⁵² absolute for
// softplus, whose log(1+eˣ) carries an absolute error) everywhere, on all
// three branches, their boundaries ±30, zeros, ±Inf and NaN.
func TestSoftplusSigmoid(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	special := []float64{0, math.Copysign(0, -1), 30, math.Nextafter(30, 31), -30, math.Nextafter(-30, -31),
		math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e300, -745, 745, 0.34657359027997264, 1e-300}
	for _, n := range lengths {
		for _, scale := range []float64{3, 40} {
			x := randVec(r, n, scale)
			if n >= len(special) && scale == 3 {
				copy(x, special)
			}
			const add = 1e-3
			sp, sg := make([]float64, n), make([]float64, n)
			wsp, wsg := make([]float64, n), make([]float64, n)
			SoftplusSigmoid(sp, sg, x, add)
			softplusSigGo(wsp, wsg, x, add)
			ea, arg := make([]float64, 1), make([]float64, 1)
			for i, v := range x {
				if math.IsNaN(v) {
					if !math.IsNaN(sp[i]) || !math.IsNaN(sg[i]) {
						t.Fatalf("softplus, σ(NaN) = %v, %v", sp[i], sg[i])
					}
					continue
				}
				arg[0] = v
				if v > 30 {
					arg[0] = -v
				}
				ExpShift(ea, arg, 0)
				if ea[0] == math.Exp(arg[0]) && (sp[i] != wsp[i] || sg[i] != wsg[i]) {
					t.Fatalf("x = %v: softplus, σ = %v, %v, want %v, %v bit for bit (same exponential)", v, sp[i], sg[i], wsp[i], wsg[i])
				}
				if d := math.Abs(sp[i] - wsp[i]); !(d <= 4*0x1p-52*math.Abs(wsp[i])+0x1p-52) && sp[i] != wsp[i] {
					t.Fatalf("softplus(%v) + %v = %v, want %v", v, add, sp[i], wsp[i])
				}
				if d := math.Abs(sg[i] - wsg[i]); !(d <= 4*0x1p-52*wsg[i]+0x1p-1074) {
					t.Fatalf("σ(%v) = %v, want %v", v, sg[i], wsg[i])
				}
			}
		}
	}
	// The twin itself: softplus against log1p(eˣ) (x ≤ 0) and x + log1p(e⁻ˣ).
	for _, v := range []float64{-40, -29.5, -3, -0.25, 0, 0.25, 3, 29.5, 31, 50} {
		sp, sg := make([]float64, 1), make([]float64, 1)
		softplusSigGo(sp, sg, []float64{v}, 0)
		want := math.Log1p(math.Exp(-math.Abs(v))) + max(v, 0)
		if math.Abs(sp[0]-want) > 2e-16*max(1, want) {
			t.Fatalf("twin softplus(%v) = %v, want %v", v, sp[0], want)
		}
		if ws := 1 / (1 + math.Exp(-v)); math.Abs(sg[0]-ws) > 4*0x1p-52*ws {
			t.Fatalf("twin σ(%v) = %v, want %v", v, sg[0], ws)
		}
	}
}

func BenchmarkSoftplusSigmoid(b *testing.B) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{9, 1000} {
		x := randVec(r, n, 3)
		sp, sg := make([]float64, n), make([]float64, n)
		for _, kern := range []string{"vec", "go"} {
			b.Run(kern+"/n="+strconv.Itoa(n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if kern == "go" {
						softplusSigGo(sp, sg, x, 1e-3)
					} else {
						SoftplusSigmoid(sp, sg, x, 1e-3)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/value")
			})
		}
	}
}

// TestRowsOps checks MulAddRows and GateAccumulateRows on many rows
// against the same functions called row by row, bit for bit, for row
// lengths with and without a tail and 1 to 11 rows.
func TestRowsOps(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, h := range []int{1, 7, 8, 9, 16, 50} {
		for _, rows := range []int{1, 2, 3, 10, 11} {
			n := h * rows
			hh, tt, gn := randVec(r, n, 1), randVec(r, n, 1), randVec(r, n, 1)
			g, acc0 := randVec(r, h, 1), randVec(r, h, 1)
			a, b := make([]float64, n), make([]float64, n)
			MulAddRows(a, hh, tt, g, rows)
			for k := 0; k < rows; k++ {
				MulAddRows(b[k*h:(k+1)*h], hh[k*h:(k+1)*h], tt[k*h:(k+1)*h], g, 1)
			}
			same(t, "MulAddRows", n, a, b)
			accA, accB := append([]float64(nil), acc0...), append([]float64(nil), acc0...)
			GateAccumulateRows(a, accA, gn, g, tt, rows)
			for k := 0; k < rows; k++ {
				GateAccumulateRows(b[k*h:(k+1)*h], accB, gn[k*h:(k+1)*h], g, tt[k*h:(k+1)*h], 1)
			}
			same(t, "GateAccumulateRows gt", n, a, b)
			same(t, "GateAccumulateRows acc", h, accA, accB)
		}
	}
}
