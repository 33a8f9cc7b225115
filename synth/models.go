package synth

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/mechanism"
)

// BetaBernoulli is the binary-data model x_i ~ Bernoulli(p), p ~ Beta(A,
// B) (modips §5, Fig. 5). The sufficient statistic is n1 = Σx_i with
// sensitivity 1 and range [0, n]; the posterior is Beta(n1 + A, n − n1 +
// B). (The paper prints beta(n0 + α, n1 + β), with n0 and n1 swapped; this
// is the correct conjugate posterior.) Records are 0 or 1.
type BetaBernoulli struct {
	A, B float64
}

// NewBetaBernoulli returns a copy of m after m.Validate: the prior
// Beta(m.A, m.B).
func NewBetaBernoulli(m BetaBernoulli) (*BetaBernoulli, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// RecordDim implements Conjugate.
func (*BetaBernoulli) RecordDim() int { return 1 }

// ParamDim implements Conjugate.
func (*BetaBernoulli) ParamDim() int { return 1 }

// Statistics implements Conjugate.
func (*BetaBernoulli) Statistics(n int) ([]Statistic, error) {
	if n < 1 {
		return nil, invalidf("n must be >= 1, got %d", n)
	}
	return []Statistic{{Sens: 1, Lo: 0, Hi: float64(n)}}, nil
}

// Stats implements Conjugate.
func (*BetaBernoulli) Stats(x, s []float64) error {
	n1 := 0.0
	for i, v := range x {
		if v != 0 && v != 1 {
			return invalidf("binary record %d is %v, want 0 or 1", i, v)
		}
		n1 += v
	}
	s[0] = n1
	return nil
}

// Posterior implements Conjugate: p ~ Beta(s + A, n − s + B).
func (m *BetaBernoulli) Posterior(r *rand.Rand, s []float64, n int, theta []float64) error {
	theta[0] = variate.Beta(r, s[0]+m.A, float64(n)-s[0]+m.B)
	if math.IsNaN(theta[0]) {
		return fmt.Errorf("synth: beta posterior (%v, %v) invalid", s[0]+m.A, float64(n)-s[0]+m.B)
	}
	return nil
}

// Synthesize implements Conjugate: Bernoulli(θ[0]) records.
func (*BetaBernoulli) Synthesize(r *rand.Rand, theta, dst []float64) error {
	p := theta[0]
	if !(p >= 0 && p <= 1) {
		return invalidf("bernoulli probability %v", p)
	}
	for i := range dst {
		if r.Float64() < p {
			dst[i] = 1
		} else {
			dst[i] = 0
		}
	}
	return nil
}

// GaussianMean is the model x_i ~ N(μ, σ²) with σ known and a flat prior
// on μ, with data bounded to [C0, C1] (modips §5.1). The statistic is the
// sample mean, sensitivity (C1 − C0)/n, range [C0, C1]; the posterior is
// N(x̄, σ²/n). Synthetic records are bounded to [C0, C1] by RecordBounding.
type GaussianMean struct {
	Sigma, C0, C1  float64
	RecordBounding Bounding
}

// NewGaussianMean returns a copy of m after m.Validate (σ > 0 and
// C0 < C1).
func NewGaussianMean(m GaussianMean) (*GaussianMean, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkBounds validates public bounds: finite, c0 < c1, with a width
// c1 − c0 that is finite and not subnormal (sensitivities are computed
// from it).
func checkBounds(c0, c1 float64) error {
	if !(c0 < c1) || math.IsInf(c0, 0) || math.IsInf(c1, 0) {
		return invalidf("bounds must be finite with c0 < c1, got [%v, %v]", c0, c1)
	}
	if w := c1 - c0; math.IsInf(w, 0) || w < minNormal {
		return invalidf("bounds [%v, %v] have width %v; it must be finite and at least %v", c0, c1, w, minNormal)
	}
	return nil
}

// minNormal is the smallest normal float64; positive parameters below it
// (subnormal) are refused, since quantities derived from them lose all
// precision or overflow.
const minNormal = 0x1p-1022

// checkPos validates a positive parameter: finite and at least minNormal.
func checkPos(name string, v float64) error {
	if !(v >= minNormal) || math.IsInf(v, 1) {
		return invalidf("%s must be finite and >= %v (positive, not subnormal), got %v", name, minNormal, v)
	}
	return nil
}

// validator is implemented by the conjugate models: Validate checks the
// fields, so that zero values and hand-built structs are refused.
type validator interface{ Validate() error }

// Validate reports whether the fields describe a usable model, with an
// error wrapping ErrInvalid that names the offending field.
func (m *BetaBernoulli) Validate() error {
	if err := checkPos("beta prior A", m.A); err != nil {
		return err
	}
	return checkPos("beta prior B", m.B)
}

// Validate reports whether the fields describe a usable model, with an
// error wrapping ErrInvalid that names the offending field.
func (g *GaussianMean) Validate() error {
	if err := checkPos("sigma", g.Sigma); err != nil {
		return err
	}
	if err := checkMode(g.RecordBounding); err != nil {
		return err
	}
	return checkBounds(g.C0, g.C1)
}

// checkMode validates a bounding mode.
func checkMode(b Bounding) error {
	if b != BIT && b != Truncation {
		return invalidf("unknown bounding %v", b)
	}
	return nil
}

// Validate reports whether the fields describe a usable model, with an
// error wrapping ErrInvalid that names the offending field.
func (g *GaussianNIG) Validate() error {
	if err := checkMode(g.RecordBounding); err != nil {
		return err
	}
	if err := checkBounds(g.C0, g.C1); err != nil {
		return err
	}
	if w := g.C1 - g.C0; math.IsInf(w*w, 0) {
		return invalidf("bounds width %v squared overflows", w)
	}
	return nil
}

// Validate reports whether the fields describe a usable model, with an
// error wrapping ErrInvalid that names the offending field.
func (p *PoissonGamma) Validate() error {
	if err := checkPos("gamma prior A", p.A); err != nil {
		return err
	}
	if err := checkPos("gamma prior B", p.B); err != nil {
		return err
	}
	if err := checkPos("count bound C1", p.C1); err != nil {
		return err
	}
	if p.C1 > 1<<40 {
		return invalidf("count bound C1 must be <= 2^40, got %v", p.C1)
	}
	return nil
}

// Validate reports whether the fields describe a usable model, with an
// error wrapping ErrInvalid that names the offending field.
func (m *MultinomialDirichlet) Validate() error {
	if len(m.Alpha) < 2 || len(m.Alpha) > 1<<20 {
		return invalidf("need between 2 and 2^20 categories, got %d", len(m.Alpha))
	}
	for i, a := range m.Alpha {
		if err := checkPos(fmt.Sprintf("alpha[%d]", i), a); err != nil {
			return err
		}
	}
	return nil
}

// RecordDim implements Conjugate.
func (*GaussianMean) RecordDim() int { return 1 }

// ParamDim implements Conjugate.
func (*GaussianMean) ParamDim() int { return 1 }

// Statistics implements Conjugate.
func (g *GaussianMean) Statistics(n int) ([]Statistic, error) {
	if n < 1 {
		return nil, invalidf("n must be >= 1, got %d", n)
	}
	if err := checkBounds(g.C0, g.C1); err != nil {
		return nil, err
	}
	return []Statistic{{Sens: (g.C1 - g.C0) / float64(n), Lo: g.C0, Hi: g.C1}}, nil
}

// Stats implements Conjugate: the mean of the records clamped to [C0, C1].
func (g *GaussianMean) Stats(x, s []float64) error {
	sum := 0.0
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("record %d is %v", i, v)
		}
		sum += mechanism.Clamp(v, g.C0, g.C1)
	}
	s[0] = sum / float64(len(x))
	return nil
}

