package gibbsss

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/variate"
)

// maxTries is the number of draws of the statistic per iteration before
// the current statistic is kept.
const maxTries = 20

// model is the validated configuration in scaled units: records divided
// by C, so β̃ = (β_0/C, β_1, …, β_p), σ̃² = σ²/C², μ̃ = μ/C, Σ̃ = Σ/C².
// It is shared read-only by the chains.
type model struct {
	p, d, q1, k int // predictors, coefficients p+1, length of w = (1, x̃, ỹ), statistic
	n           float64
	c           float64
	b           []float64 // Laplace scale of each coordinate
	sdp         []float64
	pa, pb      []int // statistic k is w[pa[k]]·w[pb[k]]

	m0      []float64 // prior mean of β̃
	prec0   []float64 // prior precision of β̃ (known σ²) or of β̃/σ̃ (unknown)
	chol0   []float64 // Cholesky factor of the prior covariance (or of G)
	prec0m0 []float64 // prec0·m0
	m0pm0   float64   // m0ᵀ·prec0·m0

	knownV bool
	v      float64 // known σ̃²
	a0, b0 float64 // inverse-gamma prior of σ̃²

	knownX    bool
	mu, sigma []float64 // known predictor law (scaled)
	niwMean   []float64 // NIW prior (scaled)
	niwKappa  float64
	niwScale  []float64
	niwDF     float64
	niwLScale []float64 // Cholesky factor of niwScale
}

// newModel converts a validated spec to scaled units.
func newModel(c spec) *model {
	p := c.P
	d := p + 1
	m := &model{p: p, d: d, q1: p + 2, k: StatDim(p), n: float64(c.N), c: c.Scale,
		sdp: append([]float64(nil), c.Observed...)}
	m.b = make([]float64, m.k)
	for j := range m.b {
		m.b[j] = c.LaplaceScale
		if c.scales != nil {
			m.b[j] = c.scales[j]
		}
	}
	if m.c == 0 {
		m.c = 1
	}
	C := m.c
	// Statistic layout: x̃ỹ [d], ỹ², then the upper triangle of x̃x̃ᵀ
	// without (0,0); w = (1, x̃_1..x̃_p, ỹ) has ỹ at index p+1.
	y := p + 1
	for j := range d {
		m.pa, m.pb = append(m.pa, j), append(m.pb, y)
	}
	m.pa, m.pb = append(m.pa, y), append(m.pb, y)
	for a := range d {
		for b := a; b < d; b++ {
			if a == 0 && b == 0 {
				continue
			}
			m.pa, m.pb = append(m.pa, a), append(m.pb, b)
		}
	}
	// β̃ = Dβ with D = diag(1/C, 1, …, 1).
	dg := make([]float64, d)
	for j := range dg {
		dg[j] = 1
	}
	dg[0] = 1 / C
	m.m0 = make([]float64, d)
	if c.PriorMean != nil {
		for j := range d {
			m.m0[j] = dg[j] * c.PriorMean[j]
		}
	}
	cov := make([]float64, d*d)
	for i := range d {
		for j := range d {
			v := 0.0
			if c.PriorCov != nil {
				v = c.PriorCov[i*d+j]
			} else if i == j {
				v = 1
			}
			cov[i*d+j] = dg[i] * v * dg[j]
		}
	}
	if c.Sigma2 > 0 {
		m.knownV, m.v = true, c.Sigma2/(C*C)
	} else {
		// β̃ | σ̃² ~ N(Dm_0, σ² D V_0 D) = N(Dm_0, σ̃² C² D V_0 D).
		for i := range cov {
			cov[i] *= C * C
		}
		m.a0, m.b0 = c.Sigma2Shape, c.Sigma2Scale/(C*C)
	}
	m.chol0 = make([]float64, d*d)
	_, _ = linalg.CholeskyJitter(cov, d, m.chol0) // validated positive definite
	m.prec0 = make([]float64, d*d)
	_ = linalg.InvSPD(cov, d, m.prec0)
	m.prec0m0 = make([]float64, d)
	linalg.MatVec(m.prec0m0, m.prec0, m.m0, d, d)
	for j := range d {
		m.m0pm0 += m.m0[j] * m.prec0m0[j]
	}
	if c.PredictorPrior == nil {
		m.knownX = true
		m.mu = make([]float64, p)
		m.sigma = make([]float64, p*p)
		for i := range p {
			m.mu[i] = c.PredictorMean[i] / C
			for j := range p {
				v := 0.0
				if c.PredictorCov != nil {
					v = c.PredictorCov[i*p+j]
				} else if i == j {
					v = 1
				}
				m.sigma[i*p+j] = v / (C * C)
			}
		}
	} else {
		pp := c.PredictorPrior
		m.niwMean = make([]float64, p)
		m.niwScale = make([]float64, p*p)
		for i := range p {
			if pp.Mean != nil {
				m.niwMean[i] = pp.Mean[i] / C
			}
			for j := range p {
				v := 0.0
				if pp.Scale != nil {
					v = pp.Scale[i*p+j]
				} else if i == j {
					v = 1
				}
				m.niwScale[i*p+j] = v / (C * C)
			}
		}
		m.niwKappa, m.niwDF = pp.Kappa, pp.DF
		m.niwLScale = make([]float64, p*p)
		_, _ = linalg.CholeskyJitter(m.niwScale, p, m.niwLScale)
	}
	return m
}

