package ldp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/variate"
)

// LKJ is the distribution of Lewandowski, Kurowicka and Joe (2009) on d×d
// correlation matrices Ω, with density
//
//	p(Ω) = det(Ω)^(Eta−1) / c_d(Eta),
//	c_d(η) = Π_{k=1}^{d−1} [2^(2β_k−1) B(β_k, β_k)]^(d−k),  β_k = η + (d−k−1)/2,
//
// with respect to the Lebesgue measure on the d(d−1)/2 entries below the
// diagonal (Eta = 1 is uniform over correlation matrices). In the
// canonical partial correlations z_ik of the Cholesky factor L of Ω (row
// i, column k < i: L_ik = z_ik √(1 − Σ_{j<k} L_ij²)), the density
// factorises: the z_ik are independent and (z_ik + 1)/2 ~ Beta(β, β) with
// β = Eta + (d − 2 − k)/2 (k counted from 0), which is how Sample draws
// and how ScaledLKJ evaluates it.
type LKJ struct {
	// Eta is the shape η ∈ (0, 1e100]; the LDP paper uses 2.
	Eta float64
}

func (p LKJ) check(d int) error {
	if !(p.Eta > 0 && p.Eta <= 1e100) {
		return fmt.Errorf("ldp: LKJ.Eta must be in (0, 1e100], got %v: %w", p.Eta, ErrInvalid)
	}
	if d < 1 || d > maxCovDim {
		return fmt.Errorf("ldp: LKJ dimension must be in [1, %d], got %d: %w", maxCovDim, d, ErrInvalid)
	}
	return nil
}

// beta returns the Beta parameter of the partial correlations in column k.
func (p LKJ) beta(d, k int) float64 { return p.Eta + float64(d-2-k)/2 }

// LogNormalizer returns log c_d(Eta).
func (p LKJ) LogNormalizer(d int) (float64, error) {
	if err := p.check(d); err != nil {
		return 0, err
	}
	s := 0.0
	for k := 1; k < d; k++ {
		b := p.Eta + float64(d-k-1)/2
		s += float64(d-k) * ((2*b-1)*math.Ln2 + special.LogBeta(b, b))
	}
	return s, nil
}

// LogDensity returns log p(Ω) for a d×d correlation matrix omega
// (row-major): −Inf if omega is not a positive-definite correlation
// matrix (unit diagonal and symmetry to within 1e-12), NaN for invalid
// Eta, d or a slice of the wrong length.
func (p LKJ) LogDensity(omega []float64, d int) float64 {
	if p.check(d) != nil || len(omega) != d*d {
		return math.NaN()
	}
	var lb [maxCovDim * maxCovDim]float64
	l := lb[:d*d]
	for j := range d {
		if !(math.Abs(omega[j*d+j]-1) <= 1e-12) {
			return math.Inf(-1)
		}
		for k := range j {
			if !finite(omega[j*d+k]) || !(math.Abs(omega[j*d+k]-omega[k*d+j]) <= 1e-12) {
				return math.Inf(-1)
			}
		}
	}
	if err := choleskyInto(omega, d, l); err != nil {
		return math.Inf(-1)
	}
	logdet := 0.0
	for j := range d {
		logdet += 2 * math.Log(l[j*d+j])
	}
	c, _ := p.LogNormalizer(d)
	return (p.Eta-1)*logdet - c
}

// Sample draws a d×d correlation matrix into omega (row-major) from r.
func (p LKJ) Sample(r *rand.Rand, d int, omega []float64) error {
	if err := p.check(d); err != nil {
		return err
	}
	if r == nil || len(omega) != d*d {
		return fmt.Errorf("ldp: LKJ.Sample needs a non-nil *rand.Rand and omega of length %d, got %d: %w", d*d, len(omega), ErrInvalid)
	}
	var lb [maxCovDim * maxCovDim]float64
	l := lb[:d*d]
	for i := range d {
		rem := 1.0
		for k := range i {
			b := p.beta(d, k)
			z := 2*variate.Beta(r, b, b) - 1
			l[i*d+k] = z * math.Sqrt(rem)
			rem -= l[i*d+k] * l[i*d+k]
		}
		l[i*d+i] = math.Sqrt(math.Max(rem, 0))
	}
	llt(l, d, omega)
	for j := range d {
		omega[j*d+j] = 1
	}
	return nil
}

// choleskyInto is a small Cholesky factorisation for d ≤ maxCovDim.
func choleskyInto(a []float64, d int, l []float64) error {
	clear(l)
	for i := range d {
		for j := 0; j <= i; j++ {
			s := a[i*d+j]
			for k := range j {
				s -= l[i*d+k] * l[j*d+k]
			}
			if i == j {
				if !(s > 0) {
					return ErrInvalid
				}
				l[i*d+i] = math.Sqrt(s)
			} else {
				l[i*d+j] = s / l[j*d+j]
			}
		}
	}
	return nil
}

