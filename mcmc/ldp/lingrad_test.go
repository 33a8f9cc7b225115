package ldp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// fdCheck compares grad with central finite differences of f at x.
func fdCheck(t *testing.T, name string, f func([]float64) float64, x, grad []float64, tol float64) {
	t.Helper()
	const h = 1e-6
	for i := range x {
		xp := append([]float64(nil), x...)
		xm := append([]float64(nil), x...)
		xp[i] += h
		xm[i] -= h
		fd := (f(xp) - f(xm)) / (2 * h)
		if math.Abs(fd-grad[i]) > tol*math.Max(1, math.Abs(fd)) {
			t.Errorf("%s: ∂/∂x_%d = %v, finite difference %v", name, i, grad[i], fd)
		}
	}
}

// symFD checks a symmetric adjoint G of Σ: the derivative along the
// symmetric perturbation E_jk + E_kj is G_jk + G_kj (2 G_jj on the diagonal).
func symFD(t *testing.T, name string, f func(sigma []float64) float64, sigma, g []float64, d int, tol float64) {
	t.Helper()
	const h = 1e-6
	for j := range d {
		for k := j; k < d; k++ {
			sp := append([]float64(nil), sigma...)
			sm := append([]float64(nil), sigma...)
			sp[j*d+k] += h
			sm[j*d+k] -= h
			if j != k {
				sp[k*d+j] += h
				sm[k*d+j] -= h
			}
			fd := (f(sp) - f(sm)) / (2 * h)
			want := g[j*d+k]
			if j != k {
				want += g[k*d+j]
			}
			if math.Abs(fd-want) > tol*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s: ∂/∂Σ_%d%d = %v, finite difference %v", name, j, k, want, fd)
			}
		}
	}
}