// chain is one chain's state and work buffers, all in scaled units.
type chain struct {
	m *model

	theta     []float64 // β̃
	v         float64   // σ̃²
	mu, sigma []float64 // predictors' law
	s         []float64 // statistic
	omega     []float64 // noise variances

	mw, cw              []float64 // mean and covariance of w = (1, x̃, ỹ)
	mt, at              []float64 // E[t] and A = Cov[t]/n
	la, lb              []float64 // Cholesky factors of A and A + W
	apw                 []float64 // A + W
	s0, z, r            []float64
	gram, lg            []float64 // moment matrix of (x̃, ỹ) read from s, and its factor
	prec, lp            []float64 // posterior precision of β̃ and its factor
	mean                []float64
	xbar                []float64 // NIW buffers
	psi, lpsi, bart, bm []float64

	outside int64 // iterations whose statistic stayed put (all draws outside the set)
}

func newChain(m *model) *chain {
	p, d, q, k := m.p, m.d, m.q1, m.k
	return &chain{m: m,
		theta: make([]float64, d), mu: make([]float64, p), sigma: make([]float64, p*p),
		s: make([]float64, k), omega: make([]float64, k),
		mw: make([]float64, q), cw: make([]float64, q*q),
		mt: make([]float64, k), at: make([]float64, k*k),
		la: make([]float64, k*k), lb: make([]float64, k*k), apw: make([]float64, k*k),
		s0: make([]float64, k), z: make([]float64, k), r: make([]float64, k),
		gram: make([]float64, q*q), lg: make([]float64, q*q),
		prec: make([]float64, d*d), lp: make([]float64, d*d), mean: make([]float64, d),
		xbar: make([]float64, p), psi: make([]float64, p*p), lpsi: make([]float64, p*p),
		bart: make([]float64, p*p), bm: make([]float64, p*p),
	}
}

// init draws the parameters from the prior, sets the statistic to its
// mean under them and the noise variances to prior draws.
func (c *chain) init(r *rand.Rand) {
	m := c.m
	d := m.d
	sd := 1.0
	if m.knownV {
		c.v = m.v
	} else {
		c.v = m.b0 / variate.Gamma(r, m.a0, 1)
		sd = math.Sqrt(c.v)
	}
	for j := range d {
		c.z[j] = r.NormFloat64()
	}
	for i := range d {
		v := m.m0[i]
		for j := 0; j <= i; j++ {
			v += sd * m.chol0[i*d+j] * c.z[j]
		}
		c.theta[i] = v
	}
	if m.knownX {
		copy(c.mu, m.mu)
		copy(c.sigma, m.sigma)
	} else {
		c.drawNIW(r, m.niwMean, m.niwKappa, m.niwLScale, m.niwDF)
	}
	c.moments()
	copy(c.s, c.mt)
	for j := range c.omega {
		c.omega[j] = 2 * m.b[j] * m.b[j] * variate.Exp(r)
	}
}

// moments fills mw, cw, mt and at from the current parameters.
func (c *chain) moments() {
	m := c.m
	p, q, k := m.p, m.q1, m.k
	y := p + 1
	mw, cw := c.mw, c.cw
	clear(cw)
	mw[0] = 1
	ey := c.theta[0]
	for i := range p {
		mw[i+1] = c.mu[i]
		ey += c.theta[i+1] * c.mu[i]
	}
	mw[y] = ey
	vy := c.v
	for i := range p {
		cxy := 0.0
		for j := range p {
			s := c.sigma[i*p+j]
			cw[(i+1)*q+j+1] = s
			cxy += s * c.theta[j+1]
		}
		cw[(i+1)*q+y], cw[y*q+i+1] = cxy, cxy
		vy += c.theta[i+1] * cxy
	}
	cw[y*q+y] = vy
	invN := 1 / m.n
	for a := range k {
		i, j := m.pa[a], m.pb[a]
		c.mt[a] = cw[i*q+j] + mw[i]*mw[j]
		for b := 0; b <= a; b++ {
			u, w := m.pa[b], m.pb[b]
			// Isserlis with means: Cov(w_i w_j, w_u w_w).
			v := cw[i*q+u]*cw[j*q+w] + cw[i*q+w]*cw[j*q+u] +
				mw[i]*mw[u]*cw[j*q+w] + mw[i]*mw[w]*cw[j*q+u] +
				mw[j]*mw[u]*cw[i*q+w] + mw[j]*mw[w]*cw[i*q+u]
			c.at[a*k+b], c.at[b*k+a] = v*invN, v*invN
		}
	}
}

