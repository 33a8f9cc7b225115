package vec

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/privinfer/privinfer/internal/cpu"
)

// eachLevel runs f as a subtest at every kernel level this machine
// supports (the Go twins included; AVX-512 implies AVX2+FMA), with level
// set to it, and restores level afterwards.
func eachLevel(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	defer func(l cpu.Level) { level = l }(level)
	for l := cpu.Go; l <= cpu.Best(); l++ {
		level = l
		t.Run(l.String(), f)
	}
}

func randVec(r *rand.Rand, n int, s float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = s * r.NormFloat64()
	}
	return v
}

// lengths covers empty, every tail of both vector widths (1 to 13 and
// around 16 and 32), exact vectors and long runs.
var lengths = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 31, 32, 33, 50, 200, 1603}

// specials are the values sprinkle puts into test vectors: zeros of both
// signs, infinities, a quiet NaN and the smallest normal and subnormal.
var specials = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
	0x1p-1022, -0x1p-1022, 0x1p-1074, -0x1p-1074}

// sprinkle replaces about a third of v, at random places, by specials.
func sprinkle(r *rand.Rand, v []float64) {
	for i := range v {
		if r.IntN(3) == 0 {
			v[i] = specials[r.IntN(len(specials))]
		}
	}
}

// TestExactOps checks ReLU, ReLUMask, AddPos, GateBackward and Add against
// the Go twins bit for bit (no fused operations are involved), including
// zeros, signed zeros, infinities and NaN in every argument, each NaN
// meeting only non-NaN operands.
func TestExactOps(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, n := range lengths {
			x := randVec(r, n, 1)
			sprinkle(r, x)
			dy, src := randVec(r, n, 1), randVec(r, n, 1)
			sprinkle(r, dy)
			a, b := make([]float64, n), make([]float64, n)
			ReLU(a, x)
			reluGo(b, x)
			same(t, "ReLU", n, a, b)
			ReLUMask(a, dy, x)
			reluMaskGo(b, dy, x)
			same(t, "ReLUMask", n, a, b)
			// dst specials where dy is not NaN, so that no sum has two NaNs.
			for i := range src {
				if !math.IsNaN(dy[i]) && r.IntN(3) == 0 {
					src[i] = specials[r.IntN(len(specials))]
				}
			}
			copy(a, src)
			copy(b, src)
			AddPos(a, dy, x)
			addPosGo(b, dy, x)
			same(t, "AddPos", n, a, b)
			copy(a, src)
			copy(b, src)
			Add(a, dy)
			for i, v := range dy {
				b[i] += v
			}
			same(t, "Add", n, a, b)
			g := make([]float64, n)
			for i := range g {
				g[i] = r.Float64()
			}
			if n > 2 {
				g[0], g[1], g[2] = 0, 1, math.Copysign(0, -1)
			}
			gn := randVec(r, n, 1)
			for i := range gn {
				if math.IsNaN(src[i]) || math.IsNaN(g[i]) {
					continue
				}
				if k := r.IntN(4); k == 0 {
					gn[i] = specials[r.IntN(len(specials))]
				} else if k == 1 && !math.IsNaN(gn[i]) {
					src[i] = specials[r.IntN(len(specials))]
				}
			}
			a2, b2 := make([]float64, n), make([]float64, n)
			GateBackward(gn, g, src, a, a2)
			gateBwdGo(gn, g, src, b, b2)
			same(t, "GateBackward gt", n, a, b)
			same(t, "GateBackward ga", n, a2, b2)
		}
		// Aliasing: ReLU in place.
		x := randVec(r, 21, 1)
		y := append([]float64(nil), x...)
		ReLU(x, x)
		reluGo(y, y)
		same(t, "ReLU in place", 21, x, y)
	})
}

// same fails unless a and b hold the same bits. With AVX-512 +0 and −0
// count as equal: its AddPos adds +0 to dst where a ≤ 0, which turns a −0
// in dst into +0.
func same(t *testing.T, name string, n int, a, b []float64) {
	t.Helper()
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(level == cpu.AVX512 && a[i] == 0 && b[i] == 0) {
			t.Fatalf("%s n=%d: [%d] = %v (%#x), Go twin %v (%#x)", name, n, i, a[i], math.Float64bits(a[i]), b[i], math.Float64bits(b[i]))
		}
	}
}

