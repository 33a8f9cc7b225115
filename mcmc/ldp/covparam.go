package ldp

import (
	"fmt"
	"math"

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
}

// CovPrior is an inverse-Wishart prior IW(Nu, Scale·I) on a d×d covariance
// matrix Σ, on the Cholesky coordinates of CovFromParams. It is the
// conjugate alternative to ScaledLKJ, the scaled LKJ(2) prior the LDP
// paper uses. Nu must exceed d − 1 and Scale be > 0.
type CovPrior struct {
	Nu, Scale float64
}

// Cov writes Σ = L Lᵀ for the Cholesky coordinates x (see CovFromParams)
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
	var lb [maxCovDim * maxCovDim]float64
	l := lb[:d*d]
	cholFromParams(x, d, l)
	llt(l, d, sigma)
	return covLogPrior(x, d, p, l)
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
// CovFromParams) they are the lower triangle of the Cholesky factor L of
// Σ, row by row, with log L_jj on the diagonal; for ScaledLKJ see its
// documentation.
func CovParams(d int) int { return d * (d + 1) / 2 }

// CovFromParams writes Σ = L Lᵀ (row-major d×d) for the unconstrained
// coordinates p (length CovParams(d)) into sigma.
func CovFromParams(p []float64, d int, sigma []float64) error {
	if d < 1 || len(p) != CovParams(d) || len(sigma) != d*d {
		return fmt.Errorf("ldp: CovFromParams needs %d coordinates and a %d×%d destination, got %d and %d: %w", CovParams(d), d, d, len(p), len(sigma), ErrInvalid)
	}
	for i, v := range p {
		if !finite(v) {
			return fmt.Errorf("ldp: CovFromParams needs finite coordinates, got p[%d] = %v: %w", i, v, ErrInvalid)
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

// SuffStatCovPosterior is the posterior of (θ, σ, Σ) for the
// sufficient-statistics linear regression (§13.1) with priors
// θ ~ N(0, SdTheta² I), σ ~ Gamma(Shape, Rate) and a CovariancePrior on Σ
// (the paper: ScaledLKJ{Eta: 2, Scale: 2.5}), as an mcmc.Target on
// x = (θ, log σ, the prior's coordinates of Σ). No gradient: use
// AdaptiveMetropolis or Slice. d ≤ 8.
type SuffStatCovPosterior struct {
	s                  *SuffStatLinReg
	sdTheta, sha, rate float64
	cov                CovariancePrior
}

// NewSuffStatCovPosterior returns the posterior for the released sum in s.
func NewSuffStatCovPosterior(s *SuffStatLinReg, sdTheta, shape, rate float64, cov CovariancePrior) (*SuffStatCovPosterior, error) {
	if s == nil {
		return nil, fmt.Errorf("ldp: model is nil: %w", ErrInvalid)
	}
	if s.d > maxCovDim {
		return nil, fmt.Errorf("ldp: dimension must be <= %d when Σ is learned, got %d: %w", maxCovDim, s.d, ErrInvalid)
	}
	if !(sdTheta > 0) || !(shape > 0) || !(rate > 0) || math.IsInf(sdTheta, 1) || math.IsInf(shape, 1) || math.IsInf(rate, 1) {
		return nil, fmt.Errorf("ldp: prior scales must be finite and > 0, got %v, %v, %v: %w", sdTheta, shape, rate, ErrInvalid)
	}
	if cov == nil || isNilPrior(cov) {
		return nil, fmt.Errorf("ldp: covariance prior is nil: %w", ErrInvalid)
	}
	if err := cov.check(s.d); err != nil {
		return nil, err
	}
	return &SuffStatCovPosterior{s: s, sdTheta: sdTheta, sha: shape, rate: rate, cov: cov}, nil
}

// Dim returns d + 1 + d(d+1)/2.
func (p *SuffStatCovPosterior) Dim() int {
	if p == nil || p.s == nil {
		return 0
	}
	return p.s.d + 1 + CovParams(p.s.d)
}

// LogDensity returns the unnormalised log posterior of x.
func (p *SuffStatCovPosterior) LogDensity(x []float64) float64 {
	if p == nil || p.s == nil {
		return math.NaN()
	}
	var sb [maxCovDim * maxCovDim]float64
	sg := sb[:p.s.d*p.s.d]
	lp, sigma, ok := covPosteriorPrior(x, p.s.d, p.sdTheta, p.sha, p.rate, p.Dim(), p.cov, sg)
	if !ok {
		return lp
	}
	return lp + p.s.LogDensity(x[:p.s.d], sigma, sg)
}

// covPosteriorPrior evaluates the prior part shared by the posteriors that
// learn Σ: the θ and σ priors (thetaSigmaPrior) plus the prior of the
// Cholesky coordinates x[d+1:], and writes Σ = LLᵀ into sg (length d·d).
// ok is false when lp is already final (−Inf or NaN).
func covPosteriorPrior(x []float64, d int, sdTheta, shape, rate float64, dim int, cov CovariancePrior, sg []float64) (lp, sigma float64, ok bool) {
	lp, sigma, ok = thetaSigmaPrior(x, d, sdTheta, shape, rate, dim)
	if !ok {
		return lp, sigma, false
	}
	lc := cov.Cov(x[d+1:], d, sg)
	if math.IsNaN(lc) || math.IsInf(lc, -1) {
		return lc, sigma, false
	}
	return lp + lc, sigma, true
}

// isNilPrior reports a CovariancePrior interface holding a nil pointer.
func isNilPrior(c CovariancePrior) bool {
	switch v := c.(type) {
	case *CovPrior:
		return v == nil
	case *ScaledLKJ:
		return v == nil
	}
	return false
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

// LinRegCovPosterior is the posterior of (θ, σ, Σ) for the
// input-perturbation linear regression (eq. 41) with the output noise sy
// known, priors θ ~ N(0, SdTheta² I), σ ~ Gamma(Shape, Rate) and a
// CovariancePrior on Σ, as an mcmc.Target on x = (θ, log σ, the prior's
// coordinates of Σ). No gradient: use AdaptiveMetropolis or Slice. d ≤ 8.
type LinRegCovPosterior struct {
	ld                     *LinRegData
	sy, sdTheta, sha, rate float64
	cov                    CovariancePrior
}

// NewLinRegCovPosterior returns the posterior for the reports in ld.
func NewLinRegCovPosterior(ld *LinRegData, sy, sdTheta, shape, rate float64, cov CovariancePrior) (*LinRegCovPosterior, error) {
	if ld == nil {
		return nil, fmt.Errorf("ldp: data is nil: %w", ErrInvalid)
	}
	if ld.d > maxCovDim {
		return nil, fmt.Errorf("ldp: dimension must be <= %d when Σ is learned, got %d: %w", maxCovDim, ld.d, ErrInvalid)
	}
	if !(sy >= 0) || math.IsInf(sy, 1) {
		return nil, fmt.Errorf("ldp: sy must be finite and >= 0, got %v: %w", sy, ErrInvalid)
	}
	if !(sdTheta > 0) || !(shape > 0) || !(rate > 0) || math.IsInf(sdTheta, 1) || math.IsInf(shape, 1) || math.IsInf(rate, 1) {
		return nil, fmt.Errorf("ldp: prior scales must be finite and > 0, got %v, %v, %v: %w", sdTheta, shape, rate, ErrInvalid)
	}
	if cov == nil || isNilPrior(cov) {
		return nil, fmt.Errorf("ldp: covariance prior is nil: %w", ErrInvalid)
	}
	if err := cov.check(ld.d); err != nil {
		return nil, err
	}
	return &LinRegCovPosterior{ld: ld, sy: sy, sdTheta: sdTheta, sha: shape, rate: rate, cov: cov}, nil
}

// Dim returns d + 1 + d(d+1)/2.
func (p *LinRegCovPosterior) Dim() int {
	if p == nil || p.ld == nil {
		return 0
	}
	return p.ld.d + 1 + CovParams(p.ld.d)
}

// LogDensity returns the unnormalised log posterior of x.
func (p *LinRegCovPosterior) LogDensity(x []float64) float64 {
	if p == nil || p.ld == nil {
		return math.NaN()
	}
	var sb [maxCovDim * maxCovDim]float64
	sg := sb[:p.ld.d*p.ld.d]
	lp, sigma, ok := covPosteriorPrior(x, p.ld.d, p.sdTheta, p.sha, p.rate, p.Dim(), p.cov, sg)
	if !ok {
		return lp
	}
	return lp + p.ld.LogDensity(x[:p.ld.d], sigma, p.sy, sg)
}
