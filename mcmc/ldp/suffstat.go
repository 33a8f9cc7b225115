package ldp

import (
	"fmt"
	"math"
	"sync"

	"github.com/privinfer/privinfer/internal/linalg"
)

// SuffStatDim returns the length binom(d+2, 2) of the per-person
// linear-regression statistic t(x, y) = [t2(x), y·x, y²] of the LDP paper
// §3.1.1, with t2(x) = [x_1², …, x_d², x_1x_2, …, x_{d−1}x_d] (squares first,
// then the products x_j x_k, j < k, in lexicographic order).
func SuffStatDim(d int) int { return (d + 1) * (d + 2) / 2 }

// SuffStats writes t(x, y) for one person into dst (length SuffStatDim(d)).
func SuffStats(x []float64, y float64, dst []float64) error {
	d := len(x)
	if d < 1 || len(dst) != SuffStatDim(d) {
		return fmt.Errorf("ldp: SuffStats needs d ≥ 1 and dst of length %d, got d = %d, len(dst) = %d: %w", SuffStatDim(d), d, len(dst), ErrInvalid)
	}
	if !finite(y) {
		return fmt.Errorf("ldp: SuffStats needs a finite y, got %v: %w", y, ErrInvalid)
	}
	for j, v := range x {
		if !finite(v) {
			return fmt.Errorf("ldp: SuffStats needs finite x, got x[%d] = %v: %w", j, v, ErrInvalid)
		}
	}
	pairs := statPairs(d)
	for i, p := range pairs {
		vi := y
		if p[0] < d {
			vi = x[p[0]]
		}
		vj := y
		if p[1] < d {
			vj = x[p[1]]
		}
		dst[i] = vi * vj
	}
	return nil
}

// statPairs lists, for each statistic, the pair of indices into w = (x, y)
// whose product it is (index d is y).
func statPairs(d int) [][2]int {
	var p [][2]int
	for j := range d {
		p = append(p, [2]int{j, j})
	}
	for j := range d {
		for k := j + 1; k < d; k++ {
			p = append(p, [2]int{j, k})
		}
	}
	for j := range d {
		p = append(p, [2]int{d, j})
	}
	return append(p, [2]int{d, d})
}

// SuffStatLinReg is the sufficient-statistics linear-regression model of
// the LDP paper §3.1.1 and §13.1: each of N people releases t(x_i, y_i)
// plus Gaussian noise with standard deviation σ1 on the t2 block, σ2 on
// y·x and σ3 on y² (Lemma 3.1; mechanism/ldp.LinRegSensitivity calibrates
// them), and the aggregator observes the sum Z. With the normal
// approximation S = Σ t(x_i, y_i) ≈ N(μ_s, Σ_s) (eq. 3),
//
//	Pr[Z | θ, σ, Σ] ≈ N(Z; μ_s, Σ_s + N Σ*).
//
// The moments are those of the generative model x ~ N(0, Σ), y | x ~
// N(θᵀx, σ²), as in Bernstein & Sheldon (2019): w = (x, y) is N(0, C) with
// C = [[Σ, Σθ], [θᵀΣ, θᵀΣθ + σ²]], every statistic is a product w_i w_j, and
// by Isserlis' theorem μ_s = N·C_ij and Σ_s = N·(C_ik C_jl + C_il C_jk). The
// clipping of x and y that bounds the sensitivity is not part of the
// approximation (as in the paper).
type SuffStatLinReg struct {
	d, m     int
	n        float64
	z        []float64
	noiseVar []float64 // N·Σ* diagonal
	pairs    [][2]int
	pool     sync.Pool
}

type ssWork struct{ c, cov, l, r, inv, cbar []float64 }

