package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// problem is one problem of the suite: a prior, a simulator of the
// confidential summary, an optional mechanism, and the exact (or
// asymptotically exact) posterior at any observation.
type problem struct {
	name       string
	dim, xdim  int
	prior      simulate.Prior
	sim        func(r *rand.Rand, theta, s []float64) // the confidential summary s(x)
	mech       *mechanism.Laplace                     // nil without a mechanism
	lo, hi     float64                                // the box of a bounded prior (lo < hi), else lo = hi = 0
	peerPrior  string                                 // the prior as JSON for the peer script
	reference  func(r *rand.Rand, xo []float64, n int) []float64
	moments    func(xo []float64) (mean, variance []float64) // by closed form or quadrature independent of reference
	logPost    func(xo, theta []float64) float64             // the exact log posterior density (normalised by quadrature on the grid problems)
	descriptor string
}

// bounded reports whether the prior is a box.
func (p *problem) bounded() bool { return p.lo < p.hi }

// release writes the observed release of the summary s: s itself without
// a mechanism, the mechanism's law applied to s with uniforms from r
// otherwise.
func (p *problem) release(r *rand.Rand, s, dst []float64) {
	if p.mech == nil {
		copy(dst, s)
		return
	}
	u := make([]float64, p.mech.NoiseDim(len(s)))
	for i := range u {
		u[i] = r.Float64()
	}
	p.mech.Apply(u, s, dst)
}

// simulator adapts a problem's simulator to simulate.Simulator.
type simulator struct{ p *problem }

func (s simulator) StatDim() int { return s.p.xdim }

func (s simulator) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != s.p.dim || len(dst) != s.p.xdim {
		return fmt.Errorf("%s: θ of length %d and dst of %d, want %d and %d", s.p.name, len(theta), len(dst), s.p.dim, s.p.xdim)
	}
	s.p.sim(r, theta, dst)
	return nil
}

// Sizes of the suite's families of problems.
var suiteDims = []int{2, 5, 10, 20}

// problemNames lists the suite in its order.
func problemNames() []string {
	var names []string
	for _, d := range suiteDims {
		names = append(names, "gauss"+strconv.Itoa(d))
	}
	for _, d := range suiteDims {
		names = append(names, "uniform"+strconv.Itoa(d))
	}
	return append(names, "studentt2", "bimodal2", "ridge2", "laplace1")
}

// newProblem builds the problem of the given name.
func newProblem(name string) (*problem, error) {
	switch {
	case strings.HasPrefix(name, "gauss"):
		d, err := strconv.Atoi(strings.TrimPrefix(name, "gauss"))
		if err != nil || d < 1 || d > 100 {
			break
		}
		return gaussProblem(name, d)
	case strings.HasPrefix(name, "uniform"):
		d, err := strconv.Atoi(strings.TrimPrefix(name, "uniform"))
		if err != nil || d < 1 || d > 100 {
			break
		}
		return uniformProblem(name, d)
	case name == "studentt2":
		return studentProblem(name)
	case name == "bimodal2":
		return bimodalProblem(name)
	case name == "ridge2":
		return ridgeProblem(name)
	case name == "laplace1":
		return laplaceProblem(name)
	}
	return nil, fmt.Errorf("unknown problem %q (known: %s, or gaussD and uniformD for another dimension D in [1, 100])", name, strings.Join(problemNames(), ", "))
}

// normalPrior is N(0, sd²I) in d dimensions, with its JSON for the peer.
func normalPrior(d int, sd float64) (simulate.Prior, string, error) {
	mean, vars := make([]float64, d), make([]float64, d)
	for i := range vars {
		vars[i] = sd * sd
	}
	p, err := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: mean, Variances: vars})
	if err != nil {
		return nil, "", err
	}
	return p, fmt.Sprintf(`{"kind": "normal", "dim": %d, "sd": %g}`, d, sd), nil
}

