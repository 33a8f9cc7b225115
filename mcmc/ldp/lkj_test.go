package ldp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
)

// The LKJ normaliser against known cases: d = 2, where
// c_2(η) = ∫_{−1}^{1} (1 − r²)^(η−1) dr = B(1/2, η); d = 3, η = 1, where
// c_3 is the volume π²/2 of the 3×3 correlation matrices; and d = 3 at
// other η by quadrature of det(Ω)^(η−1) over the correlations
// (a, b, c) = (r12, r13, r23), with det = (1−a²)(1−b²) − (c − ab)² and the
// substitutions a = sin φ1, b = sin φ2, c = ab + cos φ1 cos φ2 sin ψ that
// make the integrand smooth.
func TestLKJNormalizer(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	for _, eta := range []float64{0.3, 0.7, 1, 2, 5.5} {
		c, err := LKJ{Eta: eta}.LogNormalizer(2)
		if err != nil {
			t.Fatal(err)
		}
		if ref := special.LogBeta(0.5, eta); math.Abs(c-ref) > 1e-13 {
			t.Errorf("d=2 η=%v: log c = %v, log B(1/2, η) = %v", eta, c, ref)
		}
	}
	c3, _ := LKJ{Eta: 1}.LogNormalizer(3)
	if relErr(math.Exp(c3), math.Pi*math.Pi/2) > 1e-14 {
		t.Errorf("d=3 η=1: c = %v, want π²/2 = %v", math.Exp(c3), math.Pi*math.Pi/2)
	}
	xs, ws := compositeKronrod(math.Pi/2, 0.4)
	for _, eta := range []float64{1, 1.5, 2, 4} {
		ref := 0.0
		for i, p1 := range xs {
			for j, p2 := range xs {
				r := math.Cos(p1) * math.Cos(p2)
				outer := ws[i] * ws[j] * math.Cos(p1) * math.Cos(p2)
				for k, psi := range xs {
					rc := r * math.Cos(psi)
					ref += outer * ws[k] * math.Pow(rc, 2*eta-2) * rc
				}
			}
		}
		c, _ := LKJ{Eta: eta}.LogNormalizer(3)
		if relErr(math.Exp(c), ref) > 1e-12 {
			t.Errorf("d=3 η=%v: c = %v, quadrature %v (rel %.2g)", eta, math.Exp(c), ref, relErr(math.Exp(c), ref))
		}
	}
}

// logAbsDet is log |det a| by Gaussian elimination with partial pivoting.
func logAbsDet(a []float64, n int) float64 {
	m := append([]float64(nil), a...)
	ld := 0.0
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r*n+c]) > math.Abs(m[p*n+c]) {
				p = r
			}
		}
		if p != c {
			for k := range n {
				m[c*n+k], m[p*n+k] = m[p*n+k], m[c*n+k]
			}
		}
		ld += math.Log(math.Abs(m[c*n+c]))
		for r := c + 1; r < n; r++ {
			f := m[r*n+c] / m[c*n+c]
			for k := c; k < n; k++ {
				m[r*n+k] -= f * m[c*n+k]
			}
		}
	}
	return ld
}

// ScaledLKJ's log density of its coordinates equals the density of
// (τ, Ω) — half-normal τ and LKJ.LogDensity(Ω) with the normaliser — times
// the Jacobian of the map from the coordinates to (τ, Ω's lower triangle),
// the latter computed by central finite differences.
func TestScaledLKJChangeOfVariables(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{2, 3, 4} {
		for _, pr := range []ScaledLKJ{{Eta: 2, Scale: 2.5}, {Eta: 0.8, Scale: 0.5}} {
			np := CovParams(d)
			x := make([]float64, np)
			for i := range x {
				x[i] = 0.8 * r.NormFloat64()
			}
			sigma := make([]float64, d*d)
			got := pr.Cov(x, d, sigma)
			// (τ, Ω) from Σ.
			omega := make([]float64, d*d)
			ref := 0.0
			for j := range d {
				tau := math.Sqrt(sigma[j*d+j])
				ref += math.Log(2) + variateNormalLogPdf(tau, pr.Scale) + math.Log(tau) // half-normal · dτ/dlogτ
			}
			for j := range d {
				for k := range d {
					omega[j*d+k] = sigma[j*d+k] / math.Sqrt(sigma[j*d+j]*sigma[k*d+k])
				}
				omega[j*d+j] = 1
			}
			ref += LKJ{Eta: pr.Eta}.LogDensity(omega, d)
			// Jacobian of y ↦ lower triangle of Ω.
			nc := d * (d - 1) / 2
			if nc > 0 {
				jac := make([]float64, nc*nc)
				h := 1e-6
				lower := func(xx []float64) []float64 {
					s := make([]float64, d*d)
					pr.Cov(xx, d, s)
					var out []float64
					for i := 1; i < d; i++ {
						for k := range i {
							out = append(out, s[i*d+k]/math.Sqrt(s[i*d+i]*s[k*d+k]))
						}
					}
					return out
				}
				for c := range nc {
					xp := append([]float64(nil), x...)
					xm := append([]float64(nil), x...)
					xp[d+c] += h
					xm[d+c] -= h
					lp, lm := lower(xp), lower(xm)
					for rr := range nc {
						jac[rr*nc+c] = (lp[rr] - lm[rr]) / (2 * h)
					}
				}
				ref += logAbsDet(jac, nc)
			}
			if math.Abs(got-ref) > 1e-7 {
				t.Errorf("d=%d %+v: Cov log density %v, change of variables %v", d, pr, got, ref)
			}
		}
	}
}

