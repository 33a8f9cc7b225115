//go:build amd64 && !purego

package vec

import "github.com/privinfer/privinfer/internal/cpu"

var useASM = cpu.Features().AVX512

//go:noescape
func relu(dst, x *float64, n int)

//go:noescape
func reluMask(dx, dy, a *float64, n int)

//go:noescape
func addPos(dst, src, a *float64, n int)

//go:noescape
func gateFwd(s, h, t, next *float64, n int)

//go:noescape
func gateBwd(gn, gate, t, gt, ga *float64, n int)

//go:noescape
func sigmoid(s *float64, n int)

//go:noescape
func expShift(dst, x *float64, n int, shift float64)

//go:noescape
func addTo(dst, src *float64, n int)

//go:noescape
func softplusSig(sp, sg, x *float64, n int, add float64)

//go:noescape
func mulAddRows(next, h, t, gate *float64, n, rows int)

//go:noescape
func gateAccRows(gt, acc, gn, gate, t *float64, n, rows int)