// linearGaussian is the posterior of θ ~ N(0, I) given x = Aθ + ε,
// ε ~ N(0, diag(s²)): precision P = I + AᵀD⁻¹A, mean P⁻¹AᵀD⁻¹x.
type linearGaussian struct {
	d, m int
	a    []float64 // m×d
	s    []float64 // noise sds, m
	cov  []float64 // P⁻¹, d×d
	chol []float64 // lower Cholesky factor of cov
}

func newLinearGaussian(d, m int, a, s []float64) (*linearGaussian, error) {
	p := make([]float64, d*d)
	for i := range d {
		p[i*d+i] = 1
		for j := range d {
			for k := range m {
				p[i*d+j] += a[k*d+i] * a[k*d+j] / (s[k] * s[k])
			}
		}
	}
	cov, err := invertSPD(p, d)
	if err != nil {
		return nil, err
	}
	l, err := cholesky(cov, d)
	if err != nil {
		return nil, err
	}
	return &linearGaussian{d: d, m: m, a: a, s: s, cov: cov, chol: l}, nil
}

func (g *linearGaussian) simulate(r *rand.Rand, theta, x []float64) {
	for k := range g.m {
		v := g.s[k] * r.NormFloat64()
		for j := range g.d {
			v += g.a[k*g.d+j] * theta[j]
		}
		x[k] = v
	}
}

func (g *linearGaussian) mean(x []float64) []float64 {
	b := make([]float64, g.d)
	for j := range g.d {
		for k := range g.m {
			b[j] += g.a[k*g.d+j] * x[k] / (g.s[k] * g.s[k])
		}
	}
	mu := make([]float64, g.d)
	for i := range g.d {
		for j := range g.d {
			mu[i] += g.cov[i*g.d+j] * b[j]
		}
	}
	return mu
}

func (g *linearGaussian) reference(r *rand.Rand, xo []float64, n int) []float64 {
	mu := g.mean(xo)
	out := make([]float64, n*g.d)
	z := make([]float64, g.d)
	for i := range n {
		for j := range z {
			z[j] = r.NormFloat64()
		}
		for j := range g.d {
			v := mu[j]
			for k := 0; k <= j; k++ {
				v += g.chol[j*g.d+k] * z[k]
			}
			out[i*g.d+j] = v
		}
	}
	return out
}

func (g *linearGaussian) logPost(xo, theta []float64) float64 {
	mu := g.mean(xo)
	// Solve L z = θ − μ; log N = −½|z|² − Σ log L_ii − d/2 log 2π.
	z := make([]float64, g.d)
	var s float64
	for i := range g.d {
		v := theta[i] - mu[i]
		for k := range i {
			v -= g.chol[i*g.d+k] * z[k]
		}
		z[i] = v / g.chol[i*g.d+i]
		s += -z[i]*z[i]/2 - math.Log(g.chol[i*g.d+i])
	}
	return s - float64(g.d)/2*math.Log(2*math.Pi)
}

func (g *linearGaussian) moments(xo []float64) (mean, variance []float64) {
	variance = make([]float64, g.d)
	for j := range variance {
		variance[j] = g.cov[j*g.d+j]
	}
	return g.mean(xo), variance
}

// gaussProblem: θ ~ N(0, I_d), x = θ + N(0, 0.5² I_d); the posterior is
// N(0.8x, 0.2 I_d).
func gaussProblem(name string, d int) (*problem, error) {
	a, s := make([]float64, d*d), make([]float64, d)
	for i := range d {
		a[i*d+i], s[i] = 1, 0.5
	}
	return linearProblem(name, d, a, s, fmt.Sprintf("θ ~ N(0, I_%d), x = θ + N(0, 0.5²·I): Gaussian posterior (closed form)", d))
}

// ridgeProblem: θ ~ N(0, I_2), x₁ = θ₁ + θ₂ + N(0, 0.1²), x₂ = θ₁ − θ₂ +
// N(0, 1): a Gaussian posterior with correlation about −0.97.
func ridgeProblem(name string) (*problem, error) {
	return linearProblem(name, 2, []float64{1, 1, 1, -1}, []float64{0.1, 1},
		"θ ~ N(0, I_2), x = (θ₁+θ₂ + N(0, 0.1²), θ₁−θ₂ + N(0, 1)): Gaussian posterior with correlation −0.97 (closed form)")
}

