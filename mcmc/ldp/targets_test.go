package ldp

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mcmc"
)

// checkGrad compares t.Gradient with central finite differences at x.
func checkGrad(t *testing.T, name string, g mcmc.GradTarget, x []float64, tol float64) {
	t.Helper()
	n := g.Dim()
	grad := make([]float64, n)
	lp := g.Gradient(x, grad)
	if lp2 := g.LogDensity(x); math.Abs(lp-lp2) > 1e-12*math.Max(1, math.Abs(lp)) {
		t.Errorf("%s: Gradient returns %v, LogDensity %v", name, lp, lp2)
	}
	for j := range n {
		h := 1e-5 * math.Max(1, math.Abs(x[j]))
		xp := append([]float64(nil), x...)
		xm := append([]float64(nil), x...)
		xp[j] += h
		xm[j] -= h
		fd := (g.LogDensity(xp) - g.LogDensity(xm)) / (2 * h)
		if math.Abs(fd-grad[j]) > tol*math.Max(1, math.Abs(fd)) {
			t.Errorf("%s at %v: grad[%d] = %.10g, finite difference %.10g", name, x, j, grad[j], fd)
		}
	}
}

func TestGaussianGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, eps := range []float64{0.05, 1, 20} {
		m, _ := NewClippedGaussian(ClippedGaussianConfig{A: -2, B: 3, Epsilon: eps})
		z := []float64{-10, -2, -1.9, 0, 0.5, 2.99, 3, 3.1, 12}
		for range 5 {
			x, _ := simReport(m, r, 0.5+2*r.NormFloat64())
			z = append(z, x)
		}
		post, err := NewGaussianPosterior(m, z, GaussianPrior{Mu0: 0, Sd0: 3, Shape: 2, Rate: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range [][2]float64{{0, 0}, {-3, -1.5}, {2.5, 0.8}, {6, -3}, {0.4, 2}} {
			checkGrad(t, "Gaussian", post, x[:], 1e-6)
		}
	}
}

func TestExponentialGradient(t *testing.T) {
	for _, eps := range []float64{0.05, 1, 20} {
		m, _ := NewClippedExponential(ClippedExponentialConfig{B: 4, Epsilon: eps})
		z := []float64{-10, -0.1, 0, 0.5, 2, 3.99, 4, 4.5, 15}
		post, err := NewExponentialPosterior(m, z, ExponentialPosteriorConfig{Shape: 2, Rate: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []float64{-3, -1, math.Log(eps / 4), 0, 1.5, 3} {
			checkGrad(t, "Exponential", post, []float64{x}, 1e-6)
		}
	}
}

func TestHistogramGradient(t *testing.T) {
	m, _ := NewOUEModel(OUEModelConfig{Epsilon: 1.2, Dim: 4})
	r := rand.New(rand.NewPCG(9, 10))
	mech := m
	_ = mech
	z := make([]float64, 200*4)
	for i := range z {
		z[i] = float64(r.IntN(2))
	}
	data, _ := m.NewData(z)
	post, err := NewHistogramPosterior(data, []float64{1, 2, 0.5, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range [][]float64{{0, 0, 0}, {1, -2, 0.5}, {-4, 3, 1}} {
		checkGrad(t, "Histogram", post, x, 1e-6)
	}
	if _, err := NewHistogramPosterior(data, []float64{1, 1}); err == nil {
		t.Error("wrong alpha length: want error")
	}
}

func TestRegressionPosteriorGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	d, n := 2, 50
	zx := make([]float64, n*d)
	zy := make([]float64, n)
	yb := make([]float64, n)
	for i := range zx {
		zx[i] = r.NormFloat64()
	}
	for i := range zy {
		zy[i] = r.NormFloat64()
		yb[i] = float64(r.IntN(2))
	}
	sig := []float64{1, 0.2, 0.2, 0.5}
	ld, _ := NewLinRegData(LinRegDataConfig{ZX: zx, ZY: zy, Dim: d, SX: []float64{0.5, 0.5}})
	fc, err := ld.FixCov(sig, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := NewLinRegPosterior(fc, LinRegPosteriorConfig{SDTheta: math.Sqrt(5), Shape: 2, Rate: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkGrad(t, "LinReg", lp, []float64{0.3, -0.5, -0.2}, 1e-6)
	lg, _ := NewLogRegData(LogRegDataConfig{ZX: zx, ZY: yb, Dim: d, SX: []float64{0.5, 0.5}, EpsilonY: 1})
	b, _ := ChebyshevSigmoid(-4, 4)
	lfc, err := lg.FixCov(sig, b)
	if err != nil {
		t.Fatal(err)
	}
	gp, err := NewLogRegPosterior(lfc, LogRegPosteriorConfig{SDTheta: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkGrad(t, "LogReg", gp, []float64{0.3, -0.5}, 1e-6)
}

func TestConstructorErrors(t *testing.T) {
	for _, c := range [][3]float64{{0, 1, 0}, {0, 1, -1}, {1, 1, 1}, {2, 1, 1}, {math.NaN(), 1, 1}, {0, math.Inf(1), 1}, {0, 1, math.NaN()}, {0, 1, math.Inf(1)}} {
		if _, err := NewClippedGaussian(ClippedGaussianConfig{A: c[0], B: c[1], Epsilon: c[2]}); err == nil {
			t.Errorf("NewClippedGaussian%v: want error", c)
		}
	}
	for _, c := range [][2]float64{{0, 1}, {-1, 1}, {1, 0}, {1, -2}, {math.NaN(), 1}} {
		if _, err := NewClippedExponential(ClippedExponentialConfig{B: c[0], Epsilon: c[1]}); err == nil {
			t.Errorf("NewClippedExponential%v: want error", c)
		}
	}
	if _, err := NewOUEModel(OUEModelConfig{Epsilon: 0, Dim: 3}); err == nil {
		t.Error("OUE eps = 0: want error")
	}
	if _, err := NewOUEModel(OUEModelConfig{Epsilon: 1, Dim: 1}); err == nil {
		t.Error("OUE d = 1: want error")
	}
	m, _ := NewClippedGaussian(ClippedGaussianConfig{A: 0, B: 1, Epsilon: 1})
	good := GaussianPrior{0, 1, 1, 1}
	if _, err := NewGaussianPosterior(m, []float64{0.5, math.NaN()}, good); err == nil {
		t.Error("NaN report: want error")
	}
	if _, err := NewGaussianPosterior(m, nil, good); err == nil {
		t.Error("no reports: want error")
	}
	if _, err := NewGaussianPosterior(m, []float64{1}, GaussianPrior{0, 0, 1, 1}); err == nil {
		t.Error("Sd0 = 0: want error")
	}
	if !math.IsNaN(m.LogDensity(0.5, 0, 0)) || !math.IsNaN(m.LogDensitySum([]float64{0.5}, 0, -1)) {
		t.Error("sigma <= 0: want NaN")
	}
	if _, err := simReport(m, rand.New(rand.NewPCG(1, 1)), math.Inf(1)); err == nil {
		t.Error("report of +Inf: want error")
	}
}

// TestNUTSMatchesGrid runs NUTS on the Gaussian posterior and compares its
// marginal quantiles with the grid posterior; it exercises the GradTarget
// with the mcmc package's sampler.
func TestNUTSMatchesGrid(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	m, _ := NewClippedGaussian(ClippedGaussianConfig{A: -5, B: 5, Epsilon: 2})
	r := rand.New(rand.NewPCG(13, 14))
	z := make([]float64, 200)
	for i := range z {
		z[i], _ = simReport(m, r, 1+1.5*r.NormFloat64())
	}
	prior := GaussianPrior{Mu0: 0, Sd0: 2, Shape: 2, Rate: 1}
	post, _ := NewGaussianPosterior(m, z, prior)
	res, err := mcmc.Run(t.Context(), post, mcmc.NUTS{}, mcmc.Config{Chains: 2, Warmup: 300, Draws: 600, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	g, err := post.Grid(t.Context(), 64)
	if err != nil {
		t.Fatal(err)
	}
	for j, name := range []string{"mu", "log sigma"} {
		rh, _ := res.Draws.RHat(j)
		ess, _ := res.Draws.ESSBulk(j)
		draws := res.Draws.Column(j)
		// The posterior CDF at NUTS quantiles must be near the nominal level:
		// |F(q̂_p) − p| ≤ 4·sqrt(p(1−p)/ESS) (≈ 4-sigma, false alarm ≈ 1e-4 per check).
		sorted := append([]float64(nil), draws...)
		sort.Float64s(sorted)
		for _, p := range []float64{0.05, 0.25, 0.5, 0.75, 0.95} {
			q := sorted[int(p*float64(len(sorted)))]
			var f float64
			if j == 0 {
				f = g.CDFMu(q)
			} else {
				f = g.CDFSigma(math.Exp(q))
			}
			if tol := 4 * math.Sqrt(p*(1-p)/ess); math.Abs(f-p) > tol {
				t.Errorf("%s: grid CDF at the NUTS %.2f-quantile is %.4f (tolerance %.4f, ESS %.0f)", name, p, f, tol, ess)
			}
		}
		if rh > 1.05 {
			t.Errorf("%s: R-hat %v", name, rh)
		}
	}
}

// TestCovPriorJacobian checks the inverse-Wishart prior with the Jacobian
// of the Cholesky coordinates: integrating over the coordinates by a 3-D
// grid must reproduce the IW mean E[Σ] = Scale·I/(Nu − d − 1) (d = 2).
func TestCovPriorJacobian(t *testing.T) {
	const d = 2
	pr := CovPrior{Nu: 7, Scale: 2}
	var l [4]float64
	sig := make([]float64, 4)
	p := make([]float64, 3)
	const n = 90
	lo, hi := -4.0, 3.0   // log-diagonal range
	olo, ohi := -6.0, 6.0 // off-diagonal range
	var w, s11, s12, s22 float64
	for i := range n {
		p[0] = lo + (hi-lo)*(float64(i)+0.5)/n
		for j := range n {
			p[1] = olo + (ohi-olo)*(float64(j)+0.5)/n
			for k := range n {
				p[2] = lo + (hi-lo)*(float64(k)+0.5)/n
				cholFromParams(p, d, l[:])
				v := math.Exp(covLogPrior(p, d, pr, l[:]))
				if err := covFromParams(p, d, sig); err != nil {
					t.Fatal(err)
				}
				w += v
				s11 += v * sig[0]
				s12 += v * sig[1]
				s22 += v * sig[3]
			}
		}
	}
	want := pr.Scale / (pr.Nu - d - 1)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"Σ11", s11 / w, want}, {"Σ22", s22 / w, want}, {"Σ12", s12 / w, 0}} {
		if math.Abs(c.got-c.want) > 0.01 {
			t.Errorf("E[%s] = %.4f under the prior, want %.4f", c.name, c.got, c.want)
		}
	}
}
