package ldp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/testutil"
)

// tanhDerivs returns m′, m‴ and m⁽⁵⁾ of m(u) = tanh(u/2) from their
// definitions through T = tanh(u/2) (an independent route to the sech²
// polynomials of tanhMoments): T′ = (1 − T²)/2 and
// m‴ = −(1 − 4T² + 3T⁴)/4, m⁽⁵⁾ = (1 − 8.5T² + 15T⁴ − 7.5T⁶)/2.
func tanhDerivs(u float64) (d1, d3, d5 float64) {
	t := math.Tanh(u / 2)
	t2 := t * t
	return 0.5 * (1 - t2), -0.25 * (1 - 4*t2 + 3*t2*t2), 0.5 * (1 - 8.5*t2 + 15*t2*t2 - 7.5*t2*t2*t2)
}

func TestTanhDerivativesByFiniteDifferences(t *testing.T) {
	// m‴ and m⁽⁵⁾ as finite differences of m′ and m‴ (central, 5 points).
	for _, u := range []float64{-3.1, -0.4, 0, 0.7, 2.5, 6} {
		h := 1e-3
		fd := func(f func(float64) float64) float64 {
			return (-f(u+2*h) + 16*f(u+h) - 30*f(u) + 16*f(u-h) - f(u-2*h)) / (12 * h * h)
		}
		d1, d3, d5 := tanhDerivs(u)
		g3 := fd(func(x float64) float64 { a, _, _ := tanhDerivs(x); return a })
		g5 := fd(func(x float64) float64 { _, b, _ := tanhDerivs(x); return b })
		if math.Abs(g3-d3) > 1e-8 || math.Abs(g5-d5) > 1e-7 {
			t.Errorf("u=%v: m‴ %v (fd %v), m⁽⁵⁾ %v (fd %v)", u, d3, g3, d5, g5)
		}
		if m1 := (math.Tanh((u+h)/2) - math.Tanh((u-h)/2)) / (2 * h); math.Abs(m1-d1) > 1e-7 {
			t.Errorf("u=%v: m′ %v, fd %v", u, d1, m1)
		}
	}
}

func TestTanhMomentsVsQuadrature(t *testing.T) {
	worst := [3]float64{}
	for _, v := range []float64{1e-12, 1e-6, 1e-3, 0.05, 0.3, 1, 3.7, 16, 90, 1e3, 1e4, 1e5} {
		k1, k3, k5 := tanhMoments(v)
		sv := math.Sqrt(v)
		lim := math.Min(12*sv, 60)
		// Composite 15-point Kronrod on panels of width min(1/4, √v/4):
		// finer than tanhMoments' panels and a different rule.
		ref := [3]float64{}
		xs, ws := compositeKronrod(lim, math.Min(0.25, sv/4))
		for i, u := range xs {
			a, b, c := tanhDerivs(u)
			f := ws[i] * normPdf(u, 0, v)
			ref[0] += f * a
			ref[1] += f * b
			ref[2] += f * c
		}
		got := [3]float64{k1, k3, k5}
		// κ3 and κ5 integrate sign-changing functions to nearly 0 for large
		// v; their errors are measured against the scale E[|m^(k)|] ≤ κ1.
		for k := range 3 {
			e := math.Abs(got[k]-ref[k]) / math.Max(math.Abs(ref[k]), k1)
			worst[k] = math.Max(worst[k], e)
			if e > 1e-13 {
				t.Errorf("v=%v κ%d = %v, quadrature %v (rel %.2g)", v, 2*k+1, got[k], ref[k], e)
			}
		}
	}
	t.Logf("κ1, κ3, κ5 worst relative error vs composite Kronrod quadrature: %.2g %.2g %.2g", worst[0], worst[1], worst[2])
	if a, b, c := tanhMoments(0); a != 0.5 || b != -0.25 || c != 0.5 {
		t.Errorf("v = 0: got %v %v %v, want m′(0), m‴(0), m⁽⁵⁾(0) = 0.5, −0.25, 0.5", a, b, c)
	}
}

