package ldp

import (
	"fmt"
	"math"
	"sync"

	"github.com/privinfer/privinfer/internal/linalg"
)

// LogRegStatDim returns the length d + d(d+1)/2 of the per-person
// logistic-regression statistic t(x, y) = [y·x, t2(x)] of the LDP paper
// §3.1.2 and §13.2.
func LogRegStatDim(d int) int { return d + d*(d+1)/2 }

// LogRegStats writes t(x, y) = [y·x, t2(x)] for one person into dst (length
// LogRegStatDim(d)): first y·x_1, …, y·x_d, then t2(x) = [x_1², …, x_d²,
// x_1x_2, …, x_{d−1}x_d] (squares first, then the products x_j x_k, j < k,
// in lexicographic order, as in SuffStats). The label y must be −1 or +1
// (the polynomial approximate sufficient statistics of Huggins, Adams and
// Broderick 2017 for y ∈ {−1, 1}; y² = 1 drops out).
func LogRegStats(x []float64, y float64, dst []float64) error {
	d := len(x)
	if d < 1 || len(dst) != LogRegStatDim(d) {
		return fmt.Errorf("ldp: LogRegStats needs d ≥ 1 and dst of length %d, got d = %d, len(dst) = %d: %w", LogRegStatDim(d), d, len(dst), ErrInvalid)
	}
	if y != -1 && y != 1 {
		return fmt.Errorf("ldp: LogRegStats needs a label y of −1 or +1, got %v: %w", y, ErrInvalid)
	}
	for j, v := range x {
		if !finite(v) {
			return fmt.Errorf("ldp: LogRegStats needs finite x, got x[%d] = %v: %w", j, v, ErrInvalid)
		}
	}
	for j, v := range x {
		dst[j] = y * v
	}
	for i, p := range statPairs(d)[:d*(d+1)/2] {
		dst[d+i] = x[p[0]] * x[p[1]]
		if !finite(dst[d+i]) {
			return fmt.Errorf("ldp: LogRegStats: x[%d]·x[%d] overflows: %w", p[0], p[1], ErrInvalid)
		}
	}
	return nil
}

// SuffStatLogRegConfig configures NewSuffStatLogReg.
type SuffStatLogRegConfig struct {
	// Z is the released sum Σ_i (t(x_i, y_i) + ζ_i) of N people's noisy
	// statistics (length LogRegStatDim(Dim)).
	Z []float64
	// Dim is the input dimension d (≥ 1).
	Dim int
	// N is the number of people (≥ 1).
	N int
	// Sigma1 and Sigma2 are the per-person noise standard deviations on
	// the y·x block and on the t2(x) block (> 0; Lemma 13.1 of the LDP
	// paper, mechanism/ldp.LogRegSensitivity, calibrates them).
	Sigma1, Sigma2 float64
	// Chebyshev, if non-nil, holds the coefficients (b0, b1, b2) of a
	// second-order expansion σ(t) ≈ b0 + b1 t + b2 t² (ChebyshevSigmoid)
	// that replaces the logistic link in the moments (see SuffStatLogReg).
	// Nil uses the exact logistic link.
	Chebyshev *[3]float64
}

// Validate reports whether c is a usable configuration, with an error
// naming the offending field.
func (c SuffStatLogRegConfig) Validate() error {
	if err := checkSuffStatConfig("SuffStatLogRegConfig", c.Dim, LogRegStatDim(c.Dim), c.N, c.Z,
		namedSigma{"Sigma1", c.Sigma1}, namedSigma{"Sigma2", c.Sigma2}); err != nil {
		return err
	}
	if c.Chebyshev != nil {
		for j, v := range c.Chebyshev {
			if !finite(v) {
				return fmt.Errorf("ldp: SuffStatLogRegConfig.Chebyshev[%d] must be finite, got %v: %w", j, v, ErrInvalid)
			}
		}
	}
	return nil
}