// SuffStatLinRegConfig configures NewSuffStatLinReg: the released sum and
// the noise of the sufficient-statistics linear regression (LDP paper
// §3.1.1, Lemma 3.1). None of its fields has a usable zero value.
type SuffStatLinRegConfig struct {
	// Z is the released sum Σ_i (t(x_i, y_i) + ζ_i) of N people's noisy
	// statistics, of length SuffStatDim(Dim) and finite.
	Z []float64
	// Dim is the input dimension d (≥ 1).
	Dim int
	// N is the number of people (≥ 1).
	N int
	// Sigma1 is the per-person noise standard deviation σ1 on the t2(x)
	// block (finite, > 0).
	Sigma1 float64
	// Sigma2 is the per-person noise standard deviation σ2 on the y·x
	// block (finite, > 0).
	Sigma2 float64
	// Sigma3 is the per-person noise standard deviation σ3 on y² (finite,
	// > 0). mechanism/ldp.LinRegSensitivity calibrates σ1, σ2, σ3.
	Sigma3 float64
}

// Validate reports whether c is a usable configuration, with an error
// wrapping ErrInvalid that names the offending field.
func (c SuffStatLinRegConfig) Validate() error {
	return checkSuffStatConfig("SuffStatLinRegConfig", c.Dim, SuffStatDim(c.Dim), c.N, c.Z,
		namedSigma{"Sigma1", c.Sigma1}, namedSigma{"Sigma2", c.Sigma2}, namedSigma{"Sigma3", c.Sigma3})
}

// namedSigma is a noise scale of a sufficient-statistics configuration
// with its field name, for error messages.
type namedSigma struct {
	name string
	v    float64
}

// checkSuffStatConfig validates the fields the sufficient-statistics
// configurations share: D ≥ 1, Z of length zdim (the statistic's dimension
// for D) with finite entries, N ≥ 1, and every σ finite and > 0 with a
// finite, positive noise variance of the sum N·σ². Errors wrap ErrInvalid
// and name the field of the configuration cfg.
func checkSuffStatConfig(cfg string, d, zdim, n int, z []float64, sigmas ...namedSigma) error {
	if d < 1 {
		return fmt.Errorf("ldp: %s.Dim must be >= 1, got %d: %w", cfg, d, ErrInvalid)
	}
	if len(z) != zdim {
		return fmt.Errorf("ldp: %s.Z must have length %d for D = %d, got %d: %w", cfg, zdim, d, len(z), ErrInvalid)
	}
	if n < 1 {
		return fmt.Errorf("ldp: %s.N must be >= 1, got %d: %w", cfg, n, ErrInvalid)
	}
	for _, a := range sigmas {
		if !(a.v > 0) || math.IsInf(a.v, 1) {
			return fmt.Errorf("ldp: %s.%s must be finite and > 0, got %v: %w", cfg, a.name, a.v, ErrInvalid)
		}
		if v := float64(n) * a.v * a.v; !(v > 0) || math.IsInf(v, 1) {
			return fmt.Errorf("ldp: %s.%s: the noise variance of the sum, N·%s², must be finite and > 0, got %v: %w", cfg, a.name, a.name, v, ErrInvalid)
		}
	}
	for i, v := range z {
		if !finite(v) {
			return fmt.Errorf("ldp: %s.Z[%d] must be finite, got %v: %w", cfg, i, v, ErrInvalid)
		}
	}
	return nil
}

// NewSuffStatLinReg returns the model for the released sum cfg.Z of
// cfg.N people's noisy statistics, refusing what cfg.Validate refuses.
func NewSuffStatLinReg(cfg SuffStatLinRegConfig) (*SuffStatLinReg, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, n, z := cfg.Dim, cfg.N, cfg.Z
	s1, s2, s3 := cfg.Sigma1, cfg.Sigma2, cfg.Sigma3
	m := SuffStatDim(d)
	s := &SuffStatLinReg{d: d, m: m, n: float64(n), z: append([]float64(nil), z...), noiseVar: make([]float64, m), pairs: statPairs(d)}
	d2 := d * (d + 1) / 2
	for i := range m {
		switch {
		case i < d2:
			s.noiseVar[i] = float64(n) * s1 * s1
		case i < d2+d:
			s.noiseVar[i] = float64(n) * s2 * s2
		default:
			s.noiseVar[i] = float64(n) * s3 * s3
		}
	}
	s.pool.New = func() any {
		return &ssWork{c: make([]float64, (d+1)*(d+1)), cov: make([]float64, m*m), l: make([]float64, m*m), r: make([]float64, m),
			inv: make([]float64, m*m), cbar: make([]float64, (d+1)*(d+1))}
	}
	return s, nil
}