// subnormalTol is the absolute tolerance added to the relative ones of
// exponentials that underflow: an ulp is then 2⁻¹⁰⁷⁴ whatever the value,
// and math.Exp, which scales a rounded e^r by Ldexp, rounds such results
// twice and can be one unit off (e^−710.9625 is 346038764688045.47 units,
// math.Exp gives …046), where the assembly rounds once.
const subnormalTol = 2 * 0x1p-1074

// TestGateForward checks σ against the Go twin to 4 ulp relative (the
// assembly exp differs by rounding; plus subnormalTol), on arguments from
// −800 to 800 including the saturated ranges and subnormal gates, and the
// gated sum to 4 ulp of its terms; in assembly the sum is the fused
// h + t·σ exactly.
func TestGateForward(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		const tol = 4 * 0x1p-52
		for _, n := range lengths {
			s := randVec(r, n, 8)
			for i := 0; i < n && i < 12; i++ {
				s[i] = []float64{0, 1e-300, -1e-300, 36, -36, 40, -40, 700, -700, 745, -745, 800}[i]
			}
			if n > 12 {
				// The tail, too: subnormal and zero gates.
				s[n-1], s[n-2], s[n-3] = -744.5, -720, -746
			}
			h, tt := randVec(r, n, 1), randVec(r, n, 1)
			sa, sb := append([]float64(nil), s...), append([]float64(nil), s...)
			na, nb := make([]float64, n), make([]float64, n)
			GateForward(sa, h, tt, na)
			gateFwdGo(sb, h, tt, nb)
			for i := range sa {
				if d := math.Abs(sa[i] - sb[i]); d > tol*math.Abs(sb[i])+subnormalTol {
					t.Fatalf("n=%d: σ(%v) = %v, Go twin %v (rel %.3g)", n, s[i], sa[i], sb[i], d/math.Abs(sb[i]))
				}
				scale := math.Abs(h[i]) + math.Abs(tt[i]*sb[i])
				if d := math.Abs(na[i] - nb[i]); d > tol*scale {
					t.Fatalf("n=%d: gated sum %v, Go twin %v", n, na[i], nb[i])
				}
				if level != cpu.Go && na[i] != math.FMA(tt[i], sa[i], h[i]) {
					t.Fatalf("n=%d: gated sum %v, want the fused %v", n, na[i], math.FMA(tt[i], sa[i], h[i]))
				}
			}
		}
		s := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
		GateForward(s, make([]float64, 3), make([]float64, 3), make([]float64, 3))
		if !math.IsNaN(s[0]) || s[1] != 1 || s[2] != 0 {
			t.Fatalf("σ(NaN, +Inf, −Inf) = %v, want NaN, 1, 0", s)
		}
	})
}

// TestSigmoids checks the batch sigmoid against GateForward's gates
// (the same exp) bit for bit and against the scalar Sigmoid to 4 ulp
// (plus subnormalTol), on random arguments and on a sweep of the range
// where σ underflows to subnormals and to zero.
func TestSigmoids(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		sweep := make([]float64, 4001)
		for i := range sweep {
			sweep[i] = -750 + 0.0125*float64(i) // −750 to −700
		}
		cases := [][]float64{sweep}
		for _, n := range lengths {
			cases = append(cases, randVec(r, n, 10))
		}
		for _, s := range cases {
			n := len(s)
			a := append([]float64(nil), s...)
			Sigmoids(a)
			b := append([]float64(nil), s...)
			GateForward(b, make([]float64, n), make([]float64, n), make([]float64, n))
			same(t, "Sigmoids", n, a, b)
			for i, v := range s {
				if d := math.Abs(a[i] - Sigmoid(v)); d > 4*0x1p-52*Sigmoid(v)+subnormalTol {
					t.Fatalf("σ(%v) = %v, want %v", v, a[i], Sigmoid(v))
				}
			}
		}
	})
}

