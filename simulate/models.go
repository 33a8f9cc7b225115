package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/linalg"
)

// checkSimplex validates a probability vector of length k.
func checkSimplex(name string, theta []float64, k int) error {
	if len(theta) != k {
		return fmt.Errorf("%w: %s θ must have length %d, got %d", ErrInvalidTheta, name, k, len(theta))
	}
	s := 0.0
	for i, v := range theta {
		if !finite(v) || v < 0 {
			return fmt.Errorf("%w: %s θ[%d] must be finite and >= 0, got %v", ErrInvalidTheta, name, i, v)
		}
		s += v
	}
	if math.Abs(s-1) > SimplexTol {
		return fmt.Errorf("%w: %s θ must sum to 1, sums to %v", ErrInvalidTheta, name, s)
	}
	return nil
}

func checkFinite(name string, theta []float64, k int) error {
	if len(theta) != k {
		return fmt.Errorf("%w: %s θ must have length %d, got %d", ErrInvalidTheta, name, k, len(theta))
	}
	for i, v := range theta {
		if !finite(v) {
			return fmt.Errorf("%w: %s θ[%d] must be finite, got %v", ErrInvalidTheta, name, i, v)
		}
	}
	return nil
}

// UniformMixture is the ABCDP toy model (ABCDP paper eq. 10): a record
// y ~ Σ_i θ_i Uniform[i − 1, i] for i = 1, …, k, with θ on the simplex
// (prior Dirichlet(1, …, 1), see UniformMixturePrior). As a RecordModel its
// record and contribution are y itself, so NewDataset(m, N) simulates the
// N-point data sets that ABCDP compares with MMD.
type UniformMixture struct{ k int }

// NewUniformMixture returns the mixture of k ≥ 2 unit uniforms (the paper
// uses k = 5).
func NewUniformMixture(k int) (*UniformMixture, error) {
	if k < 2 {
		return nil, fmt.Errorf("simulate: uniform mixture needs k >= 2 components, got %d: %w", k, ErrInvalid)
	}
	return &UniformMixture{k}, nil
}

// UniformMixturePrior returns the paper's Dirichlet(1, …, 1) prior on k
// weights.
func UniformMixturePrior(k int) (*Dirichlet, error) {
	a := make([]float64, k)
	for i := range a {
		a[i] = 1
	}
	return NewDirichlet(a)
}

// UniformMixturePaperTheta returns the ABCDP paper's θ* =
// (0.25, 0.04, 0.33, 0.04, 0.34).
func UniformMixturePaperTheta() []float64 { return []float64{0.25, 0.04, 0.33, 0.04, 0.34} }

// ParamDim is k.
func (m *UniformMixture) ParamDim() int { return m.k }

// RecordDim is 1.
func (m *UniformMixture) RecordDim() int { return 1 }

// ContribDim is 1.
func (m *UniformMixture) ContribDim() int { return 1 }

// CheckParam checks that θ is a probability vector of length k.
func (m *UniformMixture) CheckParam(theta []float64) error {
	if !m.valid() {
		return errUnbuilt("UniformMixture")
	}
	return checkSimplex("uniform mixture", theta, m.k)
}

// SampleRecord draws the component i with probability θ_i and y = i − 1 + U.
func (m *UniformMixture) SampleRecord(r *rand.Rand, theta, rec []float64) {
	i := categorical(r, theta)
	rec[0] = float64(i) + r.Float64()
}

// Contribution copies the record.
func (m *UniformMixture) Contribution(rec, dst []float64) { dst[0] = rec[0] }

// RecordLogLik is log θ_{⌈y⌉}; −Inf outside [0, k].
func (m *UniformMixture) RecordLogLik(theta, rec []float64) float64 {
	y := rec[0]
	if !(y >= 0 && y <= float64(m.k)) {
		return math.Inf(-1)
	}
	i := int(y)
	if i == m.k {
		i--
	}
	return math.Log(theta[i])
}

