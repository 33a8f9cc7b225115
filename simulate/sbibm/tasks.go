package sbibm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Task names: the benchmark's directory names of the tasks.
const (
	TwoMoons        = "two_moons"
	GaussianLinear  = "gaussian_linear"
	SLCP            = "slcp"
	GaussianMixture = "gaussian_mixture"
)

// Observations is the number of observations the benchmark fixes for each
// task; they are numbered 1 to Observations.
const Observations = 10

// Names returns the names of the tasks the package provides.
func Names() []string { return []string{TwoMoons, GaussianLinear, SLCP, GaussianMixture} }

// Simulator is a task's simulator: a simulate.Simulator of the task's data
// x (the benchmark's "observation"; there is no summary and no mechanism)
// that also evaluates the likelihood. It allocates nothing and is safe for
// concurrent use.
type Simulator interface {
	simulate.Simulator
	// ParamDim is the length of θ.
	ParamDim() int
	// LogLikelihood returns log p(x | θ), the log density of the law of
	// Simulate; −Inf where x is impossible under θ, NaN when θ or x has
	// the wrong length or a NaN entry.
	LogLikelihood(theta, x []float64) float64
}

// Task is one benchmark task: its name, prior and simulator. The zero value
// is not a task: its methods return nil or errors.
type Task struct {
	name  string
	prior simulate.Prior
	sim   Simulator
}

// New returns the task of the given name (one of Names).
func New(name string) (*Task, error) {
	switch name {
	case TwoMoons:
		return NewTwoMoons(), nil
	case GaussianLinear:
		return NewGaussianLinear(), nil
	case SLCP:
		return NewSLCP(), nil
	case GaussianMixture:
		return NewGaussianMixture(), nil
	}
	return nil, fmt.Errorf("%w: sbibm has no task %q (known: %v)", simulate.ErrInvalid, name, Names())
}

// must panics on a constructor error, which the package's fixed, valid
// settings never produce.
func must[T any](v T, err error) T {
	if err != nil {
		panic("sbibm: " + err.Error())
	}
	return v
}

// uniformBox returns the prior U[lo, hi]^d.
func uniformBox(d int, lo, hi float64) simulate.Prior {
	c := make([]simulate.Univariate, d)
	for i := range c {
		c[i] = must(simulate.NewUniform(simulate.UniformConfig{Lo: lo, Hi: hi}))
	}
	return must(simulate.NewIndependent(c...))
}

// Name returns the task's name ("two_moons", …), also its directory name
// in the benchmark's files; "" for the zero value.
func (t *Task) Name() string {
	if t == nil {
		return ""
	}
	return t.name
}

// Prior returns the task's prior; nil for the zero value.
func (t *Task) Prior() simulate.Prior {
	if t == nil {
		return nil
	}
	return t.prior
}

// Simulator returns the task's simulator; nil for the zero value.
func (t *Task) Simulator() Simulator {
	if t == nil {
		return nil
	}
	return t.sim
}

// Dim returns the length of θ; 0 for the zero value.
func (t *Task) Dim() int {
	if t == nil || t.sim == nil {
		return 0
	}
	return t.sim.ParamDim()
}

// DataDim returns the length of x; 0 for the zero value.
func (t *Task) DataDim() int {
	if t == nil || t.sim == nil {
		return 0
	}
	return t.sim.StatDim()
}

// ParamNames returns the benchmark's parameter names parameter_1, …,
// parameter_d, the column names of its reference files.
func (t *Task) ParamNames() []string {
	names := make([]string, t.Dim())
	for i := range names {
		names[i] = "parameter_" + strconv.Itoa(i+1)
	}
	return names
}

// LogLikelihood returns log p(x | θ) of the task's simulator; NaN for the
// zero value.
func (t *Task) LogLikelihood(theta, x []float64) float64 {
	if t == nil || t.sim == nil {
		return math.NaN()
	}
	return t.sim.LogLikelihood(theta, x)
}

// Problem returns the non-private inference problem of the task at the
// observation x (length DataDim, copied): the task's prior and simulator,
// no mechanism, and the parameter names of ParamNames. It is validated.
func (t *Task) Problem(x []float64) (privinfer.Problem, error) {
	if t == nil || t.sim == nil {
		return privinfer.Problem{}, modelutil.ErrUnbuilt("sbibm.Task")
	}
	p := privinfer.Problem{Prior: t.prior, Simulator: t.sim, Observed: slices.Clone(x), Names: t.ParamNames()}
	if err := p.Validate(); err != nil {
		return privinfer.Problem{}, argcheck.Also(err, simulate.ErrInvalid)
	}
	return p, nil
}

