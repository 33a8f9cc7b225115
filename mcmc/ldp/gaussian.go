package ldp

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/internal/special"
	mldp "github.com/privinfer/privinfer/mechanism/ldp"
)

// ClippedGaussian is the noise-aware model of the LDP paper §10.1: each
// person holds x ~ N(μ, σ²), clips it to [a, b] (so the clipped value has
// the rectified density of eq. 6, with atoms Φ((a−μ)/σ) at a and
// 1 − Φ((b−μ)/σ) at b), and releases z = clip(x) + Laplace(0, (b−a)/ε),
// which is ε-locally-DP because the clipped value has sensitivity b − a.
//
// The marginal likelihood Pr[z | μ, σ] = ∫ η(z | x) f(x | μ, σ; a, b) dx is
// the closed form of eq. 28, evaluated here in log space: with c = ε/(b−a),
// l = max(a, min(b, z)), α = (a−μ)/σ, β = (b−μ)/σ, λ = (l−μ)/σ,
//
//	Pr[z] = c/2 · [ Φ(α) e^{−c|z−a|} + Φ(−β) e^{−c|z−b|}
//	        + e^{−c(z−μ)+c²σ²/2} (Φ(λ−cσ) − Φ(α−cσ))
//	        + e^{ c(z−μ)+c²σ²/2} (Φ(β+cσ) − Φ(λ+cσ)) ],
//
// which is eq. 28 rewritten with erf(u/√2) = 2Φ(u) − 1. Two typos of the
// derivation leading to it are corrected here: eq. 24 writes the CDF
// Φ_θ(x) where the density φ_θ(x) of x on (a, b) belongs, and the second
// line of eq. 27 has erf(ε(2(b−a)(z−μ)+εσ²)/(2(b−a)²)) where the factor is
// exp(·) (eq. 28 itself has it right). Each term is computed as a log and the
// terms are combined with log-sum-exp, so z far outside [a, b], σ ≪ b−a and
// ε from 1e-3 to 1e3 keep full relative accuracy.
//
// A ClippedGaussian is immutable and safe for concurrent use.
type ClippedGaussian struct {
	a, b, eps float64
	c         float64 // Laplace rate ε/(b−a)
	logHalfC  float64
	mech      *mldp.ClippedLaplace
}

// ClippedGaussianConfig configures NewClippedGaussian: the clipping
// interval [A, B] and the per-person budget Epsilon of the clipped-Gaussian
// Laplace model. The zero value is refused (A = B, Epsilon = 0).
type ClippedGaussianConfig struct {
	// A is the lower clipping bound a (finite, < B).
	A float64
	// B is the upper clipping bound b (finite, > A); the width B − A must
	// be finite and not subnormal.
	B float64
	// Epsilon is the per-person privacy budget ε, in [2^-30, 2^20].
	Epsilon float64
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c ClippedGaussianConfig) Validate() error {
	a, b, eps := c.A, c.B, c.Epsilon
	if !finite(a) || !finite(b) || !(a < b) {
		return fmt.Errorf("ldp: ClippedGaussianConfig.A and .B must be finite with A < B, got [%v, %v]: %w", a, b, ErrInvalid)
	}
	if w := b - a; math.IsInf(w, 0) || w < 0x1p-1022 {
		return fmt.Errorf("ldp: ClippedGaussianConfig.B − .A = %v must be finite and not subnormal: %w", w, ErrInvalid)
	}
	if !(eps >= 0x1p-30 && eps <= 0x1p20) {
		return fmt.Errorf("ldp: ClippedGaussianConfig.Epsilon must be in [2^-30, 2^20], got %v: %w", eps, ErrInvalid)
	}
	if c := eps / (b - a); math.IsInf(c, 0) {
		return fmt.Errorf("ldp: ClippedGaussianConfig.Epsilon/(B − A) = %v/%v overflows: %w", eps, b-a, ErrInvalid)
	}
	return nil
}