func linearProblem(name string, d int, a, s []float64, desc string) (*problem, error) {
	g, err := newLinearGaussian(d, len(s), a, s)
	if err != nil {
		return nil, err
	}
	prior, js, err := normalPrior(d, 1)
	if err != nil {
		return nil, err
	}
	return &problem{name: name, dim: d, xdim: len(s), prior: prior, sim: g.simulate, peerPrior: js,
		reference: g.reference, moments: g.moments, logPost: g.logPost, descriptor: desc}, nil
}

// uniformProblem: θ ~ U[−1, 1]^d, x = θ + N(0, 0.1·I_d) (sbibm's
// "Gaussian linear uniform" in d = 10); the posterior is the product of
// N(x_i, 0.1) truncated to [−1, 1], drawn exactly.
func uniformProblem(name string, d int) (*problem, error) {
	const lo, hi = -1.0, 1.0
	sd := math.Sqrt(0.1)
	comps := make([]simulate.Univariate, d)
	for i := range comps {
		u, err := simulate.NewUniform(simulate.UniformConfig{Lo: lo, Hi: hi})
		if err != nil {
			return nil, err
		}
		comps[i] = u
	}
	prior, err := simulate.NewIndependent(comps...)
	if err != nil {
		return nil, err
	}
	sim := func(r *rand.Rand, theta, x []float64) {
		for i := range theta {
			x[i] = theta[i] + sd*r.NormFloat64()
		}
	}
	ref := func(r *rand.Rand, xo []float64, n int) []float64 {
		out := make([]float64, n*d)
		for j := range d {
			nm, err := simulate.NewNormal(simulate.NormalConfig{Mu: xo[j], Sigma: sd})
			if err != nil {
				panic(err) // xo is finite: checked by the caller
			}
			t, err := simulate.Truncate(nm, lo, hi)
			if err != nil {
				panic(err)
			}
			for i := range n {
				out[i*d+j] = t.Sample(r)
			}
		}
		return out
	}
	mom := func(xo []float64) (mean, variance []float64) {
		mean, variance = make([]float64, d), make([]float64, d)
		for j := range d {
			mean[j], variance[j] = truncNormalMoments(xo[j], sd, lo, hi)
		}
		return mean, variance
	}
	logPost := func(xo, theta []float64) float64 {
		var s float64
		for j, t := range theta {
			if t < lo || t > hi {
				return math.Inf(-1)
			}
			a, b := (lo-xo[j])/sd, (hi-xo[j])/sd
			z := 0.5 * (math.Erfc(-b/math.Sqrt2) - math.Erfc(-a/math.Sqrt2))
			e := (t - xo[j]) / sd
			s += -e*e/2 - math.Log(sd*math.Sqrt(2*math.Pi)*z)
		}
		return s
	}
	return &problem{name: name, dim: d, xdim: d, prior: prior, sim: sim, lo: lo, hi: hi, logPost: logPost,
		peerPrior: fmt.Sprintf(`{"kind": "box", "dim": %d, "low": %g, "high": %g}`, d, lo, hi),
		reference: ref, moments: mom,
		descriptor: fmt.Sprintf("θ ~ U[−1, 1]^%d, x = θ + N(0, 0.1·I): truncated Gaussian posterior (exact draws)", d)}, nil
}