// admissible reports whether the moment matrix of (1, x̃, ỹ) read from s is
// positive definite, leaving it in gram and its factor in lg.
func (c *chain) admissible(s []float64) bool {
	m := c.m
	q := m.q1
	g := c.gram
	for a := range m.k {
		i, j := m.pa[a], m.pb[a]
		g[i*q+j], g[j*q+i] = s[a], s[a]
	}
	g[0] = 1
	return linalg.Cholesky(g, q, c.lg) == nil
}

// drawStat updates s from its Gaussian conditional given the release, the
// noise variances and the parameters, restricted to the admissible set.
func (c *chain) drawStat(r *rand.Rand) error {
	c.moments()
	if err := c.factorStat(); err != nil {
		return err
	}
	for range maxTries {
		c.proposeStat(r)
		if c.admissible(c.s0) {
			copy(c.s, c.s0)
			return nil
		}
	}
	c.outside++
	return nil
}

// factorStat factorises A = Cov[t]/n into la and A + W into lb (with the
// smallest diagonal jitter that succeeds, if rounding makes one of them
// numerically singular).
func (c *chain) factorStat() error {
	k := c.m.k
	if _, err := linalg.CholeskyJitter(c.at, k, c.la); err != nil {
		return err
	}
	for i := range k {
		for j := 0; j <= i; j++ {
			c.apw[i*k+j] = c.at[i*k+j]
		}
		c.apw[i*k+i] += c.omega[i]
	}
	_, err := linalg.CholeskyJitter(c.apw, k, c.lb)
	return err
}

// proposeStat writes into s0 a draw of the unrestricted Gaussian
// conditional by Matheron's rule, from la, lb and at.
func (c *chain) proposeStat(r *rand.Rand) {
	m := c.m
	k := m.k
	for i := range k {
		c.z[i] = r.NormFloat64()
	}
	for i := range k {
		v := c.mt[i]
		for j := 0; j <= i; j++ {
			v += c.la[i*k+j] * c.z[j]
		}
		c.s0[i] = v
	}
	for i := range k {
		c.r[i] = m.sdp[i] - c.s0[i] - math.Sqrt(c.omega[i])*r.NormFloat64()
	}
	linalg.CholSolve(c.lb, k, c.r)
	for i := range k {
		v := 0.0
		for j := range k {
			v += c.at[i*k+j] * c.r[j]
		}
		c.s0[i] += v
	}
}

// drawTheta draws β̃ (and σ̃²) from the conjugate posterior given s; gram
// must hold the moment matrix of s (from admissible).
func (c *chain) drawTheta(r *rand.Rand) error {
	m := c.m
	d, q := m.d, m.q1
	y := m.p + 1
	n := m.n
	w := n
	if m.knownV {
		w = n / c.v
	}
	for i := range d {
		for j := range d {
			c.prec[i*d+j] = m.prec0[i*d+j] + w*c.gram[i*q+j]
		}
		c.mean[i] = m.prec0m0[i] + w*c.gram[i*q+y]
	}
	if err := linalg.Cholesky(c.prec, d, c.lp); err != nil {
		return err
	}
	linalg.CholSolve(c.lp, d, c.mean)
	sd := 1.0
	if !m.knownV {
		// b_n = b_0 + (n·ỹᵀỹ/n + m_0ᵀΛ_0m_0 − m_nᵀΛ_nm_n)/2, the last term
		// being m_nᵀ(Λ_0m_0 + n·x̃ᵀỹ/n).
		quad := 0.0
		for i := range d {
			quad += c.mean[i] * (m.prec0m0[i] + n*c.gram[i*q+y])
		}
		bn := m.b0 + 0.5*math.Max(n*c.gram[y*q+y]+m.m0pm0-quad, 0)
		c.v = bn / variate.Gamma(r, m.a0+0.5*n, 1)
		sd = math.Sqrt(c.v)
	}
	for i := range d {
		c.z[i] = sd * r.NormFloat64()
	}
	linalg.SolveUpperT(c.lp, d, c.z[:d])
	for i := range d {
		c.theta[i] = c.mean[i] + c.z[i]
	}
	return nil
}

