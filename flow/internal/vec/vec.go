// Package vec evaluates the elementwise steps of the flow's residual
// networks (ReLU and its masks, the sigmoid context gates) over whole
// batches, and the softplus derivatives of the splines: in assembly with
// AVX-512 (8 lanes) where the machine has it, else with AVX2 and FMA (4
// lanes), otherwise (or with the purego build tag) in Go. The assembly
// sigmoid and softplus use their own exp (exp(−|x|) with range reduction
// to |r| ≤ ln2/2 and a degree-13 polynomial, scaled by 2^k: VSCALEFPD
// with AVX-512, two exact powers of two built from their exponent bits
// with AVX2, with the same correctly rounded result, subnormals
// included), accurate to a few units in the last place and the same on
// both assembly paths; the softplus logarithm is math.Log's algorithm step
// for step; everything else gives the same values on all paths up to the
// rounding of a fused multiply-add.
package vec

import (
	"math"

	"github.com/privinfer/privinfer/internal/cpu"
)

// level is the kernel level the functions use: the widest this machine
// supports (the tests set each supported level in turn).
var level = cpu.Best()

// ReLU writes max(x, 0) into dst (which may alias x); NaN gives 0.
func ReLU(dst, x []float64) {
	dst = dst[:len(x)]
	if len(x) > 0 {
		switch level {
		case cpu.AVX512:
			relu(&dst[0], &x[0], len(x))
			return
		case cpu.AVX2:
			reluAVX2(&dst[0], &x[0], len(x))
			return
		}
	}
	reluGo(dst, x)
}

// ReLUMask writes dx = dy where a > 0 and 0 elsewhere; dx may alias dy.
func ReLUMask(dx, dy, a []float64) {
	dx, dy = dx[:len(a)], dy[:len(a)]
	if len(a) > 0 {
		switch level {
		case cpu.AVX512:
			reluMask(&dx[0], &dy[0], &a[0], len(a))
			return
		case cpu.AVX2:
			reluMaskAVX2(&dx[0], &dy[0], &a[0], len(a))
			return
		}
	}
	reluMaskGo(dx, dy, a)
}

// AddPos adds src to dst where a > 0.
func AddPos(dst, src, a []float64) {
	dst, src = dst[:len(a)], src[:len(a)]
	if len(a) > 0 {
		switch level {
		case cpu.AVX512:
			addPos(&dst[0], &src[0], &a[0], len(a))
			return
		case cpu.AVX2:
			addPosAVX2(&dst[0], &src[0], &a[0], len(a))
			return
		}
	}
	addPosGo(dst, src, a)
}

// GateForward replaces s by σ(s) = 1/(1+e^(−s)) and writes
// next = h + t·σ(s).
func GateForward(s, h, t, next []float64) {
	h, t, next = h[:len(s)], t[:len(s)], next[:len(s)]
	if len(s) > 0 {
		switch level {
		case cpu.AVX512:
			gateFwd(&s[0], &h[0], &t[0], &next[0], len(s))
			return
		case cpu.AVX2:
			gateFwdAVX2(&s[0], &h[0], &t[0], &next[0], len(s))
			return
		}
	}
	gateFwdGo(s, h, t, next)
}

// GateBackward back-propagates next = h + t·g with g = σ(a): given the
// gradient gn with respect to next and the gates g, it writes the
// gradient with respect to t into gt (gn·g) and with respect to a into ga
// (gn·t·g·(1−g)).
func GateBackward(gn, g, t, gt, ga []float64) {
	g, t, gt, ga = g[:len(gn)], t[:len(gn)], gt[:len(gn)], ga[:len(gn)]
	if len(gn) > 0 {
		switch level {
		case cpu.AVX512:
			gateBwd(&gn[0], &g[0], &t[0], &gt[0], &ga[0], len(gn))
			return
		case cpu.AVX2:
			gateBwdAVX2(&gn[0], &g[0], &t[0], &gt[0], &ga[0], len(gn))
			return
		}
	}
	gateBwdGo(gn, g, t, gt, ga)
}

// Sigmoid returns 1/(1+e^(−x)) without overflow.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func reluGo(dst, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		if v > 0 {
			dst[i] = v
		} else {
			dst[i] = 0
		}
	}
}

func reluMaskGo(dx, dy, a []float64) {
	dx, dy = dx[:len(a)], dy[:len(a)]
	for i, v := range a {
		if v > 0 {
			dx[i] = dy[i]
		} else {
			dx[i] = 0
		}
	}
}