// truncNormalMoments returns the mean and variance of N(mu, sd²)
// truncated to [lo, hi].
func truncNormalMoments(mu, sd, lo, hi float64) (mean, variance float64) {
	a, b := (lo-mu)/sd, (hi-mu)/sd
	phi := func(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
	z := 0.5 * (math.Erfc(-b/math.Sqrt2) - math.Erfc(-a/math.Sqrt2))
	r := (phi(a) - phi(b)) / z
	mean = mu + sd*r
	variance = sd * sd * (1 + (a*phi(a)-b*phi(b))/z - r*r)
	return mean, variance
}

// gridPosterior is an independent posterior whose coordinate j has the
// unnormalised log density logp(j, θ_j, xo), drawn by inverse CDF on a
// fine grid of [lo, hi] (piecewise-constant density, uniform within a
// cell): asymptotically exact as the cells shrink.
type gridPosterior struct {
	d      int
	lo, hi float64
	cells  int
	logp   func(j int, t float64, xo []float64) float64
}

func (g *gridPosterior) cdf(j int, xo []float64) []float64 {
	h := (g.hi - g.lo) / float64(g.cells)
	lp := make([]float64, g.cells)
	top := math.Inf(-1)
	for i := range lp {
		lp[i] = g.logp(j, g.lo+(float64(i)+0.5)*h, xo)
		top = math.Max(top, lp[i])
	}
	c := make([]float64, g.cells+1)
	for i, v := range lp {
		c[i+1] = c[i] + math.Exp(v-top)
	}
	for i := range c {
		c[i] /= c[g.cells]
	}
	return c
}

func (g *gridPosterior) reference(r *rand.Rand, xo []float64, n int) []float64 {
	out := make([]float64, n*g.d)
	h := (g.hi - g.lo) / float64(g.cells)
	for j := range g.d {
		c := g.cdf(j, xo)
		for i := range n {
			u := r.Float64()
			k := sort.SearchFloat64s(c, u) - 1 // c[k] < u ≤ c[k+1]
			k = min(max(k, 0), g.cells-1)
			w := (u - c[k]) / (c[k+1] - c[k])
			out[i*g.d+j] = g.lo + (float64(k)+w)*h
		}
	}
	return out
}

// simpsonWeight is Simpson's-rule weight 1, 4, 2, 4, …, 4, 1 of node i
// of n intervals (n even), before the factor h/3.
func simpsonWeight(i, n int) float64 {
	switch {
	case i == 0 || i == n:
		return 1
	case i%2 == 1:
		return 4
	}
	return 2
}

// simpson integrates f over [lo, hi] by Simpson's rule with n intervals
// (n even).
func simpson(f func(t float64) float64, lo, hi float64, n int) float64 {
	h := (hi - lo) / float64(n)
	var s float64
	for i := 0; i <= n; i++ {
		s += simpsonWeight(i, n) * f(lo+float64(i)*h)
	}
	return s * h / 3
}

// quadMoments computes coordinate j's posterior mean and variance by
// Simpson's rule on [lo, hi] with n intervals, independently of the
// sampler's grid.
func quadMoments(logp func(t float64) float64, lo, hi float64, n int) (mean, variance float64) {
	h := (hi - lo) / float64(n)
	top := math.Inf(-1)
	for i := 0; i <= n; i++ {
		top = math.Max(top, logp(lo+float64(i)*h))
	}
	var m0, m1, m2 float64
	for i := 0; i <= n; i++ {
		t := lo + float64(i)*h
		f := simpsonWeight(i, n) * math.Exp(logp(t)-top)
		m0 += f
		m1 += f * t
		m2 += f * t * t
	}
	mean = m1 / m0
	return mean, m2/m0 - mean*mean
}

// gridProblem assembles a problem with a N(0, I_d) prior and a gridded
// independent posterior.
func gridProblem(name string, d, xdim int, sim func(r *rand.Rand, theta, x []float64),
	loglik func(j int, t float64, xo []float64) float64, desc string) (*problem, error) {
	prior, js, err := normalPrior(d, 1)
	if err != nil {
		return nil, err
	}
	logp := func(j int, t float64, xo []float64) float64 { return -t*t/2 + loglik(j, t, xo) }
	g := &gridPosterior{d: d, lo: -8, hi: 8, cells: 1 << 14, logp: logp}
	mom := func(xo []float64) (mean, variance []float64) {
		mean, variance = make([]float64, d), make([]float64, d)
		for j := range d {
			mean[j], variance[j] = quadMoments(func(t float64) float64 { return logp(j, t, xo) }, -12, 12, 60000)
		}
		return mean, variance
	}
	// The log density, normalised by quadrature per coordinate (cached
	// per observation).
	norms := map[string][]float64{}
	logPost := func(xo, theta []float64) float64 {
		key := fmt.Sprint(xo)
		z, ok := norms[key]
		if !ok {
			z = make([]float64, d)
			for j := range d {
				f := func(t float64) float64 { return logp(j, t, xo) }
				top := math.Inf(-1)
				const n = 60000
				h := 24.0 / n
				for i := 0; i <= n; i++ {
					top = math.Max(top, f(-12+float64(i)*h))
				}
				var m0 float64
				for i := 0; i <= n; i++ {
					w := 2.0
					switch {
					case i == 0 || i == n:
						w = 1
					case i%2 == 1:
						w = 4
					}
					m0 += w * math.Exp(f(-12+float64(i)*h)-top)
				}
				z[j] = top + math.Log(m0*h/3)
			}
			norms[key] = z
		}
		var s float64
		for j, t := range theta {
			s += logp(j, t, xo) - z[j]
		}
		return s
	}
	return &problem{name: name, dim: d, xdim: xdim, prior: prior, sim: sim, peerPrior: js,
		reference: g.reference, moments: mom, logPost: logPost, descriptor: desc}, nil
}

// studentProblem: θ ~ N(0, I_2), three observations of each coordinate
// with Student t noise, x_{j,k} = θ_j + 0.5·t₃; the posterior is the
// product of one-dimensional posteriors, heavy-tailed and bimodal when
// the observations disagree, drawn on a grid.
func studentProblem(name string) (*problem, error) {
	const reps, scale, nu = 3, 0.5, 3.0
	sim := func(r *rand.Rand, theta, x []float64) {
		for j := range theta {
			for k := range reps {
				x[j*reps+k] = theta[j] + scale*studentT(r, nu)
			}
		}
	}
	loglik := func(j int, t float64, xo []float64) float64 {
		var s float64
		for k := range reps {
			z := (xo[j*reps+k] - t) / scale
			s -= (nu + 1) / 2 * math.Log1p(z*z/nu)
		}
		return s
	}
	return gridProblem(name, 2, 2*reps, sim, loglik,
		"θ ~ N(0, I_2), x_{j,k} = θ_j + 0.5·t₃ (k = 1..3): heavy-tailed likelihood (grid inverse CDF)")
}

// studentT draws from Student's t with nu degrees of freedom.
func studentT(r *rand.Rand, nu float64) float64 {
	// χ²_ν/ν for ν = 3 as a sum of squares of normals.
	var c float64
	for range int(nu) {
		z := r.NormFloat64()
		c += z * z
	}
	return r.NormFloat64() / math.Sqrt(c/nu)
}

// bimodalProblem: θ ~ N(0, I_2), x_j = θ_j² + N(0, 0.3²): each coordinate's
// posterior has modes at ±√x_j when x_j is well above 0, so the joint
// posterior has up to four; drawn on a grid.
func bimodalProblem(name string) (*problem, error) {
	const sd = 0.3
	sim := func(r *rand.Rand, theta, x []float64) {
		for j := range theta {
			x[j] = theta[j]*theta[j] + sd*r.NormFloat64()
		}
	}
	loglik := func(j int, t float64, xo []float64) float64 {
		z := (xo[j] - t*t) / sd
		return -z * z / 2
	}
	return gridProblem(name, 2, 2, sim, loglik,
		"θ ~ N(0, I_2), x_j = θ_j² + N(0, 0.3²): up to four modes (grid inverse CDF)")
}

// Settings of the Laplace release: the mean of laplaceRecords records
// N(μ, 1) released with Laplace noise of scale laplaceScale
// (sensitivity 1, ε = 2).
const (
	laplaceRecords = 10
	laplaceScale   = 0.5
)

// laplaceProblem: μ ~ N(0, 1), records x_1..x_10 ~ N(μ, 1), the release
// is their mean plus Laplace noise of scale 0.5 (the Laplace mechanism
// with sensitivity 1 and ε = 2); the likelihood of the release is the
// convolution of N(μ, 1/10) with the Laplace law, in closed form, and the
// posterior is drawn on a grid.
func laplaceProblem(name string) (*problem, error) {
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 1, Epsilon: 1 / laplaceScale, Dim: 1})
	if err != nil {
		return nil, err
	}
	tau := 1 / math.Sqrt(laplaceRecords)
	sim := func(r *rand.Rand, theta, s []float64) {
		var m float64
		for range laplaceRecords {
			m += theta[0] + r.NormFloat64()
		}
		s[0] = m / laplaceRecords
	}
	loglik := func(_ int, t float64, xo []float64) float64 { return logNormalLaplace(xo[0]-t, tau, laplaceScale) }
	p, err := gridProblem(name, 1, 1, sim, loglik,
		"μ ~ N(0, 1), the mean of 10 records N(μ, 1) released with Laplace noise of scale 0.5 (grid inverse CDF of the exact likelihood)")
	if err != nil {
		return nil, err
	}
	p.mech = mech
	return p, nil
}

