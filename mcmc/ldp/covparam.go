package ldp

import (
	"fmt"
	"math"
	"sync"

	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/linalg"
)

// maxCovDim bounds d for the targets that learn Σ (their scratch space
// lives on the stack).
const maxCovDim = 8

// CovariancePrior is a prior on a d×d covariance matrix Σ together with
// its CovParams(d) unconstrained coordinates, for the targets that learn
// the input covariance: ScaledLKJ (the LDP paper's prior) or CovPrior (an
// inverse Wishart).
type CovariancePrior interface {
	// Cov writes Σ (row-major d×d) for the coordinates x into sigma and
	// returns the log prior density of x, Jacobian included: −Inf for
	// non-finite coordinates, NaN for wrong lengths or an invalid prior.
	Cov(x []float64, d int, sigma []float64) float64
	check(d int) error
	// covGrad is Cov that also, when gSigma (the symmetric adjoint G of
	// Σ, dℓ = Σ_jk G_jk dΣ_jk) is non-nil, writes the gradient of
	// ℓ(Σ(x)) + log prior(x) into grad.
	covGrad(x []float64, d int, sigma, gSigma, grad []float64) float64
}

// CovPrior is an inverse-Wishart prior IW(Nu, Scale·I) on a d×d covariance
// matrix Σ, on the Cholesky coordinates of covFromParams. It is the
// conjugate alternative to ScaledLKJ, the scaled LKJ(2) prior the LDP
// paper uses. Nu must exceed d − 1 and Scale be > 0.
type CovPrior struct {
	Nu, Scale float64
}

// Cov writes Σ = L Lᵀ for the Cholesky coordinates x (see covFromParams)
// into sigma and returns the inverse-Wishart log density of Σ up to a
// constant plus the log Jacobian of the map.
func (p CovPrior) Cov(x []float64, d int, sigma []float64) float64 {
	if p.check(d) != nil || len(x) != CovParams(d) || len(sigma) != d*d {
		return math.NaN()
	}
	for _, v := range x {
		if !finite(v) {
			return math.Inf(-1)
		}
	}
	return p.covGrad(x, d, sigma, nil, nil)
}

// covGrad implements CovariancePrior. With Σ = LLᵀ, the inverse-Wishart
// term −½ Scale·tr(Σ⁻¹) adds ½ Scale Σ⁻² to the adjoint of Σ, the adjoint
// of L is 2GL, and the diagonal coordinates log L_jj pick up L_jj L̄_jj
// plus −(Nu + d + 1) + (d − j + 1) from the log determinant and the
// Jacobian.
func (p CovPrior) covGrad(x []float64, d int, sigma, gSigma, grad []float64) float64 {
	for _, v := range x {
		if !finite(v) {
			return math.Inf(-1)
		}
	}
	var lb, ib, gb [maxCovDim * maxCovDim]float64
	l := lb[:d*d]
	cholFromParams(x, d, l)
	for j := range d {
		if !(l[j*d+j] > 0) || math.IsInf(l[j*d+j], 1) {
			return math.Inf(-1)
		}
	}
	llt(l, d, sigma)
	lp := covLogPrior(x, d, p, l)
	if gSigma == nil {
		return lp
	}
	// Σ⁻¹ = L⁻ᵀL⁻¹, column by column.
	inv := ib[:d*d]
	var eb [maxCovDim]float64
	e := eb[:d]
	for c := range d {
		clear(e)
		e[c] = 1
		linalg.CholSolve(l, d, e)
		for r := range d {
			inv[r*d+c] = e[r]
		}
	}
	g := gb[:d*d]
	for r := range d {
		for c := range d {
			s := 0.0
			for k := range d {
				s += inv[r*d+k] * inv[k*d+c]
			}
			g[r*d+c] = gSigma[r*d+c] + 0.5*p.Scale*s
		}
	}
	k := 0
	for r := range d {
		for c := 0; c <= r; c++ {
			lbar := 0.0 // (2GL)_rc
			for t := range d {
				lbar += 2 * g[r*d+t] * l[t*d+c]
			}
			if c == r {
				grad[k] = lbar*l[r*d+r] - (p.Nu + float64(d) + 1) + float64(d-r+1)
			} else {
				grad[k] = lbar
			}
			k++
		}
	}
	return lp
}

