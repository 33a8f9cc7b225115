package variate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/testutil"
)

func TestUniformNormalExpKS(t *testing.T) {
	ksCheck(t, "Uniform01Open", 1, nCont, Uniform01Open, func(x float64) float64 { return x })
	ksCheck(t, "Normal", 2, nCont, Normal, special.NormCDF)
	ksCheck(t, "Exp", 3, nCont, Exp, func(x float64) float64 { return -math.Expm1(-x) })
	// Tails of the ziggurats: the conditional law beyond 3 is tested too.
	ksCheck(t, "Normal | Z > 3", 4, 5000, func(r *rand.Rand) float64 {
		for {
			if z := Normal(r); z > 3 {
				return z
			}
		}
	}, func(x float64) float64 { return -math.Expm1(special.NormLogCDF(-x) - special.NormLogCDF(-3)) })
	ksCheck(t, "Exp | E > 7", 5, 5000, func(r *rand.Rand) float64 {
		for {
			if e := Exp(r); e > 7 {
				return e - 7
			}
		}
	}, func(x float64) float64 { return -math.Expm1(-x) })
	r := newRand(6)
	for i := 0; i < 1e6; i++ {
		if u := Uniform01Open(r); !(u > 0 && u < 1) {
			t.Fatalf("Uniform01Open = %v", u)
		}
	}
}

// gammaLogCDF is the CDF of log X for X ~ Gamma(a, 1): P(a, e^y), with the
// leading term of the series P(a, x) = x^a/Γ(a+1)·(1 − a·x/(a+1) + …) where
// e^y is below 1e-30 (relative error < 1e-30).
func gammaLogCDF(a float64) func(float64) float64 {
	lg, _ := math.Lgamma(a + 1)
	return func(y float64) float64 {
		if y < -69 {
			return math.Exp(a*y - lg)
		}
		return special.GammaP(a, math.Exp(y))
	}
}

func TestGammaKS(t *testing.T) {
	for i, c := range []struct{ shape, scale float64 }{
		{0.1, 1}, {0.5, 2}, {0.999, 1}, {1, 3}, {1.5, 1}, {2.5, 0.5}, {10, 1}, {1e3, 1}, {1e6, 1e-6},
	} {
		ksCheck(t, fmt.Sprintf("Gamma(%g, %g)", c.shape, c.scale), uint64(100+i), nCont,
			func(r *rand.Rand) float64 { return Gamma(r, c.shape, c.scale) },
			func(x float64) float64 { return special.GammaP(c.shape, x/c.scale) })
	}
	// Tiny and huge shapes, in log space: about half of the Gamma(1e-3) draws
	// lie below 1e-308, so only GammaLog can represent them.
	for i, a := range []float64{1e-3, 1e-2, 0.3, 1, 7.5, 1e3} {
		ksCheck(t, fmt.Sprintf("GammaLog(%g)", a), uint64(120+i), nCont,
			func(r *rand.Rand) float64 { return GammaLog(r, a) }, gammaLogCDF(a))
	}
}

// betaLogCDF is the CDF of log X for X ~ Beta(a, b), accurate when X is
// within rounding of 0 (leading term x^a/(a·B(a,b)) of I_x(a, b) below
// x = 1e-290) or of 1 (through I_{1−x}(b, a) with 1 − x = −expm1(y)).
func betaLogCDF(a, b float64) func(float64) float64 {
	lb := special.LogBeta(a, b)
	return func(y float64) float64 {
		switch {
		case y < -667:
			return math.Exp(a*y - math.Log(a) - lb)
		case y > -math.Ln2:
			z := -math.Expm1(y)
			if z < 1e-290 {
				return 1 - math.Exp(b*math.Log(z)-math.Log(b)-lb)
			}
			return special.BetaIncC(b, a, z) // = 1 − I_z(b, a)
		}
		return special.BetaInc(a, b, math.Exp(y))
	}
}

// betaLogitCDF is the CDF of log(X/(1−X)) for X ~ Beta(a, b).
func betaLogitCDF(a, b float64) func(float64) float64 {
	lb := special.LogBeta(a, b)
	return func(s float64) float64 {
		switch {
		case s < -667: // I_x(a, b) ≈ x^a/(a·B(a, b)), log x = s to double precision
			return math.Exp(a*s - math.Log(a) - lb)
		case s > 667:
			return 1 - math.Exp(-b*s-math.Log(b)-lb)
		case s > 0: // 1 − I_{1−x}(b, a), 1 − x = 1/(1+e^s)
			return special.BetaIncC(b, a, 1/(1+math.Exp(s)))
		}
		return special.BetaInc(a, b, 1/(1+math.Exp(-s)))
	}
}

