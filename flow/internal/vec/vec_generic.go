//go:build !amd64 || purego

package vec

// The kernels are never called: level is always cpu.Go.

func relu(dst, x *float64, n int)                 { panic("unreachable") }
func reluMask(dx, dy, a *float64, n int)          { panic("unreachable") }
func addPos(dst, src, a *float64, n int)          { panic("unreachable") }
func gateFwd(s, h, t, next *float64, n int)       { panic("unreachable") }
func gateBwd(gn, gate, t, gt, ga *float64, n int) { panic("unreachable") }

func sigmoid(s *float64, n int) { panic("unreachable") }

func expShift(dst, x *float64, n int, shift float64) { panic("unreachable") }

func addTo(dst, src *float64, n int) { panic("unreachable") }

func softplusSig(sp, sg, x *float64, n int, add float64) { panic("unreachable") }

func mulAddRows(next, h, t, gate *float64, n, rows int)      { panic("unreachable") }
func gateAccRows(gt, acc, gn, gate, t *float64, n, rows int) { panic("unreachable") }

func reluAVX2(dst, x *float64, n int)                 { panic("unreachable") }
func reluMaskAVX2(dx, dy, a *float64, n int)          { panic("unreachable") }
func addPosAVX2(dst, src, a *float64, n int)          { panic("unreachable") }
func gateFwdAVX2(s, h, t, next *float64, n int)       { panic("unreachable") }
func gateBwdAVX2(gn, gate, t, gt, ga *float64, n int) { panic("unreachable") }

func sigmoidAVX2(s *float64, n int) { panic("unreachable") }

func expShiftAVX2(dst, x *float64, n int, shift float64) { panic("unreachable") }

func addToAVX2(dst, src *float64, n int) { panic("unreachable") }

func softplusSigAVX2(sp, sg, x *float64, n int, add float64) { panic("unreachable") }

func mulAddRowsAVX2(next, h, t, gate *float64, n, rows int)      { panic("unreachable") }
func gateAccRowsAVX2(gt, acc, gn, gate, t *float64, n, rows int) { panic("unreachable") }

func addOuterRowsAVX2(dst, src, x, w *float64, n, rows, group int) { panic("unreachable") }

func gateAccRows32AVX2(gt32 *float32, ld int, acc, gn, gate, t *float64, n, rows int) {
	panic("unreachable")
}
