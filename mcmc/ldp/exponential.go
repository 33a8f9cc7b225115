package ldp

import (
	"fmt"
	"math"

	mldp "github.com/privinfer/privinfer/mechanism/ldp"
)

// ClippedExponential is the noise-aware model of the LDP paper §10.2: each
// person holds x ~ Exponential(rate θ), clips it to [0, b] (an atom of mass
// e^{−θb} at b) and releases z = min(x, b) + Laplace(0, b/ε), which is
// ε-locally-DP.
//
// With κ = ε/b and l = max(0, min(b, z)) the marginal likelihood (eq. 30
// plus the atom of eq. 29) is
//
//	Pr[z | θ] = κ/2 · [ θ e^{−κz} l·E((κ−θ)l)
//	            + θ e^{κz−(κ+θ)l} (b−l)·E(−(κ+θ)(b−l)) + e^{−θb−κ|z−b|} ],
//
// where E(t) = (e^t − 1)/t (E(0) = 1). This is eq. 30 regrouped so that it
// stays finite at θ = κ, where the printed form divides 0 by 0, and is
// evaluated in log space. Eq. 30 also has a typo: its second term's
// exponent reads (εy − lε)/b where (εz − lε)/b is meant.
//
// A ClippedExponential is immutable and safe for concurrent use.
type ClippedExponential struct {
	b, eps, k, logHalfK float64
	mech                *mldp.ClippedLaplace
}

// ClippedExponentialConfig configures NewClippedExponential: the
// clipping bound B and the per-person budget Epsilon of the
// clipped-exponential Laplace model. The zero value is refused.
type ClippedExponentialConfig struct {
	// B is the clipping bound b: reports clip x ≥ 0 to [0, B] (finite,
	// > 0 and not subnormal).
	B float64
	// Epsilon is the per-person privacy budget ε, in [2^-30, 2^20].
	Epsilon float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c ClippedExponentialConfig) Validate() error {
	if !(c.B >= 0x1p-1022) || math.IsInf(c.B, 1) {
		return fmt.Errorf("ldp: ClippedExponentialConfig.B must be finite and > 0 (not subnormal), got %v: %w", c.B, ErrInvalid)
	}
	if !(c.Epsilon >= 0x1p-30 && c.Epsilon <= 0x1p20) {
		return fmt.Errorf("ldp: ClippedExponentialConfig.Epsilon must be in [2^-30, 2^20], got %v: %w", c.Epsilon, ErrInvalid)
	}
	if k := c.Epsilon / c.B; math.IsInf(k, 0) {
		return fmt.Errorf("ldp: ClippedExponentialConfig.Epsilon/B = %v/%v overflows: %w", c.Epsilon, c.B, ErrInvalid)
	}
	return nil
}

// NewClippedExponential returns the clipped-exponential Laplace model for
// the clipping bound cfg.B and per-person budget cfg.Epsilon, refusing what
// cfg.Validate refuses.
func NewClippedExponential(cfg ClippedExponentialConfig) (*ClippedExponential, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b, eps := cfg.B, cfg.Epsilon
	mech, err := mldp.NewClippedLaplace(mldp.ClippedLaplaceConfig{Lo: 0, Hi: b, Epsilon: eps})
	if err != nil {
		return nil, fmt.Errorf("ldp: %w: %w", ErrInvalid, err)
	}
	k := eps / b
	return &ClippedExponential{b: b, eps: eps, k: k, logHalfK: math.Log(k / 2), mech: mech}, nil
}

// Bound returns the clipping bound b.
func (m *ClippedExponential) Bound() float64 { return m.b }

// Epsilon returns the per-person budget ε.
func (m *ClippedExponential) Epsilon() float64 { return m.eps }

// Mechanism returns the local mechanism whose reports the model
// describes: each person's record clipped to the model's interval plus
// Laplace noise (mechanism/ldp), the release path for real records.
func (m *ClippedExponential) Mechanism() *mldp.ClippedLaplace {
	if m == nil {
		return nil
	}
	return m.mech
}

// one returns log Pr[z|θ] − log(κ/2) and its θ-derivative.
func (m *ClippedExponential) one(z, theta, logTheta float64, grad bool) (v, d float64) {
	k, b := m.k, m.b
	l := math.Max(0, math.Min(b, z))
	left, right := math.Inf(-1), math.Inf(-1)
	var dl, dr float64
	if l > 0 {
		t := (k - theta) * l
		left = logTheta - k*z + math.Log(l) + logExprel(t)
		if grad {
			dl = 1/theta - l*dLogExprel(t)
		}
	}
	if l < b {
		t := -(k + theta) * (b - l)
		right = logTheta + k*z - (k+theta)*l + math.Log(b-l) + logExprel(t)
		if grad {
			dr = 1/theta - l - (b-l)*dLogExprel(t)
		}
	}
	atom := -theta*b - k*math.Abs(z-b)
	v, wl, wr, wa, _ := lse4(left, right, atom, math.Inf(-1))
	if grad {
		d = wl*dl + wr*dr - wa*b
	}
	return v, d
}

// LogDensity returns log Pr[z | θ] for one report. It returns NaN for θ ≤ 0
// or a NaN argument and −Inf for an infinite z.
func (m *ClippedExponential) LogDensity(z, theta float64) float64 {
	if !m.valid() || !(theta > 0) || math.IsInf(theta, 1) || math.IsNaN(z) {
		return math.NaN()
	}
	if math.IsInf(z, 0) {
		return math.Inf(-1)
	}
	v, _ := m.one(z, theta, math.Log(theta), false)
	return v + m.logHalfK
}

// LogDensitySum returns Σ_i log Pr[z_i | θ], allocating nothing.
func (m *ClippedExponential) LogDensitySum(z []float64, theta float64) float64 {
	if !m.valid() || !(theta > 0) || math.IsInf(theta, 1) {
		return math.NaN()
	}
	lt := math.Log(theta)
	s := 0.0
	for _, zi := range z {
		v, _ := m.one(zi, theta, lt, false)
		s += v
	}
	return s + float64(len(z))*m.logHalfK
}

// LogDensitySumGrad returns Σ_i log Pr[z_i | θ] and its derivative in θ.
func (m *ClippedExponential) LogDensitySumGrad(z []float64, theta float64) (ll, dtheta float64) {
	if !m.valid() || !(theta > 0) || math.IsInf(theta, 1) {
		return math.NaN(), math.NaN()
	}
	lt := math.Log(theta)
	for _, zi := range z {
		v, d := m.one(zi, theta, lt, true)
		ll += v
		dtheta += d
	}
	return ll + float64(len(z))*m.logHalfK, dtheta
}

// valid reports whether m was built by NewClippedExponential; the
// log-likelihoods of a nil or zero-value model are NaN.
func (m *ClippedExponential) valid() bool { return m != nil && m.k > 0 && m.mech != nil }