func TestBetaKS(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	for i, c := range []struct{ a, b float64 }{
		{0.05, 1.5}, {0.1, 3}, {0.5, 0.5}, {0.9, 0.95}, {0.01, 0.3}, {1, 1}, {2, 5}, {0.7, 40}, {200, 300}, {1e3, 2e3},
	} {
		ksCheck(t, fmt.Sprintf("Beta(%g, %g)", c.a, c.b), uint64(200+i), nCont,
			func(r *rand.Rand) float64 { return Beta(r, c.a, c.b) },
			func(x float64) float64 { return special.BetaInc(c.a, c.b, x) })
	}
	// Small shapes through BetaLog. When X is within 5e-324 of 1, log X
	// rounds to -0 (for a = b = 1e-3 a quarter of the mass) while log(1−X)
	// keeps the information, so the lossless statistic is the logit
	// log X − log(1−X); log X alone is tested where it is representable.
	for i, c := range []struct{ a, b float64 }{{1e-3, 1e-3}, {1e-3, 0.5}, {0.5, 1e-3}, {0.02, 5}, {3, 4}} {
		ksCheck(t, fmt.Sprintf("BetaLog(%g, %g) logit", c.a, c.b), uint64(220+i), nCont,
			func(r *rand.Rand) float64 { lx, l1 := BetaLog(r, c.a, c.b); return lx - l1 }, betaLogitCDF(c.a, c.b))
	}
	for i, c := range []struct{ a, b float64 }{{1e-3, 0.5}, {0.02, 5}, {3, 4}} {
		ksCheck(t, fmt.Sprintf("BetaLog(%g, %g) log X", c.a, c.b), uint64(230+i), nCont,
			func(r *rand.Rand) float64 { l, _ := BetaLog(r, c.a, c.b); return l }, betaLogCDF(c.a, c.b))
		ksCheck(t, fmt.Sprintf("BetaLog(%g, %g) log(1-X)", c.b, c.a), uint64(235+i), nCont,
			func(r *rand.Rand) float64 { _, l := BetaLog(r, c.b, c.a); return l }, betaLogCDF(c.a, c.b))
	}
	// The two logs describe the same draw: X + (1−X) = 1.
	r := newRand(240)
	for i := 0; i < 10000; i++ {
		lx, l1 := BetaLog(r, 0.3, 0.2)
		if s := math.Exp(lx) + math.Exp(l1); math.Abs(s-1) > 1e-14 {
			t.Fatalf("BetaLog: X + (1-X) = %v", s)
		}
	}
}

func TestDirichletKS(t *testing.T) {
	for ci, alpha := range [][]float64{{0.3, 2, 5}, {0.05, 0.05, 0.05, 0.05}, {1, 1}, {40, 10, 25}} {
		a0 := 0.0
		for _, a := range alpha {
			a0 += a
		}
		// Each marginal is Beta(α_i, α_0 − α_i); draw whole vectors so the
		// test covers the generator as used.
		for i, ai := range alpha {
			dst := make([]float64, len(alpha))
			ksCheck(t, fmt.Sprintf("Dirichlet%v marginal %d", alpha, i), uint64(300+10*ci+i), nCont/2,
				func(r *rand.Rand) float64 { Dirichlet(r, alpha, dst); return dst[i] },
				func(x float64) float64 { return special.BetaInc(ai, a0-ai, x) })
		}
		r := newRand(uint64(350 + ci))
		dst := make([]float64, len(alpha))
		for k := 0; k < 2000; k++ {
			Dirichlet(r, alpha, dst)
			s := 0.0
			for _, x := range dst {
				if !(x >= 0 && x <= 1) {
					t.Fatalf("Dirichlet%v component %v", alpha, x)
				}
				s += x
			}
			if math.Abs(s-1) > 1e-14 {
				t.Fatalf("Dirichlet%v sums to %v", alpha, s)
			}
		}
	}
}

