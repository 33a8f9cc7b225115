package ldp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

func normPdf(x, mu, v float64) float64 {
	return math.Exp(-0.5*(x-mu)*(x-mu)/v) / math.Sqrt(2*math.Pi*v)
}

// mvnLogPdf is an independent multivariate normal log density (Cholesky).
func mvnLogPdf(x, mu, cov []float64) float64 {
	n := len(x)
	l := make([]float64, n*n)
	if err := linalg.Cholesky(cov, n, l); err != nil {
		return math.NaN()
	}
	r := make([]float64, n)
	for i := range r {
		r[i] = x[i] - mu[i]
	}
	linalg.SolveLower(l, n, r)
	q := 0.0
	for _, v := range r {
		q += v * v
	}
	return -0.5*float64(n)*math.Log(2*math.Pi) - 0.5*linalg.LogDetChol(l, n) - 0.5*q
}

func TestOUEVsDirectSum(t *testing.T) {
	worstOUE := 0.0
	defer func() {
		t.Logf("OUE eq. 33: worst relative error vs the sum over x of θ_k η(z | e_k) %.2g", worstOUE)
	}()
	for _, eps := range []float64{0.01, 0.5, 3, 30} {
		for _, d := range []int{2, 3, 5} {
			m, err := NewOUEModel(OUEModelConfig{Epsilon: eps, Dim: d})
			if err != nil {
				t.Fatal(err)
			}
			mech, err := mechanism.NewOUE(mechanism.LocalConfig{Epsilon: eps, Dim: d})
			if err != nil {
				t.Fatal(err)
			}
			theta := make([]float64, d)
			for k := range theta {
				theta[k] = float64(k+1) / float64(d*(d+1)/2)
			}
			total := 0.0
			z := make([]float64, d)
			e := make([]float64, d)
			for mask := range 1 << d {
				for j := range d {
					z[j] = float64(mask >> j & 1)
				}
				// Σ_k θ_k η(z | e_k) by the mechanism's own density.
				ref := 0.0
				for k := range d {
					clear(e)
					e[k] = 1
					ref += theta[k] * math.Exp(mech.LogDensity(z, e))
				}
				got := math.Exp(m.LogDensity(z, theta))
				worstOUE = math.Max(worstOUE, relErr(got, ref))
				if r := relErr(got, ref); r > 1e-12 {
					t.Errorf("eps=%v d=%d z=%v: eq. 33 %v, direct %v (rel %.2g)", eps, d, z, got, ref, r)
				}
				total += got
			}
			if math.Abs(total-1) > 1e-12 {
				t.Errorf("eps=%v d=%d: masses sum to %v", eps, d, total)
			}
		}
	}
}

func TestOUEDataAndGradient(t *testing.T) {
	m, _ := NewOUEModel(OUEModelConfig{Epsilon: 0.7, Dim: 4})
	r := rand.New(rand.NewPCG(1, 2))
	n := 300
	z := make([]float64, n*4)
	for i := range z {
		z[i] = float64(r.IntN(2))
	}
	data, err := m.NewData(z)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.1, 0.2, 0.3, 0.4}
	direct := 0.0
	for i := range n {
		direct += m.LogDensity(z[i*4:(i+1)*4], theta)
	}
	if e := math.Abs(data.LogDensity(theta) - direct); e > 1e-9 {
		t.Errorf("compressed log-lik %v, direct %v", data.LogDensity(theta), direct)
	}
	grad := make([]float64, 4)
	data.LogDensityGrad(theta, grad)
	for k := range 4 {
		// Finite difference along e_k − e_3 keeps Σθ = 1 only approximately; use the
		// unconstrained form log1p(κ θ·z) directly.
		h := 1e-6
		f := func(dk float64) float64 {
			th := append([]float64(nil), theta...)
			th[k] += dk
			s := 0.0
			for i := range n {
				dot := 0.0
				for j := range 4 {
					dot += th[j] * z[i*4+j]
				}
				s += math.Log1p(m.kappa * dot)
			}
			return s
		}
		fd := (f(h) - f(-h)) / (2 * h)
		if math.Abs(fd-grad[k]) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("grad[%d] = %v, finite difference %v", k, grad[k], fd)
		}
	}
	if _, err := m.NewData([]float64{0, 1, 2, 0}); err == nil {
		t.Error("non-bit report: want error")
	}
	if _, err := m.NewData([]float64{0, 1, 0}); err == nil {
		t.Error("ragged reports: want error")
	}
	if !math.IsNaN(data.LogDensity([]float64{0.5, 0.5, 0.5, -0.5})) {
		t.Error("non-simplex theta: want NaN")
	}
}

