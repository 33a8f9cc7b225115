package simulate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/variate"
)

type cdfDist interface {
	Univariate
	Invertible
}

// TestUnivariateKS draws 5000 values from every univariate distribution
// (and truncations in both the rejection and the inversion regime) and
// applies a one-sample KS test against its CDF at level 1e-4 (12 tests:
// family false-alarm rate ≤ 1.2e-3; fixed seed).
func TestUnivariateKS(t *testing.T) {
	must := func(d cdfDist, err error) cdfDist {
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	nrm := must(NewNormal(NormalConfig{Mu: 1, Sigma: 2}))
	gm := must(NewGamma(GammaConfig{Shape: 2.5, Scale: 0.7}))
	dists := []struct {
		name string
		d    cdfDist
	}{
		{"normal", nrm},
		{"lognormal", must(NewLogNormal(NormalConfig{Mu: -0.3, Sigma: 0.8}))},
		{"uniform", must(NewUniform(UniformConfig{Lo: -2, Hi: 5}))},
		{"halfnormal", must(NewHalfNormal(1.5))},
		{"gamma", gm},
		{"gamma small shape", must(NewGamma(GammaConfig{Shape: 0.3, Scale: 2}))},
		{"beta", must(NewBeta(BetaConfig{Alpha: 2, Beta: 5}))},
		{"beta small", must(NewBeta(BetaConfig{Alpha: 0.5, Beta: 0.7}))},
		{"normal truncated wide", must(Truncate(nrm, 0, 10))},
		{"normal truncated tail", must(Truncate(nrm, 7, math.Inf(1)))},
		{"normal truncated left tail", must(Truncate(nrm, math.Inf(-1), -5))},
		{"gamma truncated", must(Truncate(gm, 4, 6))},
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range dists {
		x := make([]float64, 5000)
		lo, hi := c.d.Support()
		for i := range x {
			x[i] = c.d.Sample(r)
			if x[i] < lo || x[i] > hi {
				t.Fatalf("%s: sample %v outside support [%v, %v]", c.name, x[i], lo, hi)
			}
		}
		d, p := stats.KSOneSample(x, c.d.CDF)
		if !(p > 1e-4) {
			t.Errorf("%s: KS D=%v p=%v", c.name, d, p)
		}
		// The density integrates to the CDF: check the interval between the
		// sample's 20% and 70% quantiles by Simpson's rule.
		slices.Sort(x)
		a, b := x[1000], x[3500]
		const m = 2000
		h := (b - a) / m
		s := math.Exp(c.d.LogDensity(a)) + math.Exp(c.d.LogDensity(b))
		for i := 1; i < m; i++ {
			w := 2.0
			if i%2 == 1 {
				w = 4
			}
			s += w * math.Exp(c.d.LogDensity(a+float64(i)*h))
		}
		integral := s * h / 3
		want := c.d.CDF(b) - c.d.CDF(a)
		if math.Abs(integral-want) > 1e-7*math.Max(1, want) {
			t.Errorf("%s: ∫pdf over [%v,%v] = %v, CDF difference %v", c.name, a, b, integral, want)
		}
	}
}

func TestUnivariateLogDensityClosedForms(t *testing.T) {
	g, _ := NewGamma(GammaConfig{Shape: 2.5, Scale: 0.7})
	b, _ := NewBeta(BetaConfig{Alpha: 2, Beta: 5})
	n, _ := NewNormal(NormalConfig{Mu: 1, Sigma: 2})
	ln, _ := NewLogNormal(NormalConfig{Mu: 0, Sigma: 1})
	h, _ := NewHalfNormal(2)
	u, _ := NewUniform(UniformConfig{Lo: -1, Hi: 3})
	for _, x := range []float64{0.1, 0.5, 1.3, 4} {
		if d := g.LogDensity(x) - variate.GammaLogPdf(x, 2.5, 0.7); math.Abs(d) > 1e-12 {
			t.Errorf("gamma logpdf(%v) off by %v", x, d)
		}
		if d := n.LogDensity(x) - variate.NormalLogPdf(x, 1, 2); math.Abs(d) > 1e-12 {
			t.Errorf("normal logpdf(%v) off by %v", x, d)
		}
		want := -math.Log(x) - 0.5*math.Log(2*math.Pi) - 0.5*math.Log(x)*math.Log(x)
		if d := ln.LogDensity(x) - want; math.Abs(d) > 1e-12 {
			t.Errorf("lognormal logpdf(%v) off by %v", x, d)
		}
		if d := h.LogDensity(x) - (math.Log(2) + variate.NormalLogPdf(x, 0, 2)); math.Abs(d) > 1e-12 {
			t.Errorf("halfnormal logpdf(%v) off by %v", x, d)
		}
	}
	for _, x := range []float64{0.05, 0.3, 0.9} {
		if d := b.LogDensity(x) - variate.BetaLogPdf(x, 2, 5); math.Abs(d) > 1e-12 {
			t.Errorf("beta logpdf(%v) off by %v", x, d)
		}
	}
	// Outside the support: −Inf; NaN in: NaN.
	outside := []struct {
		d Univariate
		x float64
	}{{g, -0.1}, {b, 1.1}, {b, -0.01}, {ln, 0}, {ln, -1}, {h, -1e-9}, {u, 3.0001}, {u, -2}}
	for _, c := range outside {
		if v := c.d.LogDensity(c.x); !math.IsInf(v, -1) {
			t.Errorf("%T LogDensity(%v) = %v, want -Inf", c.d, c.x, v)
		}
	}
	for _, d := range []Univariate{g, b, n, ln, h, u} {
		if v := d.LogDensity(math.NaN()); !math.IsNaN(v) {
			t.Errorf("%T LogDensity(NaN) = %v", d, v)
		}
	}
	if v := u.LogDensity(0); math.Abs(v+math.Log(4)) > 1e-15 {
		t.Errorf("uniform logpdf %v", v)
	}
}

func TestPriorConstructorsReject(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	errs := []error{}
	add := func(_ any, err error) { errs = append(errs, err) }
	add(NewNormal(NormalConfig{Mu: nan, Sigma: 1}))
	add(NewNormal(NormalConfig{Mu: 0, Sigma: 0}))
	add(NewNormal(NormalConfig{Mu: 0, Sigma: -1}))
	add(NewLogNormal(NormalConfig{Mu: 0, Sigma: inf}))
	add(NewUniform(UniformConfig{Lo: 1, Hi: 1}))
	add(NewUniform(UniformConfig{Lo: 0, Hi: inf}))
	add(NewHalfNormal(0))
	add(NewGamma(GammaConfig{Shape: 0, Scale: 1}))
	add(NewGamma(GammaConfig{Shape: 1, Scale: nan}))
	add(NewBeta(BetaConfig{Alpha: -1, Beta: 1}))
	add(NewDirichlet([]float64{1}))
	add(NewDirichlet([]float64{1, 0}))
	add(NewMVNormal(MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 0, 0}}))
	add(NewMVNormal(MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 2, 2, 1}}))
	add(NewMVNormal(MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 0.1, 0.2, 1}}))
	add(NewMVNormal(MVNormalConfig{Mean: nil, Cov: nil}))
	add(NewDiagNormal(DiagNormalConfig{Mean: []float64{0}, Variances: []float64{-1}}))
	add(NewIndependent())
	add(NewConcat())
	nrm, _ := NewNormal(NormalConfig{Mu: 0, Sigma: 1})
	add(Truncate(nrm, 2, 1))
	add(Truncate(nrm, 40, 50)) // zero mass in float64
	add(Truncate(&noCDF{}, 0, 1))
	for i, err := range errs {
		if err == nil {
			t.Errorf("invalid constructor call %d accepted", i)
		}
	}
}

