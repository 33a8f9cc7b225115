package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/variate"
)

// Truncated is a continuous univariate distribution restricted to
// [lo, hi] and renormalised.
type Truncated struct {
	d       Univariate
	inv     Invertible
	normal  *Normal // non-nil for a truncated normal, sampled exactly
	lo, hi  float64
	flo     float64 // F(lo)
	mass    float64 // F(hi) − F(lo)
	logMass float64
}

// Truncate restricts d, which must implement Invertible (CDF and
// Quantile), to [lo, hi] (lo may be −Inf and hi +Inf). The interval must
// carry positive probability in float64. A truncated Normal is sampled
// exactly in every regime, also far in the tails (variate.TruncNormal);
// other distributions by rejection when the interval holds at least 30%
// of the mass and by inversion of the CDF otherwise.
func Truncate(d Univariate, lo, hi float64) (*Truncated, error) {
	if d == nil {
		return nil, invalidf("Truncate needs a non-nil distribution")
	}
	if err := checkBuilt("Truncate's distribution", d); err != nil {
		return nil, err
	}
	inv, ok := d.(Invertible)
	if !ok {
		return nil, invalidf("Truncate needs a distribution with CDF and Quantile, got %T", d)
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || !(lo < hi) {
		return nil, invalidf("truncation bounds must satisfy lo < hi, got [%v, %v]", lo, hi)
	}
	slo, shi := d.Support()
	lo, hi = math.Max(lo, slo), math.Min(hi, shi)
	flo, fhi := inv.CDF(lo), inv.CDF(hi)
	mass := fhi - flo
	if !(mass > 0) {
		return nil, invalidf("truncation interval [%v, %v] has zero probability", lo, hi)
	}
	t := &Truncated{d: d, inv: inv, lo: lo, hi: hi, flo: flo, mass: mass, logMass: math.Log(mass)}
	if n, ok := d.(*Normal); ok {
		t.normal = n
	}
	return t, nil
}

func (t *Truncated) valid() bool   { return t.d != nil }
func (p *Independent) valid() bool { return len(p.c) > 0 }
func (p *MVNormal) valid() bool    { return len(p.mean) > 0 }
func (p *Dirichlet) valid() bool   { return len(p.alpha) >= 2 }
func (p *Concat) valid() bool      { return len(p.blocks) > 0 }

// Sample draws from the truncated distribution; NaN for the zero value.
func (t *Truncated) Sample(r *rand.Rand) float64 {
	if t.d == nil {
		return math.NaN()
	}
	if t.normal != nil {
		return variate.TruncNormal(r, t.normal.mu, t.normal.sigma, t.lo, t.hi)
	}
	if t.mass >= 0.3 {
		for {
			x := t.d.Sample(r)
			if x >= t.lo && x <= t.hi {
				return x
			}
		}
	}
	x := t.inv.Quantile(t.flo + t.mass*r.Float64())
	return math.Min(math.Max(x, t.lo), t.hi) // rounding must not leave [lo, hi]
}

// LogDensity is the renormalised log density; −Inf outside [lo, hi].
func (t *Truncated) LogDensity(x float64) float64 {
	if math.IsNaN(x) || t.d == nil {
		return math.NaN()
	}
	if x < t.lo || x > t.hi {
		return math.Inf(-1)
	}
	return t.d.LogDensity(x) - t.logMass
}

// CDF is the truncated distribution function.
func (t *Truncated) CDF(x float64) float64 {
	if t.d == nil || math.IsNaN(x) {
		return math.NaN()
	}
	if x <= t.lo {
		return 0
	}
	if x >= t.hi {
		return 1
	}
	return (t.inv.CDF(x) - t.flo) / t.mass
}

// Quantile is the truncated quantile function F⁻¹(F(lo) + p·mass).
func (t *Truncated) Quantile(p float64) float64 {
	if !(p >= 0 && p <= 1) || t.d == nil {
		return math.NaN()
	}
	return math.Min(math.Max(t.inv.Quantile(t.flo+p*t.mass), t.lo), t.hi)
}

// Support is [lo, hi] intersected with the original support.
func (t *Truncated) Support() (float64, float64) { return t.lo, t.hi }

// Independent is a prior whose coordinates are independent.
type Independent struct{ c []Univariate }

// NewIndependent returns the product of the given components (at least
// one, none nil).
func NewIndependent(components ...Univariate) (*Independent, error) {
	if len(components) == 0 {
		return nil, invalidf("independent prior needs at least one component")
	}
	for i, c := range components {
		if c == nil {
			return nil, invalidf("independent prior component %d is nil", i)
		}
		if err := checkBuilt("independent prior component "+strconv.Itoa(i), c); err != nil {
			return nil, err
		}
	}
	return &Independent{append([]Univariate(nil), components...)}, nil
}

// Dim is the number of components.
func (p *Independent) Dim() int { return len(p.c) }

// Sample draws every coordinate independently.
// It panics if r is nil or len(theta) < Dim (a programmer error).
func (p *Independent) Sample(r *rand.Rand, theta []float64) {
	mustSample(r, theta, p.Dim())
	for i, c := range p.c {
		theta[i] = c.Sample(r)
	}
}

// LogDensity sums the component log densities; NaN if len(theta) ≠ Dim.
func (p *Independent) LogDensity(theta []float64) float64 {
	if len(theta) != len(p.c) {
		return math.NaN()
	}
	s := 0.0
	for i, c := range p.c {
		s += c.LogDensity(theta[i])
		if math.IsInf(s, -1) {
			return s
		}
	}
	return s
}

const logSqrt2Pi = 0.91893853320467274178032973640562

// MVNormal is the multivariate normal distribution N(mean, cov) with a
// full covariance matrix.
type MVNormal struct {
	mean   []float64
	chol   []float64 // lower Cholesky factor, row-major d×d
	logDet float64   // log det cov
}

// MVNormalConfig configures NewMVNormal: the multivariate normal
// distribution N(Mean, Cov) with a full covariance matrix. Both fields
// are required (their zero values are refused).
type MVNormalConfig struct {
	// Mean is the mean vector: non-empty, with finite entries.
	Mean []float64
	// Cov is the covariance matrix, row-major d×d for d = len(Mean):
	// finite, symmetric and positive definite, with normal (not
	// subnormal) variances on the diagonal.
	Cov []float64
}

// Validate reports whether c describes a multivariate normal
// distribution, with an error wrapping ErrInvalid that names the
// offending field (and entry). It factors Cov to check positive
// definiteness, so it costs as much as NewMVNormal.
func (c MVNormalConfig) Validate() error {
	_, err := c.build("MVNormalConfig")
	return err
}

// NewMVNormal returns N(cfg.Mean, cfg.Cov), refusing what cfg.Validate
// refuses. It copies cfg.Mean and does not keep cfg.Cov.
func NewMVNormal(cfg MVNormalConfig) (*MVNormal, error) {
	return cfg.build("MVNormalConfig")
}

// build validates c and factors its covariance; name prefixes the field
// names in errors (NewDiagNormal builds through it).
func (c MVNormalConfig) build(name string) (*MVNormal, error) {
	mean, cov := c.Mean, c.Cov
	d := len(mean)
	if d == 0 {
		return nil, invalidf("%s.Mean: multivariate normal mean must not be empty", name)
	}
	if len(cov) != d*d {
		return nil, invalidf("%s.Cov: multivariate normal covariance must have length %d (%d×%d for %d means), got %d", name, d*d, d, d, d, len(cov))
	}
	for i, m := range mean {
		if !finite(m) {
			return nil, invalidf("%s.Mean[%d]: multivariate normal mean must be finite, got %v", name, i, m)
		}
	}
	for k, v := range cov {
		if !finite(v) {
			return nil, invalidf("%s.Cov[%d]: multivariate normal covariance entry (%d, %d) must be finite, got %v", name, k, k/d, k%d, v)
		}
	}
	for i := range d {
		for j := range i {
			if cov[i*d+j] != cov[j*d+i] {
				return nil, invalidf("%s.Cov[%d]: multivariate normal covariance must be symmetric, entry (%d, %d) = %v but (%d, %d) = %v", name, i*d+j, i, j, cov[i*d+j], j, i, cov[j*d+i])
			}
		}
		if v := cov[i*d+i]; !(v >= 0x1p-1022) {
			return nil, invalidf("%s.Cov[%d]: multivariate normal variance %d must be > 0 and not subnormal, got %v", name, i*d+i, i, v)
		}
		if err := checkOverflow(name+".Mean["+strconv.Itoa(i)+"]: multivariate normal", mean[i], math.Sqrt(cov[i*d+i])); err != nil {
			return nil, err
		}
	}
	l := make([]float64, d*d)
	if err := linalg.Cholesky(cov, d, l); err != nil {
		return nil, invalidf("%s.Cov: multivariate normal covariance: %v", name, err)
	}
	ld := linalg.LogDetChol(l, d)
	if !finite(ld) {
		return nil, invalidf("%s.Cov: multivariate normal covariance has log-determinant %v", name, ld)
	}
	return &MVNormal{mean: append([]float64(nil), mean...), chol: l, logDet: ld}, nil
}

// DiagNormalConfig configures NewDiagNormal: the multivariate normal
// distribution N(Mean, diag(Variances)) with independent coordinates.
// Both fields are required (their zero values are refused).
type DiagNormalConfig struct {
	// Mean is the mean vector: non-empty, with finite entries.
	Mean []float64
	// Variances holds the variance of each coordinate, one per entry of
	// Mean: each finite, normal (not subnormal) and > 0.
	Variances []float64
}

// Validate reports whether c describes a diagonal normal distribution,
// with an error wrapping ErrInvalid that names the offending field and
// entry.
func (c DiagNormalConfig) Validate() error {
	if len(c.Mean) == 0 {
		return invalidf("DiagNormalConfig.Mean: diagonal normal mean must not be empty")
	}
	if len(c.Variances) != len(c.Mean) {
		return invalidf("DiagNormalConfig.Variances: diagonal normal needs %d variances (one per entry of Mean), got %d", len(c.Mean), len(c.Variances))
	}
	for i, m := range c.Mean {
		if err := checkLocation("DiagNormalConfig.Mean["+strconv.Itoa(i)+"]: diagonal normal", "mean", m); err != nil {
			return err
		}
		if err := checkScale("DiagNormalConfig.Variances["+strconv.Itoa(i)+"]: diagonal normal", "variance", c.Variances[i]); err != nil {
			return err
		}
	}
	return nil
}

// NewDiagNormal returns N(cfg.Mean, diag(cfg.Variances)), refusing what
// cfg.Validate refuses. It copies cfg.Mean.
func NewDiagNormal(cfg DiagNormalConfig) (*MVNormal, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := len(cfg.Mean)
	cov := make([]float64, d*d)
	for i, v := range cfg.Variances {
		cov[i*d+i] = v
	}
	return MVNormalConfig{Mean: cfg.Mean, Cov: cov}.build("DiagNormalConfig")
}

// Dim is the dimension.
func (p *MVNormal) Dim() int { return len(p.mean) }

// Mean returns a copy of the mean vector (nil for a nil or unconstructed
// MVNormal).
func (p *MVNormal) Mean() []float64 {
	if p == nil || !p.valid() {
		return nil
	}
	return append([]float64(nil), p.mean...)
}

// Cov returns the covariance matrix, row-major d×d, recomputed as LLᵀ
// from the stored Cholesky factor L (so equal to the configured matrix up
// to rounding); nil for a nil or unconstructed MVNormal.
func (p *MVNormal) Cov() []float64 {
	if p == nil || !p.valid() {
		return nil
	}
	d := len(p.mean)
	cov := make([]float64, d*d)
	for i := range d {
		for j := range i + 1 {
			v := 0.0
			for k := range j + 1 {
				v += p.chol[i*d+k] * p.chol[j*d+k]
			}
			cov[i*d+j], cov[j*d+i] = v, v
		}
	}
	return cov
}

// Sample draws mean + L z with z standard normal.
// It panics if r is nil or len(theta) < Dim (a programmer error).
func (p *MVNormal) Sample(r *rand.Rand, theta []float64) {
	mustSample(r, theta, p.Dim())
	d := len(p.mean)
	// z is written into theta; the lower-triangular product is formed in
	// place from the last coordinate down.
	for i := range d {
		theta[i] = r.NormFloat64()
	}
	for i := d - 1; i >= 0; i-- {
		s := 0.0
		for k := 0; k <= i; k++ {
			s += p.chol[i*d+k] * theta[k]
		}
		theta[i] = s
	}
	for i := range d {
		theta[i] += p.mean[i]
	}
}

// LogDensity is the multivariate normal log density; NaN if
// len(theta) ≠ Dim.
func (p *MVNormal) LogDensity(theta []float64) float64 {
	d := len(p.mean)
	if len(theta) != d {
		return math.NaN()
	}
	// Solve L z = θ − mean by forward substitution; the quadratic form is
	// |z|². Small dimensions use a stack buffer and allocate nothing.
	var buf [16]float64
	var z []float64
	if d <= len(buf) {
		z = buf[:d]
	} else {
		z = make([]float64, d)
	}
	q := 0.0
	for i := range d {
		s := theta[i] - p.mean[i]
		for k := range i {
			s -= p.chol[i*d+k] * z[k]
		}
		z[i] = s / p.chol[i*d+i]
		q += z[i] * z[i]
	}
	return -0.5*q - 0.5*p.logDet - float64(d)*logSqrt2Pi
}

// Dirichlet is the Dirichlet distribution on the probability simplex.
type Dirichlet struct{ alpha []float64 }

// SimplexTol is the tolerance |Σθ − 1| within which Dirichlet.LogDensity
// treats θ as on the simplex.
const SimplexTol = variate.DirichletTol

// NewDirichlet returns Dirichlet(alpha) with at least two concentrations,
// each finite, normal (not subnormal), > 0 and ≤ 1e20. Components of
// draws with small concentrations may round to 0, where LogDensity is
// +Inf (the density's pole), never NaN.
func NewDirichlet(alpha []float64) (*Dirichlet, error) {
	if len(alpha) < 2 {
		return nil, invalidf("Dirichlet needs at least 2 concentrations, got %d", len(alpha))
	}
	for i, a := range alpha {
		if err := checkScale("Dirichlet", "concentration", a); err != nil {
			return nil, invalidf("Dirichlet concentration %d: %v", i, err)
		}
		if a > maxShape {
			return nil, invalidf("Dirichlet concentration %d must be <= %g, got %v", i, maxShape, a)
		}
	}
	return &Dirichlet{alpha: append([]float64(nil), alpha...)}, nil
}

// Dim is the number of categories.
func (p *Dirichlet) Dim() int { return len(p.alpha) }

// Alpha returns a copy of the concentrations.
func (p *Dirichlet) Alpha() []float64 { return append([]float64(nil), p.alpha...) }

// Sample draws normalised independent gammas (combined in log space for
// concentrations below one, so small α never gives 0/0).
// It panics if r is nil or len(theta) < Dim (a programmer error).
func (p *Dirichlet) Sample(r *rand.Rand, theta []float64) {
	mustSample(r, theta, p.Dim())
	variate.Dirichlet(r, p.alpha, theta[:len(p.alpha)])
}

// LogDensity is the Dirichlet log density with respect to Lebesgue
// measure on the first Dim−1 coordinates; −Inf off the simplex (a
// negative entry or a sum differing from 1 by more than SimplexTol), NaN
// if len(theta) ≠ Dim or θ has a NaN.
func (p *Dirichlet) LogDensity(theta []float64) float64 {
	return variate.DirichletLogPdf(theta, p.alpha)
}

// Concat is a prior whose blocks are independent priors laid end to end,
// e.g. the naive Bayes model's product of Dirichlets.
type Concat struct {
	blocks []Prior
	dim    int
}

// NewConcat returns the product of the given block priors (at least one,
// none nil, each of dimension ≥ 1).
func NewConcat(blocks ...Prior) (*Concat, error) {
	if len(blocks) == 0 {
		return nil, invalidf("concatenated prior needs at least one block")
	}
	d := 0
	for i, b := range blocks {
		if b == nil {
			return nil, invalidf("concatenated prior block %d is nil", i)
		}
		if err := checkBuilt("concatenated prior block "+strconv.Itoa(i), b); err != nil {
			return nil, err
		}
		if b.Dim() < 1 {
			return nil, invalidf("concatenated prior block %d has dimension %d", i, b.Dim())
		}
		d += b.Dim()
	}
	return &Concat{append([]Prior(nil), blocks...), d}, nil
}

// Dim is the total dimension.
func (p *Concat) Dim() int { return p.dim }

// Sample draws every block.
// It panics if r is nil or len(theta) < Dim (a programmer error).
func (p *Concat) Sample(r *rand.Rand, theta []float64) {
	mustSample(r, theta, p.Dim())
	o := 0
	for _, b := range p.blocks {
		b.Sample(r, theta[o:o+b.Dim()])
		o += b.Dim()
	}
}

// LogDensity sums the block log densities; NaN if len(theta) ≠ Dim.
func (p *Concat) LogDensity(theta []float64) float64 {
	if len(theta) != p.dim {
		return math.NaN()
	}
	o, s := 0, 0.0
	for _, b := range p.blocks {
		s += b.LogDensity(theta[o : o+b.Dim()])
		o += b.Dim()
	}
	return s
}

// mustSample panics on the programmer errors a Prior's Sample documents: a
// nil random source or a destination shorter than the prior's dimension.
func mustSample(r *rand.Rand, theta []float64, d int) {
	if r == nil {
		panic("simulate: Sample with a nil *rand.Rand")
	}
	if len(theta) < d {
		panic(fmt.Sprintf("simulate: Sample into theta of length %d, need %d", len(theta), d))
	}
}