// CubicPolynomial is the ABCDP COVID-19 model (ABCDP paper eq. 11):
// y(t) = a3 + a2 t + a1 t² + a0 t³ at fixed times, θ = (a0, a1, a2, a3)
// with prior a_i ~ N(0, 1) (CubicPolynomialPrior). The paper's model is
// deterministic; NoiseSD > 0 adds independent N(0, NoiseSD²) errors.
type CubicPolynomial struct {
	times   []float64
	noiseSD float64
}

// NewCubicPolynomial returns the model at the given finite times (at least
// one) with observation noise sd noiseSD ≥ 0.
func NewCubicPolynomial(times []float64, noiseSD float64) (*CubicPolynomial, error) {
	if len(times) == 0 {
		return nil, fmt.Errorf("simulate: cubic polynomial needs at least one time: %w", ErrInvalid)
	}
	for i, t := range times {
		if !finite(t) {
			return nil, fmt.Errorf("simulate: cubic polynomial time %d must be finite, got %v: %w", i, t, ErrInvalid)
		}
	}
	if !finite(noiseSD) || noiseSD < 0 {
		return nil, fmt.Errorf("simulate: cubic polynomial noiseSD must be finite and >= 0, got %v: %w", noiseSD, ErrInvalid)
	}
	return &CubicPolynomial{append([]float64(nil), times...), noiseSD}, nil
}

// CubicPolynomialPrior returns the paper's N(0, I_4) prior.
func CubicPolynomialPrior() *MVNormal {
	p, err := NewDiagNormal(make([]float64, 4), []float64{1, 1, 1, 1})
	if err != nil {
		panic(err)
	}
	return p
}

// StatDim is the number of times.
func (m *CubicPolynomial) StatDim() int { return len(m.times) }

// Simulate writes y(t_j) (plus noise) for θ = (a0, a1, a2, a3).
func (m *CubicPolynomial) Simulate(r *rand.Rand, theta, dst []float64) error {
	if !m.valid() {
		return errUnbuilt("CubicPolynomial")
	}
	if m.noiseSD > 0 {
		if err := checkRand(r); err != nil {
			return err
		}
	}
	if err := checkFinite("cubic polynomial", theta, 4); err != nil {
		return err
	}
	if len(dst) != len(m.times) {
		return fmt.Errorf("simulate: cubic polynomial dst must have length %d, got %d: %w", len(m.times), len(dst), ErrInvalid)
	}
	a0, a1, a2, a3 := theta[0], theta[1], theta[2], theta[3]
	for j, t := range m.times {
		dst[j] = a3 + t*(a2+t*(a1+t*a0))
		if m.noiseSD > 0 {
			dst[j] += m.noiseSD * r.NormFloat64()
		}
	}
	return nil
}

// ClippedGaussian is the LDP paper's one-dimensional Gaussian data model
// (§3.2.1, Supp. 10.1): x ~ N(μ, σ²) clipped to [A, B] (values outside are
// mapped to the nearer bound before privatisation), θ = (μ, σ), σ > 0.
type ClippedGaussian struct{ a, b float64 }

// NewClippedGaussian returns the model with clipping bounds a < b.
func NewClippedGaussian(a, b float64) (*ClippedGaussian, error) {
	if !finite(a) || !finite(b) || !(a < b) {
		return nil, fmt.Errorf("simulate: clipped Gaussian bounds must be finite with a < b, got [%v, %v]: %w", a, b, ErrInvalid)
	}
	return &ClippedGaussian{a, b}, nil
}

// Bounds returns the clipping interval.
func (m *ClippedGaussian) Bounds() (a, b float64) { return m.a, m.b }

// ParamDim is 2.
func (m *ClippedGaussian) ParamDim() int { return 2 }

// RecordDim is 1.
func (m *ClippedGaussian) RecordDim() int { return 1 }

