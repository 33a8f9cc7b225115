//go:build amd64 && !purego

package vec

// The AVX-512 kernels work on 8 lanes, the last vector under an opmask.

// relu is ReLU with AVX-512.
//
//go:noescape
func relu(dst, x *float64, n int)

// reluMask is ReLUMask with AVX-512.
//
//go:noescape
func reluMask(dx, dy, a *float64, n int)

// addPos is AddPos with AVX-512.
//
//go:noescape
func addPos(dst, src, a *float64, n int)

// gateFwd is GateForward with AVX-512.
//
//go:noescape
func gateFwd(s, h, t, next *float64, n int)

// gateBwd is GateBackward with AVX-512.
//
//go:noescape
func gateBwd(gn, gate, t, gt, ga *float64, n int)

// sigmoid is Sigmoids with AVX-512.
//
//go:noescape
func sigmoid(s *float64, n int)

// expShift is ExpShift with AVX-512.
//
//go:noescape
func expShift(dst, x *float64, n int, shift float64)

// addTo is Add with AVX-512.
//
//go:noescape
func addTo(dst, src *float64, n int)

// softplusSig is SoftplusSigmoid with AVX-512.
//
//go:noescape
func softplusSig(sp, sg, x *float64, n int, add float64)

// mulAddRows is MulAddRows with AVX-512 for a row length n ≥ 1.
//
//go:noescape
func mulAddRows(next, h, t, gate *float64, n, rows int)

// gateAccRows is GateAccumulateRows with AVX-512 for a row length n ≥ 1.
//
//go:noescape
func gateAccRows(gt, acc, gn, gate, t *float64, n, rows int)

// The AVX2+FMA kernels work on 4 lanes, the last n mod 4 elements with
// masked loads and stores; their results are the AVX-512 kernels'
// (addPosAVX2's up to the sign of zero).

// reluAVX2 is ReLU with AVX2.
//
//go:noescape
func reluAVX2(dst, x *float64, n int)

// reluMaskAVX2 is ReLUMask with AVX2.
//
//go:noescape
func reluMaskAVX2(dx, dy, a *float64, n int)

// addPosAVX2 is AddPos with AVX2. Where a ≤ 0 it leaves dst's bits
// unchanged, as addPosGo; addPos adds +0 there, which turns −0 into +0.
//
//go:noescape
func addPosAVX2(dst, src, a *float64, n int)

// gateFwdAVX2 is GateForward with AVX2+FMA.
//
//go:noescape
func gateFwdAVX2(s, h, t, next *float64, n int)

// gateBwdAVX2 is GateBackward with AVX2.
//
//go:noescape
func gateBwdAVX2(gn, gate, t, gt, ga *float64, n int)

// sigmoidAVX2 is Sigmoids with AVX2+FMA.
//
//go:noescape
func sigmoidAVX2(s *float64, n int)

// expShiftAVX2 is ExpShift with AVX2+FMA.
//
//go:noescape
func expShiftAVX2(dst, x *float64, n int, shift float64)

// addToAVX2 is Add with AVX2.
//
//go:noescape
func addToAVX2(dst, src *float64, n int)

// softplusSigAVX2 is SoftplusSigmoid with AVX2+FMA.
//
//go:noescape
func softplusSigAVX2(sp, sg, x *float64, n int, add float64)

// mulAddRowsAVX2 is MulAddRows with AVX2+FMA for a row length n ≥ 1.
//
//go:noescape
func mulAddRowsAVX2(next, h, t, gate *float64, n, rows int)

// gateAccRowsAVX2 is GateAccumulateRows with AVX2+FMA for a row length
// n ≥ 1.
//
//go:noescape
func gateAccRowsAVX2(gt, acc, gn, gate, t *float64, n, rows int)

// addOuterRowsAVX2 is AddOuterRows with AVX2 for a row length n ≥ 1 and
// rows ≥ 1.
//
//go:noescape
func addOuterRowsAVX2(dst, src, x, w *float64, n, rows, group int)

// gateAccRows32AVX2 is GateAccumulateRows32 with AVX2+FMA for a row
// length n ≥ 1 and rows ≥ 1.
//
//go:noescape
func gateAccRows32AVX2(gt32 *float32, ld int, acc, gn, gate, t *float64, n, rows int)