// NewClippedGaussian returns the clipped-Gaussian Laplace model for the
// clipping interval [cfg.A, cfg.B] and per-person budget cfg.Epsilon,
// refusing what cfg.Validate refuses.
func NewClippedGaussian(cfg ClippedGaussianConfig) (*ClippedGaussian, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a, b, eps := cfg.A, cfg.B, cfg.Epsilon
	mech, err := mldp.NewClippedLaplace(mldp.ClippedLaplaceConfig{Lo: a, Hi: b, Epsilon: eps})
	if err != nil {
		return nil, fmt.Errorf("ldp: %w: %w", ErrInvalid, err)
	}
	c := eps / (b - a)
	return &ClippedGaussian{a: a, b: b, eps: eps, c: c, logHalfC: math.Log(c / 2), mech: mech}, nil
}

// Bounds returns the clipping interval [a, b].
func (m *ClippedGaussian) Bounds() (a, b float64) { return m.a, m.b }

// Epsilon returns the per-person budget ε.
func (m *ClippedGaussian) Epsilon() float64 { return m.eps }

// Mechanism returns the local mechanism whose reports the model
// describes: each person's record clipped to the model's interval plus
// Laplace noise (mechanism/ldp), the release path for real records.
func (m *ClippedGaussian) Mechanism() *mldp.ClippedLaplace {
	if m == nil {
		return nil
	}
	return m.mech
}

// gaussTheta holds the per-(μ, σ) quantities shared by all observations.
type gaussTheta struct {
	mu, sigma, alpha, beta, cs, half float64
	// point marks σ below pointMassRatio⁻¹ times the distance from μ to
	// the farther clipping bound: the clipped value is then the point
	// mass at clip(μ), to double precision.
	point bool
	// Boundary atoms: log Φ(α), log Φ(−β).
	la, lb float64
	// The derivatives are kept in μ and log σ (σ·∂/∂σ): at σ ≪ 1 a ∂/∂σ
	// can overflow where σ·∂/∂σ and the log density itself are finite.
	// Reports below a: log p = log(c/2) + c z + low; above b: −c z + high.
	low, lowMu, lowLs    float64
	high, highMu, highLs float64
	// Cached tail functions of α−cσ and β+cσ, the fixed ends of the two
	// integrals for reports inside (a, b).
	endA, endB endpoint
}

func (m *ClippedGaussian) prep(mu, sigma float64, grad bool) gaussTheta {
	c := m.c
	t := gaussTheta{mu: mu, sigma: sigma}
	if math.Max(math.Abs(m.a-mu), math.Abs(m.b-mu)) > pointMassRatio*sigma {
		t.point = true
		return t
	}
	t.alpha = (m.a - mu) / sigma
	t.beta = (m.b - mu) / sigma
	t.cs = c * sigma
	t.half = 0.5 * t.cs * t.cs
	t.la = special.NormLogCDF(t.alpha)
	t.lb = special.NormLogCDF(-t.beta)
	t.endA = newEndpoint(t.alpha - t.cs)
	t.endB = newEndpoint(t.beta + t.cs)
	// z ≤ a (l = a): terms la − c(a−z), lb − c(b−z), and the right
	// integral c(z−μ) + c²σ²/2 + log(Φ(β+cσ) − Φ(α+cσ)); factor out e^{cz}.
	// With lo = α+cσ, c(z−μ) + c²σ²/2 − lo²/2 = c(z−a) − α²/2 exactly, so
	// the large terms cancel analytically.
	{
		r0, piv, g := lndShift(t.alpha+t.cs, t.beta+t.cs, (m.b-m.a)/sigma, false,
			t.cs*(0.5*t.cs-mu/sigma), -c*m.a-0.5*t.alpha*t.alpha, noEnd, t.endB, grad)
		var w3 float64
		t.low, _, _, w3, _ = lse4(t.la-c*m.a, t.lb-c*m.b, r0, math.Inf(-1))
		if grad {
			// Every x in (a, b) lies above z: see one.
			t.lowMu = -c * w3
			t.lowLs = -wmul(w3, t.cs*shiftedMean(piv, g, t.alpha, t.beta, -t.cs))
		}
	}
	// z ≥ b (l = b): terms la − c(z−a), lb − c(z−b), and the left
	// integral −c(z−μ) + c²σ²/2 + log(Φ(β−cσ) − Φ(α−cσ)); factor out
	// e^{−cz}. With hi = β−cσ the exponent is −c(z−b) − β²/2 + scaled.
	{
		l0, piv, g := lndShift(t.alpha-t.cs, t.beta-t.cs, (m.b-m.a)/sigma, true,
			t.cs*(0.5*t.cs+mu/sigma), c*m.b-0.5*t.beta*t.beta, t.endA, noEnd, grad)
		var w3 float64
		t.high, _, _, w3, _ = lse4(t.la+c*m.a, t.lb+c*m.b, l0, math.Inf(-1))
		if grad {
			// Every x in (a, b) lies below z.
			t.highMu = c * w3
			t.highLs = wmul(w3, t.cs*shiftedMean(piv, g, t.alpha, t.beta, t.cs))
		}
	}
	return t
}

