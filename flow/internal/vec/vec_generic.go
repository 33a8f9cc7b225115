//go:build !amd64 || purego

package vec

const useASM = false

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