// SuffStatLogReg is the sufficient-statistics logistic-regression model of
// the LDP paper §3.1.2 (with §13.1–13.2 and Kulkarni et al. 2021): each of
// N people holds x ∈ R^d and a label y ∈ {−1, 1}, and releases
// t(x, y) = [y·x, t2(x)] (LogRegStats) plus Gaussian noise of standard
// deviation Sigma1 on y·x and Sigma2 on t2(x); the aggregator observes the
// sum Z. With the normal approximation of the latent sum S = Σ t(x_i, y_i)
// (eq. 3),
//
//	Pr[Z | θ, Σ] ≈ N(Z; N μ_t, N Σ_t + N Σ*),
//
// where μ_t and Σ_t are the mean and covariance of t(x, y) under the
// generative model x ~ N(0, Σ), Pr[y = 1 | x] = σ(xᵀθ). With
// m(u) = E[y | xᵀθ = u] = 2σ(u) − 1 = tanh(u/2), c = Σθ and
// κ_k = E[m^(k)(u)] for u ~ N(0, θᵀΣθ), Gaussian integration by parts
// (Stein's lemma) gives every moment in closed form:
//
//	E[y x_j] = κ1 c_j,                 E[x_j x_k] = Σ_jk,
//	Cov(y x_j, y x_k) = Σ_jk − κ1² c_j c_k                  (y² = 1),
//	Cov(y x_j, x_k x_l) = κ3 c_j c_k c_l + κ1 (c_k Σ_jl + c_l Σ_jk),
//	Cov(x_j x_k, x_l x_m) = Σ_jl Σ_km + Σ_jm Σ_kl          (Isserlis).
//
// κ1 and κ3 (and κ5, for the gradient, through dκ_k/dv = κ_{k+2}/2) are
// one-dimensional Gaussian expectations of the derivatives of tanh(u/2),
// which are polynomials in sech²(u/2); they are computed by composite
// 16-point Gauss–Legendre quadrature, exact to rounding. With
// Config.Chebyshev the link is replaced by its second-order expansion
// σ(u) ≈ b0 + b1 u + b2 u² (LDP paper §7, eq. 44, as the paper does for
// the sigmoid elsewhere): then κ1 = 2 b1 and κ3 = κ5 = 0, every moment is a
// Gaussian moment, and only b1 matters. The clipping of x that bounds the
// sensitivity is not part of the approximation (as in the paper).
//
// The paper defers μ_t and Σ_t to Kulkarni et al. (2021) without printing
// them; the expressions above are derived here and checked against
// numerical integration over x in the tests.
type SuffStatLogReg struct {
	d, m, d2 int
	n        float64
	z        []float64
	noiseVar []float64 // N·Σ* diagonal
	pairs    [][2]int  // t2 index → (j, k)
	cheb     bool
	b1       float64
	pool     sync.Pool
}

type sslWork struct {
	c, mean, cov, l, inv, alpha, cbar, sbar []float64
}

// NewSuffStatLogReg validates cfg and returns the model.
func NewSuffStatLogReg(cfg SuffStatLogRegConfig) (*SuffStatLogReg, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := cfg.Dim
	m := LogRegStatDim(d)
	s := &SuffStatLogReg{d: d, m: m, d2: d * (d + 1) / 2, n: float64(cfg.N), z: append([]float64(nil), cfg.Z...),
		noiseVar: make([]float64, m), pairs: statPairs(d)[:d*(d+1)/2]}
	if cfg.Chebyshev != nil {
		s.cheb, s.b1 = true, cfg.Chebyshev[1]
	}
	for i := range m {
		sg := cfg.Sigma1
		if i >= d {
			sg = cfg.Sigma2
		}
		s.noiseVar[i] = s.n * sg * sg
	}
	s.pool.New = func() any {
		return &sslWork{c: make([]float64, d), mean: make([]float64, m), cov: make([]float64, m*m),
			l: make([]float64, m*m), inv: make([]float64, m*m), alpha: make([]float64, m),
			cbar: make([]float64, d), sbar: make([]float64, d*d)}
	}
	return s, nil
}

// Dim returns d.
func (s *SuffStatLogReg) Dim() int {
	if s == nil {
		return 0
	}
	return s.d
}

// N returns the number of people.
func (s *SuffStatLogReg) N() int {
	if s == nil {
		return 0
	}
	return int(s.n)
}

func (s *SuffStatLogReg) built() bool { return s != nil && s.d >= 1 && s.n >= 1 && len(s.z) == s.m }