func TestProjectSimplex(t *testing.T) {
	dst := make([]float64, 3)
	if err := ProjectSimplex(dst, []float64{0.9, 0.3, -0.1}); err != nil {
		t.Fatal(err)
	}
	// KKT: projection of v is max(v − τ, 0) with τ = 0.1 here.
	want := []float64{0.8, 0.2, 0}
	for i := range want {
		if math.Abs(dst[i]-want[i]) > 1e-15 {
			t.Errorf("ProjectSimplex = %v, want %v", dst, want)
		}
	}
}

func TestLinRegVsQuadrature(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	// d = 1: two-dimensional quadrature over (x, y) of the full model (34).
	worst := 0.0
	for _, c := range [][7]float64{
		// Σ, sx, θ, σ, sy, zx, zy
		{1, 0.5, 0.8, 0.3, 0.4, 0.7, -0.2},
		{2, 3, -1.5, 1, 2, -4, 5},
		{0.3, 0.1, 2, 0.05, 0.2, 0.1, 0.3},
		{1, 10, 0.5, 1, 10, 25, -30},
	} {
		S, sx, th, sg, sy, zx, zy := c[0], c[1], c[2], c[3], c[4], c[5], c[6]
		ld, err := NewLinRegData(LinRegDataConfig{ZX: []float64{zx}, ZY: []float64{zy}, Dim: 1, SX: []float64{sx}})
		if err != nil {
			t.Fatal(err)
		}
		got := math.Exp(ld.LogDensity([]float64{th}, sg, sy, []float64{S}))
		// Posterior of x given z_x is narrow; integrate over ±40 of its sd.
		hx := S / (S + sx*sx) * zx
		ax := math.Sqrt(S - S*S/(S+sx*sx))
		inner := func(x float64) float64 {
			f := func(y float64) float64 { return normPdf(y, th*x, sg*sg) * normPdf(zy, y, sy*sy) }
			return integrate(f, th*x-40*sg, th*x+40*sg, zy, th*x, th*x-sg, th*x+sg)
		}
		outer := func(x float64) float64 { return normPdf(x, 0, S) * normPdf(zx, x, sx*sx) * inner(x) }
		ref := integrate(outer, hx-40*ax, hx+40*ax, hx, hx-ax, hx+ax)
		e := relErr(got, ref)
		worst = math.Max(worst, e)
		if e > 1e-8 {
			t.Errorf("%v: eq. 41 %.16g, quadrature %.16g (rel %.2g)", c, got, ref, e)
		}
	}
	t.Logf("linear regression eq. 41 (d = 1): worst relative error vs 2-D quadrature %.2g", worst)

	// d = 3: against the joint Gaussian of (z_x, z_y).
	d := 3
	sigX := []float64{2, 0.5, -0.3, 0.5, 1, 0.2, -0.3, 0.2, 0.7}
	sx := []float64{0.5, 1, 2}
	theta := []float64{1, -0.5, 2}
	sg, sy := 0.7, 1.3
	r := rand.New(rand.NewPCG(3, 4))
	n := 5
	zx := make([]float64, n*d)
	zy := make([]float64, n)
	for i := range zx {
		zx[i] = 2 * r.NormFloat64()
	}
	for i := range zy {
		zy[i] = 3 * r.NormFloat64()
	}
	ld, err := NewLinRegData(LinRegDataConfig{ZX: zx, ZY: zy, Dim: d, SX: sx})
	if err != nil {
		t.Fatal(err)
	}
	cov := make([]float64, (d+1)*(d+1))
	for i := range d {
		st := 0.0
		for j := range d {
			cov[i*(d+1)+j] = sigX[i*d+j]
			st += sigX[i*d+j] * theta[j]
		}
		cov[i*(d+1)+i] += sx[i] * sx[i]
		cov[i*(d+1)+d], cov[d*(d+1)+i] = st, st
		cov[d*(d+1)+d] += theta[i] * st
	}
	cov[d*(d+1)+d] += sg*sg + sy*sy
	ref := 0.0
	for i := range n {
		v := append(append([]float64(nil), zx[i*d:(i+1)*d]...), zy[i])
		ref += mvnLogPdf(v, make([]float64, d+1), cov)
	}
	got := ld.LogDensity(theta, sg, sy, sigX)
	t.Logf("linear regression eq. 41 (d = 3, 5 reports): |Δ log p| vs the joint Gaussian of (z_x, z_y) %.2g", math.Abs(got-ref))
	if math.Abs(got-ref) > 1e-10*math.Abs(ref) {
		t.Errorf("d=3: eq. 41 log-lik %.16g, joint Gaussian %.16g", got, ref)
	}
	fc, err := ld.FixCov(sigX, sy)
	if err != nil {
		t.Fatal(err)
	}
	grad := make([]float64, d+1)
	if v := fc.LogDensityGrad(theta, sg, grad); math.Abs(v-ref) > 1e-10*math.Abs(ref) {
		t.Errorf("FixCov log-lik %.16g, want %.16g", v, ref)
	}
	for j := range d + 1 {
		h := 1e-6
		f := func(dh float64) float64 {
			th := append([]float64(nil), theta...)
			s := sg
			if j < d {
				th[j] += dh
			} else {
				s += dh
			}
			return fc.LogDensityGrad(th, s, nil)
		}
		fd := (f(h) - f(-h)) / (2 * h)
		if math.Abs(fd-grad[j]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("grad[%d] = %v, finite difference %v", j, grad[j], fd)
		}
	}
	// Bad input.
	if _, err := NewLinRegData(LinRegDataConfig{ZX: []float64{1, 2}, ZY: []float64{1}, Dim: 1, SX: []float64{1}}); err == nil {
		t.Error("wrong zx length: want error")
	}
	if _, err := NewLinRegData(LinRegDataConfig{ZX: []float64{math.NaN()}, ZY: []float64{1}, Dim: 1, SX: []float64{1}}); err == nil {
		t.Error("NaN report: want error")
	}
	if _, err := NewLinRegData(LinRegDataConfig{ZX: []float64{1}, ZY: []float64{1}, Dim: 1, SX: []float64{0}}); err == nil {
		t.Error("zero noise: want error")
	}
	if !math.IsNaN(ld.LogDensity(theta, sg, sy, []float64{1, 2, 3})) {
		t.Error("wrong Σ length: want NaN")
	}
}