func (p CovPrior) check(d int) error {
	if d < 1 || d > maxCovDim {
		return fmt.Errorf("ldp: covariance dimension must be in [1, %d], got %d: %w", maxCovDim, d, ErrInvalid)
	}
	if !(p.Nu > float64(d-1)) || math.IsInf(p.Nu, 1) || !(p.Scale > 0) || math.IsInf(p.Scale, 1) {
		return fmt.Errorf("ldp: inverse-Wishart prior needs Nu > d−1 = %d and Scale > 0, got %v, %v: %w", d-1, p.Nu, p.Scale, ErrInvalid)
	}
	return nil
}

// CovParams returns the number d(d+1)/2 of unconstrained coordinates of a
// d×d covariance under either CovariancePrior. For CovPrior (and
// covFromParams) they are the lower triangle of the Cholesky factor L of
// Σ, row by row, with log L_jj on the diagonal; for ScaledLKJ see its
// documentation.
func CovParams(d int) int { return d * (d + 1) / 2 }

// covFromParams writes Σ = L Lᵀ (row-major d×d) for the unconstrained
// coordinates p (length CovParams(d)) into sigma.
func covFromParams(p []float64, d int, sigma []float64) error {
	if d < 1 || len(p) != CovParams(d) || len(sigma) != d*d {
		return fmt.Errorf("ldp: covFromParams needs %d coordinates and a %d×%d destination, got %d and %d: %w", CovParams(d), d, d, len(p), len(sigma), ErrInvalid)
	}
	for i, v := range p {
		if !finite(v) {
			return fmt.Errorf("ldp: covFromParams needs finite coordinates, got p[%d] = %v: %w", i, v, ErrInvalid)
		}
	}
	var lb [maxCovDim * maxCovDim]float64
	if d > maxCovDim {
		return fmt.Errorf("ldp: covariance dimension must be <= %d, got %d: %w", maxCovDim, d, ErrInvalid)
	}
	cholFromParams(p, d, lb[:d*d])
	llt(lb[:d*d], d, sigma)
	return nil
}

func cholFromParams(p []float64, d int, l []float64) {
	clear(l)
	k := 0
	for r := range d {
		for c := 0; c <= r; c++ {
			if c == r {
				l[r*d+c] = math.Exp(p[k])
			} else {
				l[r*d+c] = p[k]
			}
			k++
		}
	}
}

func llt(l []float64, d int, sigma []float64) {
	for r := range d {
		for c := range d {
			s := 0.0
			for k := 0; k <= min(r, c); k++ {
				s += l[r*d+k] * l[c*d+k]
			}
			sigma[r*d+c] = s
		}
	}
}

// covLogPrior returns the inverse-Wishart log density of Σ = L Lᵀ (up to
// a constant) plus the log Jacobian of the map from the unconstrained
// coordinates to Σ, log 2^d Π_j L_jj^{d−j+1} · Π_j L_jj (j = 1..d). l holds L.
func covLogPrior(p []float64, d int, pr CovPrior, l []float64) float64 {
	logdet, jac := 0.0, 0.0
	k := 0
	for r := range d {
		eta := p[k+r] // diagonal entry of row r
		logdet += 2 * eta
		jac += float64(d-r+1) * eta
		k += r + 1
	}
	// tr(Ψ Σ⁻¹) = Scale · ‖L⁻¹‖_F².
	var eb [maxCovDim]float64
	e := eb[:d]
	tr := 0.0
	for c := range d {
		clear(e)
		e[c] = 1
		linalg.SolveLower(l, d, e)
		for _, v := range e {
			tr += v * v
		}
	}
	return -0.5*(pr.Nu+float64(d)+1)*logdet - 0.5*pr.Scale*tr + jac
}