// Moments writes the per-person mean E[t] (length m) and covariance
// Cov[t] (m×m) of the statistic under x ~ N(0, Σ), y | x ~ N(θᵀx, σ²).
func (s *SuffStatLinReg) Moments(theta []float64, sigma float64, sigmaX, mean, cov []float64) error {
	if s == nil || s.d < 1 || s.n < 1 {
		return fmt.Errorf("ldp: SuffStatLinReg used without NewSuffStatLinReg: %w", ErrInvalid)
	}
	d, m := s.d, s.m
	if len(theta) != d || !checkCov(sigmaX, d) || len(mean) != m || len(cov) != m*m || !(sigma >= 0) {
		return fmt.Errorf("ldp: Moments: wrong lengths or invalid parameters: %w", ErrInvalid)
	}
	c := make([]float64, (d+1)*(d+1))
	s.joint(theta, sigma, sigmaX, c)
	s.moments(c, mean, cov)
	return nil
}

// joint writes C = Cov(x, y) ((d+1)×(d+1)).
func (s *SuffStatLinReg) joint(theta []float64, sigma float64, sigmaX, c []float64) {
	d := s.d
	e := d + 1
	tst := 0.0
	for r := range d {
		st := 0.0
		for k := range d {
			c[r*e+k] = sigmaX[r*d+k]
			st += sigmaX[r*d+k] * theta[k]
		}
		c[r*e+d] = st
		c[d*e+r] = st
		tst += theta[r] * st
	}
	c[d*e+d] = tst + sigma*sigma
}

func (s *SuffStatLinReg) moments(c, mean, cov []float64) {
	e := s.d + 1
	for a, pa := range s.pairs {
		i, j := pa[0], pa[1]
		mean[a] = c[i*e+j]
		for b, pb := range s.pairs {
			k, l := pb[0], pb[1]
			cov[a*s.m+b] = c[i*e+k]*c[j*e+l] + c[i*e+l]*c[j*e+k]
		}
	}
}

// validArgs reports whether θ has length d with finite entries, σ is
// finite and non-negative and sigmaX is a valid d×d covariance.
func (s *SuffStatLinReg) validArgs(theta []float64, sigma float64, sigmaX []float64) bool {
	if len(theta) != s.d || !checkCov(sigmaX, s.d) || !(sigma >= 0) || math.IsInf(sigma, 1) {
		return false
	}
	for _, v := range theta {
		if !finite(v) {
			return false
		}
	}
	return true
}

// factor writes into w the residual r = Z − N·μ_s and the Cholesky factor
// L of K = N·Σ_s + diag(noiseVar) at (θ, σ, Σ), with w.cov holding K; it
// reports false when K is not positive definite.
func (s *SuffStatLinReg) factor(w *ssWork, theta []float64, sigma float64, sigmaX []float64) bool {
	m := s.m
	s.joint(theta, sigma, sigmaX, w.c)
	s.moments(w.c, w.r, w.cov)
	for i := range m {
		w.r[i] = s.z[i] - s.n*w.r[i]
		for j := range m {
			w.cov[i*m+j] *= s.n
		}
		w.cov[i*m+i] += s.noiseVar[i]
	}
	return linalg.Cholesky(w.cov, m, w.l) == nil
}

// LogDensity returns log N(Z; μ_s, Σ_s + NΣ*) at (θ, σ, Σ), sigmaX row-major
// d×d. NaN for invalid arguments. Safe for concurrent use; allocates
// nothing in steady state.
func (s *SuffStatLinReg) LogDensity(theta []float64, sigma float64, sigmaX []float64) float64 {
	m := s.m
	if !s.validArgs(theta, sigma, sigmaX) {
		return math.NaN()
	}
	w := s.pool.Get().(*ssWork)
	defer s.pool.Put(w)
	if !s.factor(w, theta, sigma, sigmaX) {
		return math.NaN()
	}
	linalg.SolveLower(w.l, m, w.r)
	q := 0.0
	for _, v := range w.r {
		q += v * v
	}
	return -0.5*(float64(m)*2*logSqrt2Pi+linalg.LogDetChol(w.l, m)) - 0.5*q
}

