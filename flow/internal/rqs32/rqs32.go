// Package rqs32 evaluates the rational-quadratic splines of package
// flow/spline in float32, eight splines at a time: their knots from the
// unconstrained parameters, the forward map with its log-derivative, and
// the gradients with respect to the input and the parameters. It is the
// spline half of the flow's float32 training step (flow.TrainConfig.Float32);
// the float64 path keeps package spline, whose results it approximates to
// float32 precision.
//
// The eight splines of a block are held lane by lane ("structure of
// arrays"): value j of lane l is at index 8j + l. The unconstrained
// parameters of a block are such an array of 3K−1 values, laid out as
// package spline lays out one spline's (widths, heights, interior
// derivatives; the widths and heights already multiplied by the flow's
// scale). The state Knots writes, StateLen values, holds the knot
// positions X and Y and derivatives D (K+1 values each), the softmax
// probabilities of the widths and heights (K each) and σ of the raw
// interior derivatives (K−1), which Backward needs.
//
// With AVX2 and FMA the three steps run in assembly; elsewhere, or with
// the purego build tag, in Go. Both use the same algorithms: exp and log
// reduced to [−ln2/2, ln2/2] and [√½−1, √2−1] with the polynomials of
// Cephes' expf and logf (within 3 units in the last place), softplus as
// max(x, 0) + log1p(e^−|x|) with log1p(u) = log(1+u)·u/((1+u)−1); they
// differ only where the assembly fuses a multiply-add, by a few units in
// the last place.
package rqs32

import (
	"fmt"
	"math"
)

// Lanes is the number of splines in a block.
const Lanes = 8

// Spline is a rational-quadratic spline with linear tails (see package
// flow/spline) prepared for float32 evaluation. The assembly reads its
// fields at fixed offsets: do not reorder them.
type Spline struct {
	K    int     // number of bins
	B    float32 // tail bound: identity outside [−B, B]
	B2   float32 // 2B
	MinW float32 // minimum bin width as a fraction of 2B
	MinH float32 // minimum bin height as a fraction of 2B
	MinD float32 // minimum interior derivative
	AW   float32 // 1 − K·MinW
	AH   float32 // 1 − K·MinH
}

// New returns the float32 form of the spline with bins bins (≥ 2), tail
// bound (> 0, finite, at most 10³⁰) and minimum width, height (each in
// (0, 1/bins)) and derivative (> 0, finite).
func New(bins int, tailBound, minWidth, minHeight, minDerivative float64) (*Spline, error) {
	switch {
	case bins < 2:
		return nil, fmt.Errorf("rqs32: bins must be >= 2, got %d", bins)
	case !(tailBound > 0) || !(tailBound <= 1e30):
		return nil, fmt.Errorf("rqs32: tail bound must be in (0, 1e30], got %v", tailBound)
	case !(minWidth > 0) || minWidth*float64(bins) >= 1:
		return nil, fmt.Errorf("rqs32: minimum bin width must be in (0, 1/bins), got %v", minWidth)
	case !(minHeight > 0) || minHeight*float64(bins) >= 1:
		return nil, fmt.Errorf("rqs32: minimum bin height must be in (0, 1/bins), got %v", minHeight)
	case !(minDerivative > 0) || math.IsInf(minDerivative, 0):
		return nil, fmt.Errorf("rqs32: minimum derivative must be > 0 and finite, got %v", minDerivative)
	}
	return &Spline{
		K: bins, B: float32(tailBound), B2: float32(2 * tailBound),
		MinW: float32(minWidth), MinH: float32(minHeight), MinD: float32(minDerivative),
		AW: float32(1 - float64(bins)*minWidth), AH: float32(1 - float64(bins)*minHeight),
	}, nil
}

// RawLen returns the number of parameter values of a block, Lanes·(3K−1).
func (s *Spline) RawLen() int { return Lanes * (3*s.K - 1) }

// StateLen returns the number of state values of a block, Lanes·(6K+2).
func (s *Spline) StateLen() int { return Lanes * (6*s.K + 2) }

