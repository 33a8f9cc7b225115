package abc

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// normalMean is the confidential simulator of the sample mean of n draws
// from N(θ, σ²): x̄ ~ N(θ, σ²/n).
type normalMean struct{ se float64 }

func (normalMean) StatDim() int  { return 1 }
func (normalMean) ParamDim() int { return 1 }
func (m normalMean) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != 1 || math.IsNaN(theta[0]) {
		return simulate.ErrInvalidTheta
	}
	dst[0] = theta[0] + m.se*r.NormFloat64()
	return nil
}

// failing fails when θ[0] exceeds a threshold.
type failing struct{ at float64 }

var errBoom = errors.New("boom")

func (failing) StatDim() int { return 1 }
func (f failing) Simulate(r *rand.Rand, theta, dst []float64) error {
	if theta[0] > f.at {
		return errBoom
	}
	dst[0] = theta[0] + r.NormFloat64()
	return nil
}

// privateNormalMean is the test model: prior N(0, 1), x̄ ~ N(θ, se²),
// released with Laplace noise of scale lapB; observed release sObs. The ABC
// engines compare releases with the Euclidean distance.
const (
	pnmSE   = 0.3
	pnmLapB = 0.5
	pnmObs  = 1.2
)

func privateNormalMean() (privinfer.Problem, error) {
	prior, err := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	if err != nil {
		return privinfer.Problem{}, err
	}
	// Sensitivity 0.5 at ε = 1 gives the scale 0.5.
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.5, Epsilon: 1, Dim: 1})
	if err != nil {
		return privinfer.Problem{}, err
	}
	return privinfer.Problem{Prior: prior, Simulator: normalMean{se: pnmSE}, Mechanism: lap, Observed: []float64{pnmObs}}, nil
}

// simpson integrates f on [a, b] with n (even) intervals.
func simpson(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}

// normalLaplaceLik is the marginal likelihood of the release,
// f(s | θ) = ∫ N(x; θ, se²) Lap(s − x; b) dx, in closed form: with u = s − θ,
//
//	f = e^{se²/(2b²)}/(4b) [e^{−u/b} erfc((se²/b − u)/(se√2)) + e^{u/b} erfc((se²/b + u)/(se√2))].
//
// TestExactPosteriorQuadrature checks it against direct quadrature.
func normalLaplaceLik(s, th float64) float64 {
	u := s - th
	se, b := pnmSE, pnmLapB
	c := se * se / (2 * b * b)
	a1 := math.Exp(c-u/b) * math.Erfc((se*se/b-u)/(se*math.Sqrt2))
	a2 := math.Exp(c+u/b) * math.Erfc((se*se/b+u)/(se*math.Sqrt2))
	return (a1 + a2) / (4 * b)
}

// normalLaplaceLikQuad is the same integral by Simpson quadrature, split at
// the Laplace kink x = s.
func normalLaplaceLikQuad(s, th float64) float64 {
	g := func(x float64) float64 {
		z := (x - th) / pnmSE
		return math.Exp(-0.5*z*z-math.Abs(s-x)/pnmLapB) / (pnmSE * math.Sqrt(2*math.Pi) * 2 * pnmLapB)
	}
	lo, hi := th-12*pnmSE, th+12*pnmSE
	if s <= lo || s >= hi {
		return simpson(g, lo, hi, 4000)
	}
	return simpson(g, lo, s, 4000) + simpson(g, s, hi, 4000)
}

// exactPrivatePosterior returns the mean and sd of π(θ | s_dp) ∝ N(θ; 0, 1)
// f(s_dp | θ) by Simpson quadrature over θ.
func exactPrivatePosterior() (mean, sd float64) {
	post := func(th float64) float64 { return math.Exp(-0.5*th*th) * normalLaplaceLik(pnmObs, th) }
	lo, hi := -8.0, 10.0
	z := simpson(post, lo, hi, 4000)
	m := simpson(func(t float64) float64 { return t * post(t) }, lo, hi, 4000) / z
	v := simpson(func(t float64) float64 { return (t - m) * (t - m) * post(t) }, lo, hi, 4000) / z
	return m, math.Sqrt(v)
}

// abcdpFixture returns privateNormalMean without its mechanism (ABCDP
// needs none) and a reproducible ABCDPConfig with RESAMPLE for it.
func abcdpFixture(t *testing.T) (privinfer.Problem, ABCDPConfig) {
	t.Helper()
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	p.Mechanism = nil
	return p, ABCDPConfig{EpsTotal: 2, EpsABC: 0.5, C: 4, Resample: true, Clip: 2, Distance: Euclidean{}, Simulations: 300, Seed: 9, Reproducible: true}
}