func TestChebyshevSigmoid(t *testing.T) {
	for _, iv := range [][2]float64{{-4, 4}, {-1, 3}, {-10, -2}} {
		lo, hi := iv[0], iv[1]
		b, err := ChebyshevSigmoid(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		// Independent: c_j = (2/π)∫_0^π f(x(cos φ)) cos(jφ) dφ by quadrature.
		half, mid := 0.5*(hi-lo), 0.5*(hi+lo)
		var c [3]float64
		for j := range 3 {
			f := func(p float64) float64 {
				return math.Cos(float64(j)*p) / (1 + math.Exp(-(mid + half*math.Cos(p))))
			}
			c[j] = 2 / math.Pi * integrate(f, 0, math.Pi, math.Pi/2)
		}
		for _, x := range []float64{lo, mid, hi, lo + 0.3*(hi-lo)} {
			u := (x - mid) / half
			ref := c[0]/2 + c[1]*u + c[2]*(2*u*u-1)
			got := b[0] + b[1]*x + b[2]*x*x
			if math.Abs(got-ref) > 1e-12 {
				t.Errorf("[%v,%v] at %v: polynomial %v, Chebyshev series %v", lo, hi, x, got, ref)
			}
		}
	}
	if _, err := ChebyshevSigmoid(1, 1); err == nil {
		t.Error("empty interval: want error")
	}
}

func TestLogRegVsQuadrature(t *testing.T) {
	b, _ := ChebyshevSigmoid(-3, 5) // asymmetric: b2 ≠ 0
	worst, approx := 0.0, 0.0
	for _, c := range [][6]float64{
		// Σ, sx, θ, zx, zy, epsY
		{1, 0.5, 0.8, 0.7, 1, 1},
		{2, 1, -0.6, -1, 0, 0.3},
		{0.5, 2, 1.2, 3, 1, 3},
		{1, 0.2, 0.4, -0.5, 0, 10},
	} {
		S, sx, th, zx, zy, ey := c[0], c[1], c[2], c[3], c[4], c[5]
		ld, err := NewLogRegData(LogRegDataConfig{ZX: []float64{zx}, ZY: []float64{zy}, Dim: 1, SX: []float64{sx}, EpsilonY: ey})
		if err != nil {
			t.Fatal(err)
		}
		got := math.Exp(ld.LogDensity([]float64{th}, []float64{S}, b))
		p := 1 / (1 + math.Exp(-ey))
		mix := func(s float64) float64 {
			if zy == 1 {
				return p*s + (1-p)*(1-s)
			}
			return (1-p)*s + p*(1-s)
		}
		hx := S / (S + sx*sx) * zx
		ax := math.Sqrt(S - S*S/(S+sx*sx))
		poly := func(x float64) float64 {
			t := th * x
			return normPdf(x, 0, S) * normPdf(zx, x, sx*sx) * mix(b[0]+b[1]*t+b[2]*t*t)
		}
		exact := func(x float64) float64 {
			return normPdf(x, 0, S) * normPdf(zx, x, sx*sx) * mix(1/(1+math.Exp(-th*x)))
		}
		ref := integrate(poly, hx-40*ax, hx+40*ax, hx, hx-ax, hx+ax)
		e := relErr(got, ref)
		worst = math.Max(worst, e)
		if e > 1e-8 {
			t.Errorf("%v: eq. 44 %.16g, quadrature %.16g (rel %.2g)", c, got, ref, e)
		}
		approx = math.Max(approx, relErr(got, integrate(exact, hx-40*ax, hx+40*ax, hx, hx-ax, hx+ax)))
	}
	t.Logf("logistic eq. 44 (d = 1): worst relative error vs quadrature of the Chebyshev-approximated integrand %.2g; vs the exact sigmoid %.2g (approximation error)", worst, approx)

	// d = 2: FixCov agrees with LogDensity and its gradient with finite differences.
	d := 2
	r := rand.New(rand.NewPCG(5, 6))
	n := 40
	zx := make([]float64, n*d)
	zy := make([]float64, n)
	for i := range zx {
		zx[i] = r.NormFloat64()
	}
	for i := range zy {
		zy[i] = float64(r.IntN(2))
	}
	ld, err := NewLogRegData(LogRegDataConfig{ZX: zx, ZY: zy, Dim: d, SX: []float64{0.5, 0.8}, EpsilonY: 1})
	if err != nil {
		t.Fatal(err)
	}
	sig := []float64{1, 0.3, 0.3, 0.8}
	fc, err := ld.FixCov(sig, b)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.4, -0.7}
	grad := make([]float64, d)
	v := fc.LogDensityGrad(theta, grad)
	if ref := ld.LogDensity(theta, sig, b); math.Abs(v-ref) > 1e-10*math.Abs(ref) {
		t.Errorf("FixCov %v, LogDensity %v", v, ref)
	}
	for j := range d {
		h := 1e-6
		tp := append([]float64(nil), theta...)
		tm := append([]float64(nil), theta...)
		tp[j] += h
		tm[j] -= h
		fd := (fc.LogDensityGrad(tp, nil) - fc.LogDensityGrad(tm, nil)) / (2 * h)
		if math.Abs(fd-grad[j]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("grad[%d] = %v, finite difference %v", j, grad[j], fd)
		}
	}
	if _, err := NewLogRegData(LogRegDataConfig{ZX: []float64{1}, ZY: []float64{0.5}, Dim: 1, SX: []float64{1}, EpsilonY: 1}); err == nil {
		t.Error("non-bit outcome: want error")
	}
	if _, err := NewLogRegData(LogRegDataConfig{ZX: []float64{1}, ZY: []float64{1}, Dim: 1, SX: []float64{1}, EpsilonY: 0}); err == nil {
		t.Error("epsY = 0: want error")
	}
}