// compositeKronrod returns the nodes and weights of the composite
// 15-point Kronrod rule on [−lim, lim] with panels of width h.
func compositeKronrod(lim, h float64) (x, w []float64) {
	panels := int(math.Ceil(2 * lim / h))
	h = 2 * lim / float64(panels)
	for p := range panels {
		c := -lim + (float64(p)+0.5)*h
		for i := range 8 {
			if gk15x[i] == 0 {
				x, w = append(x, c), append(w, 0.5*h*gk15w[i])
				continue
			}
			x = append(x, c-0.5*h*gk15x[i], c+0.5*h*gk15x[i])
			w = append(w, 0.5*h*gk15w[i], 0.5*h*gk15w[i])
		}
	}
	return x, w
}

// logRegQuadMoments integrates E[t] and E[t tᵀ] over x ~ N(0, Σ) (d = 1 or
// 2, through x = L w with w standard normal) and y ∈ {−1, 1} with
// Pr[y = 1 | x] = p1(xᵀθ), by a tensor composite 15-point Kronrod rule on
// [−9, 9]^d with panels of width 0.6 (the integrand is analytic; its
// nearest singularity lies at distance π/√(θᵀΣθ) > 1 from the real axis
// in the cases tested, and the Gaussian tail beyond 9 is below 1e-18).
func logRegQuadMoments(t *testing.T, theta, sigmaX []float64, p1 func(float64) float64) (mean, second []float64) {
	t.Helper()
	d := len(theta)
	m := LogRegStatDim(d)
	l := make([]float64, d*d)
	if err := linalg.Cholesky(sigmaX, d, l); err != nil {
		t.Fatal(err)
	}
	nodes, weights := compositeKronrod(9, 0.6)
	tv := make([]float64, m)
	x := make([]float64, d)
	w := make([]float64, d)
	mean = make([]float64, m)
	second = make([]float64, m*m)
	idx := make([]int, d)
	for {
		wt := 1.0
		for j := range d {
			w[j] = nodes[idx[j]]
			wt *= weights[idx[j]] * normPdf(w[j], 0, 1)
		}
		linalg.MatVec(x, l, w, d, d)
		u := 0.0
		for j := range d {
			u += theta[j] * x[j]
		}
		for _, y := range []float64{-1, 1} {
			pr := p1(u)
			if y < 0 {
				pr = 1 - pr
			}
			if err := LogRegStats(x, y, tv); err != nil {
				t.Fatal(err)
			}
			for a := range m {
				mean[a] += wt * pr * tv[a]
				for b := range m {
					second[a*m+b] += wt * pr * tv[a] * tv[b]
				}
			}
		}
		k := 0
		for k < d {
			idx[k]++
			if idx[k] < len(nodes) {
				break
			}
			idx[k] = 0
			k++
		}
		if k == d {
			break
		}
	}
	return mean, second
}

func sigmoid(u float64) float64 { return 1 / (1 + math.Exp(-u)) }