// checkCall validates the arguments of a Simulate call.
func checkCall(name string, r *rand.Rand, theta, dst []float64, d, sd int) error {
	if err := modelutil.CheckRand(r); err != nil {
		return err
	}
	if err := modelutil.CheckFinite(name, theta, d); err != nil {
		return err
	}
	if len(dst) != sd {
		return fmt.Errorf("%w: %s dst must have length %d, got %d", simulate.ErrInvalid, name, sd, len(dst))
	}
	return nil
}

// lengthsOK reports whether θ and x have lengths d and sd and no NaN.
func lengthsOK(theta, x []float64, d, sd int) bool {
	if len(theta) != d || len(x) != sd {
		return false
	}
	for _, v := range theta {
		if math.IsNaN(v) {
			return false
		}
	}
	for _, v := range x {
		if math.IsNaN(v) {
			return false
		}
	}
	return true
}

const (
	logSqrt2Pi = 0.91893853320467274178032973640562 // log √(2π)
	log2Pi     = 2 * logSqrt2Pi
)

// ---- two moons ----

// Settings of the two-moons simulator (sbibm task two_moons).
const (
	TwoMoonsOffset = 0.25 // the moon's offset along the first axis
	TwoMoonsRadius = 0.1  // mean of the radius
	TwoMoonsRadSD  = 0.01 // standard deviation of the radius
)

// NewTwoMoons returns the two-moons task: θ ~ U[−1, 1]², and
//
//	a ~ U(−π/2, π/2), r ~ N(0.1, 0.01²),
//	p = (r cos a + 0.25, r sin a),
//	x = p + (−|θ₁ + θ₂|/√2, (θ₂ − θ₁)/√2),
//
// the benchmark's map of θ rotated by −π/4 with the first coordinate
// folded. The posterior is bimodal and crescent-shaped.
func NewTwoMoons() *Task {
	return &Task{name: TwoMoons, prior: uniformBox(2, -1, 1), sim: twoMoons{}}
}

type twoMoons struct{}

func (twoMoons) StatDim() int  { return 2 }
func (twoMoons) ParamDim() int { return 2 }

// shift returns the θ-dependent translation of the two-moons simulator.
func (twoMoons) shift(theta []float64) (float64, float64) {
	z0 := (theta[0] + theta[1]) / math.Sqrt2
	z1 := (theta[1] - theta[0]) / math.Sqrt2
	return -math.Abs(z0), z1
}

func (m twoMoons) Simulate(r *rand.Rand, theta, dst []float64) error {
	if err := checkCall("two moons", r, theta, dst, 2, 2); err != nil {
		return err
	}
	a := math.Pi * (r.Float64() - 0.5)
	rad := TwoMoonsRadius + TwoMoonsRadSD*r.NormFloat64()
	s0, s1 := m.shift(theta)
	sa, ca := math.Sincos(a)
	dst[0] = rad*ca + TwoMoonsOffset + s0
	dst[1] = rad*sa + s1
	return nil
}

// LogLikelihood is the exact density of x: with (u, v) = p − (0.25, 0) and
// r = |(u, v)|, p(x | θ) = φ((r − 0.1)/0.01)/0.01 · 1/(π r) for u > 0 and
// 0 otherwise (the law of (a, r) in polar coordinates; the benchmark's
// _likelihood omits the factor 1/(π r)). A negative radius, of
// probability below 10⁻²², is neglected.
func (m twoMoons) LogLikelihood(theta, x []float64) float64 {
	if !lengthsOK(theta, x, 2, 2) {
		return math.NaN()
	}
	s0, s1 := m.shift(theta)
	u := x[0] - s0 - TwoMoonsOffset
	v := x[1] - s1
	if !(u > 0) {
		return math.Inf(-1)
	}
	rad := math.Hypot(u, v)
	z := (rad - TwoMoonsRadius) / TwoMoonsRadSD
	return -0.5*z*z - logSqrt2Pi - math.Log(TwoMoonsRadSD) - math.Log(math.Pi*rad)
}

// ---- Gaussian linear ----

// Settings of the Gaussian linear task (sbibm task gaussian_linear with
// its defaults dim = 10, prior_scale = simulator_scale = 0.1). The
// benchmark passes the scales as the inverse of the precision matrix, so
// they are variances.
const (
	GaussianLinearDim      = 10
	GaussianLinearPriorVar = 0.1 // prior covariance 0.1·I
	GaussianLinearNoiseVar = 0.1 // simulator covariance 0.1·I
)