// LogDensityGrad returns LogDensity and writes its gradient: ∂/∂θ into
// gTheta (length d) and into gSigmaX (length d·d) the symmetric matrix G
// with dℓ = Σ_jk G_jk dΣ_jk for every symmetric perturbation dΣ; dSigma is
// ∂/∂σ. Through dℓ = N αᵀdμ + N⟨W, dΣ_t⟩ with α = K⁻¹r and
// W = ½(ααᵀ − K⁻¹), pulled back through the Isserlis moments to the joint
// covariance C of (x, y) and from C to (θ, σ, Σ). It allocates nothing in
// steady state; NaN as LogDensity.
func (s *SuffStatLinReg) LogDensityGrad(theta []float64, sigma float64, sigmaX, gTheta, gSigmaX []float64) (ll, dSigma float64) {
	d, m := s.d, s.m
	if len(gTheta) != d || len(gSigmaX) != d*d {
		return math.NaN(), math.NaN()
	}
	if !s.validArgs(theta, sigma, sigmaX) {
		return math.NaN(), math.NaN()
	}
	w := s.pool.Get().(*ssWork)
	defer s.pool.Put(w)
	if !s.factor(w, theta, sigma, sigmaX) {
		return math.NaN(), math.NaN()
	}
	q := 0.0
	// α = K⁻¹r; keep r for the quadratic form.
	alpha := w.inv[:m] // temporary until the inverse is formed
	copy(alpha, w.r)
	linalg.CholSolve(w.l, m, alpha)
	for i := range m {
		q += w.r[i] * alpha[i]
	}
	ll = -0.5*(float64(m)*2*logSqrt2Pi+linalg.LogDetChol(w.l, m)) - 0.5*q
	copy(w.r, alpha) // w.r ← α
	if err := linalg.InvSPD(w.cov, m, w.inv); err != nil {
		return math.NaN(), math.NaN()
	}
	e := d + 1
	c, cbar := w.c, w.cbar
	clear(cbar)
	n := s.n
	for a, pa := range s.pairs {
		i, j := pa[0], pa[1]
		cbar[i*e+j] += n * w.r[a]
		for b, pb := range s.pairs {
			k, l := pb[0], pb[1]
			g := n * 0.5 * (w.r[a]*w.r[b] - w.inv[a*m+b])
			cbar[i*e+k] += g * c[j*e+l]
			cbar[j*e+l] += g * c[i*e+k]
			cbar[i*e+l] += g * c[j*e+k]
			cbar[j*e+k] += g * c[i*e+l]
		}
	}
	// C_rk = Σ_rk, C_rd = C_dr = (Σθ)_r, C_dd = θᵀΣθ + σ².
	vbar := cbar[d*e+d]
	for j := range d {
		g := 0.0
		for k := range d {
			cb := cbar[k*e+d] + cbar[d*e+k]
			g += sigmaX[k*d+j]*cb + 2*vbar*sigmaX[j*d+k]*theta[k]
		}
		gTheta[j] = g
	}
	for j := range d {
		for k := range d {
			cj := cbar[j*e+d] + cbar[d*e+j]
			ck := cbar[k*e+d] + cbar[d*e+k]
			// Σ_jk enters C_jk directly, (Σθ)_j through θ_k and
			// (Σθ)_k through θ_j (symmetric use), and θᵀΣθ.
			gSigmaX[j*d+k] = 0.5*(cbar[j*e+k]+cbar[k*e+j]) + 0.5*(cj*theta[k]+ck*theta[j]) + vbar*theta[j]*theta[k]
		}
	}
	return ll, 2 * sigma * vbar
}