// pointMassRatio is the ratio of the distance from μ to the farther
// clipping bound to σ beyond which the model treats the clipped value as
// the point mass at clip(μ): the standardised bounds α and β, and their
// squares in the tail formulas, would otherwise approach overflow. Since
// |clip(x) − clip(μ)| ≤ |x − μ|, and clip(x) differs from clip(μ) only
// when x crosses a bound, which for μ outside [a, b] has probability
// below Φ(−δ/σ) at distance δ from it, the point mass changes Pr[z]
// by a relative amount of order cσ = εσ/(b−a) < ε·1e-300 ≤ 1e-294 (with
// μ inside [a, b], or δ within a few σ of a bound, b − a exceeds about
// 1e300·σ).
const pointMassRatio = 1e300

// one returns log Pr[z | θ] (without the log(c/2) constant) and, if grad,
// its partial derivatives in μ and log σ.
func (m *ClippedGaussian) one(t *gaussTheta, z float64, grad bool) (v, dmu, dls float64) {
	c := m.c
	if t.point {
		// Pr[z] = c/2 · e^{−c|z − clip(μ)|}; its derivative in log σ is
		// of order cσ, below 1e-294 here.
		x := math.Max(m.a, math.Min(m.b, t.mu))
		if m.a < t.mu && t.mu < m.b {
			switch {
			case z > t.mu:
				dmu = c
			case z < t.mu:
				dmu = -c
			}
		}
		return -c * math.Abs(z-x), dmu, 0
	}
	switch {
	case z <= m.a:
		return c*z + t.low, t.lowMu, t.lowLs
	case z >= m.b:
		return -c*z + t.high, t.highMu, t.highLs
	}
	sigma := t.sigma
	lam := (z - t.mu) / sigma
	// L = −c(z−μ) + c²σ²/2 + log(Φ(λ−cσ) − Φ(α−cσ)) and
	// R = c(z−μ) + c²σ²/2 + log(Φ(β+cσ) − Φ(λ+cσ)); shifting the logs by
	// (λ∓cσ)²/2 turns both prefactors into −λ²/2 exactly.
	h2 := -0.5 * lam * lam
	L, lpiv, lg := lndShift(t.alpha-t.cs, lam-t.cs, (z-m.a)/sigma, true, t.cs*(0.5*t.cs-lam), h2, t.endA, noEnd, grad)
	R, rpiv, rg := lndShift(lam+t.cs, t.beta+t.cs, (m.b-z)/sigma, false, t.cs*(0.5*t.cs+lam), h2, noEnd, t.endB, grad)
	A := t.la - c*(z-m.a)
	B := t.lb - c*(m.b-z)
	v, _, _, wl, wr := lse4(A, B, L, R)
	if grad {
		// Differentiating Pr[z] = E[η(z − clip(μ + σε))] under the
		// expectation (η the Laplace density, ε standard normal) leaves
		// only the values x = μ + σy inside (a, b), where ∂η/∂x = ±cη:
		// ∂μ log Pr = c(w_L − w_R) and ∂log σ log Pr = cσ(w_L E_L[y] −
		// w_R E_R[y]), with w_L, w_R the shares of Pr from x in (a, z) and
		// (z, b). The atoms' derivatives and the integrals' boundary terms
		// cancel exactly and are never formed. Under L, y − cσ is N(0, 1)
		// truncated to [α − cσ, λ − cσ]; under R, y + cσ to
		// [λ + cσ, β + cσ].
		dmu = c * (wl - wr)
		dls = wmul(wl, t.cs*shiftedMean(lpiv, lg, t.alpha, lam, t.cs)) -
			wmul(wr, t.cs*shiftedMean(rpiv, rg, lam, t.beta, -t.cs))
	}
	return v, dmu, dls
}

