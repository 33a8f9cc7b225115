package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid problems, configurations and unconstructed
// values to the exported API: every call returns an error wrapping
// ErrInvalid (or the documented NaN) before any simulation, and never
// panics.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	nan, inf := math.NaN(), math.Inf(1)
	good := testProblem()
	o := smallConfig()
	both := func(f func(p *privinfer.Problem, o *Config)) func() error {
		return func() error {
			p2, o2 := good, o
			cfg, tc := *o.Flow, *o.Train
			o2.Flow, o2.Train = &cfg, &tc
			f(&p2, &o2)
			_, err1 := SPPE(ctx, p2, o2)
			_, err2 := SPLE(ctx, p2, o2)
			if !errors.Is(err1, ErrInvalid) {
				return fmt.Errorf("SPPE: %w", err1)
			}
			return err2
		}
	}
	lap3, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 3})
	gauss2, _ := mechanism.NewGaussian(mechanism.ScaleConfig{Sigma: 1, Dim: 2})
	prior2, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0, 0}, Variances: []float64{1, 1}})
	type B = testutil.BadInput
	cases := []B{
		{Category: "nil", Name: "nil prior", Err: both(func(p *privinfer.Problem, o *Config) { p.Prior = nil })},
		{Category: "nil", Name: "typed nil prior", Err: both(func(p *privinfer.Problem, o *Config) { p.Prior = (*simulate.MVNormal)(nil) })},
		{Category: "nil", Name: "nil simulator", Err: both(func(p *privinfer.Problem, o *Config) { p.Simulator = nil })},
		{Category: "mismatched", Name: "mechanism without a uniform transform", Err: both(func(p *privinfer.Problem, o *Config) { p.Mechanism = noTransform{} })},
		{Category: "nil", Name: "typed nil mechanism", Err: both(func(p *privinfer.Problem, o *Config) { p.Mechanism = (*mechanism.Laplace)(nil) })},
		{Category: "zerovalue", Name: "Problem{}", Err: both(func(p *privinfer.Problem, o *Config) { *p = privinfer.Problem{} })},
		{Category: "nil", Name: "Config.Validate on nil", Err: func() error { var c *Config; return c.Validate() }},
		{Category: "mismatched", Name: "mechanism dimension 3, summary dimension 1", Err: both(func(p *privinfer.Problem, o *Config) { p.Mechanism = lap3 })},
		{Category: "mismatched", Name: "Gaussian mechanism dimension 2", Err: both(func(p *privinfer.Problem, o *Config) { p.Mechanism = gauss2 })},
		{Category: "mismatched", Name: "observed length 2", Err: both(func(p *privinfer.Problem, o *Config) { p.Observed = []float64{1, 2} })},
		{Category: "mismatched", Name: "prior dimension 2, simulator 1", Err: both(func(p *privinfer.Problem, o *Config) {
			p.Prior = prior2
			p.Simulator = paramSim{normalSim{tau: 1}}
		})},
		{Category: "empty", Name: "observed empty", Err: both(func(p *privinfer.Problem, o *Config) { p.Observed = nil })},
		{Category: "nan", Name: "observed NaN", Err: both(func(p *privinfer.Problem, o *Config) { p.Observed = []float64{nan} })},
		{Category: "inf", Name: "observed Inf", Err: both(func(p *privinfer.Problem, o *Config) { p.Observed = []float64{inf} })},
		{Category: "nan", Name: "MinInSupport NaN", Err: both(func(p *privinfer.Problem, o *Config) { o.MinInSupport = nan })},
		{Category: "inf", Name: "MinInSupport Inf", Err: both(func(p *privinfer.Problem, o *Config) { o.MinInSupport = inf })},
		{Category: "nonpositive", Name: "MinInSupport -0.1", Err: both(func(p *privinfer.Problem, o *Config) { o.MinInSupport = -0.1 })},
		{Category: "nan", Name: "learning rate NaN", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.LearningRate = nan })},
		{Category: "inf", Name: "learning rate Inf", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.LearningRate = inf })},
		{Category: "nonpositive", Name: "learning rate 0", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.LearningRate = 0 })},
		{Category: "nan", Name: "weight decay NaN", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.WeightDecay = nan })},
		{Category: "nonpositive", Name: "weight decay -1", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.WeightDecay = -1 })},
		{Category: "nan", Name: "clip norm NaN", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.ClipNorm = nan })},
		{Category: "inf", Name: "clip norm Inf", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.ClipNorm = inf })},
		{Category: "nan", Name: "validation fraction NaN", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.ValidationFraction = nan })},
		{Category: "nonpositive", Name: "rounds −1", Err: both(func(p *privinfer.Problem, o *Config) { o.Rounds = -1 })},
		{Category: "nonpositive", Name: "simulations 1", Err: both(func(p *privinfer.Problem, o *Config) { o.SimsPerRound = 1 })},
		{Category: "nonpositive", Name: "inner points −1", Err: both(func(p *privinfer.Problem, o *Config) { o.InnerPoints = -1 })},
		{Category: "nonpositive", Name: "max epochs 0", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.MaxEpochs = 0 })},
		{Category: "nonpositive", Name: "patience 0", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.Patience = 0 })},
		{Category: "nonpositive", Name: "atoms 1", Err: both(func(p *privinfer.Problem, o *Config) { o.Atoms = 1 })},
		{Category: "nonpositive", Name: "batch size 0", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.BatchSize = 0 })},
		{Category: "nonpositive", Name: "chains -1", Err: both(func(p *privinfer.Problem, o *Config) { o.Chains = -1 })},
		{Category: "nonpositive", Name: "shards -1", Err: both(func(p *privinfer.Problem, o *Config) { o.Train.Shards = -1 })},
		{Category: "huge", Name: "integration 9", Err: both(func(p *privinfer.Problem, o *Config) { o.Integration = 9 })},
		{Category: "huge", Name: "rounds 1<<40", Err: both(func(p *privinfer.Problem, o *Config) { o.Rounds = 1 << 40 })},
		{Category: "huge", Name: "simulations 1<<40", Err: both(func(p *privinfer.Problem, o *Config) { o.SimsPerRound = 1 << 40 })},
		{Category: "huge", Name: "rounds·simulations overflow", Err: both(func(p *privinfer.Problem, o *Config) { o.Rounds, o.SimsPerRound = 1<<16, 1<<20 })},
		{Category: "huge", Name: "inner points 1<<40", Err: both(func(p *privinfer.Problem, o *Config) { o.InnerPoints = 1 << 40 })},
		{Category: "huge", Name: "atoms beyond simulations", Err: both(func(p *privinfer.Problem, o *Config) { o.Atoms = 1 << 40 })},
		{Category: "huge", Name: "chains 1<<40", Err: both(func(p *privinfer.Problem, o *Config) { o.Chains = 1 << 40 })},
		{Category: "huge", Name: "warm-up 1<<40", Err: both(func(p *privinfer.Problem, o *Config) { o.Warmup = 1 << 40 })},
		{Category: "huge", Name: "posterior samples 1<<40", Err: both(func(p *privinfer.Problem, o *Config) { o.PosteriorSamples = 1 << 40 })},
		{Category: "huge", Name: "flow hidden 1<<30", Err: both(func(p *privinfer.Problem, o *Config) { o.Flow.Hidden = 1 << 30 })},
		{Category: "subnormal", Name: "flow tail bound 5e-324", Err: both(func(p *privinfer.Problem, o *Config) { o.Flow.TailBound = 5e-324 })},
		{Category: "huge", Name: "flow tail bound 1e308", Err: both(func(p *privinfer.Problem, o *Config) { o.Flow.TailBound = 1e308 })},
		{Category: "nan", Name: "flow tail bound NaN", Err: both(func(p *privinfer.Problem, o *Config) { o.Flow.TailBound = nan })},
		{Category: "nan", Name: "PosteriorPredictive θ NaN", Err: func() error { _, err := PosteriorPredictive(ctx, good, []float64{nan}, 1); return err }},
		{Category: "inf", Name: "PosteriorPredictive θ Inf", Err: func() error { _, err := PosteriorPredictive(ctx, good, []float64{0, inf}, 1); return err }},
		{Category: "mismatched", Name: "PosteriorPredictive mechanism dimension", Err: func() error {
			p := good
			p.Mechanism = lap3
			_, err := PosteriorPredictive(ctx, p, []float64{0}, 1)
			return err
		}},
		{Category: "zerovalue", Name: "PosteriorPredictive Problem{}", Err: func() error {
			_, err := PosteriorPredictive(ctx, privinfer.Problem{}, []float64{0}, 1)
			return err
		}},
		{Category: "zerovalue", Name: "Posterior{}.Sample", Err: func() error { var q Posterior; return q.Sample(rand.New(rand.NewPCG(1, 1)), 1, make([]float64, 1)) }},
		{Category: "zerovalue", Name: "Posterior{}.SampleMCMC", Err: func() error { var q Posterior; _, err := q.SampleMCMC(ctx, 1, 1, make([]float64, 1)); return err }},
		{Category: "nil", Name: "nil *Posterior Sample", Err: func() error { var q *Posterior; return q.Sample(rand.New(rand.NewPCG(1, 1)), 1, make([]float64, 1)) }},
		{Category: "zerovalue", Name: "Posterior{} densities", Check: func() error {
			var q Posterior
			if !math.IsNaN(q.LogDensity([]float64{0})) || !math.IsNaN(q.LogDensityAt([]float64{0}, []float64{0})) || q.Dim() != 0 || q.Flow() != nil {
				return errors.New("zero Posterior gives a density, a dimension or a flow")
			}
			return nil
		}},
		{Category: "zerovalue", Name: "Likelihood{}.MLE", Err: func() error { var l Likelihood; _, _, err := l.MLE([]float64{0}, []float64{0}, 0); return err }},
		{Category: "zerovalue", Name: "Likelihood{}.LogDensity", Check: func() error {
			var l Likelihood
			if !math.IsNaN(l.LogDensity([]float64{0}, []float64{0})) || l.Flow() != nil {
				return errors.New("zero Likelihood gives a log likelihood or a flow")
			}
			return nil
		}},
		{Category: "zerovalue", Name: "LikelihoodPosterior{}.Sample", Err: func() error {
			var q LikelihoodPosterior
			return q.Sample(rand.New(rand.NewPCG(1, 1)), 1, make([]float64, 1))
		}},
		{Category: "nil", Name: "nil *LikelihoodPosterior Sample", Err: func() error {
			var q *LikelihoodPosterior
			return q.Sample(rand.New(rand.NewPCG(1, 1)), 1, make([]float64, 1))
		}},
		{Category: "zerovalue", Name: "LikelihoodPosterior{} density", Check: func() error {
			var q LikelihoodPosterior
			if !math.IsNaN(q.LogDensity([]float64{0})) || q.Dim() != 0 || q.Likelihood() != nil {
				return errors.New("zero LikelihoodPosterior gives a density, a dimension or a likelihood")
			}
			return nil
		}},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}

// noTransform is a mechanism without a uniform transform.
type noTransform struct{}

func (noTransform) Release(_ *rand.Rand, s, dst []float64) error { copy(dst, s); return nil }
func (noTransform) Budget() mechanism.Budget                     { return mechanism.Budget{} }

// paramSim is a simulator that reports the dimension of θ it takes.
type paramSim struct{ normalSim }

func (paramSim) ParamDim() int { return 1 }