// linkMoments returns κ1, κ3 and κ5 = E[m′(u)], E[m‴(u)], E[m⁽⁵⁾(u)] for
// u ~ N(0, v).
func (s *SuffStatLogReg) linkMoments(v float64) (k1, k3, k5 float64) {
	if s.cheb {
		return 2 * s.b1, 0, 0
	}
	return tanhMoments(v)
}

// tanhMoments returns κ_k = E[m^(k)(u)], k = 1, 3, 5, for m(u) = tanh(u/2)
// and u ~ N(0, v), v ≥ 0. With s = sech²(u/2),
//
//	m′ = s/2,  m‴ = s(2 − 3s)/4,  m⁽⁵⁾ = s(1 − 7.5s + 7.5s²)/2,
//
// all even in u. The integrals over u ≥ 0 use composite 16-point
// Gauss–Legendre on panels of width at most min(2, 2√v) up to
// min(9√v, 46): the integrand is analytic within distance π of the real
// axis and the Gaussian factor varies on the scale √v, so each panel is
// exact to rounding, and the truncated tails are below 1e-17 of the
// result.
func tanhMoments(v float64) (k1, k3, k5 float64) {
	if v <= 0 {
		return 0.5, -0.25, 0.5
	}
	sv := math.Sqrt(v)
	upper := math.Min(9*sv, 46)
	h := math.Min(2, 2*sv)
	panels := int(math.Ceil(upper / h))
	h = upper / float64(panels)
	norm := 2 / math.Sqrt(2*math.Pi*v) // two half-lines
	for p := range panels {
		mid := (float64(p) + 0.5) * h
		for i, xi := range gl16x {
			u := mid + 0.5*h*xi
			e := math.Exp(-u)
			sech2 := 4 * e / ((1 + e) * (1 + e))
			w := gl16w[i] * math.Exp(-0.5*u*u/v)
			k1 += w * 0.5 * sech2
			k3 += w * 0.25 * sech2 * (2 - 3*sech2)
			k5 += w * 0.5 * sech2 * (1 + sech2*(-7.5+7.5*sech2))
		}
	}
	f := norm * 0.5 * h
	return k1 * f, k3 * f, k5 * f
}

// moments writes the per-person mean and covariance of t into w.mean and
// w.cov (and c = Σθ into w.c), and returns κ1, κ3, κ5 and v = θᵀΣθ.
func (s *SuffStatLogReg) moments(theta, sigmaX []float64, w *sslWork) (k1, k3, k5, v float64) {
	d, m := s.d, s.m
	c := w.c
	for j := range d {
		sum := 0.0
		for k := range d {
			sum += sigmaX[j*d+k] * theta[k]
		}
		c[j] = sum
		v += theta[j] * sum
	}
	v = math.Max(v, 0)
	k1, k3, k5 = s.linkMoments(v)
	mean, cov := w.mean, w.cov
	for j := range d {
		mean[j] = k1 * c[j]
		for k := range d {
			cov[j*m+k] = sigmaX[j*d+k] - k1*k1*c[j]*c[k]
		}
	}
	for b, pb := range s.pairs {
		k, l := pb[0], pb[1]
		mean[d+b] = sigmaX[k*d+l]
		for j := range d {
			ab := k3*c[j]*c[k]*c[l] + k1*(c[k]*sigmaX[j*d+l]+c[l]*sigmaX[j*d+k])
			cov[j*m+d+b] = ab
			cov[(d+b)*m+j] = ab
		}
		for a, pa := range s.pairs {
			i, j := pa[0], pa[1]
			cov[(d+a)*m+d+b] = sigmaX[i*d+k]*sigmaX[j*d+l] + sigmaX[i*d+l]*sigmaX[j*d+k]
		}
	}
	return k1, k3, k5, v
}