// Posterior implements Conjugate: μ ~ N(s, σ²/n).
func (g *GaussianMean) Posterior(r *rand.Rand, s []float64, n int, theta []float64) error {
	theta[0] = s[0] + g.Sigma/math.Sqrt(float64(n))*variate.Normal(r)
	return nil
}

// Synthesize implements Conjugate: N(μ, σ²) records bounded to [C0, C1].
func (g *GaussianMean) Synthesize(r *rand.Rand, theta, dst []float64) error {
	return boundedNormals(r, theta[0], g.Sigma, g.C0, g.C1, g.RecordBounding, dst)
}

func boundedNormals(r *rand.Rand, mu, sigma, lo, hi float64, b Bounding, dst []float64) error {
	if math.IsNaN(mu) || !(sigma >= 0) {
		return invalidf("normal parameters (%v, %v)", mu, sigma)
	}
	for i := range dst {
		v := mu + sigma*variate.Normal(r)
		if b == Truncation {
			for k := 0; v < lo || v > hi; k++ {
				if k == 1<<20 {
					return fmt.Errorf("synth: truncated normal N(%v, %v²) on [%v, %v] did not terminate", mu, sigma, lo, hi)
				}
				v = mu + sigma*variate.Normal(r)
			}
		} else {
			v = mechanism.Clamp(v, lo, hi)
		}
		dst[i] = v
	}
	return nil
}