// ScaledLKJ is the prior on a d×d covariance matrix that the LDP paper
// uses for the regression models (§8 and Fig. 8):
//
//	Ω ~ LKJ(Eta),  τ_j ~ N⁺(0, Scale²) independently,  Σ = diag(τ) Ω diag(τ),
//
// with Eta = 2 and Scale = 2.5 in the paper. The paper writes
// τ ~ N(0, 2.5·I); since Σ depends on τ only through |τ_j|, that is the
// half-normal here, with 2.5 read as the standard deviation (as in
// Stan's and NumPyro's normal(0, 2.5)).
//
// Its unconstrained coordinates (CovParams(d) of them) are log τ_1, …,
// log τ_d followed by atanh z_ik of the canonical partial correlations of
// Ω, row by row (i = 1, …, d−1; k < i). In them the log density, Jacobian
// included, is
//
//	Σ_j [log(2/(Scale√(2π))) + log τ_j − τ_j²/(2 Scale²)]
//	  + Σ_{i>k} [β_k log(1 − z_ik²) − log(2^(2β_k−1) B(β_k, β_k))].
type ScaledLKJ struct {
	// Eta is the LKJ shape, in (0, 1e100].
	Eta float64
	// Scale is the half-normal scale of the standard deviations τ, in
	// [1e-100, 1e100].
	Scale float64
}

func (p ScaledLKJ) check(d int) error {
	if err := (LKJ{Eta: p.Eta}).check(d); err != nil {
		return err
	}
	if !(p.Scale >= 1e-100 && p.Scale <= 1e100) {
		return fmt.Errorf("ldp: ScaledLKJ.Scale must be in [1e-100, 1e100], got %v: %w", p.Scale, ErrInvalid)
	}
	return nil
}

// Validate reports whether p is a usable prior for d×d matrices.
func (p ScaledLKJ) Validate(d int) error { return p.check(d) }

// NumParams returns CovParams(d) = d(d+1)/2.
func (p ScaledLKJ) NumParams(d int) int { return CovParams(d) }

// Cov writes Σ for the coordinates x (length CovParams(d)) into sigma
// (row-major d×d) and returns the log prior density of x, Jacobian
// included: −Inf for non-finite coordinates, NaN for wrong lengths or an
// invalid prior.
func (p ScaledLKJ) Cov(x []float64, d int, sigma []float64) float64 {
	if p.check(d) != nil || len(x) != CovParams(d) || len(sigma) != d*d {
		return math.NaN()
	}
	return p.covGrad(x, d, sigma, nil, nil)
}

// Sample draws Σ from the prior into sigma (row-major d×d).
func (p ScaledLKJ) Sample(r *rand.Rand, d int, sigma []float64) error {
	if err := p.check(d); err != nil {
		return err
	}
	if r == nil || len(sigma) != d*d {
		return fmt.Errorf("ldp: ScaledLKJ.Sample needs a non-nil *rand.Rand and sigma of length %d, got %d: %w", d*d, len(sigma), ErrInvalid)
	}
	if err := (LKJ{Eta: p.Eta}).Sample(r, d, sigma); err != nil {
		return err
	}
	var tb [maxCovDim]float64
	tau := tb[:d]
	for j := range tau {
		tau[j] = p.Scale * math.Abs(r.NormFloat64())
	}
	for j := range d {
		for k := range d {
			sigma[j*d+k] *= tau[j] * tau[k]
		}
	}
	return nil
}

// Params writes the unconstrained coordinates of a covariance matrix
// sigma (row-major d×d, symmetric positive definite) into x (length
// CovParams(d)): the inverse of Cov.
func (p ScaledLKJ) Params(sigma []float64, d int, x []float64) error {
	if err := p.check(d); err != nil {
		return err
	}
	if len(sigma) != d*d || len(x) != CovParams(d) {
		return fmt.Errorf("ldp: ScaledLKJ.Params needs sigma of length %d and x of length %d: %w", d*d, CovParams(d), ErrInvalid)
	}
	var lb, ob [maxCovDim * maxCovDim]float64
	var tb [maxCovDim]float64
	tau, om, l := tb[:d], ob[:d*d], lb[:d*d]
	for j := range d {
		if !(sigma[j*d+j] > 0) || math.IsInf(sigma[j*d+j], 1) {
			return fmt.Errorf("ldp: ScaledLKJ.Params needs positive finite variances, got sigma[%d][%d] = %v: %w", j, j, sigma[j*d+j], ErrInvalid)
		}
		tau[j] = math.Sqrt(sigma[j*d+j])
		x[j] = math.Log(tau[j])
	}
	for j := range d {
		for k := range d {
			om[j*d+k] = sigma[j*d+k] / (tau[j] * tau[k])
		}
	}
	if err := choleskyInto(om, d, l); err != nil {
		return fmt.Errorf("ldp: ScaledLKJ.Params needs a positive-definite sigma: %w", ErrInvalid)
	}
	q := d
	for i := 1; i < d; i++ {
		rem := 1.0
		for k := range i {
			z := l[i*d+k] / math.Sqrt(rem)
			rem -= l[i*d+k] * l[i*d+k]
			x[q] = math.Atanh(math.Max(-1+1e-16, math.Min(1-1e-16, z)))
			q++
		}
	}
	return nil
}