// Moments writes the per-person mean E[t] (length LogRegStatDim(d)) and
// covariance Cov[t] (row-major) of the statistic under x ~ N(0, Σ),
// Pr[y = 1 | x] = σ(xᵀθ) (or the Chebyshev link of the configuration).
func (s *SuffStatLogReg) Moments(theta, sigmaX, mean, cov []float64) error {
	if !s.built() {
		return fmt.Errorf("ldp: SuffStatLogReg used without NewSuffStatLogReg: %w", ErrInvalid)
	}
	if len(theta) != s.d || !checkCov(sigmaX, s.d) || len(mean) != s.m || len(cov) != s.m*s.m {
		return fmt.Errorf("ldp: Moments needs θ of length %d, a finite %d×%d Σ, mean of length %d and cov of length %d: %w", s.d, s.d, s.d, s.m, s.m*s.m, ErrInvalid)
	}
	for j, v := range theta {
		if !finite(v) {
			return fmt.Errorf("ldp: Moments needs finite θ, got θ[%d] = %v: %w", j, v, ErrInvalid)
		}
	}
	w := s.pool.Get().(*sslWork)
	defer s.pool.Put(w)
	s.moments(theta, sigmaX, w)
	copy(mean, w.mean)
	copy(cov, w.cov)
	return nil
}

// LogDensity returns log N(Z; N μ_t, N Σ_t + N Σ*) at (θ, Σ), sigmaX
// row-major d×d. NaN for invalid arguments or a Σ for which the covariance
// is not positive definite. Safe for concurrent use; allocates nothing in
// steady state.
func (s *SuffStatLogReg) LogDensity(theta, sigmaX []float64) float64 {
	return s.LogDensityGrad(theta, sigmaX, nil, nil)
}

// LogDensityGrad returns LogDensity and, when gradTheta (length d) and
// gradSigma (length d·d) are non-nil, writes ∂/∂θ into gradTheta and into
// gradSigma the symmetric matrix G with dℓ = Σ_jk G_jk dΣ_jk for every
// symmetric perturbation dΣ. It allocates nothing in steady state.
func (s *SuffStatLogReg) LogDensityGrad(theta, sigmaX, gradTheta, gradSigma []float64) float64 {
	if !s.built() {
		return math.NaN()
	}
	d, m := s.d, s.m
	grad := gradTheta != nil || gradSigma != nil
	if len(theta) != d || !checkCov(sigmaX, d) || (grad && (len(gradTheta) != d || len(gradSigma) != d*d)) {
		return math.NaN()
	}
	for _, v := range theta {
		if !finite(v) {
			return math.NaN()
		}
	}
	w := s.pool.Get().(*sslWork)
	defer s.pool.Put(w)
	k1, k3, k5, _ := s.moments(theta, sigmaX, w)
	n := s.n
	cov, r := w.cov, w.alpha
	for i := range m {
		r[i] = s.z[i] - n*w.mean[i]
		for j := range m {
			cov[i*m+j] *= n
		}
		cov[i*m+i] += s.noiseVar[i]
	}
	if err := linalg.Cholesky(cov, m, w.l); err != nil {
		return math.NaN()
	}
	logdet := linalg.LogDetChol(w.l, m)
	linalg.CholSolve(w.l, m, r) // r ← α = K⁻¹ r
	q := 0.0
	for i := range m {
		q += (s.z[i] - n*w.mean[i]) * r[i]
	}
	ll := -0.5*(float64(m)*2*logSqrt2Pi+logdet) - 0.5*q
	if !grad {
		return ll
	}
	if err := linalg.InvSPD(cov, m, w.inv); err != nil {
		return math.NaN()
	}
	s.backprop(theta, sigmaX, w, k1, k3, k5, gradTheta, gradSigma)
	return ll
}

