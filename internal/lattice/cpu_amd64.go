//go:build amd64 && !purego

package lattice

//go:noescape
func weights512(logw, t, p *float64, n, d int) float64

//go:noescape
func weights256(logw, t, p *float64, n, d int) float64

//go:noescape
func expShift512(w, x *float64, n int, m float64)

//go:noescape
func expShift256(w, x *float64, n int, m float64)
