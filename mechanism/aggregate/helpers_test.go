package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x853c49e6748fea9b)) }

// dlapMoments returns a = e^{−1/t}, the variance and the fourth moment
// of the discrete Laplace law of scale t (closed forms from
// Σ z²aᶻ = a(1+a)/(1−a)³ and Σ z⁴aᶻ = a(1+11a+11a²+a³)/(1−a)⁵).
func dlapMoments(t float64) (a, v, m4 float64) {
	a = math.Exp(-1 / t)
	om := -math.Expm1(-1 / t) // 1 − a
	v = 2 * a / (om * om)
	m4 = 2 * a * (1 + 11*a + 11*a*a + a*a*a) / ((1 + a) * om * om * om * om)
	return a, v, m4
}

// dlapCDF returns P(Z ≤ z) for the discrete Laplace law with parameter a.
func dlapCDF(a float64, z int64) float64 {
	if z < 0 {
		return math.Pow(a, float64(-z)) / (1 + a)
	}
	return 1 - math.Pow(a, float64(z+1))/(1+a)
}

// checkDLap tests integer noise draws z against the discrete Laplace law
// of scale t: a chi-square goodness of fit on about 40 bins of equal
// probability (p < 1e-4 fails), and z-tests of the mean and the variance
// at 5 standard errors (false alarm 6e-7 each). Total false-alarm rate per
// call ≈ 1e-4.
func checkDLap(t *testing.T, name string, z []int64, scale float64) {
	t.Helper()
	a, v, m4 := dlapMoments(scale)
	n := float64(len(z))
	// Upper bin edges e_i (bin i is (e_{i−1}, e_i]) at the 1/40 quantiles.
	var edges []int64
	for i := 1; i < 40; i++ {
		u := float64(i) / 40
		var e int64
		if u <= 1/(1+a) {
			e = -int64(math.Ceil(math.Log(u*(1+a))/math.Log(a))) + 1
			for dlapCDF(a, e-1) >= u {
				e--
			}
		} else {
			e = int64(math.Floor(math.Log((1-u)*(1+a))/math.Log(a))) - 1
			for dlapCDF(a, e) < u {
				e++
			}
		}
		if len(edges) == 0 || e > edges[len(edges)-1] {
			edges = append(edges, e)
		}
	}
	obs := make([]float64, len(edges)+1)
	exp := make([]float64, len(obs))
	prev := 0.0
	for i, e := range edges {
		c := dlapCDF(a, e)
		exp[i] = (c - prev) * n
		prev = c
	}
	exp[len(edges)] = (1 - prev) * n
	var s, ss float64
	for _, zi := range z {
		s += float64(zi)
		ss += float64(zi) * float64(zi)
		lo, hi := 0, len(edges)
		for lo < hi {
			mid := (lo + hi) / 2
			if zi <= edges[mid] {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		obs[lo]++
	}
	chi, p, df := stats.ChiSquareGOF(obs, exp, 0)
	t.Logf("%s: %d draws, chi-square %.1f on %d df, p = %.3g", name, len(z), chi, df, p)
	if p < 1e-4 {
		t.Errorf("%s: noise law chi-square p = %.3g", name, p)
	}
	mean := s / n
	if math.Abs(mean) > 5*math.Sqrt(v/n) {
		t.Errorf("%s: noise mean %v, want 0 ± %v", name, mean, 5*math.Sqrt(v/n))
	}
	vr := ss / n
	if math.Abs(vr-v) > 5*math.Sqrt((m4-v*v)/n) {
		t.Errorf("%s: noise variance %v, want %v ± %v", name, vr, v, 5*math.Sqrt((m4-v*v)/n))
	}
}

// Privacy audit: for neighbouring inputs and an output event E, ε-DP
// requires P(E | D) ≤ e^ε P(E | D'). From n draws per side, Clopper–Pearson
// intervals at level 1e-6 give the lower bound
// ε_lb = log(lo(P(E|D)) / hi(P(E|D'))), maximised over E, its complement
// and both orders. For a correct mechanism ε_lb > ε has probability below
// 4e-6 per audit.
const auditAlpha = 1e-6

func auditLowerBound(n int, seed uint64, event func(r *rand.Rand, side int) bool) float64 {
	var k [2]int64
	for side := range 2 {
		r := newRand(seed + uint64(side)*7919)
		for range n {
			if event(r, side) {
				k[side]++
			}
		}
	}
	nn := int64(n)
	lb := math.Inf(-1)
	for _, kk := range [][2]int64{{k[0], k[1]}, {nn - k[0], nn - k[1]}} {
		lo0, hi0 := stats.ClopperPearson(kk[0], nn, auditAlpha)
		lo1, hi1 := stats.ClopperPearson(kk[1], nn, auditAlpha)
		lb = math.Max(lb, math.Max(math.Log(lo0/hi1), math.Log(lo1/hi0)))
	}
	return lb
}

// onLattice reports whether v is an exactly representable multiple of
// 2^k with |v/2^k| < 2^53: a point that the discrete Laplace release of
// any neighbouring input also reaches with positive probability.
func onLattice(v float64, k int) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	i := math.Ldexp(v, -k)
	return i == math.Trunc(i) && math.Abs(i) < 1<<53 && math.Ldexp(i, k) == v
}

// within returns c with the bounds [lo, hi].
func within(c Config, lo, hi float64) Config {
	c.Lo, c.Hi = lo, hi
	return c
}

// withK returns c with the bounds [lo, hi] and k quantile candidates.
func withK(c Config, lo, hi float64, k int) Config {
	c.Lo, c.Hi, c.Candidates = lo, hi, k
	return c
}