func addPosGo(dst, src, a []float64) {
	dst, src = dst[:len(a)], src[:len(a)]
	for i, v := range a {
		if v > 0 {
			dst[i] += src[i]
		}
	}
}

func gateFwdGo(s, h, t, next []float64) {
	h, t, next = h[:len(s)], t[:len(s)], next[:len(s)]
	for i, v := range s {
		g := Sigmoid(v)
		s[i] = g
		next[i] = h[i] + t[i]*g
	}
}

func gateBwdGo(gn, g, t, gt, ga []float64) {
	g, t, gt, ga = g[:len(gn)], t[:len(gn)], gt[:len(gn)], ga[:len(gn)]
	for i, v := range gn {
		gt[i] = v * g[i]
		ga[i] = v * t[i] * g[i] * (1 - g[i])
	}
}

// Sigmoids replaces every s[i] by σ(s[i]).
func Sigmoids(s []float64) {
	if len(s) > 0 {
		switch level {
		case cpu.AVX512:
			sigmoid(&s[0], len(s))
			return
		case cpu.AVX2:
			sigmoidAVX2(&s[0], len(s))
			return
		}
	}
	for i, v := range s {
		s[i] = Sigmoid(v)
	}
}

// ExpShift writes e^(x[i]−shift) into dst[i] (dst may alias x).
func ExpShift(dst, x []float64, shift float64) {
	dst = dst[:len(x)]
	if len(x) > 0 {
		switch level {
		case cpu.AVX512:
			expShift(&dst[0], &x[0], len(x), shift)
			return
		case cpu.AVX2:
			expShiftAVX2(&dst[0], &x[0], len(x), shift)
			return
		}
	}
	for i, v := range x {
		dst[i] = math.Exp(v - shift)
	}
}

// Add adds src to dst elementwise.
func Add(dst, src []float64) {
	dst = dst[:len(src)]
	if len(src) > 0 {
		switch level {
		case cpu.AVX512:
			addTo(&dst[0], &src[0], len(src))
			return
		case cpu.AVX2:
			addToAVX2(&dst[0], &src[0], len(src))
			return
		}
	}
	for i, v := range src {
		dst[i] += v
	}
}

// SoftplusSigmoid writes add + softplus(x[i]) into sp[i] and σ(x[i]) into
// sg[i], softplus(x) = log(1+eˣ) and σ its derivative, from one
// exponential per element and without overflow: for x > 30 from e^−x
// (softplus = x + e^−x, σ = 1/(1+e^−x)), otherwise from eˣ (softplus = eˣ
// below −30 and log(1+eˣ) between, σ = eˣ/(1+eˣ)). NaN gives NaN.
//
// The logarithm is math.Log's, not math.Log1p (three to four times slower
// on amd64): for small eˣ the result has an absolute error of about 1e-16
// instead of a relative one, which is invisible in the flows' use, a
// spline derivative add + softplus with add > 0. In assembly the
// logarithm is computed eight (AVX-512) or four (AVX2) at a time by the
// algorithm of math.Log's amd64 assembly, operation for operation, so it
// has math.Log's bits for the same argument; the exponential is the
// package's own (a few units in the last place from math.Exp), so the
// assembly and Go paths differ by that only.
func SoftplusSigmoid(sp, sg, x []float64, add float64) {
	sp, sg = sp[:len(x)], sg[:len(x)]
	if len(x) > 0 {
		switch level {
		case cpu.AVX512:
			softplusSig(&sp[0], &sg[0], &x[0], len(x), add)
			return
		case cpu.AVX2:
			softplusSigAVX2(&sp[0], &sg[0], &x[0], len(x), add)
			return
		}
	}
	softplusSigGo(sp, sg, x, add)
}

// softplusSigGo is SoftplusSigmoid's Go twin.
func softplusSigGo(sp, sg, x []float64, add float64) {
	for i, v := range x {
		var s, g float64
		switch {
		case v > 30:
			e := math.Exp(-v)
			s, g = v+e, 1/(1+e)
		case v < -30:
			e := math.Exp(v)
			s, g = e, e/(1+e)
		default:
			e := math.Exp(v)
			s, g = math.Log(1+e), e/(1+e)
		}
		sp[i], sg[i] = add+s, g
	}
}