// linLik is a linear-regression likelihood of (θ, σ, Σ) with its
// gradient: SuffStatLinReg or eq. 41 with a known output noise.
type linLik interface {
	logDensity(theta []float64, sigma float64, sigmaX []float64) float64
	logDensityGrad(theta []float64, sigma float64, sigmaX, gTheta, gSigmaX []float64) (float64, float64)
}

func (s *SuffStatLinReg) logDensity(theta []float64, sigma float64, sigmaX []float64) float64 {
	return s.LogDensity(theta, sigma, sigmaX)
}

func (s *SuffStatLinReg) logDensityGrad(theta []float64, sigma float64, sigmaX, gTheta, gSigmaX []float64) (float64, float64) {
	return s.LogDensityGrad(theta, sigma, sigmaX, gTheta, gSigmaX)
}

// eq41 is LinRegData's likelihood with the output noise sy fixed.
type eq41 struct {
	ld *LinRegData
	sy float64
}

func (e *eq41) logDensity(theta []float64, sigma float64, sigmaX []float64) float64 {
	return e.ld.LogDensity(theta, sigma, e.sy, sigmaX)
}

func (e *eq41) logDensityGrad(theta []float64, sigma float64, sigmaX, gTheta, gSigmaX []float64) (float64, float64) {
	return e.ld.LogDensityGrad(theta, sigma, e.sy, sigmaX, gTheta, gSigmaX)
}

// covPost is the posterior of (θ, log σ, Σ coordinates) shared by the
// linear-regression targets that learn Σ: priors θ ~ N(0, sdTheta² I),
// σ ~ Gamma(shape, rate) (with the log-Jacobian of log σ) and cov on Σ.
type covPost struct {
	d                  int
	sdTheta, sha, rate float64
	cov                CovariancePrior
	lik                linLik
	pool               sync.Pool // *covWork
}

type covWork struct{ sg, gs []float64 }

func newCovPost(d int, sdTheta, shape, rate float64, cov CovariancePrior, lik linLik) (*covPost, error) {
	if d > maxCovDim {
		return nil, fmt.Errorf("ldp: dimension must be <= %d when Σ is learned, got %d: %w", maxCovDim, d, ErrInvalid)
	}
	if !(sdTheta > 0) || !(shape > 0) || !(rate > 0) || math.IsInf(sdTheta, 1) || math.IsInf(shape, 1) || math.IsInf(rate, 1) {
		return nil, fmt.Errorf("ldp: prior scales must be finite and > 0, got %v, %v, %v: %w", sdTheta, shape, rate, ErrInvalid)
	}
	if argcheck.Nil(cov) {
		return nil, fmt.Errorf("ldp: covariance prior is nil: %w", ErrInvalid)
	}
	if err := cov.check(d); err != nil {
		return nil, err
	}
	c := &covPost{d: d, sdTheta: sdTheta, sha: shape, rate: rate, cov: cov, lik: lik}
	c.pool.New = func() any { return &covWork{sg: make([]float64, d*d), gs: make([]float64, d*d)} }
	return c, nil
}

func (c *covPost) dim() int { return c.d + 1 + CovParams(c.d) }

// eval returns the log posterior and, when grad is non-nil, writes its
// gradient. A likelihood that is NaN at parameters valid for the priors
// (a covariance not positive definite in floating point) gives −Inf.
func (c *covPost) eval(x, grad []float64) float64 {
	d := c.d
	if grad != nil {
		if len(grad) != len(x) {
			return math.NaN()
		}
		clear(grad)
	}
	lp, sigma, ok := thetaSigmaPrior(x, d, c.sdTheta, c.sha, c.rate, c.dim())
	if !ok {
		return lp
	}
	w := c.pool.Get().(*covWork)
	defer c.pool.Put(w)
	lc := c.cov.covGrad(x[d+1:], d, w.sg, nil, nil)
	if math.IsNaN(lc) || math.IsInf(lc, -1) {
		return lc
	}
	if grad == nil {
		ll := c.lik.logDensity(x[:d], sigma, w.sg)
		if math.IsNaN(ll) {
			return math.Inf(-1)
		}
		return lp + lc + ll
	}
	ll, ds := c.lik.logDensityGrad(x[:d], sigma, w.sg, grad[:d], w.gs)
	if math.IsNaN(ll) {
		clear(grad)
		return math.Inf(-1)
	}
	c.cov.covGrad(x[d+1:], d, w.sg, w.gs, grad[d+1:])
	for j := range d {
		grad[j] -= x[j] / (c.sdTheta * c.sdTheta)
	}
	grad[d] = sigma*ds + c.sha - c.rate*sigma
	return lp + lc + ll
}

