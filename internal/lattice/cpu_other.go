//go:build !amd64 || purego

package lattice

func weights512(logw, t, p *float64, n, d int) float64 { panic("unreachable") }
func weights256(logw, t, p *float64, n, d int) float64 { panic("unreachable") }
func expShift512(w, x *float64, n int, m float64)      { panic("unreachable") }
func expShift256(w, x *float64, n int, m float64)      { panic("unreachable") }