// MulAddRows writes next = h + t·g elementwise for rows consecutive rows
// of row length len(g) that share the gates g: a gated residual update
// with precomputed gates. The AVX-512 assembly holds the gates in
// registers across the rows; the AVX2 assembly streams the rows in order,
// reading the gates from the level-1 cache.
func MulAddRows(next, h, t, g []float64, rows int) {
	n := len(g) * rows
	next, h, t = next[:n], h[:n], t[:n]
	if n > 0 {
		switch level {
		case cpu.AVX512:
			mulAddRows(&next[0], &h[0], &t[0], &g[0], len(g), rows)
			return
		case cpu.AVX2:
			mulAddRowsAVX2(&next[0], &h[0], &t[0], &g[0], len(g), rows)
			return
		}
	}
	for o := 0; o < n; o += len(g) {
		for j, v := range g {
			next[o+j] = h[o+j] + t[o+j]*v
		}
	}
}

// GateAccumulateRows back-propagates next = h + t·g for rows consecutive
// rows of row length len(g) that share the gates g: row r of gt receives
// row r of gn times g, and acc (the per-gate sum over the rows sharing g)
// the products of the rows of gn and t, added row after row in order. The
// AVX-512 assembly keeps the gates and acc in registers across the rows;
// the AVX2 assembly streams the rows in order, with the gates and acc in
// the level-1 cache.
func GateAccumulateRows(gt, acc, gn, g, t []float64, rows int) {
	n := len(g) * rows
	gt, acc, gn, t = gt[:n], acc[:len(g)], gn[:n], t[:n]
	if n > 0 {
		switch level {
		case cpu.AVX512:
			gateAccRows(&gt[0], &acc[0], &gn[0], &g[0], &t[0], len(g), rows)
			return
		case cpu.AVX2:
			gateAccRowsAVX2(&gt[0], &acc[0], &gn[0], &g[0], &t[0], len(g), rows)
			return
		}
	}
	for o := 0; o < n; o += len(g) {
		for j, v := range g {
			gt[o+j] = gn[o+j] * v
			acc[j] += gn[o+j] * t[o+j]
		}
	}
}

// AddOuterRows writes row r of dst (len(x) rows of len(w) values) as row
// ⌊r/group⌋ of src plus x[r]·w: the first layer of a network with one
// input coordinate, its context's contribution shared by groups of rows
// (src may be dst itself with group 1, for an update in place). Each
// product is rounded on its own and a −0 product counts as +0, so the
// result is, bit for bit, src's row plus the one-step matrix product
// x·w of package gemm (whose accumulator starts at +0).
func AddOuterRows(dst, src, x, w []float64, group int) {
	n, rows := len(w), len(x)
	if n == 0 || rows == 0 {
		return
	}
	ng := (rows + group - 1) / group
	dst, src = dst[:rows*n], src[:ng*n]
	if level >= cpu.AVX2 {
		addOuterRowsAVX2(&dst[0], &src[0], &x[0], &w[0], n, rows, group)
		return
	}
	addOuterRowsGo(dst, src, x, w, group)
}

func addOuterRowsGo(dst, src, x, w []float64, group int) {
	n := len(w)
	for r, a := range x {
		d, s := dst[r*n:r*n+n], src[(r/group)*n:(r/group)*n+n]
		for j, v := range w {
			p := float64(a*v) + 0 // +0 turns a −0 product into +0
			d[j] = s[j] + p
		}
	}
}

// GateAccumulateRows32 is GateAccumulateRows writing the gradient
// gn ⊙ g of each row rounded to float32, into rows ld float32 values
// apart (ld at least len(g) rounded up to a multiple of 4: the values
// past len(g) in a row may be overwritten), instead of into a float64 gt:
// the output gradient of a layer whose products run in float32, rounded
// in the same pass. The rounded values are those of GateAccumulateRows's
// gt, and acc receives the same sums, bit for bit.
func GateAccumulateRows32(gt32 []float32, ld int, acc, gn, g, t []float64, rows int) {
	n := len(g)
	if n == 0 || rows == 0 {
		return
	}
	if ld < (n+3)&^3 || len(gt32) < (rows-1)*ld+(n+3)&^3 {
		panic("vec: GateAccumulateRows32 rows too short")
	}
	acc, gn, t = acc[:n], gn[:n*rows], t[:n*rows]
	if level >= cpu.AVX2 {
		gateAccRows32AVX2(&gt32[0], ld, &acc[0], &gn[0], &g[0], &t[0], n, rows)
		return
	}
	for r := 0; r < rows; r++ {
		o := r * n
		d := gt32[r*ld : r*ld+n]
		for j, v := range g {
			d[j] = float32(gn[o+j] * v)
			acc[j] += gn[o+j] * t[o+j]
		}
	}
}