// NewGaussianLinear returns the Gaussian linear task: θ ~ N(0, 0.1·I₁₀)
// and x ~ N(θ, 0.1·I₁₀). Its posterior is Gaussian and known in closed
// form (GaussianLinearPosterior).
func NewGaussianLinear() *Task {
	d := GaussianLinearDim
	v := make([]float64, d)
	for i := range v {
		v[i] = GaussianLinearPriorVar
	}
	return &Task{name: GaussianLinear, prior: must(simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: make([]float64, d), Variances: v})), sim: gaussianLinear{}}
}

// GaussianLinearPosterior returns the exact posterior N(mean, cov) of the
// Gaussian linear task at the observation x (length 10): with prior
// precision P = I/0.1 and noise precision Q = I/0.1, cov = (P + Q)⁻¹ and
// mean = cov·Q·x, that is mean = x/2 and cov = 0.05·I. cov is row-major.
func GaussianLinearPosterior(x []float64) (mean, cov []float64, err error) {
	d := GaussianLinearDim
	if len(x) != d {
		return nil, nil, fmt.Errorf("%w: Gaussian linear observation must have length %d, got %d", simulate.ErrInvalid, d, len(x))
	}
	for i, v := range x {
		if !modelutil.Finite(v) {
			return nil, nil, fmt.Errorf("%w: Gaussian linear observation x[%d] must be finite, got %v", simulate.ErrInvalid, i, v)
		}
	}
	pp, pq := 1/GaussianLinearPriorVar, 1/GaussianLinearNoiseVar
	v := 1 / (pp + pq)
	mean = make([]float64, d)
	cov = make([]float64, d*d)
	for i := range d {
		mean[i] = v * pq * x[i]
		cov[i*d+i] = v
	}
	return mean, cov, nil
}

type gaussianLinear struct{}

func (gaussianLinear) StatDim() int  { return GaussianLinearDim }
func (gaussianLinear) ParamDim() int { return GaussianLinearDim }

func (gaussianLinear) Simulate(r *rand.Rand, theta, dst []float64) error {
	d := GaussianLinearDim
	if err := checkCall("Gaussian linear", r, theta, dst, d, d); err != nil {
		return err
	}
	sd := math.Sqrt(GaussianLinearNoiseVar)
	for i := range d {
		dst[i] = theta[i] + sd*r.NormFloat64()
	}
	return nil
}

// LogLikelihood is the log density of N(θ, 0.1·I) at x.
func (gaussianLinear) LogLikelihood(theta, x []float64) float64 {
	d := GaussianLinearDim
	if !lengthsOK(theta, x, d, d) {
		return math.NaN()
	}
	q := 0.0
	for i := range d {
		e := x[i] - theta[i]
		q += e * e
	}
	return -0.5*q/GaussianLinearNoiseVar - float64(d)*(logSqrt2Pi+0.5*math.Log(GaussianLinearNoiseVar))
}

// ---- SLCP ----

// Settings of the SLCP task (sbibm task slcp, without distractors).
const (
	SLCPPoints = 4    // independent 2-D points per simulation
	SLCPJitter = 1e-6 // added to the covariance's diagonal
)

// NewSLCP returns the SLCP task ("simple likelihood, complex posterior"):
// θ ~ U[−3, 3]⁵ and x = (y₁, …, y₄), four independent points
// y_k ~ N(m, S) in R² written one after another (x has length 8), with
//
//	m = (θ₁, θ₂), s₁ = θ₃², s₂ = θ₄², ρ = tanh θ₅,
//	S = [[s₁², ρ s₁ s₂], [ρ s₁ s₂, s₂²]] + 10⁻⁶ I.
//
// The likelihood depends on θ₃ and θ₄ through their squares only, so the
// posterior has four symmetric modes.
func NewSLCP() *Task {
	return &Task{name: SLCP, prior: uniformBox(5, -3, 3), sim: slcp{}}
}

type slcp struct{}

func (slcp) StatDim() int  { return 2 * SLCPPoints }
func (slcp) ParamDim() int { return 5 }