// ContribDim is 1.
func (m *ClippedGaussian) ContribDim() int { return 1 }

// CheckParam checks θ = (μ, σ) finite with σ > 0.
func (m *ClippedGaussian) CheckParam(theta []float64) error {
	if !m.valid() {
		return errUnbuilt("ClippedGaussian")
	}
	if err := checkFinite("clipped Gaussian", theta, 2); err != nil {
		return err
	}
	if theta[1] <= 0 {
		return fmt.Errorf("%w: clipped Gaussian σ must be > 0, got %v", ErrInvalidTheta, theta[1])
	}
	return nil
}

// SampleRecord draws the clipped value.
func (m *ClippedGaussian) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = math.Min(m.b, math.Max(m.a, theta[0]+theta[1]*r.NormFloat64()))
}

// Contribution copies the record.
func (m *ClippedGaussian) Contribution(rec, dst []float64) { dst[0] = rec[0] }

// RecordLogLik is the log of the rectified density (LDP paper eq. 6): log
// Φ((a−μ)/σ) at a, log(1 − Φ((b−μ)/σ)) at b (point masses), the normal
// log density inside, −Inf outside [a, b].
func (m *ClippedGaussian) RecordLogLik(theta, rec []float64) float64 {
	x, mu, s := rec[0], theta[0], theta[1]
	switch {
	case x < m.a || x > m.b || math.IsNaN(x):
		return math.Inf(-1)
	case x == m.a:
		return math.Log(0.5 * math.Erfc(-(m.a-mu)/(s*math.Sqrt2)))
	case x == m.b:
		return math.Log(0.5 * math.Erfc((m.b-mu)/(s*math.Sqrt2)))
	}
	z := (x - mu) / s
	return -0.5*z*z - math.Log(s) - logSqrt2Pi
}

// ClippedExponential is the LDP paper's exponential data model (Supp.
// 10.2): x ~ Exp(rate λ) clipped to [0, B], θ = (λ), λ > 0.
type ClippedExponential struct{ b float64 }

// NewClippedExponential returns the model with clipping bound b > 0.
func NewClippedExponential(b float64) (*ClippedExponential, error) {
	if !finite(b) || b <= 0 {
		return nil, fmt.Errorf("simulate: clipped exponential bound must be finite and > 0, got %v: %w", b, ErrInvalid)
	}
	return &ClippedExponential{b}, nil
}

// Bound returns B.
func (m *ClippedExponential) Bound() float64 { return m.b }

// ParamDim is 1.
func (m *ClippedExponential) ParamDim() int { return 1 }

// RecordDim is 1.
func (m *ClippedExponential) RecordDim() int { return 1 }

// ContribDim is 1.
func (m *ClippedExponential) ContribDim() int { return 1 }

// CheckParam checks λ finite and > 0.
func (m *ClippedExponential) CheckParam(theta []float64) error {
	if !m.valid() {
		return errUnbuilt("ClippedExponential")
	}
	if err := checkFinite("clipped exponential", theta, 1); err != nil {
		return err
	}
	if theta[0] <= 0 {
		return fmt.Errorf("%w: clipped exponential rate must be > 0, got %v", ErrInvalidTheta, theta[0])
	}
	return nil
}

// SampleRecord draws min(Exp(λ), B).
func (m *ClippedExponential) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = math.Min(m.b, r.ExpFloat64()/theta[0])
}

// Contribution copies the record.
func (m *ClippedExponential) Contribution(rec, dst []float64) { dst[0] = rec[0] }

// RecordLogLik is log λ − λx on [0, B) and −λB (the point mass) at B.
func (m *ClippedExponential) RecordLogLik(theta, rec []float64) float64 {
	x, l := rec[0], theta[0]
	switch {
	case !(x >= 0 && x <= m.b):
		return math.Inf(-1)
	case x == m.b:
		return -l * m.b
	}
	return math.Log(l) - l*x
}

