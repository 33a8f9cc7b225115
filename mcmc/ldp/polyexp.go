package ldp

import (
	"fmt"
	"math"
)

// maxPolyDegree bounds the degree of the polynomial factor of PolyExpQuad.
const maxPolyDegree = 24

// truncMoments computes, for u ~ N(0,1) truncated to [alpha, beta], the
// shifted moments ν_k = E[(u − c)^k], k = 0..n−1, into nu, with the shift c
// = the point of [alpha, beta] nearest 0 (this keeps the moments of the
// polynomial expansion free of cancellation when the interval lies in a
// tail). It returns c and log Z = log(Φ(beta) − Φ(alpha)).
//
// The recursion follows from Stein's identity E[u f(u)] = E[f'(u)] +
// (f(α)φ(α) − f(β)φ(β))/Z with f(u) = (u − c)^{k−1}:
//
//	ν_k = (k−1) ν_{k−2} − c ν_{k−1} + ((α−c)^{k−1} φ(α) − (β−c)^{k−1} φ(β))/Z.
func truncMoments(alpha, beta float64, nu []float64) (c, logZ float64) {
	logZ, _, _ = logNormDiff(alpha, beta)
	c = math.Max(alpha, math.Min(beta, 0))
	if math.Abs(c) >= 4 {
		// Far tail: the forward recursion would lose about
		// log10(c^{2k}/k!) digits; integrate instead.
		tailMoments(alpha, beta, c, nu)
		return c, logZ
	}
	var pa, pb float64
	if !math.IsInf(alpha, -1) {
		pa = math.Exp(logPhi(alpha) - logZ)
	}
	if !math.IsInf(beta, 1) {
		pb = math.Exp(logPhi(beta) - logZ)
	}
	da, db := alpha-c, beta-c // 0 or finite where the weight is non-zero
	powA, powB := 1.0, 1.0    // (α−c)^{k−1}, (β−c)^{k−1}
	for k := range nu {
		switch k {
		case 0:
			nu[0] = 1
			continue
		case 1:
			nu[1] = -c + pa - pb
		default:
			powA *= da
			powB *= db
			nu[k] = float64(k-1)*nu[k-2] - c*nu[k-1]
			if pa != 0 {
				nu[k] += powA * pa
			}
			if pb != 0 {
				nu[k] -= powB * pb
			}
		}
	}
	return c, logZ
}

// truncNormalMoments writes the raw moments E[x^k], k = 0..len(dst)−1, of
// x ~ N(mu, sigma²) truncated to [a, b] (a may be −Inf, b +Inf) into dst
// and returns log(Φ((b−mu)/sigma) − Φ((a−mu)/sigma)), the log probability
// of [a, b]. It returns NaN (and leaves dst unspecified) for sigma ≤ 0, a
// NaN argument, a ≥ b or more than 25 moments.
func truncNormalMoments(mu, sigma, a, b float64, dst []float64) float64 {
	if !(sigma > 0) || !finite(mu) || math.IsInf(sigma, 1) || math.IsNaN(a) || math.IsNaN(b) || !(a < b) || len(dst) > maxPolyDegree+1 {
		return math.NaN()
	}
	var nu [maxPolyDegree + 1]float64
	alpha, beta := (a-mu)/sigma, (b-mu)/sigma
	c, logZ := truncMoments(alpha, beta, nu[:len(dst)])
	// x = x0 + sigma·v with x0 = mu + sigma·c and v = u − c.
	x0 := mu + sigma*c
	for k := range dst {
		// E[x^k] = Σ_i C(k,i) x0^{k−i} sigma^i ν_i.
		s, binom := 0.0, 1.0
		for i := 0; i <= k; i++ {
			s += binom * math.Pow(x0, float64(k-i)) * math.Pow(sigma, float64(i)) * nu[i]
			binom = binom * float64(k-i) / float64(i+1)
		}
		dst[k] = s
	}
	return logZ
}