// GaussianNIG is the model x_i ~ N(μ, σ²) with prior f(μ, σ²) ∝ σ⁻² and
// data bounded to [C0, C1] (modips §5.3). The statistics are the sample
// mean and the sample variance s² (denominator n − 1), with ℓ1
// sensitivities (C1 − C0)/n and (C1 − C0)²/n and ranges [C0, C1] and [0,
// (C1 − C0)²/4]. The posterior is σ² ~ inverse-gamma((n − 1)/2, (n −
// 1)s²/2), μ | σ² ~ N(x̄, σ²/n). (The paper prints N(x̄, σ²/2); σ²/n is
// the correct conditional.) θ = (μ, σ²). A sanitized s² of 0 gives σ² = 0.
type GaussianNIG struct {
	C0, C1         float64
	RecordBounding Bounding
}

// NewGaussianNIG returns a copy of m after m.Validate (C0 < C1).
func NewGaussianNIG(m GaussianNIG) (*GaussianNIG, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// CommunalWeight returns the mean's share w = 1/(1 + C1 − C0) under which
// individualized allocation (w, 1 − w) equals communal sanitization.
func (g *GaussianNIG) CommunalWeight() float64 { return 1 / (1 + g.C1 - g.C0) }

// RecordDim implements Conjugate.
func (*GaussianNIG) RecordDim() int { return 1 }

// ParamDim implements Conjugate.
func (*GaussianNIG) ParamDim() int { return 2 }

// Statistics implements Conjugate.
func (g *GaussianNIG) Statistics(n int) ([]Statistic, error) {
	if n < 2 {
		return nil, invalidf("n must be >= 2, got %d", n)
	}
	if err := checkBounds(g.C0, g.C1); err != nil {
		return nil, err
	}
	w := g.C1 - g.C0
	return []Statistic{
		{Sens: w / float64(n), Lo: g.C0, Hi: g.C1},
		{Sens: w * w / float64(n), Lo: 0, Hi: w * w / 4},
	}, nil
}

// Stats implements Conjugate: (x̄, s²) of the clamped records.
func (g *GaussianNIG) Stats(x, s []float64) error {
	if len(x) < 2 {
		return invalidf("need at least 2 records, got %d", len(x))
	}
	sum := 0.0
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("record %d is %v", i, v)
		}
		sum += mechanism.Clamp(v, g.C0, g.C1)
	}
	mean := sum / float64(len(x))
	ss := 0.0
	for _, v := range x {
		d := mechanism.Clamp(v, g.C0, g.C1) - mean
		ss += d * d
	}
	s[0], s[1] = mean, ss/float64(len(x)-1)
	return nil
}

// Posterior implements Conjugate.
func (g *GaussianNIG) Posterior(r *rand.Rand, s []float64, n int, theta []float64) error {
	a := float64(n-1) / 2
	b := float64(n-1) * s[1] / 2
	sig2 := 0.0
	if b > 0 {
		sig2 = b / variate.Gamma(r, a, 1)
	}
	theta[0] = s[0] + math.Sqrt(sig2/float64(n))*variate.Normal(r)
	theta[1] = sig2
	return nil
}

// Synthesize implements Conjugate: N(μ, σ²) records bounded to [C0, C1].
func (g *GaussianNIG) Synthesize(r *rand.Rand, theta, dst []float64) error {
	return boundedNormals(r, theta[0], math.Sqrt(theta[1]), g.C0, g.C1, g.RecordBounding, dst)
}

// PoissonGamma is the count model x_i ~ Poisson(λ), λ ~ Gamma(A, rate B),
// with confidential counts bounded to [0, C1]. The statistic Σx_i has
// sensitivity C1 and range [0, n·C1]; the posterior is Gamma(A + Σx, rate
// B + n). Synthetic counts are not bounded.
type PoissonGamma struct {
	A, B, C1 float64
}

