//go:build !amd64 || purego

package lattice

const detected = levelGo

func weights512(logw, t, p *float64, n, d int) { panic("unreachable") }
func weights256(logw, t, p *float64, n, d int) { panic("unreachable") }