// logPolyMean returns log E[g(x)] for x = x0 + s·v with the shifted moments
// ν of v/… as produced by truncMoments: the polynomial g (coefficients g_j
// of x^j) is re-expanded around x0 and its coefficients in v are combined
// with ν. NaN if the mean is not positive.
func logPolyMean(g []float64, x0, s float64, nu []float64) float64 {
	// Taylor shift: coefficients of g(x0 + s v) in powers of v.
	var q [maxPolyDegree + 1]float64
	n := len(g)
	copy(q[:n], g)
	for i := 0; i < n; i++ {
		for j := n - 2; j >= i; j-- {
			q[j] += x0 * q[j+1]
		}
	}
	e, sp := 0.0, 1.0
	for i := range n {
		e += q[i] * sp * nu[i]
		sp *= s
	}
	if !(e > 0) {
		return math.NaN()
	}
	return math.Log(e)
}

// PolyExpQuad is the tractable family of Lemma 3.2 of the LDP paper: a
// density on (a, b) of the form
//
//	p(x) = C g(x) exp(h(x)),  g(x) = Σ_j g_j x^j,  h(x) = h0 + h1 x + h2 x²,
//
// observed through Gaussian noise, z | x ~ N(x, σ²). The marginal
// Pr[z] = ∫_a^b N(z; x, σ²) p(x) dx is a Gaussian integral against the
// polynomial g, so it reduces to truncated-normal moments (eq. 18–21):
// with τ = 1/σ² − 2h2, m = (z/σ² + h1)/τ and s² = 1/τ,
//
//	Pr[z] = C (s/σ) exp(h0 + (h2 z² + h1 z + h1²σ²/2)/(1 − 2h2σ²))
//	        · (Φ((b−m)/s) − Φ((a−m)/s)) · E_{TN(m, s², a, b)}[g(x)].
//
// The proof in the paper writes the exponent as −((z−x)² − h(x))/(2σ²)
// (eq. 18), i.e. it silently uses the density C g(x) exp(h(x)/(2σ²)); its
// s² = σ²/(1−h2) and m = (2z+h1)/(2−2h2) belong to that parametrisation.
// Here h enters exactly as in the statement of the lemma. The normaliser
// C = 1/∫_a^b g e^h is computed the same way, which requires h2 < 0 (so
// that e^h is a Gaussian kernel; a, b may then be infinite). g must be
// non-negative on (a, b).
//
// A PolyExpQuad is immutable and safe for concurrent use.
type PolyExpQuad struct {
	g          [maxPolyDegree + 1]float64
	n          int
	h0, h1, h2 float64
	a, b, logC float64
}

// PolyExpQuadConfig configures NewPolyExpQuad: the density
// C g(x) exp(h0 + h1 x + h2 x²) on (a, b) of Lemma 3.2 of the LDP paper.
// The zero value is refused (G empty, H2 = 0, A = B).
type PolyExpQuadConfig struct {
	// G holds the coefficients g_0, …, g_n of the polynomial
	// g(x) = Σ_j g_j x^j (1 to 25 finite values, lowest degree first);
	// g must be non-negative on (A, B).
	G []float64
	// H0 is the constant term h0 of the exponent h(x) (finite).
	H0 float64
	// H1 is the linear coefficient h1 of the exponent (finite).
	H1 float64
	// H2 is the quadratic coefficient h2 of the exponent (finite and < 0,
	// so that e^h is a Gaussian kernel).
	H2 float64
	// A is the lower end a of the support; it may be −Inf.
	A float64
	// B is the upper end b of the support (> A); it may be +Inf.
	B float64
}

