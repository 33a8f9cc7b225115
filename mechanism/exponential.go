package mechanism

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Exponential is the exponential mechanism (McSherry & Talwar 2007) over a
// finite set of n candidates. Its statistic is the vector of utilities
// u(x, r_1), …, u(x, r_n) of the candidates on the confidential data,
// each of sensitivity Δu (changing one person moves every utility by at
// most Δu). It releases the index j (written as a float64 into a
// one-element dst) with probability
//
//	P(j) ∝ exp(ε·u_j / (2Δu))     (ε-DP),
//
// or ∝ exp(ε·u_j/Δu) for monotone utilities (all utilities move in the
// same direction between neighbours), which is also ε-DP.
//
// Sampling works in log space with the Gumbel-max trick, j = argmax_j
// (ε u_j/(2Δu) + G_j), G_j standard Gumbel, so no exponential overflows
// whatever the utilities. Exponential implements Mechanism, Transform (n
// uniforms → Gumbels) and Density (the log-softmax mass of the index).
type Exponential struct {
	eps   float64
	coef  float64 // ε/(2Δu) or ε/Δu
	n     int
	sens  float64
	monot bool
}

// ExponentialConfig configures NewExponential.
type ExponentialConfig struct {
	// Epsilon is the privacy budget ε (> 0).
	Epsilon float64
	// Sensitivity is the sensitivity Δu of every utility (> 0).
	Sensitivity float64
	// Candidates is the number n of candidates (in [1, MaxDim]).
	Candidates int
	// Monotone selects the sharper coefficient ε/Δu, valid when all
	// utilities move in the same direction between neighbours.
	Monotone bool
}

// Validate reports whether c is a usable configuration, with an error
// naming the offending field.
func (c ExponentialConfig) Validate() error {
	if err := checkPositive("ExponentialConfig.Epsilon: epsilon", c.Epsilon); err != nil {
		return err
	}
	if err := checkPositive("ExponentialConfig.Sensitivity: sensitivity", c.Sensitivity); err != nil {
		return err
	}
	if err := checkDim("ExponentialConfig.Candidates: n", c.Candidates); err != nil {
		return err
	}
	coef := c.Epsilon / (2 * c.Sensitivity)
	if !(coef > 0) || math.IsInf(coef, 0) {
		return invalidf("ExponentialConfig: coefficient Epsilon/(2·Sensitivity) = %v must be finite and > 0", coef)
	}
	return nil
}

// NewExponential returns the exponential mechanism with budget
// cfg.Epsilon over cfg.Candidates candidates whose utilities have
// sensitivity cfg.Sensitivity.
func NewExponential(cfg ExponentialConfig) (*Exponential, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := cfg.Epsilon / (2 * cfg.Sensitivity)
	if cfg.Monotone {
		c = cfg.Epsilon / cfg.Sensitivity
	}
	return &Exponential{eps: cfg.Epsilon, coef: c, n: cfg.Candidates, sens: cfg.Sensitivity, monot: cfg.Monotone}, nil
}

// Budget reports (ε, 0).
func (m *Exponential) Budget() Budget {
	if m == nil {
		return Budget{}
	}
	return Budget{Epsilon: m.eps}
}

// Candidates returns n (0 for a nil Exponential).
func (m *Exponential) Candidates() int {
	if m == nil {
		return 0
	}
	return m.n
}

// Release selects a candidate for the utilities s (length n) and writes
// its index into dst[0] (dst must have length 1), drawing from the
// operating system's generator whatever r is. The output is an index, so
// it has no low-order bits to leak; the Gumbel noise is computed in
// floating point, so the selection probabilities match the log-softmax to
// floating-point accuracy.
func (m *Exponential) Release(r *rand.Rand, s, dst []float64) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	return withOSRand(func(os *rand.Rand) error { return m.releaseWith(os, s, dst) })
}

// releaseWith is Release drawing from r.
func (m *Exponential) releaseWith(r *rand.Rand, s, dst []float64) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	best, bestJ := math.Inf(-1), 0
	for j, u := range s {
		g := m.coef*u - math.Log(-math.Log(uniformOpen(r)))
		if g > best {
			best, bestJ = g, j
		}
	}
	dst[0] = float64(bestJ)
	return nil
}

// check validates a release: a constructed mechanism, lengths,
// finiteness, and scaled utilities coef·s_j that do not overflow.
func (m *Exponential) check(s, dst []float64) error {
	if m == nil || m.n == 0 {
		return invalidf("exponential mechanism is nil or was not built by NewExponential")
	}
	if err := checkReleaseShape(s, dst, m.n, 1); err != nil {
		return err
	}
	for j, u := range s {
		if math.IsInf(m.coef*u, 0) {
			return fmt.Errorf("%w: utility %d = %v overflows when scaled by ε/(2Δu) = %v", ErrInvalid, j, u, m.coef)
		}
	}
	return nil
}

// SimulateRelease draws from the law of Release using r (seeded
// generators welcome); for inference only.
func (m *Exponential) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	return m.releaseWith(r, s, dst)
}

// NoiseDim returns statDim: one Gumbel per candidate.
func (m *Exponential) NoiseDim(statDim int) int { return statDim }

// Apply writes argmax_j(coef·s_j + G_j) into dst[0] with G_j = −log(−log u_j).
// On a nil Exponential it fills dst with NaN.
func (m *Exponential) Apply(u, s, dst []float64) {
	if m == nil {
		fillNaN(dst)
		return
	}
	checkApply("Exponential", u, s, dst, m.n, m.n, 1)
	best, bestJ := math.Inf(-1), 0
	for j, v := range s {
		g := m.coef*v - math.Log(-math.Log(clampU(u[j])))
		if g > best {
			best, bestJ = g, j
		}
	}
	dst[0] = float64(bestJ)
}

// LogDensity returns log P(j | utilities s) for sdp = [j]: the
// log-softmax coef·s_j − logΣ_k exp(coef·s_k). It returns -Inf for an
// index that is not an integer in [0, n) and NaN on a length mismatch.
func (m *Exponential) LogDensity(sdp, s []float64) float64 {
	if m == nil || len(sdp) != 1 || len(s) != m.n {
		return math.NaN()
	}
	j := sdp[0]
	if j != math.Trunc(j) || j < 0 || j >= float64(m.n) {
		return math.Inf(-1)
	}
	mx := math.Inf(-1)
	for _, v := range s {
		mx = math.Max(mx, m.coef*v)
	}
	if math.IsInf(mx, 0) || math.IsNaN(mx) {
		return math.NaN()
	}
	sum := 0.0
	for _, v := range s {
		sum += math.Exp(m.coef*v - mx)
	}
	return m.coef*s[int(j)] - mx - math.Log(sum)
}