// logNormalLaplace is the log density at z of the sum of N(0, τ²) and a
// Laplace variable of scale b:
//
//	f(z) = e^{τ²/2b²}/(4b) · [e^{−z/b} erfc((τ²/b − z)/(√2τ)) + e^{z/b} erfc((τ²/b + z)/(√2τ))].
func logNormalLaplace(z, tau, b float64) float64 {
	c := tau * tau / (2 * b * b)
	u1 := (tau*tau/b - z) / (math.Sqrt2 * tau)
	u2 := (tau*tau/b + z) / (math.Sqrt2 * tau)
	l1 := c - z/b + logErfc(u1)
	l2 := c + z/b + logErfc(u2)
	m := math.Max(l1, l2)
	return m + math.Log(math.Exp(l1-m)+math.Exp(l2-m)) - math.Log(4*b)
}

// logErfc returns log erfc(u), accurate for large u by the asymptotic
// expansion.
func logErfc(u float64) float64 {
	if u < 20 {
		return math.Log(math.Erfc(u))
	}
	// erfc(u) ≈ e^{−u²}/(u√π)·(1 − 1/(2u²) + 3/(4u⁴))
	return -u*u - math.Log(u*math.Sqrt(math.Pi)) + math.Log1p(-1/(2*u*u)+3/(4*u*u*u*u))
}