func TestSuffStatLogRegVsQuadrature(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	cheb, err := ChebyshevSigmoid(-2, 3)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		theta  []float64
		sigmaX []float64
		cheb   *[3]float64
	}{
		{"d=1 logistic", []float64{1.7}, []float64{0.6}, nil},
		{"d=2 logistic", []float64{0.9, -2.1}, []float64{0.5, 0.15, 0.15, 0.3}, nil},
		{"d=2 logistic, large θ", []float64{4, 3}, []float64{0.2, -0.05, -0.05, 0.4}, nil},
		{"d=2 Chebyshev", []float64{0.9, -2.1}, []float64{0.5, 0.15, 0.15, 0.3}, &cheb},
	}
	worst := 0.0
	for _, c := range cases {
		d := len(c.theta)
		m := LogRegStatDim(d)
		p1 := sigmoid
		if c.cheb != nil {
			b := *c.cheb
			p1 = func(u float64) float64 { return b[0] + b[1]*u + b[2]*u*u }
		}
		qm, qs := logRegQuadMoments(t, c.theta, c.sigmaX, p1)
		n := 50
		z := make([]float64, m)
		for a := range z {
			z[a] = float64(n)*qm[a] + 0.8*float64(a) - 1.5
		}
		s, err := NewSuffStatLogReg(SuffStatLogRegConfig{Z: z, Dim: d, N: n, Sigma1: 0.7, Sigma2: 1.3, Chebyshev: c.cheb})
		if err != nil {
			t.Fatal(err)
		}
		mean := make([]float64, m)
		cov := make([]float64, m*m)
		if err := s.Moments(c.theta, c.sigmaX, mean, cov); err != nil {
			t.Fatal(err)
		}
		mu := make([]float64, m)
		full := make([]float64, m*m)
		for a := range m {
			if e := math.Abs(mean[a] - qm[a]); e > 1e-12 {
				t.Errorf("%s: E[t_%d] = %v, quadrature %v", c.name, a, mean[a], qm[a])
			}
			mu[a] = float64(n) * qm[a]
			for b := range m {
				ref := qs[a*m+b] - qm[a]*qm[b]
				if e := math.Abs(cov[a*m+b] - ref); e > 1e-12 {
					t.Errorf("%s: Cov[%d,%d] = %v, quadrature %v", c.name, a, b, cov[a*m+b], ref)
				}
				full[a*m+b] = float64(n) * ref
			}
			sg := 0.7
			if a >= d {
				sg = 1.3
			}
			full[a*m+a] += float64(n) * sg * sg
		}
		ref := mvnLogPdf(z, mu, full)
		got := s.LogDensity(c.theta, c.sigmaX)
		worst = math.Max(worst, relErr(got, ref))
		if relErr(got, ref) > 1e-10 {
			t.Errorf("%s: LogDensity %v, normal density with quadrature moments %v (rel %.2g)", c.name, got, ref, relErr(got, ref))
		}
	}
	t.Logf("sufficient-statistics logistic regression: worst relative error of the log density vs quadrature %.2g", worst)
}

// Probabilists' Gauss–Hermite rule with 5 nodes is exact for the
// polynomial moments of the Chebyshev link (degree ≤ 5 in x, ≤ 9 allowed).
func TestSuffStatLogRegChebyshevD3VsGaussHermite(t *testing.T) {
	const d = 3
	m := LogRegStatDim(d)
	b, err := ChebyshevSigmoid(-3, 2.5)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.8, -1.1, 2}
	sigmaX := []float64{0.5, 0.1, -0.05, 0.1, 0.3, 0.08, -0.05, 0.08, 0.4}
	s, err := NewSuffStatLogReg(SuffStatLogRegConfig{Z: make([]float64, m), Dim: d, N: 3, Sigma1: 1, Sigma2: 1, Chebyshev: &b})
	if err != nil {
		t.Fatal(err)
	}
	mean := make([]float64, m)
	cov := make([]float64, m*m)
	if err := s.Moments(theta, sigmaX, mean, cov); err != nil {
		t.Fatal(err)
	}
	l := make([]float64, d*d)
	if err := linalg.Cholesky(sigmaX, d, l); err != nil {
		t.Fatal(err)
	}
	qm := make([]float64, m)
	qs := make([]float64, m*m)
	tv := make([]float64, m)
	x := make([]float64, d)
	u := make([]float64, d)
	idx := make([]int, d)
	for {
		wt := 1.0
		for k := range d {
			u[k] = gh5x[idx[k]]
			wt *= gh5w[idx[k]]
		}
		linalg.MatVec(x, l, u, d, d)
		lin := theta[0]*x[0] + theta[1]*x[1] + theta[2]*x[2]
		p := b[0] + b[1]*lin + b[2]*lin*lin
		for _, y := range []float64{-1, 1} {
			pr := p
			if y < 0 {
				pr = 1 - p
			}
			if err := LogRegStats(x, y, tv); err != nil {
				t.Fatal(err)
			}
			for a := range m {
				qm[a] += wt * pr * tv[a]
				for c := range m {
					qs[a*m+c] += wt * pr * tv[a] * tv[c]
				}
			}
		}
		k := 0
		for k < d {
			idx[k]++
			if idx[k] < 5 {
				break
			}
			idx[k] = 0
			k++
		}
		if k == d {
			break
		}
	}
	for a := range m {
		if math.Abs(qm[a]-mean[a]) > 1e-13 {
			t.Errorf("E[t_%d] = %v, Gauss–Hermite %v", a, mean[a], qm[a])
		}
		for c := range m {
			if ref := qs[a*m+c] - qm[a]*qm[c]; math.Abs(ref-cov[a*m+c]) > 1e-13 {
				t.Errorf("Cov[%d,%d] = %v, Gauss–Hermite %v", a, c, cov[a*m+c], ref)
			}
		}
	}
}