// TestExpShift checks e^(x−m) against math.Exp to 2 ulp over the whole
// range, including underflow to subnormals and zero, overflow to +Inf,
// and NaN, on random arguments and on sweeps of both ends of the range.
func TestExpShift(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		check := func(x []float64, shift float64) {
			t.Helper()
			d := make([]float64, len(x))
			ExpShift(d, x, shift)
			for i, v := range x {
				want := math.Exp(v - shift)
				if math.IsInf(want, 1) && math.IsInf(d[i], 1) {
					continue
				}
				tol := 2*0x1p-52*want + subnormalTol
				if !(math.Abs(d[i]-want) <= tol) {
					t.Fatalf("e^(%v−%v) = %v, want %v", v, shift, d[i], want)
				}
			}
		}
		for _, n := range lengths {
			x := randVec(r, n, 200)
			for i := 0; i < n && i < 8; i++ {
				x[i] = []float64{0, -700, -740, -800, 700, 720, 1e-300, -1e-17}[i]
			}
			check(x, r.NormFloat64())
		}
		lo, hi := make([]float64, 8001), make([]float64, 2001)
		for i := range lo {
			lo[i] = -746 + 0.005*float64(i) // −746 to −706: subnormal to normal
		}
		for i := range hi {
			hi[i] = 708 + 0.001*float64(i) // 708 to 710: k = 1022 to 1024, overflow
		}
		check(lo, 0)
		check(hi, 0)
		check(lo, 0.3)
		d := []float64{math.NaN(), math.Inf(-1), math.Inf(1)}
		ExpShift(d, d, 0)
		if !math.IsNaN(d[0]) || d[1] != 0 || !math.IsInf(d[2], 1) {
			t.Fatalf("e^(NaN, −Inf, +Inf) = %v", d)
		}
	})
}

// TestRowOps checks MulAddRows and GateAccumulateRows on one row, and
// Add, against their definitions to one rounding of a fused multiply-add.
func TestRowOps(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
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
	})
}

// TestSoftplusSigmoid checks the batch softplus and sigmoid against the Go
// twin: bit for bit wherever the two exponentials agree (the logarithm
// follows math.Log's steps exactly), and to 4 ulp (plus 2⁻⁵² absolute for
// softplus, whose log(1+eˣ) carries an absolute error) everywhere, on all
// three branches, their boundaries ±30, zeros, ±Inf and NaN.
func TestSoftplusSigmoid(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		special := []float64{0, math.Copysign(0, -1), 30, math.Nextafter(30, 31), -30, math.Nextafter(-30, -31),
			math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e300, -745, 745, 0.34657359027997264, 1e-300}
		for _, n := range lengths {
			for _, scale := range []float64{3, 40} {
				x := randVec(r, n, scale)
				if n >= len(special) && scale == 3 {
					copy(x, special)
				} else if scale == 3 {
					for i := range x {
						x[i] = special[(n+i)%len(special)]
					}
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
	})
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

// TestRowsOps checks MulAddRows and GateAccumulateRows on many rows
// against the same functions called row by row, bit for bit, and against
// their definitions element by element, exactly (fused multiply-adds in
// assembly, the Go twins' unfused operations otherwise), for row lengths
// covering every column panel and tail and 1 to 11 rows.
func TestRowsOps(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(15, 16))
		muladd := func(x, y, z float64) float64 { return x*y + z }
		if level != cpu.Go {
			muladd = math.FMA
		}
		for _, h := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 20, 31, 32, 33, 35, 50} {
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
				for i := range b {
					b[i] = muladd(tt[i], g[i%h], hh[i])
				}
				same(t, "MulAddRows elementwise", n, a, b)
				accA, accB := append([]float64(nil), acc0...), append([]float64(nil), acc0...)
				GateAccumulateRows(a, accA, gn, g, tt, rows)
				for k := 0; k < rows; k++ {
					GateAccumulateRows(b[k*h:(k+1)*h], accB, gn[k*h:(k+1)*h], g, tt[k*h:(k+1)*h], 1)
				}
				same(t, "GateAccumulateRows gt", n, a, b)
				same(t, "GateAccumulateRows acc", h, accA, accB)
				copy(accB, acc0)
				for i := range b {
					b[i] = gn[i] * g[i%h]
					accB[i%h] = muladd(gn[i], tt[i], accB[i%h])
				}
				same(t, "GateAccumulateRows gt elementwise", n, a, b)
				same(t, "GateAccumulateRows acc elementwise", h, accA, accB)
			}
		}
	})
}