// invertSPD inverts a symmetric positive-definite d×d matrix by
// Gauss–Jordan elimination.
func invertSPD(a []float64, d int) ([]float64, error) {
	m := append([]float64(nil), a...)
	inv := make([]float64, d*d)
	for i := range d {
		inv[i*d+i] = 1
	}
	for c := range d {
		p := m[c*d+c]
		if !(p > 0) {
			return nil, fmt.Errorf("matrix not positive definite")
		}
		for j := range d {
			m[c*d+j] /= p
			inv[c*d+j] /= p
		}
		for r := range d {
			if r == c {
				continue
			}
			f := m[r*d+c]
			for j := range d {
				m[r*d+j] -= f * m[c*d+j]
				inv[r*d+j] -= f * inv[c*d+j]
			}
		}
	}
	return inv, nil
}

// cholesky returns the lower Cholesky factor of a symmetric
// positive-definite d×d matrix.
func cholesky(a []float64, d int) ([]float64, error) {
	l := make([]float64, d*d)
	for i := range d {
		for j := 0; j <= i; j++ {
			s := a[i*d+j]
			for k := range j {
				s -= l[i*d+k] * l[j*d+k]
			}
			if i == j {
				if !(s > 0) {
					return nil, fmt.Errorf("matrix not positive definite")
				}
				l[i*d+i] = math.Sqrt(s)
			} else {
				l[i*d+j] = s / l[j*d+j]
			}
		}
	}
	return l, nil
}
