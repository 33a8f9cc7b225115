package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSomaSelectMatchesScan checks that the bisection over running sums
// picks the slot and acceptance of the linear scan, on random log weights
// (with repeated values, weights underflowing to zero and n = 1…200) and
// uniforms including 0 and values next to 1.
func TestSomaSelectMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for trial := range 3000 {
		n := 1 + trial%200
		logw := make([]float64, n)
		for i := range logw {
			switch r.IntN(4) {
			case 0:
				logw[i] = -800 * r.Float64()
			case 1:
				logw[i] = float64(r.IntN(3))
			default:
				logw[i] = 5 * r.NormFloat64()
			}
		}
		mx := math.Inf(-1)
		for _, v := range logw {
			mx = math.Max(mx, v)
		}
		u1 := []float64{0, r.Float64(), math.Nextafter(1, 0)}[trial%3]
		u2, logw0 := r.Float64(), mx+2*r.NormFloat64()
		i1, ok1, err1 := somaSelect(u1, u2, logw0, mx, logw, make([]float64, n))
		i2, ok2, err2 := somaSelectScan(u1, u2, logw0, mx, logw, make([]float64, n))
		if i1 != i2 || ok1 != ok2 || err1 != nil || err2 != nil {
			t.Fatalf("trial %d n=%d u1=%v: bisection (%d, %v, %v), scan (%d, %v, %v)", trial, n, u1, i1, ok1, err1, i2, ok2, err2)
		}
	}
}