// thetaSigmaPrior checks x and returns the N(0, sd²I) log prior of θ, the
// Gamma prior of σ with the log-Jacobian of log σ, and σ.
func thetaSigmaPrior(x []float64, d int, sd, shape, rate float64, dim int) (lp, sigma float64, ok bool) {
	if len(x) != dim {
		return math.NaN(), 0, false
	}
	for _, v := range x {
		if !finite(v) {
			return math.Inf(-1), 0, false
		}
	}
	sigma = math.Exp(x[d])
	if !(sigma > 0) || math.IsInf(sigma, 1) {
		return math.Inf(-1), 0, false
	}
	lp = shape*x[d] - rate*sigma
	for j := range d {
		lp -= 0.5 * x[j] * x[j] / (sd * sd)
	}
	return lp, sigma, true
}

// SuffStatCovPosterior is the posterior of (θ, σ, Σ) for the
// sufficient-statistics linear regression (§13.1) with priors
// θ ~ N(0, SdTheta² I), σ ~ Gamma(Shape, Rate) and a CovariancePrior on Σ
// (the paper: ScaledLKJ{Eta: 2, Scale: 2.5}), as an mcmc.GradTarget on
// x = (θ, log σ, the prior's coordinates of Σ), for NUTS. d ≤ 8. Points
// where the likelihood's covariance is not positive definite in floating
// point have density zero.
type SuffStatCovPosterior struct {
	s *SuffStatLinReg
	c *covPost
}