// drawPredictors draws (μ̃, Σ̃) from the normal-inverse-Wishart posterior
// given the predictors' mean and scatter read from s (gram).
func (c *chain) drawPredictors(r *rand.Rand) error {
	m := c.m
	p, q := m.p, m.q1
	n := m.n
	k0 := m.niwKappa
	kn := k0 + n
	for i := range p {
		c.xbar[i] = c.gram[i+1]
	}
	for i := range p {
		for j := range p {
			scatter := n * (c.gram[(i+1)*q+j+1] - c.xbar[i]*c.xbar[j])
			di, dj := c.xbar[i]-m.niwMean[i], c.xbar[j]-m.niwMean[j]
			c.psi[i*p+j] = m.niwScale[i*p+j] + scatter + k0*n/kn*di*dj
		}
	}
	if _, err := linalg.CholeskyJitter(c.psi, p, c.lpsi); err != nil {
		return err
	}
	for i := range p {
		c.mean[i] = (k0*m.niwMean[i] + n*c.xbar[i]) / kn
	}
	c.drawNIW(r, c.mean[:p], kn, c.lpsi, m.niwDF+n)
	return nil
}

// drawNIW draws Σ̃ ~ InvWishart(df, LLᵀ) and μ̃ ~ N(mean, Σ̃/kappa) by
// Bartlett's decomposition: with A lower triangular, A_ii² ~ χ²(df − i),
// A_ij ~ N(0, 1) below the diagonal, B = L·A⁻ᵀ gives Σ̃ = BBᵀ.
func (c *chain) drawNIW(r *rand.Rand, mean []float64, kappa float64, l []float64, df float64) {
	p := c.m.p
	a := c.bart
	clear(a)
	for i := range p {
		a[i*p+i] = math.Sqrt(2 * variate.Gamma(r, 0.5*(df-float64(i)), 1))
		for j := range i {
			a[i*p+j] = r.NormFloat64()
		}
	}
	// Row i of B solves A·b = (row i of L)ᵀ.
	for i := range p {
		row := c.bm[i*p : (i+1)*p]
		copy(row, l[i*p:(i+1)*p])
		linalg.SolveLower(a, p, row)
	}
	for i := range p {
		for j := 0; j <= i; j++ {
			v := 0.0
			for t := range p {
				v += c.bm[i*p+t] * c.bm[j*p+t]
			}
			c.sigma[i*p+j], c.sigma[j*p+i] = v, v
		}
	}
	sk := 1 / math.Sqrt(kappa)
	for i := range p {
		c.z[i] = r.NormFloat64()
	}
	for i := range p {
		v := mean[i]
		for t := range p {
			v += sk * c.bm[i*p+t] * c.z[t]
		}
		c.mu[i] = v
	}
}

// drawOmega draws the noise variances given the residuals s_dp − s.
func (c *chain) drawOmega(r *rand.Rand) {
	m := c.m
	for j, sj := range c.s {
		b := m.b[j]
		shape := 1 / (b * b)
		e := math.Max(math.Abs(m.sdp[j]-sj), 1e-12*b)
		c.omega[j] = 1 / invGauss(r, 1/(b*e), shape)
	}
}

// step is one iteration of the sampler.
func (c *chain) step(r *rand.Rand) error {
	if err := c.drawStat(r); err != nil {
		return err
	}
	if !c.admissible(c.s) {
		// Unreachable: the initial statistic and every accepted draw are
		// admissible.
		return errors.New("gibbsss: the statistic left the admissible set")
	}
	if err := c.drawTheta(r); err != nil {
		return err
	}
	if !c.m.knownX {
		if err := c.drawPredictors(r); err != nil {
			return err
		}
	}
	c.drawOmega(r)
	return nil
}

// store writes the current β (and σ²) in original units into dst.
func (c *chain) store(dst []float64) {
	m := c.m
	copy(dst, c.theta)
	dst[0] *= m.c
	if !m.knownV {
		dst[m.d] = c.v * m.c * m.c
	}
}

// invGauss draws from the inverse Gaussian distribution with mean mu and
// shape lambda (J. R. Michael, W. R. Schucany and R. W. Haas (1976),
// Generating random variates using transformations with multiple roots,
// The American Statistician 30(2), 88–90), with the smaller root in the
// cancellation-free form μ/(1 + c + √(c(2 + c))), c = μν²/(2λ).
func invGauss(r *rand.Rand, mu, lambda float64) float64 {
	nu := r.NormFloat64()
	cc := mu * nu * nu / (2 * lambda)
	x := mu / (1 + cc + math.Sqrt(cc*(2+cc)))
	if r.Float64()*(mu+x) <= mu {
		return x
	}
	return mu * (mu / x)
}