// Validate reports whether the fields of c are usable, with an error
// wrapping ErrInvalid that names the offending field. NewPolyExpQuad
// further requires g·e^h to have a positive finite integral on (A, B).
func (c PolyExpQuadConfig) Validate() error {
	if len(c.G) == 0 || len(c.G) > maxPolyDegree+1 {
		return fmt.Errorf("ldp: PolyExpQuadConfig.G must have 1 to %d coefficients, got %d: %w", maxPolyDegree+1, len(c.G), ErrInvalid)
	}
	for j, v := range c.G {
		if !finite(v) {
			return fmt.Errorf("ldp: PolyExpQuadConfig.G[%d] must be finite, got %v: %w", j, v, ErrInvalid)
		}
	}
	if !finite(c.H0) {
		return fmt.Errorf("ldp: PolyExpQuadConfig.H0 must be finite, got %v: %w", c.H0, ErrInvalid)
	}
	if !finite(c.H1) {
		return fmt.Errorf("ldp: PolyExpQuadConfig.H1 must be finite, got %v: %w", c.H1, ErrInvalid)
	}
	if !finite(c.H2) || !(c.H2 < 0) {
		return fmt.Errorf("ldp: PolyExpQuadConfig.H2 must be finite and < 0, got %v: %w", c.H2, ErrInvalid)
	}
	if math.IsNaN(c.A) || math.IsNaN(c.B) || !(c.A < c.B) {
		return fmt.Errorf("ldp: PolyExpQuadConfig.A and .B must satisfy A < B, got (%v, %v): %w", c.A, c.B, ErrInvalid)
	}
	return nil
}

// NewPolyExpQuad returns the density C g(x) exp(h0 + h1 x + h2 x²) on
// (a, b) described by cfg. It returns an error if cfg.Validate does, or
// if the resulting g·e^h does not have a positive finite integral.
func NewPolyExpQuad(cfg PolyExpQuadConfig) (*PolyExpQuad, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g, h0, h1, h2, a, b := cfg.G, cfg.H0, cfg.H1, cfg.H2, cfg.A, cfg.B
	p := &PolyExpQuad{n: len(g), h0: h0, h1: h1, h2: h2, a: a, b: b}
	copy(p.g[:], g)
	// ∫ g e^h = e^{h0 − h1²/(4h2)} √(2π) s0 Z0 E0[g], s0² = −1/(2h2),
	// m0 = −h1/(2h2).
	s0 := math.Sqrt(-0.5 / h2)
	m0 := -h1 / (2 * h2)
	li := h0 - h1*h1/(4*h2) + logSqrt2Pi + math.Log(s0) + p.logGaussPoly(m0, s0)
	if math.IsNaN(li) || math.IsInf(li, 0) {
		return nil, fmt.Errorf("ldp: PolyExpQuadConfig: g·exp(h) must have a positive finite integral on (%v, %v): %w", a, b, ErrInvalid)
	}
	p.logC = -li
	return p, nil
}

// logGaussPoly returns log[(Φ((b−m)/s) − Φ((a−m)/s)) E_TN(m,s,a,b)[g]].
func (p *PolyExpQuad) logGaussPoly(m, s float64) float64 {
	var nu [maxPolyDegree + 1]float64
	c, logZ := truncMoments((p.a-m)/s, (p.b-m)/s, nu[:p.n])
	if math.IsInf(logZ, -1) {
		return logZ
	}
	return logZ + logPolyMean(p.g[:p.n], m+s*c, s, nu[:p.n])
}

// LogNormalizer returns log C.
func (p *PolyExpQuad) LogNormalizer() float64 { return p.logC }

// LogDensity returns log p(x): −Inf outside (a, b), NaN where g(x) < 0.
func (p *PolyExpQuad) LogDensity(x float64) float64 {
	if p == nil || p.n < 1 || math.IsNaN(x) {
		return math.NaN()
	}
	if x <= p.a || x >= p.b {
		return math.Inf(-1)
	}
	gx := 0.0
	for j := p.n - 1; j >= 0; j-- {
		gx = gx*x + p.g[j]
	}
	if gx < 0 {
		return math.NaN()
	}
	return p.logC + math.Log(gx) + p.h0 + x*(p.h1+x*p.h2)
}

