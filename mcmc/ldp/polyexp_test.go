package ldp

import (
	"math"
	"testing"
)

func TestTruncNormalMomentsVsQuadrature(t *testing.T) {
	worst := 0.0
	for _, c := range [][4]float64{
		{0, 1, -1, 2}, {0.5, 2, math.Inf(-1), 1}, {-1, 0.5, 0, math.Inf(1)}, {3, 1, -2, -1}, {-20, 1, 0, 2}, {1, 3, 0.99, 1.01}, {0, 1, 5, 9},
	} {
		mu, sig, a, b := c[0], c[1], c[2], c[3]
		var dst [9]float64
		logZ := truncNormalMoments(mu, sig, a, b, dst[:])
		lo, hi := math.Max(a, mu-40*sig), math.Min(b, mu+40*sig)
		// Quadrature relative to the density at the point of [lo,hi] nearest mu.
		x0 := math.Max(lo, math.Min(hi, mu))
		ref0 := -0.5 * ((x0 - mu) / sig) * ((x0 - mu) / sig)
		dens := func(x float64) float64 {
			u := (x - mu) / sig
			return math.Exp(-0.5*u*u-ref0) / (sig * math.Sqrt(2*math.Pi))
		}
		Z := integrate(dens, lo, hi, mu, mu-sig, mu+sig, lo+sig/10, hi-sig/10)
		if e := math.Abs(logZ - (math.Log(Z) + ref0)); e > 1e-10 {
			t.Errorf("%v: log Z = %v, quadrature %v", c, logZ, math.Log(Z)+ref0)
		}
		for k := range dst {
			ref := integrate(func(x float64) float64 { return math.Pow(x, float64(k)) * dens(x) }, lo, hi, mu, mu-sig, mu+sig, lo+sig/10, hi-sig/10, 0) / Z
			e := relErr(dst[k], ref)
			worst = math.Max(worst, e)
			if e > 1e-8 {
				t.Errorf("%v: E[x^%d] = %.16g, quadrature %.16g (rel %.2g)", c, k, dst[k], ref, e)
			}
		}
	}
	t.Logf("truncated-normal moments: worst relative error %.2g", worst)
}

func TestPolyExpQuadVsQuadrature(t *testing.T) {
	type fam struct {
		g          []float64
		h0, h1, h2 float64
		a, b       float64
	}
	fams := []fam{
		{[]float64{1}, 0, 0, -0.5, math.Inf(-1), math.Inf(1)},         // N(0,1)
		{[]float64{0, 0, 1}, 0, 0.3, -0.5, math.Inf(-1), math.Inf(1)}, // x² e^{…}
		{[]float64{1, 2, 0, 1}, 1, -1, -2, 0, 3},                      // cubic, truncated
		{[]float64{0, 1}, 0, 4, -0.25, 0, math.Inf(1)},                // x e^{…} on (0,∞)
		{[]float64{2, -1, 0.5, 0, 0.1}, -3, 0, -0.1, -2, 5},           // quartic
		{[]float64{1, 0, 0, 0, 0, 0, 1}, 0, 0, -1, -1, 1},             // degree 6
	}
	worst := 0.0
	for fi, f := range fams {
		p, err := NewPolyExpQuad(PolyExpQuadConfig{G: f.g, H0: f.h0, H1: f.h1, H2: f.h2, A: f.a, B: f.b})
		if err != nil {
			t.Fatal(err)
		}
		m0, s0 := -f.h1/(2*f.h2), math.Sqrt(-0.5/f.h2)
		lo, hi := math.Max(f.a, m0-40*s0), math.Min(f.b, m0+40*s0)
		gh := func(x float64) float64 {
			gx := 0.0
			for j := len(f.g) - 1; j >= 0; j-- {
				gx = gx*x + f.g[j]
			}
			return gx * math.Exp(f.h0+f.h1*x+f.h2*x*x)
		}
		br := []float64{m0, m0 - s0, m0 + s0, 0}
		C := 1 / integrate(gh, lo, hi, br...)
		if e := math.Abs(p.LogNormalizer() - math.Log(C)); e > 1e-10 {
			t.Errorf("family %d: log C = %v, quadrature %v", fi, p.LogNormalizer(), math.Log(C))
		}
		for _, sigma := range []float64{0.05, 0.7, 3} {
			for _, z := range []float64{-6, -1, 0, 0.4, 2.5, 8} {
				f2 := func(x float64) float64 {
					u := (z - x) / sigma
					return math.Exp(-0.5*u*u) / (sigma * math.Sqrt(2*math.Pi)) * C * gh(x)
				}
				ref := integrate(f2, lo, hi, append(br, z, z-sigma, z+sigma, z-5*sigma, z+5*sigma)...)
				if ref < 1e-290 {
					continue
				}
				got := math.Exp(p.LogMarginal(z, sigma))
				e := relErr(got, ref)
				worst = math.Max(worst, e)
				if e > 1e-8 {
					t.Errorf("family %d sigma=%v z=%v: got %.16g want %.16g (rel %.2g)", fi, sigma, z, got, ref, e)
				}
			}
		}
	}
	t.Logf("Lemma 3.2 family: worst relative error vs quadrature %.2g", worst)
}

func TestPolyExpQuadErrors(t *testing.T) {
	bad := []struct {
		g        []float64
		h2, a, b float64
	}{
		{nil, -1, 0, 1},
		{[]float64{1}, 0, 0, 1},
		{[]float64{1}, -1, 1, 1},
		{[]float64{math.NaN()}, -1, 0, 1},
		{[]float64{-1}, -1, 0, 1},
		{make([]float64, 30), -1, 0, 1},
	}
	for i, c := range bad {
		if _, err := NewPolyExpQuad(PolyExpQuadConfig{G: c.g, H0: 0, H1: 0, H2: c.h2, A: c.a, B: c.b}); err == nil {
			t.Errorf("case %d: want error", i)
		}
	}
}