func variateNormalLogPdf(x, sd float64) float64 {
	return -0.5*x*x/(sd*sd) - math.Log(sd) - 0.5*math.Log(2*math.Pi)
}

// Every off-diagonal entry of an LKJ(η) matrix of dimension d has
// (Ω_ij + 1)/2 ~ Beta(η − 1 + d/2, η − 1 + d/2). A KS test of each entry
// of 4000 draws at d = 4 (6 entries, each at level 1e-4: family-wise
// false alarm below 6e-4; fixed seed).
func TestLKJSampleMarginals(t *testing.T) {
	const d, n = 4, 4000
	for _, eta := range []float64{0.7, 2} {
		r := rand.New(rand.NewPCG(21, uint64(eta*10)))
		vals := make([][]float64, d*d)
		om := make([]float64, d*d)
		for range n {
			if err := (LKJ{Eta: eta}).Sample(r, d, om); err != nil {
				t.Fatal(err)
			}
			for i := range d {
				for k := range i {
					vals[i*d+k] = append(vals[i*d+k], om[i*d+k])
				}
				if om[i*d+i] != 1 {
					t.Fatalf("diagonal %v", om[i*d+i])
				}
			}
		}
		b := eta - 1 + float64(d)/2
		for i := range d {
			for k := range i {
				_, p := stats.KSOneSample(vals[i*d+k], func(x float64) float64 { return special.BetaInc(b, b, (x+1)/2) })
				if p < 1e-4 {
					t.Errorf("η=%v entry (%d,%d): KS p = %.3g against Beta(%v, %v)", eta, i, k, p, b, b)
				}
			}
		}
	}
}

func TestScaledLKJParamsRoundTripAndSample(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	pr := ScaledLKJ{Eta: 2, Scale: 2.5}
	for _, d := range []int{1, 3, 5} {
		sigma := make([]float64, d*d)
		if err := pr.Sample(r, d, sigma); err != nil {
			t.Fatal(err)
		}
		x := make([]float64, CovParams(d))
		if err := pr.Params(sigma, d, x); err != nil {
			t.Fatal(err)
		}
		back := make([]float64, d*d)
		if lp := pr.Cov(x, d, back); math.IsNaN(lp) || math.IsInf(lp, 0) {
			t.Fatalf("d=%d: log prior %v", d, lp)
		}
		for i := range sigma {
			if math.Abs(back[i]-sigma[i]) > 1e-12*math.Max(1, math.Abs(sigma[i])) {
				t.Errorf("d=%d: Σ[%d] = %v after the round trip, want %v", d, i, back[i], sigma[i])
			}
		}
	}
}