// backprop writes the gradient of the log density given α = K⁻¹r in
// w.alpha and K⁻¹ in w.inv: dℓ = N αᵀ dμ + N ⟨W, dΣ_t⟩ with
// W = ½(ααᵀ − K⁻¹), pulled back through the moment formulas to κ1, κ3,
// c = Σθ and Σ, then through c and v = θᵀΣθ (dκ_k/dv = κ_{k+2}/2) to θ
// and Σ.
func (s *SuffStatLogReg) backprop(theta, sigmaX []float64, w *sslWork, k1, k3, k5 float64, gTheta, gSigma []float64) {
	d, m, n := s.d, s.m, s.n
	alpha, inv, c := w.alpha, w.inv, w.c
	cbar, sbar := w.cbar, w.sbar
	clear(cbar)
	clear(sbar)
	var k1bar, k3bar float64
	wt := func(a, b int) float64 { return n * 0.5 * (alpha[a]*alpha[b] - inv[a*m+b]) }
	// Mean: μ_A,j = κ1 c_j, μ_B,(kl) = Σ_kl.
	for j := range d {
		g := n * alpha[j]
		k1bar += g * c[j]
		cbar[j] += g * k1
	}
	for b, pb := range s.pairs {
		sbar[pb[0]*d+pb[1]] += n * alpha[d+b]
	}
	// AA block: Σ_jk − κ1² c_j c_k, over ordered pairs.
	for j := range d {
		for k := range d {
			g := wt(j, k)
			sbar[j*d+k] += g
			k1bar -= 2 * k1 * c[j] * c[k] * g
			cbar[j] -= k1 * k1 * c[k] * g
			cbar[k] -= k1 * k1 * c[j] * g
		}
	}
	// AB and BA blocks: κ3 c_j c_k c_l + κ1 (c_k Σ_jl + c_l Σ_jk).
	for b, pb := range s.pairs {
		k, l := pb[0], pb[1]
		for j := range d {
			g := wt(j, d+b) + wt(d+b, j)
			k3bar += g * c[j] * c[k] * c[l]
			k1bar += g * (c[k]*sigmaX[j*d+l] + c[l]*sigmaX[j*d+k])
			cbar[j] += g * k3 * c[k] * c[l]
			cbar[k] += g * (k3*c[j]*c[l] + k1*sigmaX[j*d+l])
			cbar[l] += g * (k3*c[j]*c[k] + k1*sigmaX[j*d+k])
			sbar[j*d+l] += g * k1 * c[k]
			sbar[j*d+k] += g * k1 * c[l]
		}
	}
	// BB block: Σ_ik Σ_jl + Σ_il Σ_jk for (i, j), (k, l).
	for a, pa := range s.pairs {
		i, j := pa[0], pa[1]
		for b, pb := range s.pairs {
			k, l := pb[0], pb[1]
			g := wt(d+a, d+b)
			sbar[i*d+k] += g * sigmaX[j*d+l]
			sbar[j*d+l] += g * sigmaX[i*d+k]
			sbar[i*d+l] += g * sigmaX[j*d+k]
			sbar[j*d+k] += g * sigmaX[i*d+l]
		}
	}
	// κ1(v), κ3(v): dκ1/dv = κ3/2, dκ3/dv = κ5/2.
	vbar := 0.5 * (k1bar*k3 + k3bar*k5)
	// c = Σθ and v = θᵀΣθ.
	for j := range d {
		g := 2 * vbar * c[j]
		for k := range d {
			g += sigmaX[k*d+j] * cbar[k]
		}
		gTheta[j] = g
	}
	for j := range d {
		for k := range d {
			sbar[j*d+k] += cbar[j]*theta[k] + vbar*theta[j]*theta[k]
		}
	}
	for j := range d {
		for k := range d {
			gSigma[j*d+k] = 0.5 * (sbar[j*d+k] + sbar[k*d+j])
		}
	}
}

// SuffStatLogRegPosterior is the posterior of θ for the
// sufficient-statistics logistic regression with the input covariance Σ
// fixed and prior θ ~ N(0, SdTheta² I), as an mcmc.GradTarget on x = θ.
type SuffStatLogRegPosterior struct {
	s       *SuffStatLogReg
	sigmaX  []float64
	sdTheta float64
	pool    sync.Pool
}