// Histogram is the LDP paper's histogram data model (§3.2.2): a record
// is an item x ∈ {0, …, d−1} (stored as float64) with P(x = k) = θ_k, the
// input of optimal unary encoding. Its contribution is the one-hot vector,
// so MeanStat releases the normalised frequencies.
type Histogram struct{ d int }

// NewHistogram returns the model over d ≥ 2 items.
func NewHistogram(d int) (*Histogram, error) {
	if d < 2 {
		return nil, fmt.Errorf("simulate: categorical needs d >= 2 items, got %d: %w", d, ErrInvalid)
	}
	return &Histogram{d}, nil
}

// ParamDim is d.
func (m *Histogram) ParamDim() int { return m.d }

// RecordDim is 1.
func (m *Histogram) RecordDim() int { return 1 }

// ContribDim is d.
func (m *Histogram) ContribDim() int { return m.d }

// CheckParam checks that θ is a probability vector.
func (m *Histogram) CheckParam(theta []float64) error {
	if !m.valid() {
		return errUnbuilt("Histogram")
	}
	return checkSimplex("categorical", theta, m.d)
}

// SampleRecord draws one item.
func (m *Histogram) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = float64(categorical(r, theta))
}

// Contribution writes the one-hot encoding of the item.
func (m *Histogram) Contribution(rec, dst []float64) {
	clear(dst)
	dst[int(rec[0])] = 1
}

// RecordLogLik is log θ_x; −Inf for an invalid code.
func (m *Histogram) RecordLogLik(theta, rec []float64) float64 {
	k := int(rec[0])
	if rec[0] != float64(k) || k < 0 || k >= m.d {
		return math.Inf(-1)
	}
	return math.Log(theta[k])
}

// RegressionInputs is the LDP paper's data model for linear and logistic
// regression with perturbed inputs (§3.2.3, Supp. 12): x ~ N(0, Σ) in R^d
// and either y ~ N(θᵀx, σ²) (linear) or y ~ Bernoulli(1/(1 + e^{−θᵀx}))
// (logistic, y ∈ {0, 1}); θ ∈ R^d. A record is (x, y).
type RegressionInputs struct {
	d        int
	chol     []float64
	logDet   float64
	logistic bool
	sigma    float64
}

// NewLinearInputs returns the linear-regression input model with
// covariance cov (row-major d×d, nil for I_d when d is given by dim) and
// noise variance sigma2 > 0.
func NewLinearInputs(dim int, cov []float64, sigma2 float64) (*RegressionInputs, error) {
	if !finite(sigma2) || sigma2 <= 0 {
		return nil, fmt.Errorf("simulate: linear inputs sigma2 must be finite and > 0, got %v: %w", sigma2, ErrInvalid)
	}
	m, err := newRegressionInputs(dim, cov)
	if err != nil {
		return nil, err
	}
	m.sigma = math.Sqrt(sigma2)
	return m, nil
}

// NewLogisticInputs returns the logistic-regression input model.
func NewLogisticInputs(dim int, cov []float64) (*RegressionInputs, error) {
	m, err := newRegressionInputs(dim, cov)
	if err != nil {
		return nil, err
	}
	m.logistic = true
	return m, nil
}

func newRegressionInputs(d int, cov []float64) (*RegressionInputs, error) {
	if d < 1 {
		return nil, fmt.Errorf("simulate: regression inputs need dim >= 1, got %d: %w", d, ErrInvalid)
	}
	if cov == nil {
		cov = make([]float64, d*d)
		for i := range d {
			cov[i*d+i] = 1
		}
	}
	if len(cov) != d*d {
		return nil, fmt.Errorf("simulate: regression inputs cov must have length %d, got %d: %w", d*d, len(cov), ErrInvalid)
	}
	for i := range d {
		for j := range d {
			if !finite(cov[i*d+j]) || cov[i*d+j] != cov[j*d+i] {
				return nil, fmt.Errorf("simulate: regression inputs cov must be finite and symmetric (entry %d,%d): %w", i, j, ErrInvalid)
			}
		}
	}
	l := make([]float64, d*d)
	if err := linalg.Cholesky(cov, d, l); err != nil {
		return nil, fmt.Errorf("simulate: regression inputs cov: %v: %w", err, ErrInvalid)
	}
	ld := 0.0
	for i := range d {
		ld += 2 * math.Log(l[i*d+i])
	}
	return &RegressionInputs{d: d, chol: l, logDet: ld}, nil
}

