//go:build amd64 && !purego

package rqs32

import "github.com/privinfer/privinfer/internal/cpu"

// useAsm says whether the AVX2 kernels run (AVX-512 machines have AVX2
// too); the tests switch it to compare them with the twin.
var useAsm = cpu.Best() >= cpu.AVX2

// knotsAVX2 is Knots with AVX2 and FMA.
//
//go:noescape
func knotsAVX2(s *Spline, st, raw *float32)

// forwardAVX2 is Forward with AVX2 and FMA.
//
//go:noescape
func forwardAVX2(s *Spline, st *float32, x, y, ld *[Lanes]float32)

// backwardAVX2 is Backward with AVX2 and FMA.
//
//go:noescape
func backwardAVX2(s *Spline, st *float32, x, gy, gl, gx *[Lanes]float32, graw *float32)

// loadAVX2 is Load for the first n4 (a multiple of 4) of n values per
// spline.
//
//go:noescape
func loadAVX2(dst *float32, src, scale *float64, n, n4 int)

// storeAVX2 is Store for the first n4 (a multiple of 4) of n values per
// spline.
//
//go:noescape
func storeAVX2(dst *float64, src *float32, scale *float64, n, n4 int)
