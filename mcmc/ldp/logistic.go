package ldp

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/internal/linalg"
)

// ChebyshevSigmoid returns the monomial coefficients b = (b0, b1, b2) of the
// degree-2 truncated Chebyshev series of the logistic sigmoid
// 1/(1+e^{−t}) on [lo, hi], so that σ(t) ≈ b0 + b1 t + b2 t² there (LDP
// paper §7 and eq. 44). The Chebyshev coefficients are computed with a
// 256-node Gauss–Chebyshev rule, exact to rounding for this analytic
// function. On a symmetric interval b0 = ½ and b2 = 0 (σ − ½ is odd), so
// the second-order expansion is then linear.
func ChebyshevSigmoid(lo, hi float64) ([3]float64, error) {
	var b [3]float64
	if !finite(lo) || !finite(hi) || !(lo < hi) {
		return b, fmt.Errorf("ldp: Chebyshev interval must be finite with lo < hi, got [%v, %v]: %w", lo, hi, ErrInvalid)
	}
	const M = 256
	var c [3]float64
	half, mid := 0.5*(hi-lo), 0.5*(hi+lo)
	for k := range M {
		th := math.Pi * (float64(k) + 0.5) / M
		t := math.Cos(th)
		f := 1 / (1 + math.Exp(-(mid + half*t)))
		for j := range 3 {
			c[j] += f * math.Cos(float64(j)*th)
		}
	}
	for j := range 3 {
		c[j] *= 2.0 / M
	}
	// f ≈ c0/2 + c1 T1(u) + c2 T2(u), u = (t − mid)/half, T2 = 2u² − 1.
	// In u: a0 = c0/2 − c2, a1 = c1, a2 = 2c2; then substitute u.
	a0, a1, a2 := c[0]/2-c[2], c[1], 2*c[2]
	// u = (t − mid)/half: a0 + a1 (t−mid)/half + a2 (t−mid)²/half².
	b[0] = a0 - a1*mid/half + a2*mid*mid/(half*half)
	b[1] = a1/half - 2*a2*mid/(half*half)
	b[2] = a2 / (half * half)
	if lo == -hi {
		b[0], b[2] = 0.5, 0 // exact by symmetry
	}
	return b, nil
}

// LogRegData holds reports for the logistic model of the LDP paper §12.2:
// x ~ N(0, Σ) in R^d, y | x ~ Bernoulli(σ(xᵀθ)), released as
// z_x = x + N(0, diag(sx²)) and z_y = y flipped by randomized response with
// budget epsY (kept with probability p = e^{epsY}/(1+e^{epsY})). Summing out
// y and integrating out x | z_x ~ N(h, A) gives
//
//	Pr[z_x, z_y] = N(z_x; 0, Σ+Σ*) · (p E_y + (1−p)(1−E_y)),  E_y = E[σ(xᵀθ)] or E[1−σ(xᵀθ)],
//
// which is the final display of §12.2 with e^{cε}/(e^{cε}+1) = p (c is the
// share of the budget spent on y). That derivation has typos, corrected
// here: its second line writes Pr[x | x, θ] for Pr[y | x, θ], a later line
// drops the exponent 1−j of 1−σ(xᵀθ), and its last line writes Σ_x + Σ for
// the covariance Σ* + Σ of z_x. E[1 − σ(xᵀθ)] is approximated by 1 minus the
// same expansion (the paper says "similarly"), so the two outcome
// probabilities always sum to one. With the
// second-order Chebyshev expansion σ(t) ≈ b0 + b1 t + b2 t² (eq. 44) the
// expectation is closed: E[σ(xᵀθ)] ≈ b0 + b1 θᵀh + b2((θᵀh)² + θᵀAθ). The
// approximation can leave [0, 1] far from the expansion interval; the
// value is clamped to [0, 1] so that every factor stays a probability.
type LogRegData struct {
	d      int
	n      int
	zx     []float64
	zy     []bool
	sx2    []float64
	p      float64
	linreg *LinRegData // shares the input term
}

