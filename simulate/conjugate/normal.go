package conjugate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/simulate"
)

// NormalNIG is the model of normal records x_i ~ N(μ, σ²) with the
// normal-inverse-gamma prior σ² ~ InvGamma(A0, scale B0),
// μ | σ² ~ N(M0, σ²/K0): θ = (μ, σ²). A record's contribution is
// (c, c²) with c = clamp(x, Lo, Hi), so the released statistic is the
// first two moments of the clamped records, of ℓ1 sensitivity
// L1Sensitivity. The θ-step
// draws from the conjugate posterior given the raw records: with x̄ and
// S = Σ(x_i − x̄)², K = K0 + n, M = (K0·M0 + n·x̄)/K, A = A0 + n/2 and
// B = B0 + S/2 + K0·n·(x̄ − M0)²/(2K), σ² ~ InvGamma(A, B) and
// μ | σ² ~ N(M, σ²/K) (the update NIG.Update of Prior()). Build it with
// NewNormalNIG. synth.GaussianNIG is the same record model for synthetic
// data under the improper reference prior ∝ σ⁻² instead of a proper NIG
// prior; the two share NIG's update and sampler.
type NormalNIG struct {
	cfg NormalNIGConfig
}

// NormalNIGConfig configures NewNormalNIG. The zero value is refused (the
// prior's A0, B0, K0 and the bounds must be set; M0 = 0 is a valid
// prior mean).
type NormalNIGConfig struct {
	// M0 is the prior mean of μ (finite).
	M0 float64
	// K0 is the prior's number of pseudo-observations for μ: μ | σ² ~
	// N(M0, σ²/K0) (finite, > 0).
	K0 float64
	// A0 and B0 are the shape and scale of the prior σ² ~ InvGamma(A0,
	// B0) (finite, > 0); the prior mean of σ² is B0/(A0 − 1) for A0 > 1.
	A0, B0 float64
	// Lo and Hi are the public bounds records are clamped to in the
	// released statistic (finite, Lo < Hi, Lo² and Hi² finite).
	Lo, Hi float64
}

// Validate reports whether c is usable, with an error wrapping
// simulate.ErrInvalid that names the offending field.
func (c NormalNIGConfig) Validate() error {
	if math.IsNaN(c.M0) || math.IsInf(c.M0, 0) {
		return fmt.Errorf("%w: NormalNIGConfig.M0 must be finite, got %v", simulate.ErrInvalid, c.M0)
	}
	for _, f := range [3]struct {
		name string
		v    float64
	}{{"NormalNIGConfig.K0", c.K0}, {"NormalNIGConfig.A0", c.A0}, {"NormalNIGConfig.B0", c.B0}} {
		if err := checkPos(f.name, f.v); err != nil {
			return err
		}
	}
	if !(c.Lo < c.Hi) || math.IsInf(c.Lo*c.Lo, 0) || math.IsInf(c.Hi*c.Hi, 0) || math.IsInf(c.Hi-c.Lo, 0) {
		return fmt.Errorf("%w: NormalNIGConfig.Lo, NormalNIGConfig.Hi: bounds must be finite with Lo < Hi and finite squares, got [%v, %v]", simulate.ErrInvalid, c.Lo, c.Hi)
	}
	return nil
}

// NewNormalNIG returns the model of cfg after cfg.Validate.
func NewNormalNIG(cfg NormalNIGConfig) (*NormalNIG, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &NormalNIG{cfg: cfg}, nil
}

// Config returns the configuration m was built with (the zero value for a
// model used without its constructor).
func (m *NormalNIG) Config() NormalNIGConfig {
	if m == nil {
		return NormalNIGConfig{}
	}
	return m.cfg
}

// Validate reports a model not built by its constructor, with an error
// wrapping simulate.ErrInvalid.
func (m *NormalNIG) Validate() error {
	if m == nil || m.cfg.Validate() != nil {
		return unbuilt("NormalNIG")
	}
	return nil
}

// Dim is 2, the length of θ = (μ, σ²) (0 without the constructor).
func (m *NormalNIG) Dim() int { return m.ParamDim() }

// Sample draws (μ, σ²) from the normal-inverse-gamma prior. As
// simulate.Prior states, it panics on a nil r or a short theta; a model
// used without its constructor writes nothing.
func (m *NormalNIG) Sample(r *rand.Rand, theta []float64) {
	if m.Validate() != nil {
		return
	}
	c := m.cfg
	s2 := c.B0 / variate.Gamma(r, c.A0, 1)
	theta[0] = c.M0 + math.Sqrt(s2/c.K0)*variate.Normal(r)
	theta[1] = s2
}

