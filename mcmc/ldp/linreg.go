package ldp

import (
	"fmt"
	"math"
	"sync"

	"github.com/privinfer/privinfer/internal/linalg"
)

// LinRegData holds reports for the input-perturbation regression models of
// the LDP paper §3.2.3 and §12: each person has x ~ N(0, Σ) in R^d and an
// outcome y, and releases z_x = x + N(0, Σ*) with Σ* = diag(sx²) (Gaussian
// mechanism, e.g. calibrated by mechanism.AnalyticGaussianSigma with the
// sensitivity mechanism/ldp.InputSensitivity) together with a privatized y.
//
// For linear regression (LinRegData.LogDensity) the likelihood depends on the data
// only through N, Σ z_x z_xᵀ, Σ z_x z_y and Σ z_y², which are precomputed, so
// an evaluation costs O(d³) whatever N is.
type LinRegData struct {
	d        int
	n        int
	zx, zy   []float64
	sx2      []float64
	szz, szy []float64
	syy      float64
	pool     sync.Pool
}

type linregWork struct {
	k, l, tmp, st, w, b []float64
	kinv, u             []float64 // LogDensityGrad only
}

// LinRegDataConfig holds the reports of the input-perturbation linear
// regression for NewLinRegData. The zero value is refused.
type LinRegDataConfig struct {
	// ZX holds the released inputs, row-major N×Dim (finite).
	ZX []float64
	// ZY holds the N released outcomes (finite, N ≥ 1).
	ZY []float64
	// Dim is the input dimension d (≥ 1).
	Dim int
	// SX holds the Dim input noise standard deviations (finite, > 0).
	SX []float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c LinRegDataConfig) Validate() error {
	return checkRegReports("LinRegDataConfig", c.ZX, c.ZY, c.Dim, c.SX)
}

// checkRegReports checks the reports of the configuration named typ.
func checkRegReports(typ string, zx, zy []float64, d int, sx []float64) error {
	if d < 1 {
		return fmt.Errorf("ldp: %s.Dim must be >= 1, got %d: %w", typ, d, ErrInvalid)
	}
	if len(zy) == 0 || len(zx) != len(zy)*d {
		return fmt.Errorf("ldp: %s.ZX must hold N·Dim = %d·%d entries for N = len(ZY) ≥ 1, got %d: %w", typ, len(zy), d, len(zx), ErrInvalid)
	}
	if len(sx) != d {
		return fmt.Errorf("ldp: %s.SX must hold Dim = %d noise scales, got %d: %w", typ, d, len(sx), ErrInvalid)
	}
	for j, s := range sx {
		if !(s > 0) || math.IsInf(s, 1) {
			return fmt.Errorf("ldp: %s.SX[%d] must be finite and > 0, got %v: %w", typ, j, s, ErrInvalid)
		}
	}
	for i, v := range zx {
		if !finite(v) {
			return fmt.Errorf("ldp: %s.ZX[%d] must be finite, got %v: %w", typ, i, v, ErrInvalid)
		}
	}
	for i, v := range zy {
		if !finite(v) {
			return fmt.Errorf("ldp: %s.ZY[%d] must be finite, got %v: %w", typ, i, v, ErrInvalid)
		}
	}
	return nil
}

// NewLinRegData returns the data of cfg, refusing what cfg.Validate
// refuses.
func NewLinRegData(cfg LinRegDataConfig) (*LinRegData, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newLinRegData(cfg.ZX, cfg.ZY, cfg.Dim, cfg.SX), nil
}

// newLinRegData precomputes the statistics of checked reports.
func newLinRegData(zx, zy []float64, d int, sx []float64) *LinRegData {
	n := len(zy)
	ld := &LinRegData{d: d, n: n, zx: append([]float64(nil), zx...), zy: append([]float64(nil), zy...),
		sx2: make([]float64, d), szz: make([]float64, d*d), szy: make([]float64, d)}
	for j, s := range sx {
		ld.sx2[j] = s * s
	}
	for i := range n {
		z := zx[i*d : (i+1)*d]
		for j := range d {
			ld.szy[j] += z[j] * zy[i]
			for k := range d {
				ld.szz[j*d+k] += z[j] * z[k]
			}
		}
		ld.syy += zy[i] * zy[i]
	}
	ld.pool.New = func() any {
		return &linregWork{k: make([]float64, d*d), l: make([]float64, d*d), tmp: make([]float64, d*d),
			st: make([]float64, d), w: make([]float64, d), b: make([]float64, d*d), kinv: make([]float64, d*d), u: make([]float64, d)}
	}
	return ld
}