// The gradient of ℓ(Σ(x)) + log prior(x) for ℓ(Σ) = Σ_jk G_jk Σ_jk
// (a linear functional, whose adjoint is G) against finite differences.
func TestScaledLKJGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, d := range []int{1, 2, 4} {
		pr := ScaledLKJ{Eta: 1.7, Scale: 1.3}
		np := CovParams(d)
		x := make([]float64, np)
		for i := range x {
			x[i] = 0.7 * r.NormFloat64()
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
		sigma := make([]float64, d*d)
		grad := make([]float64, np)
		pr.covGrad(x, d, sigma, g, grad)
		for i := range x {
			xp := append([]float64(nil), x...)
			xm := append([]float64(nil), x...)
			xp[i] += 1e-6
			xm[i] -= 1e-6
			fd := (f(xp) - f(xm)) / 2e-6
			if math.Abs(fd-grad[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("d=%d ∂/∂x_%d = %v, finite difference %v", d, i, grad[i], fd)
			}
		}
	}
}

func TestSuffStatLogRegCovPosteriorGradient(t *testing.T) {
	const d = 3
	m := LogRegStatDim(d)
	z := make([]float64, m)
	for i := range z {
		z[i] = 4*float64(i%3) - 3
	}
	s, _ := NewSuffStatLogReg(SuffStatLogRegConfig{Z: z, Dim: d, N: 60, Sigma1: 0.8, Sigma2: 0.8})
	p, err := NewSuffStatLogRegCovPosterior(s, SuffStatLogRegCovPosteriorConfig{SDTheta: math.Sqrt(5), Cov: ScaledLKJ{Eta: 2, Scale: 2.5}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Dim() != d+6 {
		t.Fatalf("Dim %d", p.Dim())
	}
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = 0.5 * r.NormFloat64()
	}
	g := make([]float64, p.Dim())
	lp := p.Gradient(x, g)
	if lp != p.LogDensity(x) || math.IsNaN(lp) || math.IsInf(lp, 0) {
		t.Fatalf("Gradient value %v, LogDensity %v", lp, p.LogDensity(x))
	}
	for i := range x {
		xp := append([]float64(nil), x...)
		xm := append([]float64(nil), x...)
		xp[i] += 1e-6
		xm[i] -= 1e-6
		fd := (p.LogDensity(xp) - p.LogDensity(xm)) / 2e-6
		if math.Abs(fd-g[i]) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂/∂x_%d = %v, finite difference %v", i, g[i], fd)
		}
	}
	if allocs := testing.AllocsPerRun(20, func() { p.Gradient(x, g) }); allocs > 0 && !raceEnabled {
		t.Errorf("Gradient allocates %v times per call", allocs)
	}
	sg := make([]float64, d*d)
	if err := p.Sigma(x, sg); err != nil {
		t.Fatal(err)
	}
	x[0] = math.Inf(1)
	if v := p.LogDensity(x); !math.IsInf(v, -1) {
		t.Errorf("infinite coordinate: %v, want −Inf", v)
	}
}

func TestLKJBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, pr := range []ScaledLKJ{{Eta: 0, Scale: 1}, {Eta: math.NaN(), Scale: 1}, {Eta: 2, Scale: 0}, {Eta: 2, Scale: math.Inf(1)}} {
		if err := pr.Validate(2); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: Validate err = %v", pr, err)
		}
		if v := pr.Cov(make([]float64, 3), 2, make([]float64, 4)); !math.IsNaN(v) {
			t.Errorf("%+v: Cov = %v, want NaN", pr, v)
		}
		if err := pr.Sample(r, 2, make([]float64, 4)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: Sample err = %v", pr, err)
		}
	}
	good := ScaledLKJ{Eta: 2, Scale: 2.5}
	if err := good.Validate(maxCovDim + 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("d too large: err = %v", err)
	}
	if v := good.Cov(make([]float64, 2), 2, make([]float64, 4)); !math.IsNaN(v) {
		t.Errorf("short coordinates: %v", v)
	}
	if v := good.Cov([]float64{0, math.NaN(), 0}, 2, make([]float64, 4)); !math.IsInf(v, -1) {
		t.Errorf("NaN coordinate: %v, want −Inf", v)
	}
	if err := good.Sample(nil, 2, make([]float64, 4)); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil rand: err = %v", err)
	}
	if err := good.Params([]float64{1, 2, 2, 1}, 2, make([]float64, 3)); !errors.Is(err, ErrInvalid) {
		t.Errorf("indefinite Σ: err = %v", err)
	}
	if err := good.Params([]float64{-1, 0, 0, 1}, 2, make([]float64, 3)); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative variance: err = %v", err)
	}
	lkj := LKJ{Eta: 2}
	if v := lkj.LogDensity([]float64{1, 0.5, 0.4, 1}, 2); !math.IsInf(v, -1) {
		t.Errorf("asymmetric Ω: %v", v)
	}
	if v := lkj.LogDensity([]float64{1, 1.5, 1.5, 1}, 2); !math.IsInf(v, -1) {
		t.Errorf("indefinite Ω: %v", v)
	}
	if v := lkj.LogDensity([]float64{1, 0}, 2); !math.IsNaN(v) {
		t.Errorf("short Ω: %v", v)
	}
	if _, err := (LKJ{Eta: -1}).LogNormalizer(3); !errors.Is(err, ErrInvalid) {
		t.Errorf("η < 0: err = %v", err)
	}
	s, _ := NewSuffStatLogReg(SuffStatLogRegConfig{Z: make([]float64, 5), Dim: 2, N: 3, Sigma1: 1, Sigma2: 1})
	if _, err := NewSuffStatLogRegCovPosterior(s, SuffStatLogRegCovPosteriorConfig{SDTheta: 1, Cov: ScaledLKJ{}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero prior: err = %v", err)
	}
	if _, err := NewSuffStatLogRegCovPosterior(nil, SuffStatLogRegCovPosteriorConfig{SDTheta: 1, Cov: good}); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil model: err = %v", err)
	}
	var zp SuffStatLogRegCovPosterior
	if zp.Dim() != 0 || !math.IsNaN(zp.LogDensity(nil)) {
		t.Error("zero-value posterior: want Dim 0 and NaN")
	}
	if _, err := NewSuffStatCovPosterior(&SuffStatLinReg{d: 2}, SuffStatCovPosteriorConfig{SDTheta: 1, Shape: 1, Rate: 1, Cov: nil}); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil covariance prior: err = %v", err)
	}
	var np *CovPrior
	if _, err := NewSuffStatCovPosterior(&SuffStatLinReg{d: 2}, SuffStatCovPosteriorConfig{SDTheta: 1, Shape: 1, Rate: 1, Cov: np}); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil *CovPrior: err = %v", err)
	}
}