// NewPoissonGamma returns a copy of m after m.Validate (the prior and the
// count bound).
func NewPoissonGamma(m PoissonGamma) (*PoissonGamma, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// RecordDim implements Conjugate.
func (*PoissonGamma) RecordDim() int { return 1 }

// ParamDim implements Conjugate.
func (*PoissonGamma) ParamDim() int { return 1 }

// Statistics implements Conjugate.
func (p *PoissonGamma) Statistics(n int) ([]Statistic, error) {
	if n < 1 {
		return nil, invalidf("n must be >= 1, got %d", n)
	}
	return []Statistic{{Sens: p.C1, Lo: 0, Hi: float64(n) * p.C1}}, nil
}

// Stats implements Conjugate.
func (p *PoissonGamma) Stats(x, s []float64) error {
	sum := 0.0
	for i, v := range x {
		if v < 0 || v != math.Floor(v) || math.IsInf(v, 1) {
			return invalidf("count %d is %v, want a finite non-negative integer", i, v)
		}
		sum += math.Min(v, p.C1)
	}
	s[0] = sum
	return nil
}

// Posterior implements Conjugate.
func (p *PoissonGamma) Posterior(r *rand.Rand, s []float64, n int, theta []float64) error {
	theta[0] = variate.Gamma(r, p.A+s[0], 1/(p.B+float64(n)))
	return nil
}

// Synthesize implements Conjugate.
func (*PoissonGamma) Synthesize(r *rand.Rand, theta, dst []float64) error {
	if !(theta[0] >= 0) || math.IsInf(theta[0], 1) {
		return invalidf("poisson rate %v", theta[0])
	}
	for i := range dst {
		k := variate.Poisson(r, theta[0])
		if k < 0 {
			return invalidf("poisson rate %v", theta[0])
		}
		dst[i] = float64(k)
	}
	return nil
}

// MultinomialDirichlet is the categorical model: each record is a category
// index in {0, …, K−1}, probabilities p ~ Dirichlet(Alpha). The statistic
// is the vector of K counts (each of sensitivity 1, range [0, n]); with n
// public, replacing a record changes two counts, so the vector's ℓ1
// sensitivity is 2 (used by communal sanitization). The posterior is
// Dirichlet(Alpha + counts).
type MultinomialDirichlet struct {
	Alpha []float64
}

// NewMultinomialDirichlet validates alpha (K ≥ 2 positive entries).
func NewMultinomialDirichlet(alpha []float64) (*MultinomialDirichlet, error) {
	m := &MultinomialDirichlet{Alpha: append([]float64(nil), alpha...)}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// RecordDim implements Conjugate.
func (*MultinomialDirichlet) RecordDim() int { return 1 }

// ParamDim implements Conjugate.
func (m *MultinomialDirichlet) ParamDim() int { return len(m.Alpha) }

// L1Sensitivity implements JointSensitivity.
func (*MultinomialDirichlet) L1Sensitivity(int) float64 { return 2 }

// Statistics implements Conjugate.
func (m *MultinomialDirichlet) Statistics(n int) ([]Statistic, error) {
	if n < 1 {
		return nil, invalidf("n must be >= 1, got %d", n)
	}
	st := make([]Statistic, len(m.Alpha))
	for i := range st {
		st[i] = Statistic{Sens: 1, Lo: 0, Hi: float64(n)}
	}
	return st, nil
}

// Stats implements Conjugate.
func (m *MultinomialDirichlet) Stats(x, s []float64) error {
	clear(s)
	for i, v := range x {
		k := int(v)
		if float64(k) != v || k < 0 || k >= len(m.Alpha) {
			return invalidf("record %d is %v, want a category in [0, %d)", i, v, len(m.Alpha))
		}
		s[k]++
	}
	return nil
}

// Posterior implements Conjugate.
func (m *MultinomialDirichlet) Posterior(r *rand.Rand, s []float64, n int, theta []float64) error {
	a := make([]float64, len(m.Alpha))
	for i := range a {
		a[i] = m.Alpha[i] + s[i]
	}
	variate.Dirichlet(r, a, theta)
	if math.IsNaN(theta[0]) {
		return fmt.Errorf("synth: dirichlet posterior %v invalid", a)
	}
	return nil
}

// Synthesize implements Conjugate: categorical records with
// probabilities θ.
func (m *MultinomialDirichlet) Synthesize(r *rand.Rand, theta, dst []float64) error {
	return categorical(r, theta, dst)
}

// categorical fills dst with category indices drawn with probabilities
// proportional to w (by binary search on the cumulative sums).
func categorical(r *rand.Rand, w, dst []float64) error {
	cum := make([]float64, len(w))
	t := 0.0
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 1) {
			return invalidf("category weight %d is %v", i, v)
		}
		t += v
		cum[i] = t
	}
	if !(t > 0) {
		return invalidf("category weights sum to %v", t)
	}
	for i := range dst {
		u := r.Float64() * t
		lo, hi := 0, len(cum)-1
		for lo < hi {
			mid := (lo + hi) / 2
			if cum[mid] > u {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		dst[i] = float64(lo)
	}
	return nil
}