// Dim returns d; N returns the number of reports.
func (ld *LinRegData) Dim() int { return ld.d }

// N returns the number of reports.
func (ld *LinRegData) N() int { return ld.n }

// inputTerm factors K = Σ + Σ* into w.l and returns Σ_i log N(z_i; 0, K).
func (ld *LinRegData) inputTerm(sigmaX []float64, w *linregWork) float64 {
	d := ld.d
	copy(w.k, sigmaX)
	for j := range d {
		w.k[j*d+j] += ld.sx2[j]
	}
	if err := linalg.Cholesky(w.k, d, w.l); err != nil {
		return math.NaN()
	}
	// tr(K⁻¹ Szz) = ‖L⁻¹ Szz^{1/2}‖² computed as Σ_col (L⁻¹ s_col)·(L⁻¹ … ):
	// use K⁻¹ Szz column by column.
	tr := 0.0
	for c := range d {
		for r := range d {
			w.st[r] = ld.szz[r*d+c]
		}
		linalg.CholSolve(w.l, d, w.st)
		tr += w.st[c]
	}
	n := float64(ld.n)
	return -0.5*n*(float64(d)*2*logSqrt2Pi+linalg.LogDetChol(w.l, d)) - 0.5*tr
}

func checkCov(sigmaX []float64, d int) bool {
	if len(sigmaX) != d*d {
		return false
	}
	for _, v := range sigmaX {
		if !finite(v) {
			return false
		}
	}
	return true
}

// LogDensity returns the log-likelihood of eq. 41 summed over the
// reports, for the linear model y | x ~ N(θᵀx, σ²) with the output released
// as z_y = y + N(0, sy²):
//
//	Pr[z_x, z_y] = N(z_x; 0, Σ+Σ*) · N(z_y; θᵀh, θᵀAθ + σ² + sy²),
//	h = Σ(Σ+Σ*)⁻¹z_x,  A = Σ − Σ(Σ+Σ*)⁻¹Σ.
//
// sigmaX is Σ (row-major d×d, symmetric positive definite). It returns NaN
// for wrong lengths, non-finite or non-positive-definite parameters, σ < 0
// or sy < 0. Safe for concurrent use; it allocates nothing in steady state.
func (ld *LinRegData) LogDensity(theta []float64, sigma, sy float64, sigmaX []float64) float64 {
	if ld == nil || ld.d < 1 || ld.n < 1 {
		return math.NaN()
	}
	d := ld.d
	if len(theta) != d || !checkCov(sigmaX, d) || !(sigma >= 0) || !(sy >= 0) || math.IsInf(sigma, 1) || math.IsInf(sy, 1) {
		return math.NaN()
	}
	for _, v := range theta {
		if !finite(v) {
			return math.NaN()
		}
	}
	w := ld.pool.Get().(*linregWork)
	defer ld.pool.Put(w)
	ll := ld.inputTerm(sigmaX, w)
	if math.IsNaN(ll) {
		return ll
	}
	// st = Σθ, w = K⁻¹Σθ.
	linalg.MatVec(w.st, sigmaX, theta, d, d)
	copy(w.w, w.st)
	linalg.CholSolve(w.l, d, w.w)
	tst, stw := 0.0, 0.0
	for j := range d {
		tst += theta[j] * w.st[j]
		stw += w.st[j] * w.w[j]
	}
	v := tst - stw + sigma*sigma + sy*sy // θᵀAθ + σ² + sy²
	if !(v > 0) {
		return math.NaN()
	}
	q := ld.syy
	for j := range d {
		q -= 2 * w.w[j] * ld.szy[j]
		for k := range d {
			q += w.w[j] * ld.szz[j*d+k] * w.w[k]
		}
	}
	n := float64(ld.n)
	return ll - 0.5*n*(2*logSqrt2Pi+math.Log(v)) - 0.5*q/v
}