func TestLinearLikelihoodGradients(t *testing.T) {
	const d = 3
	r := rand.New(rand.NewPCG(31, 32))
	theta := []float64{0.6, -1.1, 0.4}
	sigmaX := []float64{0.5, 0.1, -0.05, 0.1, 0.3, 0.08, -0.05, 0.08, 0.4}
	sg := 0.7
	// Sufficient statistics.
	m := SuffStatDim(d)
	z := make([]float64, m)
	for i := range z {
		z[i] = 40 * r.NormFloat64()
	}
	ss, err := NewSuffStatLinReg(SuffStatLinRegConfig{Z: z, Dim: d, N: 300, Sigma1: 0.8, Sigma2: 1.1, Sigma3: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	gt := make([]float64, d)
	gs := make([]float64, d*d)
	ll, ds := ss.LogDensityGrad(theta, sg, sigmaX, gt, gs)
	if ll != ss.LogDensity(theta, sg, sigmaX) {
		t.Errorf("suff. stat: LogDensityGrad %v, LogDensity %v", ll, ss.LogDensity(theta, sg, sigmaX))
	}
	fdCheck(t, "suff. stat θ", func(th []float64) float64 { return ss.LogDensity(th, sg, sigmaX) }, theta, gt, 1e-6)
	fdCheck(t, "suff. stat σ", func(v []float64) float64 { return ss.LogDensity(theta, v[0], sigmaX) }, []float64{sg}, []float64{ds}, 1e-6)
	symFD(t, "suff. stat", func(s []float64) float64 { return ss.LogDensity(theta, sg, s) }, sigmaX, gs, d, 1e-6)
	// Input perturbation (eq. 41).
	n := 400
	zx := make([]float64, n*d)
	zy := make([]float64, n)
	for i := range n {
		for j := range d {
			zx[i*d+j] = 0.8 * r.NormFloat64()
		}
		zy[i] = theta[0]*zx[i*d] - theta[1]*zx[i*d+1] + r.NormFloat64()
	}
	ld, err := NewLinRegData(LinRegDataConfig{ZX: zx, ZY: zy, Dim: d, SX: []float64{0.4, 0.5, 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	const sy = 0.6
	ll, ds = ld.LogDensityGrad(theta, sg, sy, sigmaX, gt, gs)
	if ll != ld.LogDensity(theta, sg, sy, sigmaX) {
		t.Errorf("eq. 41: LogDensityGrad %v, LogDensity %v", ll, ld.LogDensity(theta, sg, sy, sigmaX))
	}
	fdCheck(t, "eq. 41 θ", func(th []float64) float64 { return ld.LogDensity(th, sg, sy, sigmaX) }, theta, gt, 1e-6)
	fdCheck(t, "eq. 41 σ", func(v []float64) float64 { return ld.LogDensity(theta, v[0], sy, sigmaX) }, []float64{sg}, []float64{ds}, 1e-6)
	symFD(t, "eq. 41", func(s []float64) float64 { return ld.LogDensity(theta, sg, sy, s) }, sigmaX, gs, d, 1e-6)
	if v, _ := ld.LogDensityGrad(theta, sg, sy, sigmaX, gt[:1], gs); !math.IsNaN(v) {
		t.Error("short gradient: want NaN")
	}
	if v, _ := ss.LogDensityGrad(theta, -1, sigmaX, gt, gs); !math.IsNaN(v) {
		t.Error("σ < 0: want NaN")
	}
}

func TestInverseWishartGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, d := range []int{1, 3} {
		pr := CovPrior{Nu: float64(d) + 2, Scale: 0.7}
		x := make([]float64, CovParams(d))
		for i := range x {
			x[i] = 0.4 * r.NormFloat64()
		}
		g := make([]float64, d*d)
		for j := range d {
			for k := 0; k <= j; k++ {
				g[j*d+k] = r.NormFloat64()
				g[k*d+j] = g[j*d+k]
			}
		}
		f := func(xx []float64) float64 {
			s := make([]float64, d*d)
			lp := pr.Cov(xx, d, s)
			for i := range s {
				lp += g[i] * s[i]
			}
			return lp
		}
		grad := make([]float64, len(x))
		pr.covGrad(x, d, make([]float64, d*d), g, grad)
		fdCheck(t, "inverse Wishart", f, x, grad, 1e-6)
	}
}

func TestLinearCovPosteriorGradients(t *testing.T) {
	const d = 2
	r := rand.New(rand.NewPCG(51, 52))
	m := SuffStatDim(d)
	z := make([]float64, m)
	for i := range z {
		z[i] = 30 + 10*r.NormFloat64()
	}
	ss, _ := NewSuffStatLinReg(SuffStatLinRegConfig{Z: z, Dim: d, N: 200, Sigma1: 1, Sigma2: 1, Sigma3: 1})
	n := 200
	zx := make([]float64, n*d)
	zy := make([]float64, n)
	for i := range zx {
		zx[i] = r.NormFloat64()
	}
	for i := range zy {
		zy[i] = zx[2*i] + r.NormFloat64()
	}
	ld, _ := NewLinRegData(LinRegDataConfig{ZX: zx, ZY: zy, Dim: d, SX: []float64{0.5, 0.5}})
	for _, pr := range []CovariancePrior{ScaledLKJ{Eta: 2, Scale: 2.5}, CovPrior{Nu: 4, Scale: 0.5}} {
		sp, err := NewSuffStatCovPosterior(ss, SuffStatCovPosteriorConfig{SDTheta: math.Sqrt(5), Shape: 2, Rate: 2, Cov: pr})
		if err != nil {
			t.Fatal(err)
		}
		lp, err := NewLinRegCovPosterior(ld, LinRegCovPosteriorConfig{SY: 0.4, SDTheta: math.Sqrt(5), Shape: 2, Rate: 2, Cov: pr})
		if err != nil {
			t.Fatal(err)
		}
		x := []float64{0.5, -0.3, math.Log(0.8), -0.2, 0.1, 0.3}
		for name, tg := range map[string]interface {
			LogDensity([]float64) float64
			Gradient(x, g []float64) float64
		}{"suff. stat": sp, "eq. 41": lp} {
			g := make([]float64, len(x))
			v := tg.Gradient(x, g)
			if v != tg.LogDensity(x) || math.IsInf(v, 0) || math.IsNaN(v) {
				t.Fatalf("%s %T: Gradient %v, LogDensity %v", name, pr, v, tg.LogDensity(x))
			}
			fdCheck(t, fmt.Sprintf("%s %T", name, pr), tg.LogDensity, x, g, 1e-5)
			if a := testing.AllocsPerRun(20, func() { tg.Gradient(x, g) }); a > 0 && !raceEnabled {
				t.Errorf("%s: Gradient allocates %v times", name, a)
			}
		}
	}
}