// LogRegDataConfig holds the reports of the logistic model with
// Gaussian-perturbed inputs and randomized-response outcomes for
// NewLogRegData. The zero value is refused.
type LogRegDataConfig struct {
	// ZX holds the released inputs, row-major N×Dim (finite).
	ZX []float64
	// ZY holds the N released outcome bits (0 or 1).
	ZY []float64
	// Dim is the input dimension d (≥ 1).
	Dim int
	// SX holds the Dim input noise standard deviations (finite, > 0).
	SX []float64
	// EpsilonY is the randomized-response budget of the outcome (finite,
	// > 0).
	EpsilonY float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c LogRegDataConfig) Validate() error {
	if !(c.EpsilonY > 0) || math.IsInf(c.EpsilonY, 1) {
		return fmt.Errorf("ldp: LogRegDataConfig.EpsilonY must be finite and > 0, got %v: %w", c.EpsilonY, ErrInvalid)
	}
	if err := checkRegReports("LogRegDataConfig", c.ZX, c.ZY, c.Dim, c.SX); err != nil {
		return err
	}
	for i, v := range c.ZY {
		if v != 0 && v != 1 {
			return fmt.Errorf("ldp: LogRegDataConfig.ZY[%d] must be 0 or 1, got %v: %w", i, v, ErrInvalid)
		}
	}
	return nil
}

// NewLogRegData returns the data of cfg, refusing what cfg.Validate
// refuses.
func NewLogRegData(cfg LogRegDataConfig) (*LogRegData, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	zx, zy, d, sx, epsY := cfg.ZX, cfg.ZY, cfg.Dim, cfg.SX, cfg.EpsilonY
	lr := newLinRegData(zx, zy, d, sx)
	bitsY := make([]bool, len(zy))
	for i, v := range zy {
		switch v {
		case 0:
		case 1:
			bitsY[i] = true
		default:
			return nil, fmt.Errorf("ldp: zy[%d] must be 0 or 1, got %v: %w", i, v, ErrInvalid)
		}
	}
	return &LogRegData{d: d, n: len(zy), zx: lr.zx, zy: bitsY, sx2: lr.sx2, p: 1 / (1 + math.Exp(-epsY)), linreg: lr}, nil
}

// N returns the number of reports.
func (ld *LogRegData) N() int { return ld.n }

// Dim returns d.
func (ld *LogRegData) Dim() int { return ld.d }

func (ld *LogRegData) outcomeTerm(ey float64, y bool) (float64, float64) {
	// Returns log Pr[z_y | ·] and its derivative with respect to ey.
	clamped := false
	if ey < 0 {
		ey, clamped = 0, true
	} else if ey > 1 {
		ey, clamped = 1, true
	}
	s := 2*ld.p - 1
	var v float64
	if y {
		v = (1 - ld.p) + s*ey
	} else {
		v = ld.p - s*ey
		s = -s
	}
	if clamped {
		return math.Log(v), 0
	}
	return math.Log(v), s / v
}

// LogDensity returns the approximate log-likelihood (eq. 44) summed over the
// reports for coefficients θ, input covariance sigmaX (row-major d×d) and
// Chebyshev coefficients b (ChebyshevSigmoid). NaN for invalid arguments.
func (ld *LogRegData) LogDensity(theta, sigmaX []float64, b [3]float64) float64 {
	if ld == nil || ld.d < 1 || ld.linreg == nil {
		return math.NaN()
	}
	d := ld.d
	if len(theta) != d || !checkCov(sigmaX, d) {
		return math.NaN()
	}
	w := ld.linreg.pool.Get().(*linregWork)
	defer ld.linreg.pool.Put(w)
	ll := ld.linreg.inputTerm(sigmaX, w)
	if math.IsNaN(ll) {
		return ll
	}
	linalg.MatVec(w.st, sigmaX, theta, d, d)
	copy(w.w, w.st)
	linalg.CholSolve(w.l, d, w.w)
	q := 0.0 // θᵀAθ
	for j := range d {
		q += theta[j]*w.st[j] - w.st[j]*w.w[j]
	}
	for i := range ld.n {
		t := 0.0
		for j := range d {
			t += w.w[j] * ld.zx[i*d+j]
		}
		v, _ := ld.outcomeTerm(b[0]+b[1]*t+b[2]*(t*t+q), ld.zy[i])
		ll += v
	}
	return ll
}