// Probabilists' Gauss–Hermite, 5 nodes: exact for polynomials of degree ≤ 9.
var gh5x = []float64{-2.8569700138728056, -1.3556261799742657, 0, 1.3556261799742657, 2.8569700138728056}
var gh5w = []float64{0.011257411327720691, 0.22207592200561265, 0.5333333333333333, 0.22207592200561265, 0.011257411327720691}

func TestSuffStatMomentsVsQuadrature(t *testing.T) {
	for _, d := range []int{1, 2} {
		m := SuffStatDim(d)
		theta := []float64{0.7, -1.2}[:d]
		sigX := []float64{1.5}
		if d == 2 {
			sigX = []float64{1.5, 0.4, 0.4, 0.8}
		}
		sg := 0.6
		ss, err := NewSuffStatLinReg(SuffStatLinRegConfig{Z: make([]float64, m), Dim: d, N: 10, Sigma1: 1, Sigma2: 1, Sigma3: 1})
		if err != nil {
			t.Fatal(err)
		}
		mean := make([]float64, m)
		cov := make([]float64, m*m)
		if err := ss.Moments(theta, sg, sigX, mean, cov); err != nil {
			t.Fatal(err)
		}
		// Tensor Gauss–Hermite over w = (x, y) = L u with C = L Lᵀ.
		e := d + 1
		c := make([]float64, e*e)
		ss.joint(theta, sg, sigX, c)
		l := make([]float64, e*e)
		if err := linalg.Cholesky(c, e, l); err != nil {
			t.Fatal(err)
		}
		qm := make([]float64, m)
		qc := make([]float64, m*m)
		idx := make([]int, e)
		u := make([]float64, e)
		w := make([]float64, e)
		tv := make([]float64, m)
		for {
			wt := 1.0
			for k := range e {
				u[k] = gh5x[idx[k]]
				wt *= gh5w[idx[k]]
			}
			linalg.MatVec(w, l, u, e, e)
			if err := SuffStats(w[:d], w[d], tv); err != nil {
				t.Fatal(err)
			}
			for a := range m {
				qm[a] += wt * tv[a]
				for bb := range m {
					qc[a*m+bb] += wt * tv[a] * tv[bb]
				}
			}
			k := 0
			for k < e {
				idx[k]++
				if idx[k] < 5 {
					break
				}
				idx[k] = 0
				k++
			}
			if k == e {
				break
			}
		}
		for a := range m {
			if math.Abs(qm[a]-mean[a]) > 1e-12 {
				t.Errorf("d=%d E[t_%d] = %v, quadrature %v", d, a, mean[a], qm[a])
			}
			for bb := range m {
				ref := qc[a*m+bb] - qm[a]*qm[bb]
				if math.Abs(ref-cov[a*m+bb]) > 1e-11 {
					t.Errorf("d=%d Cov[%d,%d] = %v, quadrature %v", d, a, bb, cov[a*m+bb], ref)
				}
			}
		}
		// The log-likelihood is the normal density of Z with these moments.
		n := 10
		z := make([]float64, m)
		for a := range z {
			z[a] = float64(n)*mean[a] + 0.5*float64(a) - 1
		}
		ss2, _ := NewSuffStatLinReg(SuffStatLinRegConfig{Z: z, Dim: d, N: n, Sigma1: 0.5, Sigma2: 0.7, Sigma3: 0.9})
		full := make([]float64, m*m)
		mu := make([]float64, m)
		for a := range m {
			mu[a] = float64(n) * mean[a]
			for bb := range m {
				full[a*m+bb] = float64(n) * cov[a*m+bb]
			}
		}
		d2 := d * (d + 1) / 2
		for a := range m {
			s := 0.5
			if a >= d2 {
				s = 0.7
			}
			if a == m-1 {
				s = 0.9
			}
			full[a*m+a] += float64(n) * s * s
		}
		ref := mvnLogPdf(z, mu, full)
		t.Logf("sufficient statistics d=%d: |Δ log p| vs the normal density %.2g", d, math.Abs(ss2.LogDensity(theta, sg, sigX)-ref))
		if got := ss2.LogDensity(theta, sg, sigX); math.Abs(got-ref) > 1e-10*math.Abs(ref) {
			t.Errorf("d=%d LogDensity %v, normal density %v", d, got, ref)
		}
	}
	if _, err := NewSuffStatLinReg(SuffStatLinRegConfig{Z: make([]float64, 5), Dim: 2, N: 10, Sigma1: 1, Sigma2: 1, Sigma3: 1}); err == nil {
		t.Error("wrong statistic length: want error")
	}
	if _, err := NewSuffStatLinReg(SuffStatLinRegConfig{Z: make([]float64, 3), Dim: 1, N: 10, Sigma1: 0, Sigma2: 1, Sigma3: 1}); err == nil {
		t.Error("zero noise: want error")
	}
}