// shiftedMean returns E[y] for y = Y + shift with Y ~ N(0, 1) truncated,
// from lndShift's pivot and offset, given the interval's ends loY, hiY in
// y (known exactly, unlike lo + shift): the tails' cancellation of shift
// against E[Y] never happens.
func shiftedMean(piv int, g, loY, hiY, shift float64) float64 {
	switch piv {
	case pivLo:
		return loY + g
	case pivHi:
		return hiY + g
	case pivMid:
		return 0.5*(loY+hiY) + g
	}
	return shift + g
}

// wmul returns w·d, or 0 when the weight w is 0: a term whose share of the
// likelihood underflows contributes nothing to the gradient even when its
// own factor d is infinite or NaN (as cσ·E[y] may be when its interval is
// empty or σ is near overflow).
func wmul(w, d float64) float64 {
	if w == 0 {
		return 0
	}
	return w * d
}

// LogDensity returns log Pr[z | μ, σ] for one report z (eq. 28). It returns
// NaN for a NaN argument or σ ≤ 0, and −Inf for an infinite z.
func (m *ClippedGaussian) LogDensity(z, mu, sigma float64) float64 {
	if !m.valid() || !(sigma > 0) || math.IsNaN(z) || !finite(mu) || math.IsInf(sigma, 1) {
		return math.NaN()
	}
	if math.IsInf(z, 0) {
		return math.Inf(-1)
	}
	t := m.prep(mu, sigma, false)
	v, _, _ := m.one(&t, z, false)
	return m.logHalfC + v
}

// LogDensitySum returns Σ_i log Pr[z_i | μ, σ] over the reports z, allocating
// nothing. It returns NaN for σ ≤ 0 or non-finite parameters, and NaN if
// any report is NaN (validate data once with checkReports).
func (m *ClippedGaussian) LogDensitySum(z []float64, mu, sigma float64) float64 {
	if !m.valid() || !(sigma > 0) || !finite(mu) || math.IsInf(sigma, 1) {
		return math.NaN()
	}
	t := m.prep(mu, sigma, false)
	s := 0.0
	for _, zi := range z {
		v, _, _ := m.one(&t, zi, false)
		s += v
	}
	return s + float64(len(z))*m.logHalfC
}

// LogDensitySumGrad returns Σ_i log Pr[z_i | μ, σ] and its partial derivatives
// with respect to μ and σ, allocating nothing. For σ ≪ 1 the derivative in σ
// may overflow to ±Inf where the one in log σ, σ times it (which
// GaussianPosterior uses), is finite.
func (m *ClippedGaussian) LogDensitySumGrad(z []float64, mu, sigma float64) (ll, dmu, dsigma float64) {
	ll, dmu, dls := m.sumGradLog(z, mu, sigma)
	return ll, dmu, dls / sigma
}

// sumGradLog returns Σ_i log Pr[z_i | μ, σ] and its partial derivatives
// with respect to μ and log σ.
func (m *ClippedGaussian) sumGradLog(z []float64, mu, sigma float64) (ll, dmu, dls float64) {
	if !m.valid() || !(sigma > 0) || !finite(mu) || math.IsInf(sigma, 1) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	t := m.prep(mu, sigma, true)
	for _, zi := range z {
		v, gm, gs := m.one(&t, zi, true)
		ll += v
		dmu += gm
		dls += gs
	}
	return ll + float64(len(z))*m.logHalfC, dmu, dls
}

// checkReports returns an error naming the first report that is NaN or
// infinite; the log-likelihoods assume finite reports.
func checkReports(z []float64) error {
	if len(z) == 0 {
		return fmt.Errorf("ldp: need at least one report, got 0: %w", ErrInvalid)
	}
	for i, v := range z {
		if !finite(v) {
			return fmt.Errorf("ldp: report %d must be finite, got %v: %w", i, v, ErrInvalid)
		}
	}
	return nil
}

// valid reports whether m was built by NewClippedGaussian; the
// log-likelihoods of a nil or zero-value model are NaN.
func (m *ClippedGaussian) valid() bool { return m != nil && m.c > 0 && m.mech != nil }
