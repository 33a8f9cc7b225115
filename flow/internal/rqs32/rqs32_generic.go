//go:build !amd64 || purego

package rqs32

// useAsm is false: the kernels below are never called.
var useAsm = false

func knotsAVX2(s *Spline, st, raw *float32) { panic("unreachable") }

func forwardAVX2(s *Spline, st *float32, x, y, ld *[Lanes]float32) { panic("unreachable") }

func backwardAVX2(s *Spline, st *float32, x, gy, gl, gx *[Lanes]float32, graw *float32) {
	panic("unreachable")
}

func loadAVX2(dst *float32, src, scale *float64, n, n4 int) { panic("unreachable") }

func storeAVX2(dst *float64, src *float32, scale *float64, n, n4 int) { panic("unreachable") }