// LogMarginal returns log Pr[z] = log ∫_a^b N(z; x, σ²) p(x) dx, allocating
// nothing. It returns NaN for σ ≤ 0 or a NaN argument.
func (p *PolyExpQuad) LogMarginal(z, sigma float64) float64 {
	if p == nil || p.n < 1 || !(sigma > 0) || math.IsInf(sigma, 1) || math.IsNaN(z) {
		return math.NaN()
	}
	if math.IsInf(z, 0) {
		return math.Inf(-1)
	}
	s2 := sigma * sigma
	den := 1 - 2*p.h2*s2 // = τσ² > 1
	tau := den / s2
	m := (z/s2 + p.h1) / tau
	s := 1 / math.Sqrt(tau)
	k := p.h0 + (p.h2*z*z+p.h1*z+0.5*p.h1*p.h1*s2)/den
	return p.logC - 0.5*math.Log(den) + k + p.logGaussPoly(m, s)
}

// gl16x, gl16w are the 16-point Gauss–Legendre nodes and weights on [−1, 1].
var gl16x, gl16w = gaussLegendre(16)

// gaussLegendre returns the n-point Gauss–Legendre rule by Newton's method
// on the Legendre polynomial.
func gaussLegendre(n int) (x, w []float64) {
	x, w = make([]float64, n), make([]float64, n)
	for i := range (n + 1) / 2 {
		z := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for range 100 {
			p1, p2 := 1.0, 0.0
			for j := 1; j <= n; j++ {
				p1, p2 = ((2*float64(j)-1)*z*p1-float64(j-1)*p2)/float64(j), p1
			}
			dp = float64(n) * (z*p1 - p2) / (z*z - 1)
			dz := p1 / dp
			z -= dz
			if math.Abs(dz) < 1e-16 {
				break
			}
		}
		p1, p2 := 1.0, 0.0
		for j := 1; j <= n; j++ {
			p1, p2 = ((2*float64(j)-1)*z*p1-float64(j-1)*p2)/float64(j), p1
		}
		dp = float64(n) * (z*p1 - p2) / (z*z - 1)
		x[i], x[n-1-i] = -z, z
		w[i] = 2 / ((1 - z*z) * dp * dp)
		w[n-1-i] = w[i]
	}
	return x, w
}

// tailMoments writes ν_k = E[(u − c)^k] for u ~ N(0,1) truncated to
// [alpha, beta] lying beyond |c| ≥ 4 standard deviations (c is the end
// nearest 0). With v = |u − c| the weight is exp(−|c|v − v²/2) on [0, D],
// D = beta − alpha; its moments are integrated by composite 16-point
// Gauss–Legendre over [0, min(D, (n+50)/|c|)] in 8 panels, beyond which the
// weight is below e^{−n−50}; each panel spans at most about ten e-folds, so
// the rule is exact to rounding.
func tailMoments(alpha, beta, c float64, nu []float64) {
	r := math.Abs(c)
	n := len(nu)
	L := math.Min(beta-alpha, float64(n+50)/r)
	var acc [maxPolyDegree + 1]float64
	const panels = 8
	h := L / panels
	for p := range panels {
		mid := (float64(p) + 0.5) * h
		for i, xi := range gl16x {
			v := mid + 0.5*h*xi
			wt := gl16w[i] * math.Exp(-r*v-0.5*v*v)
			pw := 1.0
			for k := range n {
				acc[k] += wt * pw
				pw *= v
			}
		}
	}
	sign := 1.0
	if c < 0 {
		sign = -1 // u − c = −v when the interval lies in the left tail
	}
	sk := 1.0
	for k := range n {
		nu[k] = sk * acc[k] / acc[0]
		sk *= sign
	}
}

// LogDensitySum returns Σ_i log Pr[z_i] for reports z_i = x_i + N(0, σ²),
// allocating nothing; NaN if σ ≤ 0 or any report is NaN.
func (p *PolyExpQuad) LogDensitySum(z []float64, sigma float64) float64 {
	if p == nil || p.n < 1 {
		return math.NaN()
	}
	s := 0.0
	for _, zi := range z {
		s += p.LogMarginal(zi, sigma)
	}
	return s
}
