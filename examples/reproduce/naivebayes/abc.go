package main

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/naivebayes"
)

// alrPrior is the naive Bayes prior expressed on the additive-log-ratio
// coordinates φ of θ: density π(θ(φ))·|∂θ/∂φ|. SMC-ABC perturbs particles
// with a Gaussian kernel, which would leave the simplices at once if it
// acted on θ; on φ every perturbation is a valid parameter.
type alrPrior struct {
	m     *naivebayes.Model
	prior simulate.Prior
}

func (p alrPrior) Dim() int { return p.m.UnconstrainedDim() }

func (p alrPrior) Sample(r *rand.Rand, phi []float64) {
	theta := make([]float64, p.m.ParamDim())
	for {
		p.prior.Sample(r, theta)
		ok := true
		for _, v := range theta {
			ok = ok && v > 0
		}
		if ok { // zero entries have probability zero but may occur in floating point
			break
		}
	}
	p.m.ToUnconstrained(theta, phi)
}

func (p alrPrior) LogDensity(phi []float64) float64 {
	if len(phi) != p.Dim() {
		return math.NaN()
	}
	theta := make([]float64, p.m.ParamDim())
	lj := p.m.FromUnconstrained(phi, theta)
	return p.prior.LogDensity(theta) + lj
}

// alrSim simulates the confidential summary for φ by mapping it to θ
// first (SMC-ABC adds the mechanism's noise).
type alrSim struct {
	m   *naivebayes.Model
	sim simulate.Simulator // the confidential simulator on θ
}

func (s alrSim) StatDim() int { return s.sim.StatDim() }

func (s alrSim) Simulate(r *rand.Rand, phi, dst []float64) error {
	theta := make([]float64, s.m.ParamDim())
	s.m.FromUnconstrained(phi, theta)
	return s.sim.Simulate(r, theta, dst)
}

// abcConfig configures the SMC-ABC run.
type abcConfig struct {
	Particles, Rounds int
	Quantile          float64
	MinAcceptance     float64
	Seed              uint64
}

// runABC runs SMC-ABC on φ with the Euclidean distance and an adaptive
// schedule (each tolerance the Quantile-quantile of the previous round's
// distances), and returns the result.
func runABC(ctx context.Context, m *naivebayes.Model, prior simulate.Prior, mech mechanism.Mechanism, obs []float64, cfg abcConfig, progress privinfer.ProgressFunc) (*abc.SMCResult, error) {
	p := privinfer.Problem{
		Prior:     alrPrior{m: m, prior: prior},
		Simulator: alrSim{m: m, sim: m},
		Mechanism: mech,
		Observed:  obs,
	}
	return abc.SMC(ctx, p, abc.SMCConfig{
		Distance:      abc.Euclidean{},
		Particles:     cfg.Particles,
		Schedule:      abc.Adaptive{Initial: math.Inf(1), Quantile: cfg.Quantile, Rounds: cfg.Rounds},
		MinAcceptance: cfg.MinAcceptance,
		StallRatio:    0.99,
		Progress:      progress,
		Seed:          cfg.Seed,
	})
}