// chol returns the mean and the lower Cholesky factor (l00, l10, l11) of
// the covariance S of θ.
func (slcp) chol(theta []float64) (m0, m1, l00, l10, l11 float64) {
	s1 := theta[2] * theta[2]
	s2 := theta[3] * theta[3]
	rho := math.Tanh(theta[4])
	c00 := s1*s1 + SLCPJitter
	c01 := rho * s1 * s2
	c11 := s2*s2 + SLCPJitter
	l00 = math.Sqrt(c00)
	l10 = c01 / l00
	l11 = math.Sqrt(math.Max(c11-l10*l10, 0))
	// c11 − l10² = s₂²(1 − ρ² s₁²/(s₁² + ε)) + ε ≥ ε; the max guards
	// rounding only.
	return theta[0], theta[1], l00, l10, l11
}

func (m slcp) Simulate(r *rand.Rand, theta, dst []float64) error {
	if err := checkCall("SLCP", r, theta, dst, 5, 2*SLCPPoints); err != nil {
		return err
	}
	m0, m1, l00, l10, l11 := m.chol(theta)
	if math.IsInf(l00, 0) || math.IsInf(l11, 0) || math.IsNaN(l10) || math.IsNaN(l11) {
		// θ_3 or θ_4 beyond about 1e77: the covariance θ⁴ overflows.
		return fmt.Errorf("%w: SLCP θ = %v gives a covariance that overflows", simulate.ErrInvalidTheta, theta)
	}
	for k := range SLCPPoints {
		z0, z1 := r.NormFloat64(), r.NormFloat64()
		dst[2*k] = m0 + l00*z0
		dst[2*k+1] = m1 + l10*z0 + l11*z1
	}
	return nil
}

// LogLikelihood is Σ_k log N(y_k; m, S).
func (m slcp) LogLikelihood(theta, x []float64) float64 {
	if !lengthsOK(theta, x, 5, 2*SLCPPoints) {
		return math.NaN()
	}
	m0, m1, l00, l10, l11 := m.chol(theta)
	if !(l11 > 0) || math.IsInf(l00, 0) || math.IsInf(l11, 0) {
		return math.Inf(-1)
	}
	ll := 0.0
	for k := range SLCPPoints {
		z0 := (x[2*k] - m0) / l00
		z1 := (x[2*k+1] - m1 - l10*z0) / l11
		ll -= 0.5 * (z0*z0 + z1*z1)
	}
	return ll - float64(SLCPPoints)*(log2Pi+math.Log(l00)+math.Log(l11))
}

// ---- Gaussian mixture ----

// Settings of the Gaussian mixture task (sbibm task gaussian_mixture).
const (
	GaussianMixtureBound  = 10.0 // prior U[−10, 10]²
	GaussianMixtureWide   = 1.0  // standard deviation of the broad component
	GaussianMixtureNarrow = 0.1  // standard deviation of the narrow component
)

// NewGaussianMixture returns the Gaussian mixture task: θ ~ U[−10, 10]²
// and x ~ ½ N(θ, I) + ½ N(θ, 0.01·I), one component index for both
// coordinates. The posterior is the same mixture centred at x, truncated
// to the prior's box.
func NewGaussianMixture() *Task {
	b := GaussianMixtureBound
	return &Task{name: GaussianMixture, prior: uniformBox(2, -b, b), sim: gaussianMixture{}}
}

type gaussianMixture struct{}

func (gaussianMixture) StatDim() int  { return 2 }
func (gaussianMixture) ParamDim() int { return 2 }

func (gaussianMixture) Simulate(r *rand.Rand, theta, dst []float64) error {
	if err := checkCall("Gaussian mixture", r, theta, dst, 2, 2); err != nil {
		return err
	}
	sd := GaussianMixtureWide
	if r.Float64() < 0.5 {
		sd = GaussianMixtureNarrow
	}
	dst[0] = theta[0] + sd*r.NormFloat64()
	dst[1] = theta[1] + sd*r.NormFloat64()
	return nil
}

// LogLikelihood is log(½ N(x; θ, I) + ½ N(x; θ, 0.01·I)).
func (gaussianMixture) LogLikelihood(theta, x []float64) float64 {
	if !lengthsOK(theta, x, 2, 2) {
		return math.NaN()
	}
	e0, e1 := x[0]-theta[0], x[1]-theta[1]
	q := e0*e0 + e1*e1
	comp := func(sd float64) float64 { return -0.5*q/(sd*sd) - log2Pi - 2*math.Log(sd) }
	a, b := comp(GaussianMixtureWide), comp(GaussianMixtureNarrow)
	hi, lo := max(a, b), min(a, b)
	if math.IsInf(hi, -1) {
		return hi
	}
	return hi + math.Log1p(math.Exp(lo-hi)) - math.Ln2
}