func TestLaplaceKS(t *testing.T) {
	for i, c := range []struct{ mu, b float64 }{{0, 1}, {3, 0.1}, {-1e6, 1e4}} {
		ksCheck(t, fmt.Sprintf("Laplace(%g, %g)", c.mu, c.b), uint64(400+i), nCont,
			func(r *rand.Rand) float64 { return Laplace(r, c.mu, c.b) },
			func(x float64) float64 {
				z := (x - c.mu) / c.b
				if z < 0 {
					return 0.5 * math.Exp(z)
				}
				return 1 - 0.5*math.Exp(-z)
			})
	}
}

func TestStudentTKS(t *testing.T) {
	for i, df := range []float64{0.5, 1, 2.5, 5, 30, 1e6} {
		ksCheck(t, fmt.Sprintf("StudentT(%g)", df), uint64(500+i), nCont,
			func(r *rand.Rand) float64 { return StudentT(r, df) },
			func(x float64) float64 { return special.StudentTCDF(x, df) })
	}
	ksCheck(t, "StudentT(+Inf)", 510, nCont,
		func(r *rand.Rand) float64 { return StudentT(r, math.Inf(1)) }, special.NormCDF)
	// Very small df: |T| exceeds 1e154 with probability ~3% at df = 0.01, so
	// test log|T|, using df/(df+T²) ~ Beta(df/2, 1/2):
	// P(log|T| ≤ s) = 1 − I_w(df/2, 1/2) with log w = log df − log(df + e^{2s}).
	for i, df := range []float64{0.01, 0.1} {
		lb := special.LogBeta(df/2, 0.5)
		ksCheck(t, fmt.Sprintf("StudentT(%g) log|T|", df), uint64(520+i), nCont,
			func(r *rand.Rand) float64 { return math.Log(math.Abs(StudentT(r, df))) },
			func(s float64) float64 {
				var lw float64
				if s > 0 {
					lw = math.Log(df) - 2*s - math.Log1p(df*math.Exp(-2*s))
				} else {
					lw = math.Log(df) - math.Log(df+math.Exp(2*s))
				}
				if lw < -690 {
					return 1 - math.Exp(df/2*lw-math.Log(df/2)-lb)
				}
				return special.BetaIncC(df/2, 0.5, math.Exp(lw))
			})
	}
}

// truncCDF is the CDF of N(mu, sigma²) truncated to [lo, hi], computed in log
// space on the side of the mode away from the interval so that it stays
// accurate far in the tails.
func truncCDF(mu, sigma, lo, hi float64) func(float64) float64 {
	a, b := (lo-mu)/sigma, (hi-mu)/sigma
	return func(x float64) float64 {
		z := (x - mu) / sigma
		switch {
		case z <= a:
			return 0
		case z >= b:
			return 1
		case a >= 0: // (Q(a) − Q(z))/(Q(a) − Q(b)), Q the upper tail
			la := special.NormLogCDF(-a)
			return math.Expm1(special.NormLogCDF(-z)-la) / math.Expm1(special.NormLogCDF(-b)-la)
		case b <= 0:
			lb := special.NormLogCDF(b)
			num := math.Exp(special.NormLogCDF(z)-lb) - math.Exp(special.NormLogCDF(a)-lb)
			return num / -math.Expm1(special.NormLogCDF(a)-lb)
		}
		return (special.NormCDF(z) - special.NormCDF(a)) / (special.NormCDF(b) - special.NormCDF(a))
	}
}

var truncCases = []struct{ mu, sigma, lo, hi float64 }{
	{0, 1, -1, 2},                          // uniform rejection around 0
	{0, 1, -0.1, 0.1},                      // very narrow around 0
	{0, 1, -3, 4},                          // normal rejection
	{0, 1, math.Inf(-1), math.Inf(1)},      // no truncation
	{0, 1, 0, math.Inf(1)},                 // half-normal
	{0, 1, 0.2, 5},                         // small a, two-sided
	{0, 1, 1, math.Inf(1)},                 // one-sided tail
	{0, 1, 2, 2.3},                         // narrow tail interval: uniform
	{0, 1, 2, 4},                           // two-sided exponential
	{0, 1, 10, math.Inf(1)},                // 10 sd out
	{0, 1, math.Inf(-1), -10},              // 10 sd out, left
	{0, 1, 10, 10.2},                       // 10 sd out, two-sided
	{5, 2, 30, 40},                         // 12.5 sd out, scaled
	{0, 1, 38, math.Inf(1)},                // Φ(−38) underflows below 1e-300
	{1e10, 1e-2, 1e10 + 0.03, 1e10 + 0.05}, // large mu, small sigma
}