// SuffStatCovPosteriorConfig configures NewSuffStatCovPosterior: the
// priors θ ~ N(0, SDTheta² I), σ ~ Gamma(Shape, Rate) and Cov on Σ. The
// zero value is refused.
type SuffStatCovPosteriorConfig struct {
	// SDTheta is the prior standard deviation of each θ_j (finite, > 0;
	// the paper uses √5).
	SDTheta float64
	// Shape is the shape of the Gamma prior of σ (finite, > 0).
	Shape float64
	// Rate is the rate of the Gamma prior of σ (finite, > 0).
	Rate float64
	// Cov is the prior on Σ (non-nil; the paper uses
	// ScaledLKJ{Eta: 2, Scale: 2.5}).
	Cov CovariancePrior
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field. NewSuffStatCovPosterior further checks
// Cov against the model's dimension.
func (c SuffStatCovPosteriorConfig) Validate() error {
	return checkCovPrior("SuffStatCovPosteriorConfig", c.SDTheta, c.Shape, c.Rate, c.Cov)
}

// checkCovPrior checks the prior fields of the configuration named typ.
func checkCovPrior(typ string, sdTheta, shape, rate float64, cov CovariancePrior) error {
	if err := checkPriorScales(typ, sdTheta, shape, rate); err != nil {
		return err
	}
	if argcheck.Nil(cov) {
		return fmt.Errorf("ldp: %s.Cov is nil: %w", typ, ErrInvalid)
	}
	return nil
}

// NewSuffStatCovPosterior returns the posterior for the released sum in s
// with the priors of cfg.
func NewSuffStatCovPosterior(s *SuffStatLinReg, cfg SuffStatCovPosteriorConfig) (*SuffStatCovPosterior, error) {
	if s == nil || s.d < 1 {
		return nil, fmt.Errorf("ldp: model is nil or was not built by NewSuffStatLinReg: %w", ErrInvalid)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c, err := newCovPost(s.d, cfg.SDTheta, cfg.Shape, cfg.Rate, cfg.Cov, s)
	if err != nil {
		return nil, err
	}
	return &SuffStatCovPosterior{s: s, c: c}, nil
}

// Dim returns d + 1 + d(d+1)/2.
func (p *SuffStatCovPosterior) Dim() int {
	if p == nil || p.c == nil {
		return 0
	}
	return p.c.dim()
}

// LogDensity returns the unnormalised log posterior of x.
func (p *SuffStatCovPosterior) LogDensity(x []float64) float64 { return p.Gradient(x, nil) }

// Gradient writes ∇ log π(x) into grad (if non-nil) and returns log π(x).
// It allocates nothing in steady state.
func (p *SuffStatCovPosterior) Gradient(x, grad []float64) float64 {
	if p == nil || p.c == nil {
		return math.NaN()
	}
	return p.c.eval(x, grad)
}

// LinRegCovPosterior is the posterior of (θ, σ, Σ) for the
// input-perturbation linear regression (eq. 41) with the output noise sy
// known, priors θ ~ N(0, SdTheta² I), σ ~ Gamma(Shape, Rate) and a
// CovariancePrior on Σ, as an mcmc.GradTarget on x = (θ, log σ, the
// prior's coordinates of Σ), for NUTS. d ≤ 8.
type LinRegCovPosterior struct {
	ld *LinRegData
	c  *covPost
}

// LinRegCovPosteriorConfig configures NewLinRegCovPosterior: the known
// output noise SY and the priors θ ~ N(0, SDTheta² I),
// σ ~ Gamma(Shape, Rate) and Cov on Σ. The zero value is refused.
type LinRegCovPosteriorConfig struct {
	// SY is the standard deviation s_y of the Gaussian noise added to
	// each released output (finite, ≥ 0).
	SY float64
	// SDTheta is the prior standard deviation of each θ_j (finite, > 0;
	// the paper uses √5).
	SDTheta float64
	// Shape is the shape of the Gamma prior of σ (finite, > 0).
	Shape float64
	// Rate is the rate of the Gamma prior of σ (finite, > 0).
	Rate float64
	// Cov is the prior on Σ (non-nil; the paper uses
	// ScaledLKJ{Eta: 2, Scale: 2.5}).
	Cov CovariancePrior
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field. NewLinRegCovPosterior further checks
// Cov against the data's dimension.
func (c LinRegCovPosteriorConfig) Validate() error {
	if !(c.SY >= 0) || math.IsInf(c.SY, 1) {
		return fmt.Errorf("ldp: LinRegCovPosteriorConfig.SY must be finite and >= 0, got %v: %w", c.SY, ErrInvalid)
	}
	return checkCovPrior("LinRegCovPosteriorConfig", c.SDTheta, c.Shape, c.Rate, c.Cov)
}

// NewLinRegCovPosterior returns the posterior for the reports in ld with
// the output noise and priors of cfg.
func NewLinRegCovPosterior(ld *LinRegData, cfg LinRegCovPosteriorConfig) (*LinRegCovPosterior, error) {
	if ld == nil || ld.d < 1 {
		return nil, fmt.Errorf("ldp: data is nil or was not built by NewLinRegData: %w", ErrInvalid)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c, err := newCovPost(ld.d, cfg.SDTheta, cfg.Shape, cfg.Rate, cfg.Cov, &eq41{ld: ld, sy: cfg.SY})
	if err != nil {
		return nil, err
	}
	return &LinRegCovPosterior{ld: ld, c: c}, nil
}

// Dim returns d + 1 + d(d+1)/2.
func (p *LinRegCovPosterior) Dim() int {
	if p == nil || p.c == nil {
		return 0
	}
	return p.c.dim()
}

// LogDensity returns the unnormalised log posterior of x.
func (p *LinRegCovPosterior) LogDensity(x []float64) float64 { return p.Gradient(x, nil) }

// Gradient writes ∇ log π(x) into grad (if non-nil) and returns log π(x).
// It allocates nothing in steady state.
func (p *LinRegCovPosterior) Gradient(x, grad []float64) float64 {
	if p == nil || p.c == nil {
		return math.NaN()
	}
	return p.c.eval(x, grad)
}