// logSech2 returns log(1 − tanh²y) = log sech²y, stably for large |y|.
func logSech2(y float64) float64 {
	a := math.Abs(y)
	return 2 * (math.Ln2 - a - math.Log1p(math.Exp(-2*a)))
}

// covGrad writes Σ for coordinates x into sigma and returns the log prior
// of x. When gSigma is non-nil it holds the symmetric adjoint G of Σ
// (dℓ = Σ_jk G_jk dΣ_jk) and the gradient of ℓ(Σ(x)) + log prior is written
// into grad (length CovParams(d)). Allocates nothing.
func (p ScaledLKJ) covGrad(x []float64, d int, sigma, gSigma, grad []float64) float64 {
	for _, v := range x {
		if !finite(v) {
			return math.Inf(-1)
		}
	}
	var lb, lbar [maxCovDim * maxCovDim]float64
	var tb, rb, rbar [maxCovDim]float64
	l, tau := lb[:d*d], tb[:d]
	s2 := p.Scale * p.Scale
	lp := 0.0
	for j := range d {
		tau[j] = math.Exp(x[j])
		if !(tau[j] > 0) || math.IsInf(tau[j], 1) {
			return math.Inf(-1)
		}
		lp += math.Log(2/(p.Scale*math.Sqrt(2*math.Pi))) + x[j] - 0.5*tau[j]*tau[j]/s2
	}
	// Cholesky factor of Ω from the partial correlations, row by row.
	lkj := LKJ{Eta: p.Eta}
	clear(l)
	l[0] = 1
	q := d
	for i := 1; i < d; i++ {
		rem := 1.0
		for k := range i {
			y := x[q+k]
			z := math.Tanh(y)
			l[i*d+k] = z * math.Sqrt(rem)
			rem -= l[i*d+k] * l[i*d+k]
			b := lkj.beta(d, k)
			lp += b*logSech2(y) - ((2*b-1)*math.Ln2 + special.LogBeta(b, b))
		}
		l[i*d+i] = math.Sqrt(math.Max(rem, 0))
		q += i
	}
	// Σ = diag(τ) L Lᵀ diag(τ).
	for j := range d {
		for k := 0; k <= j; k++ {
			s := 0.0
			for t := 0; t <= k; t++ {
				s += l[j*d+t] * l[k*d+t]
			}
			if j == k {
				s = 1
			}
			sigma[j*d+k] = tau[j] * tau[k] * s
			sigma[k*d+j] = sigma[j*d+k]
		}
		if math.IsInf(sigma[j*d+j], 1) {
			return math.Inf(-1) // τ_j² overflows
		}
	}
	if gSigma == nil {
		return lp
	}
	// log τ_j: Σ_jk = τ_j τ_k Ω_jk gives ∂ℓ/∂log τ_j = 2 Σ_k G_jk Σ_jk.
	for j := range d {
		g := 1 - tau[j]*tau[j]/s2
		for k := range d {
			g += 2 * gSigma[j*d+k] * sigma[j*d+k]
		}
		grad[j] = g
	}
	// Ω̄ = G ∘ ττᵀ (the diagonal of Ω is fixed at 1); L̄ = 2 Ω̄ L.
	lb2 := lbar[:d*d]
	for i := range d {
		for k := 0; k <= i; k++ {
			s := 0.0
			for j := range d {
				if j == i {
					continue
				}
				s += gSigma[i*d+j] * tau[i] * tau[j] * l[j*d+k]
			}
			lb2[i*d+k] = 2 * s
		}
	}
	// Reverse through each row's construction.
	rem, remBar := rb[:d], rbar[:d]
	q = d
	for i := 1; i < d; i++ {
		r := 1.0
		for k := range i {
			rem[k] = r
			r -= l[i*d+k] * l[i*d+k]
		}
		rb := 0.0 // adjoint of the running remainder
		if l[i*d+i] > 0 {
			rb = lb2[i*d+i] / (2 * l[i*d+i])
		}
		for k := i - 1; k >= 0; k-- {
			// rem_{k+1} = rem_k − L_ik²;  L_ik = z_ik √rem_k.
			lik := lb2[i*d+k] - 2*l[i*d+k]*rb
			y := x[q+k]
			z := math.Tanh(y)
			sr := math.Sqrt(rem[k])
			zbar := lik * sr
			remBar[k] = rb
			if sr > 0 {
				remBar[k] += lik * z / (2 * sr)
			}
			rb = remBar[k]
			grad[q+k] = zbar*(1-z*z) - 2*lkj.beta(d, k)*z
		}
		q += i
	}
	return lp
}