// kernel is one of the elementwise functions on args slice arguments of
// the same length, all initialized with test data (inputs, outputs and
// in-out arguments alike).
type kernel struct {
	name string
	args int
	run  func(a [][]float64)
}

var kernels = []kernel{
	{"ReLU", 2, func(a [][]float64) { ReLU(a[0], a[1]) }},
	{"ReLUMask", 3, func(a [][]float64) { ReLUMask(a[0], a[1], a[2]) }},
	{"AddPos", 3, func(a [][]float64) { AddPos(a[0], a[1], a[2]) }},
	{"GateForward", 4, func(a [][]float64) { GateForward(a[0], a[1], a[2], a[3]) }},
	{"GateBackward", 5, func(a [][]float64) { GateBackward(a[0], a[1], a[2], a[3], a[4]) }},
	{"Sigmoids", 1, func(a [][]float64) { Sigmoids(a[0]) }},
	{"ExpShift", 2, func(a [][]float64) { ExpShift(a[0], a[1], 0.75) }},
	{"Add", 2, func(a [][]float64) { Add(a[0], a[1]) }},
	{"SoftplusSigmoid", 3, func(a [][]float64) { SoftplusSigmoid(a[0], a[1], a[2], 1e-3) }},
	// The row functions with 1 row.
	{"MulAddRows", 4, func(a [][]float64) { MulAddRows(a[0], a[1], a[2], a[3], 1) }},
	{"GateAccumulateRows", 5, func(a [][]float64) { GateAccumulateRows(a[0], a[1], a[2], a[3], a[4], 1) }},
}

// kernelArgs returns k's arguments for n elements: wide-ranging values
// (the exponentials' whole range) with specials sprinkled in.
func kernelArgs(r *rand.Rand, k kernel, n int) [][]float64 {
	a := make([][]float64, k.args)
	for j := range a {
		a[j] = randVec(r, n, 300)
		sprinkle(r, a[j])
	}
	return a
}

// clone returns a deep copy of a, each slice placed off elements into a
// fresh buffer with room for off guard elements on either side; guards
// returns them.
func clone(a [][]float64, off int) (c, guards [][]float64) {
	for _, v := range a {
		buf := make([]float64, len(v)+2*off+2)
		for i := range buf {
			buf[i] = -1234.5
		}
		copy(buf[off+1:], v)
		c = append(c, buf[off+1:off+1+len(v):off+1+len(v)])
		guards = append(guards, buf[:off+1], buf[off+1+len(v):])
	}
	return c, guards
}

// TestPerElement checks that the kernels' results for an element do not
// depend on where it lies: every function on vectors of 1 to 13 (and
// more) elements at every alignment gives the bits it gives on the
// elements one at a time (all in the tail) and on the whole vector at
// once, and writes nothing outside its slices.
func TestPerElement(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(17, 18))
		for _, k := range kernels {
			for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 33, 50} {
				a := kernelArgs(r, k, n)
				whole, _ := clone(a, 0)
				k.run(whole)
				one := make([][]float64, k.args)
				for i := 0; i < n; i++ {
					e, _ := clone(a, 0)
					for j := range e {
						one[j] = e[j][i : i+1]
					}
					k.run(one)
					for j := range e {
						if math.Float64bits(e[j][i]) != math.Float64bits(whole[j][i]) {
							t.Fatalf("%s n=%d: argument %d [%d] alone = %v, in the vector %v", k.name, n, j, i, e[j][i], whole[j][i])
						}
					}
				}
				for off := 1; off <= 4; off++ {
					c, guards := clone(a, off)
					k.run(c)
					for j := range c {
						for i := range c[j] {
							if math.Float64bits(c[j][i]) != math.Float64bits(whole[j][i]) {
								t.Fatalf("%s n=%d offset %d: argument %d [%d] = %v, aligned %v", k.name, n, off, j, i, c[j][i], whole[j][i])
							}
						}
					}
					for _, g := range guards {
						for _, v := range g {
							if v != -1234.5 {
								t.Fatalf("%s n=%d offset %d: wrote outside its slices", k.name, n, off)
							}
						}
					}
				}
			}
		}
	})
}