// LinRegFixedCov is the eq. 41 likelihood with the input covariance Σ and
// the output noise sy fixed, precomputed so that an evaluation with its
// gradient in (θ, σ) costs O(d²). It is immutable and safe for concurrent
// use.
type LinRegFixedCov struct {
	d        int
	n        float64
	input    float64   // Σ_i log N(z_x,i; 0, Σ+Σ*)
	a        []float64 // A = Σ − Σ(Σ+Σ*)⁻¹Σ
	bszy     []float64 // Bᵀ Szy, B = (Σ+Σ*)⁻¹Σ
	m        []float64 // Bᵀ Szz B
	syy, sy2 float64
}

// FixCov precomputes the eq. 41 likelihood for the covariance sigmaX of x
// and output noise standard deviation sy ≥ 0.
func (ld *LinRegData) FixCov(sigmaX []float64, sy float64) (*LinRegFixedCov, error) {
	if ld == nil || ld.d < 1 || ld.n < 1 {
		return nil, fmt.Errorf("ldp: LinRegData used without NewLinRegData: %w", ErrInvalid)
	}
	d := ld.d
	if !checkCov(sigmaX, d) {
		return nil, fmt.Errorf("ldp: sigmaX must be a finite %d×%d matrix, got %d entries: %w", d, d, len(sigmaX), ErrInvalid)
	}
	if !(sy >= 0) || math.IsInf(sy, 1) {
		return nil, fmt.Errorf("ldp: sy must be finite and >= 0, got %v: %w", sy, ErrInvalid)
	}
	w := ld.pool.Get().(*linregWork)
	defer ld.pool.Put(w)
	in := ld.inputTerm(sigmaX, w)
	if math.IsNaN(in) {
		return nil, fmt.Errorf("ldp: sigmaX + diag(sx²) must be positive definite: %w", ErrInvalid)
	}
	f := &LinRegFixedCov{d: d, n: float64(ld.n), input: in, a: make([]float64, d*d), bszy: make([]float64, d),
		m: make([]float64, d*d), syy: ld.syy, sy2: sy * sy}
	b := make([]float64, d*d)
	col := make([]float64, d)
	for c := range d {
		for r := range d {
			col[r] = sigmaX[r*d+c]
		}
		linalg.CholSolve(w.l, d, col)
		for r := range d {
			b[r*d+c] = col[r]
		}
	}
	sb := make([]float64, d*d)
	linalg.MatMul(sb, sigmaX, b, d, d, d)
	for i := range f.a {
		f.a[i] = sigmaX[i] - sb[i]
	}
	// Symmetrise A against rounding.
	for r := range d {
		for c := range r {
			v := 0.5 * (f.a[r*d+c] + f.a[c*d+r])
			f.a[r*d+c], f.a[c*d+r] = v, v
		}
	}
	for c := range d {
		for r := range d {
			f.bszy[c] += b[r*d+c] * ld.szy[r]
		}
	}
	szzb := make([]float64, d*d)
	linalg.MatMul(szzb, ld.szz, b, d, d, d)
	for r := range d {
		for c := range d {
			s := 0.0
			for k := range d {
				s += b[k*d+r] * szzb[k*d+c]
			}
			f.m[r*d+c] = s
		}
	}
	return f, nil
}

// LogDensityGrad returns the eq. 41 log-likelihood at (θ, σ) and, if grad is
// non-nil (length d+1), writes ∂/∂θ_j into grad[j] and ∂/∂σ into grad[d].
// It returns NaN for wrong lengths, non-finite θ or σ < 0.
func (f *LinRegFixedCov) LogDensityGrad(theta []float64, sigma float64, grad []float64) float64 {
	if f == nil || f.d < 1 {
		return math.NaN()
	}
	d := f.d
	if len(theta) != d || (grad != nil && len(grad) != d+1) || !(sigma >= 0) || math.IsInf(sigma, 1) {
		return math.NaN()
	}
	tat, q := 0.0, f.syy
	for j := range d {
		if !finite(theta[j]) {
			return math.NaN()
		}
		q -= 2 * theta[j] * f.bszy[j]
		for k := range d {
			tat += theta[j] * f.a[j*d+k] * theta[k]
			q += theta[j] * f.m[j*d+k] * theta[k]
		}
	}
	v := tat + sigma*sigma + f.sy2
	if !(v > 0) {
		return math.NaN()
	}
	ll := f.input - 0.5*f.n*(2*logSqrt2Pi+math.Log(v)) - 0.5*q/v
	if grad != nil {
		dv := -0.5*f.n/v + 0.5*q/(v*v) // ∂ℓ/∂v
		for j := range d {
			at, mt := 0.0, 0.0
			for k := range d {
				at += f.a[j*d+k] * theta[k]
				mt += f.m[j*d+k] * theta[k]
			}
			grad[j] = dv*2*at - 0.5*(-2*f.bszy[j]+2*mt)/v
		}
		grad[d] = dv * 2 * sigma
	}
	return ll
}