type noCDF struct{}

func (noCDF) Sample(*rand.Rand) float64   { return 0 }
func (noCDF) LogDensity(float64) float64  { return 0 }
func (noCDF) Support() (float64, float64) { return 0, 1 }

// TestMVNormal checks LogDensity against the 2-d closed form and the sample
// mean and covariance of 100000 draws (5-se bounds, family false alarm
// ≈ 3e-6).
func TestMVNormal(t *testing.T) {
	cov := []float64{2, 0.6, 0.6, 1}
	p, err := NewMVNormal(MVNormalConfig{Mean: []float64{1, -1}, Cov: cov})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.4, 0.2}
	dx, dy := -0.6, 1.2
	det := 2 - 0.36
	q := (dx*dx - 1.2*dx*dy + 2*dy*dy) / det
	want := -0.5*q - 0.5*math.Log(det) - math.Log(2*math.Pi)
	if got := p.LogDensity(x); math.Abs(got-want) > 1e-12 {
		t.Errorf("LogDensity %v want %v", got, want)
	}
	if !math.IsNaN(p.LogDensity([]float64{1})) {
		t.Error("wrong length did not give NaN")
	}
	r := rand.New(rand.NewPCG(4, 4))
	const n = 100000
	var m0, m1, c00, c01, c11 float64
	th := make([]float64, 2)
	for range n {
		p.Sample(r, th)
		a, b := th[0]-1, th[1]+1
		m0 += a
		m1 += b
		c00 += a * a
		c01 += a * b
		c11 += b * b
	}
	chk := func(name string, got, want, se float64) {
		if math.Abs(got-want) > 5*se {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	chk("mean0", m0/n, 0, math.Sqrt(2.0/n))
	chk("mean1", m1/n, 0, math.Sqrt(1.0/n))
	chk("var0", c00/n, 2, 2*math.Sqrt(2.0/n))
	chk("cov", c01/n, 0.6, math.Sqrt(2.36/n))
	chk("var1", c11/n, 1, math.Sqrt(2.0/n))
}

// TestDirichlet checks LogDensity against variate.DirichletLogPdf, −Inf off
// the simplex, and the marginal law of samples: θ_1 ~ Beta(α_1, Σα − α_1)
// by KS (level 1e-4).
func TestDirichlet(t *testing.T) {
	alpha := []float64{2, 0.7, 3.5}
	p, err := NewDirichlet(alpha)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.2, 0.3, 0.5}
	if d := p.LogDensity(x) - variate.DirichletLogPdf(x, alpha); math.Abs(d) > 1e-12 {
		t.Errorf("Dirichlet LogDensity off by %v", d)
	}
	for _, bad := range [][]float64{{0.2, 0.3, 0.6}, {-0.1, 0.6, 0.5}} {
		if v := p.LogDensity(bad); !math.IsInf(v, -1) {
			t.Errorf("LogDensity(%v) = %v, want -Inf", bad, v)
		}
	}
	r := rand.New(rand.NewPCG(8, 8))
	xs := make([]float64, 5000)
	th := make([]float64, 3)
	for i := range xs {
		p.Sample(r, th)
		if s := th[0] + th[1] + th[2]; math.Abs(s-1) > 1e-12 {
			t.Fatalf("sample sums to %v", s)
		}
		xs[i] = th[1]
	}
	bm, _ := NewBeta(BetaConfig{Alpha: 0.7, Beta: 5.5})
	if _, pv := stats.KSOneSample(xs, bm.CDF); !(pv > 1e-4) {
		t.Errorf("Dirichlet marginal KS p = %v", pv)
	}
}