// benchN is the benchmarks' batch: 1600 rows of 50 hidden units.
const benchN = 1600 * 50

// benchLevels runs f as a sub-benchmark at every kernel level this
// machine supports ("go" runs the Go twins), with level set to it.
func benchLevels(b *testing.B, f func(b *testing.B)) {
	defer func(l cpu.Level) { level = l }(level)
	for l := cpu.Go; l <= cpu.Best(); l++ {
		level = l
		b.Run(l.String(), func(b *testing.B) {
			b.ReportAllocs()
			f(b)
		})
	}
}

func BenchmarkReLU(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x, dst := randVec(r, benchN, 1), make([]float64, benchN)
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			ReLU(dst, x)
		}
	})
}

func BenchmarkReLUMask(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	a, dy, dx := randVec(r, benchN, 1), randVec(r, benchN, 1), make([]float64, benchN)
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			ReLUMask(dx, dy, a)
		}
	})
}

func BenchmarkAddPos(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 3))
	a, src, dst := randVec(r, benchN, 1), randVec(r, benchN, 1), randVec(r, benchN, 1)
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			AddPos(dst, src, a)
		}
	})
}

// BenchmarkGateForward includes restoring s from a copy (a copy of
// benchN values) in every iteration.
func BenchmarkGateForward(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 4))
	s0, h, tt, next := randVec(r, benchN, 3), randVec(r, benchN, 1), randVec(r, benchN, 1), make([]float64, benchN)
	s := make([]float64, benchN)
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			copy(s, s0)
			GateForward(s, h, tt, next)
		}
	})
}

func BenchmarkGateBackward(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 5))
	gn, tt := randVec(r, benchN, 1), randVec(r, benchN, 1)
	g, gt, ga := make([]float64, benchN), make([]float64, benchN), make([]float64, benchN)
	for i := range g {
		g[i] = r.Float64()
	}
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			GateBackward(gn, g, tt, gt, ga)
		}
	})
}

// BenchmarkSigmoids includes restoring s from a copy (a copy of benchN
// values) in every iteration.
func BenchmarkSigmoids(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 6))
	s0, s := randVec(r, benchN, 3), make([]float64, benchN)
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			copy(s, s0)
			Sigmoids(s)
		}
	})
}

// BenchmarkCopy measures the copy that BenchmarkGateForward and
// BenchmarkSigmoids include.
func BenchmarkCopy(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 6))
	s0, s := randVec(r, benchN, 3), make([]float64, benchN)
	b.ReportAllocs()
	for b.Loop() {
		copy(s, s0)
	}
}

func BenchmarkExpShift(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 7))
	x, dst := randVec(r, benchN, 3), make([]float64, benchN)
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			ExpShift(dst, x, 1)
		}
	})
}

func BenchmarkAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 8))
	src, dst := randVec(r, benchN, 1), randVec(r, benchN, 1)
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			Add(dst, src)
		}
	})
}

func BenchmarkSoftplusSigmoid(b *testing.B) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{9, 1000, benchN} {
		x := randVec(r, n, 3)
		sp, sg := make([]float64, n), make([]float64, n)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				for b.Loop() {
					SoftplusSigmoid(sp, sg, x, 1e-3)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/value")
			})
		})
	}
}

// benchH is the row length of the row benchmarks (benchN/benchH rows).
const benchH = 50

func BenchmarkMulAddRows(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 9))
	h, tt, next, g := randVec(r, benchN, 1), randVec(r, benchN, 1), make([]float64, benchN), randVec(r, benchH, 1)
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			MulAddRows(next, h, tt, g, benchN/benchH)
		}
	})
}