// Logistic reports whether y is binary (logistic regression).
func (m *RegressionInputs) Logistic() bool { return m.logistic }

// ParamDim is d.
func (m *RegressionInputs) ParamDim() int { return m.d }

// RecordDim is d + 1.
func (m *RegressionInputs) RecordDim() int { return m.d + 1 }

// ContribDim is d + 1 (the record itself).
func (m *RegressionInputs) ContribDim() int { return m.d + 1 }

// CheckParam checks θ ∈ R^d finite.
func (m *RegressionInputs) CheckParam(theta []float64) error {
	if !m.valid() {
		return errUnbuilt("RegressionInputs")
	}
	return checkFinite("regression inputs", theta, m.d)
}

// SampleRecord draws x ~ N(0, Σ) and then y.
func (m *RegressionInputs) SampleRecord(r *rand.Rand, theta, rec []float64) {
	d := m.d
	for i := range d {
		rec[i] = r.NormFloat64()
	}
	eta := 0.0
	for i := d - 1; i >= 0; i-- {
		s := 0.0
		for k := 0; k <= i; k++ {
			s += m.chol[i*d+k] * rec[k]
		}
		rec[i] = s
		eta += theta[i] * s
	}
	if m.logistic {
		y := 0.0
		if r.Float64() < 1/(1+math.Exp(-eta)) {
			y = 1
		}
		rec[d] = y
		return
	}
	rec[d] = eta + m.sigma*r.NormFloat64()
}

// Contribution copies the record.
func (m *RegressionInputs) Contribution(rec, dst []float64) { copy(dst, rec[:m.d+1]) }

// RecordLogLik is log N(x; 0, Σ) + log p(y | x, θ).
func (m *RegressionInputs) RecordLogLik(theta, rec []float64) float64 {
	d := m.d
	var buf [16]float64
	var z []float64
	if d <= len(buf) {
		z = buf[:d]
	} else {
		z = make([]float64, d)
	}
	q, eta := 0.0, 0.0
	for i := range d {
		s := rec[i]
		for k := range i {
			s -= m.chol[i*d+k] * z[k]
		}
		z[i] = s / m.chol[i*d+i]
		q += z[i] * z[i]
		eta += theta[i] * rec[i]
	}
	ll := -0.5*q - 0.5*m.logDet - float64(d)*logSqrt2Pi
	y := rec[d]
	if m.logistic {
		switch y {
		case 1:
			return ll - log1pExp(-eta)
		case 0:
			return ll - log1pExp(eta)
		}
		return math.Inf(-1)
	}
	e := (y - eta) / m.sigma
	return ll - 0.5*e*e - math.Log(m.sigma) - logSqrt2Pi
}

// log1pExp is log(1 + e^x) without overflow.
func log1pExp(x float64) float64 {
	if x > 35 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// valid reports whether a model was built by its constructor.
func (m *UniformMixture) valid() bool { return m != nil && m.k >= 2 }

func (m *CubicPolynomial) valid() bool { return m != nil && len(m.times) > 0 }

func (m *ClippedGaussian) valid() bool { return m != nil && m.a < m.b }

func (m *ClippedExponential) valid() bool { return m != nil && m.b > 0 }

func (m *Histogram) valid() bool { return m != nil && m.d >= 2 }

func (m *RegressionInputs) valid() bool { return m != nil && m.d >= 1 && len(m.chol) == m.d*m.d }
