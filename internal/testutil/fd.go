package testutil

// FD5 returns the five-point central difference
// (−f(x+2h) + 8f(x+h) − 8f(x−h) + f(x−2h)) / 12h of f with respect to
// x[i], where f reads x: the derivative tests compare analytic gradients
// with. It is exact for polynomials of degree at most 4 in x[i] (up to
// rounding) and its truncation error is O(h⁴) otherwise. x[i] is restored
// before FD5 returns.
func FD5(f func() float64, x []float64, i int, h float64) float64 {
	x0 := x[i]
	x[i] = x0 + 2*h
	f2 := f()
	x[i] = x0 + h
	f1 := f()
	x[i] = x0 - h
	fm1 := f()
	x[i] = x0 - 2*h
	fm2 := f()
	x[i] = x0
	return (-f2 + 8*f1 - 8*fm1 + fm2) / (12 * h)
}