// TestChebyshevSigmoidHighPrecision checks the coefficients of the LDP
// paper's expansion interval [−3, 3] (§7, Fig. 6) and of an asymmetric
// interval against 40-digit values: the Chebyshev coefficients
// c_j = (2/π)∫_0^π σ(mid + half·cos φ) cos(jφ) dφ by mpmath's quad at
// mp.dps = 40, converted to monomial coefficients as ChebyshevSigmoid
// documents. The uniform error of the expansion on [−3, 3], the largest
// |σ(t) − ½ − b1 t| over the grid t = −3 + 6i/60000, is checked against the
// same grid evaluated by mpmath: 0.066812961041619426 at t = 1.2981.
func TestChebyshevSigmoidHighPrecision(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   [3]float64
	}{
		{-3, 3, [3]float64{0.5, 0.1684786083145479778039218, 0}},
		{-3, 5, [3]float64{0.5399470811121575447455254, 0.1574374290701611065385094, -0.01194028917642219110953824}},
	} {
		b, err := ChebyshevSigmoid(c.lo, c.hi)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 3 {
			if math.Abs(b[j]-c.want[j]) > 1e-14 {
				t.Errorf("[%v, %v]: b%d = %.17g, want %.17g", c.lo, c.hi, j, b[j], c.want[j])
			}
		}
	}
	b, _ := ChebyshevSigmoid(-3, 3)
	worst, at := 0.0, 0.0
	for i := range 60001 {
		x := -3 + 6*float64(i)/60000
		if e := math.Abs(1/(1+math.Exp(-x)) - b[0] - b[1]*x - b[2]*x*x); e > worst {
			worst, at = e, x
		}
	}
	if math.Abs(worst-0.066812961041619426) > 1e-13 || math.Abs(math.Abs(at)-1.2981) > 1e-9 {
		t.Errorf("uniform error on [−3, 3]: %.17g at %v, want 0.066812961041619426 at ±1.2981", worst, at)
	}
}