func TestIndependentAndConcat(t *testing.T) {
	n, _ := NewNormal(NormalConfig{Mu: 0, Sigma: 1})
	g, _ := NewGamma(GammaConfig{Shape: 2, Scale: 1})
	ind, err := NewIndependent(n, g)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.3, 1.2}
	if d := ind.LogDensity(x) - (n.LogDensity(0.3) + g.LogDensity(1.2)); d != 0 {
		t.Errorf("product log density off by %v", d)
	}
	if v := ind.LogDensity([]float64{0.3, -1}); !math.IsInf(v, -1) {
		t.Errorf("outside support: %v", v)
	}
	dir, _ := NewDirichlet([]float64{1, 1})
	c, _ := NewConcat(ind, dir)
	if c.Dim() != 4 {
		t.Fatalf("Dim %d", c.Dim())
	}
	y := []float64{0.3, 1.2, 0.4, 0.6}
	if d := c.LogDensity(y) - (ind.LogDensity(y[:2]) + dir.LogDensity(y[2:])); d != 0 {
		t.Errorf("concat log density off by %v", d)
	}
	r := rand.New(rand.NewPCG(1, 1))
	c.Sample(r, y)
	if math.IsInf(c.LogDensity(y), 0) || math.IsNaN(c.LogDensity(y)) {
		t.Errorf("sample %v has log density %v", y, c.LogDensity(y))
	}
}

// TestMVNormalMeanCov checks that Mean and Cov give back the configured
// moments (Cov through the Cholesky factor, to rounding) and nil for an
// unconstructed value.
func TestMVNormalMeanCov(t *testing.T) {
	mean := []float64{1, -2, 0.5}
	cov := []float64{2, 0.3, -0.1, 0.3, 1, 0.2, -0.1, 0.2, 0.5}
	m, err := NewMVNormal(MVNormalConfig{Mean: mean, Cov: cov})
	if err != nil {
		t.Fatal(err)
	}
	got := m.Mean()
	for i := range mean {
		if got[i] != mean[i] {
			t.Errorf("Mean()[%d] = %v, want %v", i, got[i], mean[i])
		}
	}
	got[0] = 99
	if m.Mean()[0] != 1 {
		t.Error("Mean() shares its slice")
	}
	for i, v := range m.Cov() {
		if math.Abs(v-cov[i]) > 1e-14 {
			t.Errorf("Cov()[%d] = %v, want %v", i, v, cov[i])
		}
	}
	var z *MVNormal
	if z.Mean() != nil || z.Cov() != nil || (&MVNormal{}).Cov() != nil {
		t.Error("nil or zero MVNormal has moments")
	}
}