func TestSuffStatLogRegGradient(t *testing.T) {
	cheb, _ := ChebyshevSigmoid(-4, 4)
	for _, cb := range []*[3]float64{nil, &cheb} {
		const d = 3
		m := LogRegStatDim(d)
		r := rand.New(rand.NewPCG(5, 6))
		theta := []float64{0.7, -1.4, 0.9}
		sigmaX := []float64{0.5, 0.1, -0.05, 0.1, 0.3, 0.08, -0.05, 0.08, 0.4}
		n := 400
		s0, _ := NewSuffStatLogReg(SuffStatLogRegConfig{Z: make([]float64, m), Dim: d, N: n, Sigma1: 1, Sigma2: 1, Chebyshev: cb})
		mean := make([]float64, m)
		cov := make([]float64, m*m)
		if err := s0.Moments(theta, sigmaX, mean, cov); err != nil {
			t.Fatal(err)
		}
		z := make([]float64, m)
		for a := range z {
			z[a] = float64(n)*mean[a] + 15*r.NormFloat64()
		}
		s, err := NewSuffStatLogReg(SuffStatLogRegConfig{Z: z, Dim: d, N: n, Sigma1: 0.6, Sigma2: 0.9, Chebyshev: cb})
		if err != nil {
			t.Fatal(err)
		}
		// Evaluate away from the data-generating point.
		th := []float64{0.4, -1.0, 1.3}
		sg := []float64{0.6, 0.05, -0.1, 0.05, 0.35, 0.02, -0.1, 0.02, 0.45}
		gt := make([]float64, d)
		gs := make([]float64, d*d)
		ll := s.LogDensityGrad(th, sg, gt, gs)
		if got := s.LogDensity(th, sg); got != ll {
			t.Errorf("LogDensityGrad value %v, LogDensity %v", ll, got)
		}
		const h = 1e-5
		for j := range d {
			tp := append([]float64(nil), th...)
			tm := append([]float64(nil), th...)
			tp[j] += h
			tm[j] -= h
			fd := (s.LogDensity(tp, sg) - s.LogDensity(tm, sg)) / (2 * h)
			if math.Abs(fd-gt[j]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("cheb=%v ∂/∂θ_%d = %v, finite difference %v", cb != nil, j, gt[j], fd)
			}
		}
		for j := range d {
			for k := j; k < d; k++ {
				sp := append([]float64(nil), sg...)
				sm := append([]float64(nil), sg...)
				sp[j*d+k] += h
				sm[j*d+k] -= h
				if j != k {
					sp[k*d+j] += h
					sm[k*d+j] -= h
				}
				fd := (s.LogDensity(th, sp) - s.LogDensity(th, sm)) / (2 * h)
				want := gs[j*d+k]
				if j != k {
					want += gs[k*d+j]
				}
				if math.Abs(fd-want) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("cheb=%v symmetric ∂/∂Σ_%d%d = %v, finite difference %v", cb != nil, j, k, want, fd)
				}
				if gs[j*d+k] != gs[k*d+j] {
					t.Errorf("gradSigma not symmetric at (%d, %d)", j, k)
				}
			}
		}
	}
}