// SuffStatLogRegPosteriorConfig configures NewSuffStatLogRegPosterior:
// the fixed input covariance Σ and the prior θ ~ N(0, SDTheta² I). The
// zero value is refused.
type SuffStatLogRegPosteriorConfig struct {
	// SigmaX is the input covariance Σ (row-major d×d, symmetric positive
	// definite, d the model's dimension).
	SigmaX []float64
	// SDTheta is the prior standard deviation of each θ_j (finite, > 0).
	SDTheta float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field. NewSuffStatLogRegPosterior further
// checks that SigmaX is a positive definite d×d matrix for the model's d.
func (c SuffStatLogRegPosteriorConfig) Validate() error {
	if len(c.SigmaX) == 0 {
		return fmt.Errorf("ldp: SuffStatLogRegPosteriorConfig.SigmaX must not be empty: %w", ErrInvalid)
	}
	for i, v := range c.SigmaX {
		if !finite(v) {
			return fmt.Errorf("ldp: SuffStatLogRegPosteriorConfig.SigmaX[%d] must be finite, got %v: %w", i, v, ErrInvalid)
		}
	}
	return checkSDTheta("SuffStatLogRegPosteriorConfig", c.SDTheta)
}

// NewSuffStatLogRegPosterior returns the posterior for the released sum in
// s with the covariance and prior of cfg.
func NewSuffStatLogRegPosterior(s *SuffStatLogReg, cfg SuffStatLogRegPosteriorConfig) (*SuffStatLogRegPosterior, error) {
	if !s.built() {
		return nil, fmt.Errorf("ldp: model is nil or was not built by NewSuffStatLogReg: %w", ErrInvalid)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sigmaX, sdTheta := cfg.SigmaX, cfg.SDTheta
	if !checkCov(sigmaX, s.d) {
		return nil, fmt.Errorf("ldp: SuffStatLogRegPosteriorConfig.SigmaX must be a %d×%d matrix, got length %d: %w", s.d, s.d, len(sigmaX), ErrInvalid)
	}
	l := make([]float64, s.d*s.d)
	if err := linalg.Cholesky(sigmaX, s.d, l); err != nil {
		return nil, fmt.Errorf("ldp: SuffStatLogRegPosteriorConfig.SigmaX must be positive definite: %w", ErrInvalid)
	}
	p := &SuffStatLogRegPosterior{s: s, sigmaX: append([]float64(nil), sigmaX...), sdTheta: sdTheta}
	d := s.d
	p.pool.New = func() any { b := make([]float64, d*d); return &b }
	return p, nil
}

// Dim returns d.
func (p *SuffStatLogRegPosterior) Dim() int {
	if p == nil || p.s == nil {
		return 0
	}
	return p.s.d
}

// LogDensity returns the unnormalised log posterior of θ.
func (p *SuffStatLogRegPosterior) LogDensity(x []float64) float64 { return p.Gradient(x, nil) }

// Gradient writes ∇ log π(θ) into grad (if non-nil) and returns log π(θ).
// It allocates nothing in steady state.
func (p *SuffStatLogRegPosterior) Gradient(x, grad []float64) float64 {
	if p == nil || !p.s.built() || len(x) != p.s.d || (grad != nil && len(grad) != p.s.d) {
		return math.NaN()
	}
	var ll float64
	if grad != nil {
		gs := p.pool.Get().(*[]float64)
		ll = p.s.LogDensityGrad(x, p.sigmaX, grad, *gs)
		p.pool.Put(gs)
	} else {
		ll = p.s.LogDensity(x, p.sigmaX)
	}
	if math.IsNaN(ll) {
		for _, v := range x {
			if !finite(v) {
				return math.NaN()
			}
		}
		if grad != nil {
			clear(grad)
		}
		return math.Inf(-1) // covariance of the approximation not positive definite
	}
	v2 := p.sdTheta * p.sdTheta
	for j, v := range x {
		ll -= 0.5 * v * v / v2
		if grad != nil {
			grad[j] -= v / v2
		}
	}
	return ll
}

// SuffStatLogRegCovPosterior is the posterior of (θ, Σ) for the
// sufficient-statistics logistic regression with priors
// θ ~ N(0, SdTheta² I) and Σ ~ ScaledLKJ (the LDP paper's Fig. 8:
// θ ~ N(0, 5I), Σ ~ scaled LKJ(2) with scale 2.5), as an mcmc.GradTarget
// on x = (θ, the ScaledLKJ coordinates of Σ) for NUTS. d ≤ 8.
type SuffStatLogRegCovPosterior struct {
	s       *SuffStatLogReg
	sdTheta float64
	cov     ScaledLKJ
	pool    sync.Pool
}

type sslCovWork struct{ sigma, gs, gc []float64 }

// SuffStatLogRegCovPosteriorConfig configures
// NewSuffStatLogRegCovPosterior: the priors θ ~ N(0, SDTheta² I) and
// Σ ~ Cov. The zero value is refused.
type SuffStatLogRegCovPosteriorConfig struct {
	// SDTheta is the prior standard deviation of each θ_j (finite, > 0;
	// the paper uses √5).
	SDTheta float64
	// Cov is the scaled LKJ prior on Σ (the paper uses
	// ScaledLKJ{Eta: 2, Scale: 2.5}).
	Cov ScaledLKJ
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field. NewSuffStatLogRegCovPosterior further
// checks Cov against the model's dimension.
func (c SuffStatLogRegCovPosteriorConfig) Validate() error {
	if err := checkSDTheta("SuffStatLogRegCovPosteriorConfig", c.SDTheta); err != nil {
		return err
	}
	return c.Cov.check(1)
}

// NewSuffStatLogRegCovPosterior returns the posterior for the released sum
// in s with the priors of cfg.
func NewSuffStatLogRegCovPosterior(s *SuffStatLogReg, cfg SuffStatLogRegCovPosteriorConfig) (*SuffStatLogRegCovPosterior, error) {
	if !s.built() {
		return nil, fmt.Errorf("ldp: model is nil or was not built by NewSuffStatLogReg: %w", ErrInvalid)
	}
	if err := checkSDTheta("SuffStatLogRegCovPosteriorConfig", cfg.SDTheta); err != nil {
		return nil, err
	}
	sdTheta, cov := cfg.SDTheta, cfg.Cov
	if err := cov.check(s.d); err != nil {
		return nil, err
	}
	p := &SuffStatLogRegCovPosterior{s: s, sdTheta: sdTheta, cov: cov}
	d := s.d
	p.pool.New = func() any {
		return &sslCovWork{sigma: make([]float64, d*d), gs: make([]float64, d*d), gc: make([]float64, CovParams(d))}
	}
	return p, nil
}

// Dim returns d + d(d+1)/2.
func (p *SuffStatLogRegCovPosterior) Dim() int {
	if p == nil || !p.s.built() {
		return 0
	}
	return p.s.d + CovParams(p.s.d)
}

// Sigma writes Σ for the coordinates x (length Dim) into sigma (d×d).
func (p *SuffStatLogRegCovPosterior) Sigma(x, sigma []float64) error {
	if p == nil || !p.s.built() || len(x) != p.Dim() || len(sigma) != p.s.d*p.s.d {
		return fmt.Errorf("ldp: Sigma needs x of length %d and sigma of length %d: %w", p.Dim(), p.s.d*p.s.d, ErrInvalid)
	}
	if lc := p.cov.Cov(x[p.s.d:], p.s.d, sigma); math.IsNaN(lc) || math.IsInf(lc, -1) {
		return fmt.Errorf("ldp: Sigma needs finite coordinates: %w", ErrInvalid)
	}
	return nil
}

// LogDensity returns the unnormalised log posterior of x.
func (p *SuffStatLogRegCovPosterior) LogDensity(x []float64) float64 { return p.Gradient(x, nil) }

// Gradient writes ∇ log π(x) into grad (if non-nil) and returns log π(x).
// It allocates nothing in steady state.
func (p *SuffStatLogRegCovPosterior) Gradient(x, grad []float64) float64 {
	if p == nil || !p.s.built() {
		return math.NaN()
	}
	d := p.s.d
	if len(x) != p.Dim() || (grad != nil && len(grad) != len(x)) {
		return math.NaN()
	}
	for _, v := range x {
		if !finite(v) {
			if grad != nil {
				clear(grad)
			}
			return math.Inf(-1)
		}
	}
	w := p.pool.Get().(*sslCovWork)
	defer p.pool.Put(w)
	lp := p.cov.covGrad(x[d:], d, w.sigma, nil, nil)
	if math.IsInf(lp, -1) {
		if grad != nil {
			clear(grad)
		}
		return lp
	}
	var ll float64
	if grad != nil {
		ll = p.s.LogDensityGrad(x[:d], w.sigma, grad[:d], w.gs)
		if !math.IsNaN(ll) {
			p.cov.covGrad(x[d:], d, w.sigma, w.gs, grad[d:])
		}
	} else {
		ll = p.s.LogDensity(x[:d], w.sigma)
	}
	if math.IsNaN(ll) {
		// Valid parameters for which the approximate likelihood's
		// covariance is not positive definite (possible with the
		// Chebyshev link): outside the support.
		if grad != nil {
			clear(grad)
		}
		return math.Inf(-1)
	}
	v2 := p.sdTheta * p.sdTheta
	lp += ll
	for j := range d {
		lp -= 0.5 * x[j] * x[j] / v2
		if grad != nil {
			grad[j] -= x[j] / v2
		}
	}
	return lp
}