// LogDensity is the prior's log density of (μ, σ²): −Inf for σ² ≤ 0,
// NaN for a θ of another length, a NaN entry or a model used without its
// constructor.
func (m *NormalNIG) LogDensity(theta []float64) float64 {
	if m.Validate() != nil || len(theta) != 2 || math.IsNaN(theta[0]) || math.IsNaN(theta[1]) {
		return math.NaN()
	}
	mu, s2 := theta[0], theta[1]
	if !(s2 > 0) || math.IsInf(s2, 1) || math.IsInf(mu, 0) {
		return math.Inf(-1)
	}
	c := m.cfg
	// σ² ~ InvGamma(A0, B0): log density of 1/σ² ~ Gamma(A0, 1/B0) at
	// 1/σ² minus 2 log σ² (the Jacobian).
	lig := variate.GammaLogPdf(1/s2, c.A0, 1/c.B0) - 2*math.Log(s2)
	return lig + variate.NormalLogPdf(mu, c.M0, math.Sqrt(s2/c.K0))
}

// ParamDim is 2 (0 without the constructor).
func (m *NormalNIG) ParamDim() int {
	if m.Validate() != nil {
		return 0
	}
	return 2
}

// RecordDim is 1: a record is one real value.
func (m *NormalNIG) RecordDim() int {
	if m.Validate() != nil {
		return 0
	}
	return 1
}

// ContribDim is 2: the clamped value and its square.
func (m *NormalNIG) ContribDim() int { return m.ParamDim() }

// CheckParam checks that θ = (μ, σ²) with μ finite and σ² finite and
// > 0; errors wrap simulate.ErrInvalidTheta.
func (m *NormalNIG) CheckParam(theta []float64) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if len(theta) != 2 || math.IsNaN(theta[0]) || math.IsInf(theta[0], 0) || !(theta[1] > 0) || math.IsInf(theta[1], 1) {
		return fmt.Errorf("%w: NormalNIG θ must be (μ, σ²) with μ finite and σ² finite and > 0, got %v", simulate.ErrInvalidTheta, theta)
	}
	return nil
}

// SampleRecord draws x ~ N(μ, σ²).
func (m *NormalNIG) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = theta[0] + math.Sqrt(theta[1])*variate.Normal(r)
}

// Contribution writes (c, c²), c = clamp(x, Lo, Hi).
func (m *NormalNIG) Contribution(rec, dst []float64) {
	c := math.Max(m.cfg.Lo, math.Min(m.cfg.Hi, rec[0]))
	dst[0], dst[1] = c, c*c
}

// RecordLogLik is the normal log density of rec[0].
func (m *NormalNIG) RecordLogLik(theta, rec []float64) float64 {
	return variate.NormalLogPdf(rec[0], theta[0], math.Sqrt(theta[1]))
}

// L1Sensitivity returns the ℓ1 sensitivity of the statistic (mean of c,
// mean of c²) over n records when one record is replaced: the largest
// |c − c'| + |c² − c'²| = |c − c'|·(1 + |c + c'|) over c, c' in [Lo, Hi],
// divided by n. The maximum has one of c, c' at a bound (the gradient
// cannot vanish with both inside); with one at Hi (at Lo) the other
// maximises a function that is piecewise quadratic with a break at −Hi
// (−Lo) and one concave piece, peaking at −1/2 (+1/2), so the other lies
// at a bound, at a break or at ±1/2: those candidates are searched
// exactly.
func (m *NormalNIG) L1Sensitivity(n int) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if err := checkN(n); err != nil {
		return 0, err
	}
	lo, hi := m.cfg.Lo, m.cfg.Hi
	worst := 0.0
	for _, a := range [2]float64{lo, hi} {
		for _, b := range [6]float64{lo, hi, -0.5, 0.5, -lo, -hi} {
			if b < lo || b > hi {
				continue
			}
			worst = max(worst, math.Abs(a-b)*(1+math.Abs(a+b)))
		}
	}
	return worst / float64(n), nil
}

// SampleTheta draws (μ, σ²) from the conjugate posterior given the n raw
// records (mcmc.ThetaStep), as the type's documentation states: the
// posterior is Prior().Update of the records' mean and sum of squared
// deviations.
func (m *NormalNIG) SampleTheta(r *rand.Rand, records []float64, n int, theta []float64) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if err := checkStep("NormalNIG", r, records, n, 1, theta, 2); err != nil {
		return err
	}
	fn := float64(n)
	mean := 0.0
	for _, x := range records {
		mean += x
	}
	mean /= fn
	ss := 0.0
	for _, x := range records {
		d := x - mean
		ss += d * d
	}
	post, err := m.Prior().Update(n, mean, ss)
	if err != nil {
		return fmt.Errorf("%w: NormalNIG θ-step: the records' sums overflow", simulate.ErrInvalid)
	}
	return post.Sample(r, theta)
}

// Prior returns the model's prior as an NIG (the zero value for a model
// used without its constructor).
func (m *NormalNIG) Prior() NIG {
	c := m.Config()
	return NIG{M: c.M0, K: c.K0, A: c.A0, B: c.B0}
}