// The moments describe the generative model: the mean of the sum of
// simulated statistics over 400 data sets of 500 people agrees with N μ_t
// within 4.5 standard errors in every coordinate (per-coordinate false
// alarm about 7e-6 for a normal mean; fixed seed).
func TestSuffStatLogRegMonteCarlo(t *testing.T) {
	const d, n, reps = 3, 500, 400
	m := LogRegStatDim(d)
	theta := []float64{1.2, -0.8, 2}
	sigmaX := []float64{0.5, 0.1, -0.05, 0.1, 0.3, 0.08, -0.05, 0.08, 0.4}
	s, _ := NewSuffStatLogReg(SuffStatLogRegConfig{Z: make([]float64, m), Dim: d, N: n, Sigma1: 1, Sigma2: 1})
	mean := make([]float64, m)
	cov := make([]float64, m*m)
	if err := s.Moments(theta, sigmaX, mean, cov); err != nil {
		t.Fatal(err)
	}
	l := make([]float64, d*d)
	if err := linalg.Cholesky(sigmaX, d, l); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	sum := make([]float64, m)
	tv := make([]float64, m)
	x := make([]float64, d)
	u := make([]float64, d)
	for range reps * n {
		for k := range u {
			u[k] = r.NormFloat64()
		}
		linalg.MatVec(x, l, u, d, d)
		y := -1.0
		if r.Float64() < sigmoid(theta[0]*x[0]+theta[1]*x[1]+theta[2]*x[2]) {
			y = 1
		}
		if err := LogRegStats(x, y, tv); err != nil {
			t.Fatal(err)
		}
		for a := range sum {
			sum[a] += tv[a]
		}
	}
	for a := range m {
		se := math.Sqrt(cov[a*m+a] / float64(reps*n))
		if zs := (sum[a]/float64(reps*n) - mean[a]) / se; math.Abs(zs) > 4.5 {
			t.Errorf("statistic %d: simulated mean %v, E[t] %v (z = %.2f)", a, sum[a]/float64(reps*n), mean[a], zs)
		}
	}
}