// LogRegFixedCov is the eq. 44 likelihood with Σ and the Chebyshev
// coefficients fixed, precomputed (O(N d) memory) for evaluation with the
// gradient in θ. Immutable and safe for concurrent use.
type LogRegFixedCov struct {
	ld    *LogRegData
	input float64
	a     []float64 // A
	zb    []float64 // row i: Bᵀ z_i, B = (Σ+Σ*)⁻¹Σ, so θᵀh_i = θ·zb_i
	b     [3]float64
}

// FixCov precomputes the logistic likelihood for covariance sigmaX and
// Chebyshev coefficients b.
func (ld *LogRegData) FixCov(sigmaX []float64, b [3]float64) (*LogRegFixedCov, error) {
	if ld == nil || ld.d < 1 || ld.linreg == nil {
		return nil, fmt.Errorf("ldp: LogRegData used without NewLogRegData: %w", ErrInvalid)
	}
	d := ld.d
	for j, v := range b {
		if !finite(v) {
			return nil, fmt.Errorf("ldp: Chebyshev coefficient %d must be finite, got %v: %w", j, v, ErrInvalid)
		}
	}
	lf, err := ld.linreg.FixCov(sigmaX, 0)
	if err != nil {
		return nil, err
	}
	w := ld.linreg.pool.Get().(*linregWork)
	defer ld.linreg.pool.Put(w)
	ld.linreg.inputTerm(sigmaX, w)
	// zb_i = Bᵀ z_i = Σ K⁻¹ z_i (B = K⁻¹Σ, Σ and K symmetric).
	zb := make([]float64, ld.n*d)
	tmp := make([]float64, d)
	for i := range ld.n {
		copy(tmp, ld.zx[i*d:(i+1)*d])
		linalg.CholSolve(w.l, d, tmp)
		linalg.MatVec(zb[i*d:(i+1)*d], sigmaX, tmp, d, d)
	}
	return &LogRegFixedCov{ld: ld, input: lf.input, a: lf.a, zb: zb, b: b}, nil
}

// LogDensityGrad returns the approximate log-likelihood at θ and, if grad is
// non-nil (length d), writes ∂/∂θ into it. Allocates nothing.
func (f *LogRegFixedCov) LogDensityGrad(theta, grad []float64) float64 {
	if f == nil || f.ld == nil {
		return math.NaN()
	}
	d := f.ld.d
	if len(theta) != d || (grad != nil && len(grad) != d) {
		return math.NaN()
	}
	q := 0.0
	for j := range d {
		if !finite(theta[j]) {
			return math.NaN()
		}
		for k := range d {
			q += theta[j] * f.a[j*d+k] * theta[k]
		}
	}
	if grad != nil {
		clear(grad)
	}
	ll := f.input
	sumD := 0.0 // Σ_i ∂ℓ_i/∂E · b2 (coefficient of ∂q/∂θ = 2Aθ)
	b := f.b
	for i := range f.ld.n {
		zb := f.zb[i*d : (i+1)*d]
		t := 0.0
		for j := range d {
			t += theta[j] * zb[j]
		}
		v, dE := f.ld.outcomeTerm(b[0]+b[1]*t+b[2]*(t*t+q), f.ld.zy[i])
		ll += v
		if grad != nil && dE != 0 {
			g := dE * (b[1] + 2*b[2]*t)
			for j := range d {
				grad[j] += g * zb[j]
			}
			sumD += dE * b[2]
		}
	}
	if grad != nil && sumD != 0 {
		for j := range d {
			at := 0.0
			for k := range d {
				at += f.a[j*d+k] * theta[k]
			}
			grad[j] += sumD * 2 * at
		}
	}
	return ll
}