func TestTruncNormalKS(t *testing.T) {
	for i, c := range truncCases {
		lo, hi := c.lo, c.hi
		ksCheck(t, fmt.Sprintf("TruncNormal(%g, %g, [%g, %g])", c.mu, c.sigma, lo, hi), uint64(600+i), nCont,
			func(r *rand.Rand) float64 {
				x := TruncNormal(r, c.mu, c.sigma, lo, hi)
				if !(x >= lo && x <= hi) {
					t.Fatalf("TruncNormal(%v,%v,%v,%v) = %v outside", c.mu, c.sigma, lo, hi, x)
				}
				return x
			}, truncCDF(c.mu, c.sigma, lo, hi))
	}
}

func TestTruncNormalBounds(t *testing.T) {
	r := newRand(650)
	one := 1.0
	next := math.Nextafter(one, 2)
	cases := [][4]float64{
		{0, 1, one, next},
		{0, 1, 1e3, math.Inf(1)},
		{0, 1, -1e3 - 1e-9, -1e3},
		{1e300, 1e300, -1e308, 1e308},
		{0, 1e-300, -5e-324, 5e-324},
		{7, 1, -1e-12, 1e-12},
	}
	for _, c := range cases {
		for i := 0; i < 20000; i++ {
			x := TruncNormal(r, c[0], c[1], c[2], c[3])
			if !(x >= c[2] && x <= c[3]) {
				t.Fatalf("TruncNormal%v = %v outside", c, x)
			}
		}
	}
}

// TestKSPower checks that the KS harness detects small departures, so the
// tests above can fail: each slightly wrong generator must be rejected.
func TestKSPower(t *testing.T) {
	r := newRand(700)
	xs := make([]float64, nCont)
	for i := range xs {
		xs[i] = Gamma(r, 1.05, 1) // shape 5% off
	}
	if _, p := ksOne(xs, func(x float64) float64 { return special.GammaP(1, x) }); p >= pReject {
		t.Errorf("KS missed Gamma shape 1.05 vs 1: p=%g", p)
	}
	for i := range xs {
		xs[i] = TruncNormal(r, 0, 1, 10.05, math.Inf(1)) // truncation point 0.05 off
	}
	if _, p := ksOne(xs, truncCDF(0, 1, 10, math.Inf(1))); p >= pReject {
		t.Errorf("KS missed truncation 10.05 vs 10: p=%g", p)
	}
}

// TestGammaTinyShapeUnderflow checks the documented behaviour of Gamma for
// shape 1e-3: draws below half the smallest subnormal (2^-1075) round to 0,
// which happens with probability P(1e-3, 2^-1075) = 2^(-1.075)/Γ(1.001)
// ≈ 0.475; the count of zeros must match (two-sided z-test, |z| < 4.4, i.e.
// false-alarm rate 1e-5).
func TestGammaTinyShapeUnderflow(t *testing.T) {
	const a, n = 1e-3, 20000
	lg, _ := math.Lgamma(1 + a)
	p0 := math.Exp(a*-1075*math.Ln2 - lg)
	r := newRand(140)
	zeros := 0
	for i := 0; i < n; i++ {
		x := Gamma(r, a, 1)
		if x == 0 {
			zeros++
		} else if !(x > 0) {
			t.Fatalf("Gamma(1e-3) = %v", x)
		}
	}
	z := (float64(zeros) - n*p0) / math.Sqrt(n*p0*(1-p0))
	t.Logf("Gamma(1e-3): %d zeros of %d, expected %.1f, z = %.2f", zeros, n, n*p0, z)
	if math.Abs(z) > 4.4 {
		t.Errorf("Gamma(1e-3) zero fraction %v, want %v", float64(zeros)/n, p0)
	}
	// A large scale rescues tiny draws: Gamma(1e-3, 1e300) is 0 only below
	// 2^-1075/1e300.
	p0 = math.Exp(a*(-1075*math.Ln2-300*math.Ln10) - lg)
	zeros = 0
	for i := 0; i < n; i++ {
		if Gamma(r, a, 1e300) == 0 {
			zeros++
		}
	}
	z = (float64(zeros) - n*p0) / math.Sqrt(n*p0*(1-p0))
	if math.Abs(z) > 4.4 {
		t.Errorf("Gamma(1e-3, 1e300) zero fraction %v, want %v", float64(zeros)/n, p0)
	}
}