func TestSuffStatLogRegBadInput(t *testing.T) {
	good := SuffStatLogRegConfig{Z: make([]float64, 5), Dim: 2, N: 10, Sigma1: 1, Sigma2: 1}
	if _, err := NewSuffStatLogReg(good); err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	for name, mod := range map[string]func(*SuffStatLogRegConfig){
		"Dim=0":         func(c *SuffStatLogRegConfig) { c.Dim = 0 },
		"Z length":      func(c *SuffStatLogRegConfig) { c.Z = make([]float64, 4) },
		"Z NaN":         func(c *SuffStatLogRegConfig) { c.Z = []float64{0, 0, nan, 0, 0} },
		"N=0":           func(c *SuffStatLogRegConfig) { c.N = 0 },
		"Sigma1=0":      func(c *SuffStatLogRegConfig) { c.Sigma1 = 0 },
		"Sigma2=Inf":    func(c *SuffStatLogRegConfig) { c.Sigma2 = math.Inf(1) },
		"Chebyshev NaN": func(c *SuffStatLogRegConfig) { c.Chebyshev = &[3]float64{0.5, nan, 0} },
	} {
		c := good
		mod(&c)
		if _, err := NewSuffStatLogReg(c); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	var zero SuffStatLogReg
	if v := zero.LogDensity([]float64{0, 0}, []float64{1, 0, 0, 1}); !math.IsNaN(v) {
		t.Errorf("zero value: LogDensity %v, want NaN", v)
	}
	if err := zero.Moments(nil, nil, nil, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero value: Moments err = %v", err)
	}
	s, _ := NewSuffStatLogReg(good)
	if v := s.LogDensity([]float64{0}, []float64{1, 0, 0, 1}); !math.IsNaN(v) {
		t.Errorf("short θ: %v, want NaN", v)
	}
	if v := s.LogDensity([]float64{0, nan}, []float64{1, 0, 0, 1}); !math.IsNaN(v) {
		t.Errorf("NaN θ: %v, want NaN", v)
	}
	if v := s.LogDensity([]float64{0, 0}, []float64{1, 2, 2, 1}); !math.IsNaN(v) {
		t.Errorf("indefinite Σ: %v, want NaN", v)
	}
	if v := s.LogDensityGrad([]float64{0, 0}, []float64{1, 0, 0, 1}, make([]float64, 1), make([]float64, 4)); !math.IsNaN(v) {
		t.Errorf("short gradient: %v, want NaN", v)
	}
	if err := LogRegStats([]float64{1, 2}, 0, make([]float64, 5)); !errors.Is(err, ErrInvalid) {
		t.Errorf("label 0: err = %v", err)
	}
	if err := LogRegStats([]float64{1, math.Inf(1)}, 1, make([]float64, 5)); !errors.Is(err, ErrInvalid) {
		t.Errorf("infinite x: err = %v", err)
	}
	if err := LogRegStats([]float64{1, 2}, 1, make([]float64, 4)); !errors.Is(err, ErrInvalid) {
		t.Errorf("short dst: err = %v", err)
	}
	if _, err := NewSuffStatLogRegPosterior(nil, SuffStatLogRegPosteriorConfig{SigmaX: []float64{1}, SDTheta: 1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil model: err = %v", err)
	}
	if _, err := NewSuffStatLogRegPosterior(s, SuffStatLogRegPosteriorConfig{SigmaX: []float64{1, 2, 2, 1}, SDTheta: 1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("indefinite Σ: err = %v", err)
	}
	if _, err := NewSuffStatLogRegPosterior(s, SuffStatLogRegPosteriorConfig{SigmaX: []float64{1, 0, 0, 1}, SDTheta: 0}); !errors.Is(err, ErrInvalid) {
		t.Errorf("sdTheta 0: err = %v", err)
	}
	var zp SuffStatLogRegPosterior
	if zp.Dim() != 0 || !math.IsNaN(zp.LogDensity([]float64{0})) {
		t.Error("zero-value posterior: want Dim 0 and NaN")
	}
}

func TestSuffStatLogRegPosteriorGradient(t *testing.T) {
	m := LogRegStatDim(2)
	z := []float64{30, -12, 40, 22, 5}[:m]
	s, _ := NewSuffStatLogReg(SuffStatLogRegConfig{Z: z, Dim: 2, N: 100, Sigma1: 0.5, Sigma2: 0.5})
	p, err := NewSuffStatLogRegPosterior(s, SuffStatLogRegPosteriorConfig{SigmaX: []float64{0.4, 0.1, 0.1, 0.3}, SDTheta: math.Sqrt(5)})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.8, -0.3}
	g := make([]float64, 2)
	lp := p.Gradient(x, g)
	if lp != p.LogDensity(x) {
		t.Errorf("Gradient value %v, LogDensity %v", lp, p.LogDensity(x))
	}
	for j := range 2 {
		xp := append([]float64(nil), x...)
		xm := append([]float64(nil), x...)
		xp[j] += 1e-6
		xm[j] -= 1e-6
		fd := (p.LogDensity(xp) - p.LogDensity(xm)) / 2e-6
		if math.Abs(fd-g[j]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂/∂θ_%d = %v, finite difference %v", j, g[j], fd)
		}
	}
	if allocs := testing.AllocsPerRun(50, func() { p.Gradient(x, g) }); allocs > 0 && !raceEnabled {
		t.Errorf("Gradient allocates %v times per call", allocs)
	}
}
