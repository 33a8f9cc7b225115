package variate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/testutil"
)

// simpson integrates f over [a, b] with n (even) panels.
func simpson(f func(float64) float64, a, b float64, n int) float64 {
	if n%2 == 1 {
		n++
	}
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}

func checkOne(t *testing.T, name string, got, tol float64) {
	t.Helper()
	t.Logf("integral %-34s = 1 %+.2e", name, got-1)
	if !(math.Abs(got-1) <= tol) {
		t.Errorf("%s integrates to %.15g, want 1 ± %g", name, got, tol)
	}
}

func TestLogPdfIntegratesToOne(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	checkOne(t, "Normal(1, 2)", simpson(func(x float64) float64 { return math.Exp(NormalLogPdf(x, 1, 2)) }, -79, 81, 4000), 1e-12)
	lap := func(x float64) float64 { return math.Exp(LaplaceLogPdf(x, 3, 0.5)) }
	checkOne(t, "Laplace(3, 0.5)", simpson(lap, 3-40, 3, 20000)+simpson(lap, 3, 3+40, 20000), 1e-11)

	// Gamma in y = log x; the mass below x0 = e^-700 is (x0/s)^a/Γ(a+1).
	for _, c := range []struct{ a, s float64 }{{1e-3, 1}, {0.1, 2}, {0.5, 1}, {1, 3}, {2.5, 0.5}, {30, 1}, {1e3, 1}} {
		y0 := -700.0
		y1 := math.Log(c.s * (c.a + 60*math.Sqrt(c.a) + 100))
		h := math.Min(0.01, 0.05/math.Sqrt(c.a))
		f := func(y float64) float64 { return math.Exp(GammaLogPdf(math.Exp(y), c.a, c.s) + y) }
		lg, _ := math.Lgamma(c.a + 1)
		tail := math.Exp(c.a*(y0-math.Log(c.s)) - lg)
		checkOne(t, fmt.Sprintf("Gamma(%g, %g)", c.a, c.s), simpson(f, y0, y1, int((y1-y0)/h))+tail, 1e-10)
	}

	// Beta in logit space s, x = 1/(1+e^-s) ≤ 1/2 on each half; the half
	// x ≥ 1/2 is the half x ≤ 1/2 of Beta(b, a) (1−X ~ Beta(b, a)).
	for _, c := range []struct{ a, b float64 }{{1e-3, 1e-3}, {0.05, 2}, {0.5, 0.5}, {1, 1}, {2, 5}, {3, 40}, {1e3, 2e3}} {
		half := func(a, b float64) float64 {
			f := func(s float64) float64 {
				x := 1 / (1 + math.Exp(-s))
				return math.Exp(BetaLogPdf(x, a, b) + math.Log(x) - math.Log1p(math.Exp(s)))
			}
			s0 := -700.0
			tail := math.Exp(a*s0 - math.Log(a) - special.LogBeta(a, b))
			h := math.Min(0.02, 0.05*math.Sqrt(1/a+1/b)) // logit sd ≈ sqrt(1/a + 1/b)
			return simpson(f, s0, 0, int(-s0/h)) + tail
		}
		checkOne(t, fmt.Sprintf("Beta(%g, %g)", c.a, c.b), half(c.a, c.b)+half(c.b, c.a), 1e-9)
	}

	// Student t in x = sinh(u); tails beyond |x| = sinh(700) are negligible
	// for df ≥ 0.5 (mass < 1e-150).
	for _, df := range []float64{0.5, 1, 3, 30, 1e6, math.Inf(1)} {
		f := func(u float64) float64 { return math.Exp(StudentTLogPdf(math.Sinh(u), df)) * math.Cosh(u) }
		checkOne(t, fmt.Sprintf("StudentT(%g)", df), simpson(f, -700, 700, 70000), 1e-10)
	}

	for _, c := range truncCases {
		if c.mu > 1e9 {
			continue // the interval spans only ~1e4 float64 values: no fine grid
		}
		lo, hi := c.lo, c.hi
		if math.IsInf(lo, -1) {
			lo = math.Min(c.mu-40*c.sigma, hi-40*c.sigma)
		}
		if math.IsInf(hi, 1) {
			hi = math.Max(c.mu+40*c.sigma, lo+40*c.sigma/math.Max(1, (lo-c.mu)/c.sigma))
		}
		f := func(x float64) float64 { return math.Exp(TruncNormalLogPdf(x, c.mu, c.sigma, c.lo, c.hi)) }
		checkOne(t, fmt.Sprintf("TruncNormal(%g,%g,[%g,%g])", c.mu, c.sigma, c.lo, c.hi), simpson(f, lo, hi, 200000), 1e-9)
	}

	// Dirichlet(2, 3, 4) over the 2-simplex (polynomial integrand).
	alpha := []float64{2, 3, 4}
	x := make([]float64, 3)
	outer := func(x1 float64) float64 {
		return simpson(func(x2 float64) float64 {
			x[0], x[1], x[2] = x1, x2, 1-x1-x2
			if x[2] < 0 {
				x[2] = 0
			}
			return math.Exp(DirichletLogPdf(x, alpha))
		}, 0, 1-x1, 400)
	}
	checkOne(t, "Dirichlet(2,3,4)", simpson(outer, 0, 1, 400), 2e-9)
	// Dirichlet with K = 2 is Beta.
	for _, u := range []float64{0.01, 0.3, 0.77} {
		if d, b := DirichletLogPdf([]float64{u, 1 - u}, []float64{0.4, 2.5}), BetaLogPdf(u, 0.4, 2.5); math.Abs(d-b) > 1e-13 {
			t.Errorf("Dirichlet2 %v vs Beta %v", d, b)
		}
	}
}