func BenchmarkGateAccumulateRows(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 10))
	gn, tt, gt := randVec(r, benchN, 1), randVec(r, benchN, 1), make([]float64, benchN)
	g, acc := randVec(r, benchH, 1), make([]float64, benchH)
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			GateAccumulateRows(gt, acc, gn, g, tt, benchN/benchH)
		}
	})
}

// TestAddOuterRows checks AddOuterRows at every level against its
// definition, src's row plus (x[r]·w + 0) with the product rounded on its
// own, bit for bit: row lengths with every tail, groups of 1, 3 and 5
// rows (a last group short), in place with group 1, and the special
// values, whose −0 products must come out as +0 products do.
func TestAddOuterRows(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, n := range lengths {
			for _, group := range []int{1, 3, 5} {
				rows := 13
				ng := (rows + group - 1) / group
				x, w, src := randVec(r, rows, 1), randVec(r, n, 1), randVec(r, ng*n, 1)
				sprinkle(r, x)
				sprinkle(r, w)
				sprinkle(r, src)
				want := make([]float64, rows*n)
				for i := range rows {
					for j := range n {
						p := x[i] * w[j]
						if p == 0 {
							p = 0 // +0, as a sum that starts at +0 gives
						}
						want[i*n+j] = src[(i/group)*n+j] + p
					}
				}
				dst := randVec(r, rows*n, 1)
				AddOuterRows(dst, src, x, w, group)
				for i := range want {
					if math.Float64bits(dst[i]) != math.Float64bits(want[i]) && !(math.IsNaN(dst[i]) && math.IsNaN(want[i])) {
						t.Fatalf("n=%d group=%d: element %d = %v, want %v", n, group, i, dst[i], want[i])
					}
				}
				if group == 1 {
					in := append([]float64(nil), src...)
					AddOuterRows(in, in, x, w, 1)
					for i := range want {
						if math.Float64bits(in[i]) != math.Float64bits(want[i]) && !(math.IsNaN(in[i]) && math.IsNaN(want[i])) {
							t.Fatalf("n=%d in place: element %d = %v, want %v", n, i, in[i], want[i])
						}
					}
				}
			}
		}
	})
}

// TestGateAccumulateRows32 checks at every level that GateAccumulateRows32
// writes float32(gt) of GateAccumulateRows into its padded rows and adds
// the same sums into acc, bit for bit, on every row length with tails and
// the special values, and leaves the values past the rows' padding alone.
func TestGateAccumulateRows32(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 10))
		for _, n := range lengths {
			if n == 0 {
				continue
			}
			const rows = 7
			ld := (n+3)&^3 + 4
			gn, g, tt := randVec(r, rows*n, 1), randVec(r, n, 1), randVec(r, rows*n, 1)
			sprinkle(r, gn)
			sprinkle(r, g)
			acc0 := randVec(r, n, 1)
			gt, acc := make([]float64, rows*n), append([]float64(nil), acc0...)
			GateAccumulateRows(gt, acc, gn, g, tt, rows)
			gt32, acc32 := make([]float32, rows*ld), append([]float64(nil), acc0...)
			for i := range gt32 {
				gt32[i] = -9
			}
			GateAccumulateRows32(gt32, ld, acc32, gn, g, tt, rows)
			for i := 0; i < rows; i++ {
				for j := 0; j < n; j++ {
					want, got := float32(gt[i*n+j]), gt32[i*ld+j]
					if math.Float32bits(got) != math.Float32bits(want) && !(want != want && got != got) {
						t.Fatalf("n=%d: gt32(%d, %d) = %v, want %v", n, i, j, got, want)
					}
				}
				for j := (n + 3) &^ 3; j < ld; j++ {
					if gt32[i*ld+j] != -9 {
						t.Fatalf("n=%d: row %d padding %d overwritten", n, i, j)
					}
				}
			}
			for j := range acc {
				if math.Float64bits(acc[j]) != math.Float64bits(acc32[j]) && !(acc[j] != acc[j] && acc32[j] != acc32[j]) {
					t.Fatalf("n=%d: acc[%d] = %v, want %v", n, j, acc32[j], acc[j])
				}
			}
		}
	})
}