// Offsets of the state's parts, in vectors of Lanes values.
func (s *Spline) offX() int  { return 0 }
func (s *Spline) offY() int  { return s.K + 1 }
func (s *Spline) offD() int  { return 2 * (s.K + 1) }
func (s *Spline) offPW() int { return 3 * (s.K + 1) }
func (s *Spline) offPH() int { return 3*(s.K+1) + s.K }
func (s *Spline) offSG() int { return 3*(s.K+1) + 2*s.K }

// Knots computes the state of a block of splines from its parameters
// raw (RawLen values) into st (StateLen values): the widths and heights
// through a softmax (shifted by the largest value) and the minimum width
// or height, the interior derivatives through MinD + softplus. It panics
// if st or raw is too short.
func (s *Spline) Knots(st, raw []float32) {
	st, raw = st[:s.StateLen()], raw[:s.RawLen()]
	if useAsm {
		knotsAVX2(s, &st[0], &raw[0])
		return
	}
	s.knotsGo(st, raw)
}

// Forward evaluates the block's splines, whose state Knots wrote into st,
// at x: lane l's output and log-derivative go to y[l] and ld[l]. Outside
// [−B, B] a lane is the identity with log-derivative 0. It panics if st
// is too short.
func (s *Spline) Forward(st []float32, x, y, ld *[Lanes]float32) {
	st = st[:s.StateLen()]
	if useAsm {
		forwardAVX2(s, &st[0], x, y, ld)
		return
	}
	s.forwardGo(st, x, y, ld)
}

// Backward propagates the upstream gradients gy (of the outputs) and gl
// (of the log-derivatives) of the block's splines at x: it writes the
// gradients with respect to x into gx and with respect to the raw
// parameters into graw (RawLen values; a lane outside [−B, B] gets
// zeros). It panics if st or graw is too short.
func (s *Spline) Backward(st []float32, x, gy, gl, gx *[Lanes]float32, graw []float32) {
	st, graw = st[:s.StateLen()], graw[:s.RawLen()]
	if useAsm {
		backwardAVX2(s, &st[0], x, gy, gl, gx, &graw[0])
		return
	}
	s.backwardGo(st, x, gy, gl, gx, graw)
}

// Load writes the parameters of a block of Lanes splines into dst
// (RawLen-style, value j of lane l at dst[Lanes·j + l]) from src, which
// holds the splines' parameters one after the other, len(scale) values
// each: dst[Lanes·j + l] = float32(src[l·n + j]·scale[j]) with n =
// len(scale). It panics if dst or src is too short.
func Load(dst []float32, src, scale []float64) {
	n := len(scale)
	dst, src = dst[:Lanes*n], src[:Lanes*n]
	n4 := asmValues(n)
	if n4 > 0 {
		loadAVX2(&dst[0], &src[0], &scale[0], n, n4)
	}
	for j := n4; j < n; j++ {
		for l := 0; l < Lanes; l++ {
			dst[Lanes*j+l] = float32(src[l*n+j] * scale[j])
		}
	}
}

// Store is Load's reverse for gradients: dst[l·n + j] =
// float64(src[Lanes·j + l])·scale[j] with n = len(scale). It panics if
// dst or src is too short.
func Store(dst []float64, src []float32, scale []float64) {
	n := len(scale)
	dst, src = dst[:Lanes*n], src[:Lanes*n]
	n4 := asmValues(n)
	if n4 > 0 {
		storeAVX2(&dst[0], &src[0], &scale[0], n, n4)
	}
	for j := n4; j < n; j++ {
		for l := 0; l < Lanes; l++ {
			dst[l*n+j] = float64(src[Lanes*j+l]) * scale[j]
		}
	}
}

// asmValues returns how many of a spline's n values Load and Store move
// with the assembly, four at a time (none without it); Go moves the rest.
func asmValues(n int) int {
	if !useAsm {
		return 0
	}
	return n &^ 3
}