func TestLogPmfSumsToOne(t *testing.T) {
	for _, c := range []struct {
		n int64
		p float64
	}{{20, 0.3}, {1e5, 0.9}, {1e9, 1e-9}, {1e9, 0.5}, {1e18, 1e-17}} {
		mean := float64(c.n) * c.p
		lo, hi := window(mean, math.Sqrt(mean*(1-c.p)), c.n)
		s := 0.0
		for k := lo; k <= hi; k++ {
			s += math.Exp(BinomialLogPmf(k, c.n, c.p))
		}
		checkOne(t, fmt.Sprintf("sum Binomial(%d, %g)", c.n, c.p), s, 1e-12)
	}
	for _, lam := range []float64{1e-3, 0.1, 3, 10, 1e6, 1e9} {
		lo, hi := window(lam, math.Sqrt(lam), math.MaxInt64)
		s := 0.0
		for k := lo; k <= hi; k++ {
			s += math.Exp(PoissonLogPmf(k, lam))
		}
		checkOne(t, fmt.Sprintf("sum Poisson(%g)", lam), s, 1e-12)
	}
	w := []float64{0, 2, 0, 1, 1}
	s := 0.0
	k := make([]int64, len(w))
	compositions(8, len(w), k, func(k []int64) { s += math.Exp(MultinomialLogPmf(k, w)) })
	checkOne(t, "sum Multinomial(8, [0 2 0 1 1])", s, 1e-13)
	a, _ := NewAlias([]float64{0.5, 0, 3, 1e-9})
	s = 0
	for i := 0; i < a.Len(); i++ {
		s += math.Exp(a.LogPmf(i))
	}
	checkOne(t, "sum Alias", s, 1e-15)
}

// TestGeneratorMatchesLogPdf tests generators against the CDF obtained by
// integrating their own log density (cumulative Simpson on a fine grid,
// linear interpolation), so densities and generators are tied directly.
func TestGeneratorMatchesLogPdf(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	for i, c := range []struct {
		name   string
		lo, hi float64
		logpdf func(float64) float64
		gen    func(r *rand.Rand) float64
	}{
		{"Gamma(2.5, 1)", 0, 60, func(x float64) float64 { return GammaLogPdf(x, 2.5, 1) },
			func(r *rand.Rand) float64 { return Gamma(r, 2.5, 1) }},
		{"Beta(2, 5)", 0, 1, func(x float64) float64 { return BetaLogPdf(x, 2, 5) },
			func(r *rand.Rand) float64 { return Beta(r, 2, 5) }},
		{"StudentT(2.5) on [-1e3, 1e3]", -1e3, 1e3, func(x float64) float64 { return StudentTLogPdf(x, 2.5) },
			func(r *rand.Rand) float64 {
				for {
					if x := StudentT(r, 2.5); math.Abs(x) <= 1e3 {
						return x
					}
				}
			}},
		{"Laplace(0, 1)", -50, 50, func(x float64) float64 { return LaplaceLogPdf(x, 0, 1) },
			func(r *rand.Rand) float64 { return Laplace(r, 0, 1) }},
		{"TruncNormal(0, 1, [10, Inf])", 10, 14, func(x float64) float64 { return TruncNormalLogPdf(x, 0, 1, 10, math.Inf(1)) },
			func(r *rand.Rand) float64 { return TruncNormal(r, 0, 1, 10, math.Inf(1)) }},
		{"TruncNormal(0, 1, [-1, 2])", -1, 2, func(x float64) float64 { return TruncNormalLogPdf(x, 0, 1, -1, 2) },
			func(r *rand.Rand) float64 { return TruncNormal(r, 0, 1, -1, 2) }},
	} {
		const m = 200000
		h := (c.hi - c.lo) / m
		grid := make([]float64, m+1)
		cum := make([]float64, m+1)
		prev := math.Exp(c.logpdf(c.lo))
		if math.IsInf(prev, 1) {
			prev = 0
		}
		for j := 1; j <= m; j++ {
			x := c.lo + float64(j)*h
			grid[j] = x
			mid := math.Exp(c.logpdf(x - h/2))
			cur := math.Exp(c.logpdf(x))
			cum[j] = cum[j-1] + h/6*(prev+4*mid+cur)
			prev = cur
		}
		grid[0] = c.lo
		tot := cum[m]
		cdf := func(x float64) float64 {
			j := sort.SearchFloat64s(grid, x)
			switch {
			case j == 0:
				return 0
			case j > m:
				return 1
			}
			f := cum[j-1] + (cum[j]-cum[j-1])*(x-grid[j-1])/h
			return math.Min(1, f/tot)
		}
		ksCheck(t, c.name+" vs own pdf", uint64(1600+i), nCont, c.gen, cdf)
	}
}