// LogDensityGrad returns LogDensity (eq. 41) and writes its gradient:
// ∂/∂θ into gTheta (length d) and into gSigmaX (length d·d) the symmetric
// matrix G with dℓ = Σ_jk G_jk dΣ_jk for every symmetric perturbation dΣ;
// dSigma is ∂/∂σ. With K = Σ + Σ*, c = Σθ, w = K⁻¹c,
// v = θᵀc − cᵀw + σ² + sy² and q the residual sum of squares,
//
//	∂v/∂θ = 2(c − Σw),  ∂v/∂Σ = (θ − w)(θ − w)ᵀ,  dw = K⁻¹(dΣ(θ − w) + Σ dθ),
//
// and the input term contributes ½(K⁻¹ S_zz K⁻¹ − N K⁻¹) to G. NaN as
// LogDensity; it allocates nothing in steady state.
func (ld *LinRegData) LogDensityGrad(theta []float64, sigma, sy float64, sigmaX, gTheta, gSigmaX []float64) (ll, dSigma float64) {
	if ld == nil || ld.d < 1 || ld.n < 1 {
		return math.NaN(), math.NaN()
	}
	d := ld.d
	if len(gTheta) != d || len(gSigmaX) != d*d {
		return math.NaN(), math.NaN()
	}
	ll = ld.LogDensity(theta, sigma, sy, sigmaX)
	if math.IsNaN(ll) {
		return ll, math.NaN()
	}
	w := ld.pool.Get().(*linregWork)
	defer ld.pool.Put(w)
	ld.inputTerm(sigmaX, w) // Cholesky factor of K in w.l
	kinv := w.kinv
	for c := range d {
		clear(w.w)
		w.w[c] = 1
		linalg.CholSolve(w.l, d, w.w)
		for r := range d {
			kinv[r*d+c] = w.w[r]
		}
	}
	n := float64(ld.n)
	// Input term: G_in = ½(K⁻¹ S K⁻¹ − N K⁻¹); tmp = S K⁻¹.
	linalg.MatMul(w.tmp, ld.szz, kinv, d, d, d)
	linalg.MatMul(w.b, kinv, w.tmp, d, d, d)
	for i := range gSigmaX {
		gSigmaX[i] = 0.5 * (w.b[i] - n*kinv[i])
	}
	// Output term.
	linalg.MatVec(w.st, sigmaX, theta, d, d) // c
	linalg.MatVec(w.w, kinv, w.st, d, d)     // w = K⁻¹c
	tst, stw := 0.0, 0.0
	for j := range d {
		tst += theta[j] * w.st[j]
		stw += w.st[j] * w.w[j]
	}
	v := tst - stw + sigma*sigma + sy*sy
	q := ld.syy
	for j := range d {
		q -= 2 * w.w[j] * ld.szy[j]
		for k := range d {
			q += w.w[j] * ld.szz[j*d+k] * w.w[k]
		}
	}
	fv := -0.5*n/v + 0.5*q/(v*v)
	// g_w = (szy − szz w)/v into u, then u = K⁻¹ g_w.
	for j := range d {
		g := ld.szy[j]
		for k := range d {
			g -= ld.szz[j*d+k] * w.w[k]
		}
		w.tmp[j] = g / v
	}
	linalg.MatVec(w.u, kinv, w.tmp[:d], d, d)
	for j := range d {
		sw, su := 0.0, 0.0
		for k := range d {
			sw += sigmaX[j*d+k] * w.w[k]
			su += sigmaX[j*d+k] * w.u[k]
		}
		gTheta[j] = 2*fv*(w.st[j]-sw) + su
	}
	for j := range d {
		tj := theta[j] - w.w[j]
		for k := range d {
			tk := theta[k] - w.w[k]
			gSigmaX[j*d+k] += fv*tj*tk + 0.5*(w.u[j]*tk+tj*w.u[k])
		}
	}
	return ll, 2 * sigma * fv
}