// NIG is a normal-inverse-gamma distribution of θ = (μ, σ²):
// σ² ~ InvGamma(A, scale B) and μ | σ² ~ N(M, σ²/K). It is the conjugate
// family of normal records: NormalNIG's prior and posteriors are NIGs,
// and so is the posterior of synth.GaussianNIG, whose reference prior
// f(μ, σ²) ∝ σ⁻² is the improper limit K = 0, A = −1/2, B = 0 of the
// family (an NIG that Validate refuses but Update accepts as a prior).
type NIG struct {
	// M is the mean of μ (finite).
	M float64
	// K scales the variance of μ given σ², σ²/K (finite, > 0).
	K float64
	// A is the shape of σ²'s inverse-gamma distribution (finite, > 0).
	A float64
	// B is the scale of σ²'s inverse-gamma distribution (finite, ≥ 0):
	// B = 0 is the degenerate limit σ² = 0.
	B float64
}

// Validate reports whether p is a proper distribution (the degenerate
// B = 0 included), with an error wrapping simulate.ErrInvalid that names
// the offending field.
func (p NIG) Validate() error {
	if f := p.fault(); f != "" {
		return fmt.Errorf("%w: %s", simulate.ErrInvalid, f)
	}
	return nil
}

// fault returns what makes p improper, naming the field, or "".
func (p NIG) fault() string {
	pos := func(v float64) bool { return v >= minNormal && !math.IsInf(v, 1) }
	switch {
	case math.IsNaN(p.M) || math.IsInf(p.M, 0):
		return fmt.Sprintf("NIG.M must be finite, got %v", p.M)
	case !pos(p.K):
		return fmt.Sprintf("NIG.K must be finite and > 0 (not subnormal), got %v", p.K)
	case !pos(p.A):
		return fmt.Sprintf("NIG.A must be finite and > 0 (not subnormal), got %v", p.A)
	case !(p.B >= 0) || math.IsInf(p.B, 1):
		return fmt.Sprintf("NIG.B must be finite and >= 0, got %v", p.B)
	}
	return ""
}

// Update returns the posterior of θ under the prior p given n normal
// records with mean mean and sum of squared deviations ss = Σ(x_i − x̄)²:
// K' = K + n, M' = (K·M + n·x̄)/K', A' = A + n/2 and
// B' = B + ss/2 + K·n·(x̄ − M)²/(2K') (with K = 0: M' = x̄ and
// B' = B + ss/2, whatever M). The prior may be
// improper (K ≥ 0, B ≥ 0 and A finite, all finite with M): the error,
// wrapping simulate.ErrInvalid, reports an invalid argument or a
// posterior that is not a proper NIG (Validate), as when n is too small
// for an improper prior or the sums overflow. n must be in [1, 2^40],
// mean finite and ss finite and ≥ 0.
func (p NIG) Update(n int, mean, ss float64) (NIG, error) {
	switch {
	case math.IsNaN(p.M) || math.IsInf(p.M, 0) || !(p.K >= 0) || math.IsInf(p.K, 1) ||
		math.IsNaN(p.A) || math.IsInf(p.A, 0) || !(p.B >= 0) || math.IsInf(p.B, 1):
		return NIG{}, fmt.Errorf("%w: NIG.Update: the prior %+v must have M and A finite, K and B finite and >= 0", simulate.ErrInvalid, p)
	case n < 1 || n > maxRecords:
		return NIG{}, fmt.Errorf("%w: NIG.Update: n must be in [1, 2^40], got %d", simulate.ErrInvalid, n)
	case math.IsNaN(mean) || math.IsInf(mean, 0):
		return NIG{}, fmt.Errorf("%w: NIG.Update: mean must be finite, got %v", simulate.ErrInvalid, mean)
	case !(ss >= 0) || math.IsInf(ss, 1):
		return NIG{}, fmt.Errorf("%w: NIG.Update: ss must be finite and >= 0, got %v", simulate.ErrInvalid, ss)
	}
	fn := float64(n)
	k := p.K + fn
	post := NIG{M: mean, K: k, A: p.A + fn/2, B: p.B + ss/2}
	if p.K != 0 {
		post.M = (p.K*p.M + fn*mean) / k
		d := mean - p.M
		post.B += p.K * fn * d * d / (2 * k)
	}
	if f := post.fault(); f != "" {
		return NIG{}, fmt.Errorf("%w: NIG.Update: the posterior is not a proper NIG: %s", simulate.ErrInvalid, f)
	}
	return post, nil
}

// Sample draws θ = (μ, σ²) from p: σ² = B/G with G ~ Gamma(A, 1), then
// μ = M + √(σ²/K)·Z with Z standard normal. With B = 0 it sets σ² = 0
// without drawing G. theta must have length 2.
func (p NIG) Sample(r *rand.Rand, theta []float64) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if r == nil {
		return fmt.Errorf("%w: NIG.Sample: r is nil", simulate.ErrInvalid)
	}
	if len(theta) != 2 {
		return fmt.Errorf("%w: NIG.Sample: theta must have length 2, got %d", simulate.ErrInvalid, len(theta))
	}
	s2 := 0.0
	if p.B > 0 {
		s2 = p.B / variate.Gamma(r, p.A, 1)
	}
	theta[0] = p.M + math.Sqrt(s2/p.K)*variate.Normal(r)
	theta[1] = s2
	return nil
}
