package gibbsss

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mcmc/linregda"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid model, release and chain settings to the
// sampler's checks: every call returns an error wrapping ErrInvalid that
// names the field, and none panics.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	good := func() spec {
		return spec{P: 2, N: 100, Observed: make([]float64, 9), LaplaceScale: 0.013, Scale: 10, Sigma2: 2,
			PredictorMean: []float64{0.9, -1.17}, Draws: 10}
	}
	if err := good().validate(); err != nil {
		t.Fatal(err)
	}
	with := func(f func(*spec)) func() error {
		return func() error {
			c := good()
			f(&c)
			if err := c.validate(); err == nil {
				return nil
			}
			_, err := run(context.Background(), c)
			return err
		}
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "zerovalue", Name: "spec{}", Err: func() error { _, err := run(context.Background(), spec{}); return err }},
		{Category: "nil", Name: "nil context", Err: func() error {
			var ctx context.Context
			_, err := run(ctx, good())
			return err
		}},
		{Category: "nonpositive", Name: "P 0", Err: with(func(c *spec) { c.P = 0 })},
		{Category: "huge", Name: "P 1000", Err: with(func(c *spec) { c.P = 1000 })},
		{Category: "nonpositive", Name: "N 0", Err: with(func(c *spec) { c.N = 0 })},
		{Category: "empty", Name: "Observed nil", Err: with(func(c *spec) { c.Observed = nil })},
		{Category: "mismatched", Name: "Observed length 8", Err: with(func(c *spec) { c.Observed = make([]float64, 8) })},
		{Category: "nan", Name: "Observed NaN", Err: with(func(c *spec) { c.Observed[3] = nan })},
		{Category: "inf", Name: "Observed Inf", Err: with(func(c *spec) { c.Observed[0] = inf })},
		{Category: "nonpositive", Name: "LaplaceScale 0 (ε/scale missing)", Err: with(func(c *spec) { c.LaplaceScale = 0 })},
		{Category: "nonpositive", Name: "LaplaceScale -1", Err: with(func(c *spec) { c.LaplaceScale = -1 })},
		{Category: "nan", Name: "LaplaceScale NaN", Err: with(func(c *spec) { c.LaplaceScale = nan })},
		{Category: "inf", Name: "LaplaceScale Inf", Err: with(func(c *spec) { c.LaplaceScale = inf })},
		{Category: "nonpositive", Name: "Scale -10", Err: with(func(c *spec) { c.Scale = -10 })},
		{Category: "nan", Name: "Scale NaN", Err: with(func(c *spec) { c.Scale = nan })},
		{Category: "mismatched", Name: "PriorMean length 2", Err: with(func(c *spec) { c.PriorMean = []float64{0, 0} })},
		{Category: "nan", Name: "PriorMean NaN", Err: with(func(c *spec) { c.PriorMean = []float64{0, nan, 0} })},
		{Category: "mismatched", Name: "PriorCov length 4", Err: with(func(c *spec) { c.PriorCov = []float64{1, 0, 0, 1} })},
		{Category: "nonpositive", Name: "PriorCov indefinite", Err: with(func(c *spec) { c.PriorCov = []float64{1, 0, 0, 0, -1, 0, 0, 0, 1} })},
		{Category: "mismatched", Name: "PriorCov asymmetric", Err: with(func(c *spec) { c.PriorCov = []float64{1, 0.5, 0, 0, 1, 0, 0, 0, 1} })},
		{Category: "inf", Name: "PriorCov Inf", Err: with(func(c *spec) { c.PriorCov = []float64{inf, 0, 0, 0, 1, 0, 0, 0, 1} })},
		{Category: "nonpositive", Name: "Sigma2 -2", Err: with(func(c *spec) { c.Sigma2 = -2 })},
		{Category: "nan", Name: "Sigma2 NaN", Err: with(func(c *spec) { c.Sigma2 = nan })},
		{Category: "inf", Name: "Sigma2 Inf", Err: with(func(c *spec) { c.Sigma2 = inf })},
		{Category: "zerovalue", Name: "Sigma2 0 without its prior", Err: with(func(c *spec) { c.Sigma2 = 0 })},
		{Category: "nonpositive", Name: "Sigma2Scale 0", Err: with(func(c *spec) { c.Sigma2, c.Sigma2Shape = 0, 1 })},
		{Category: "mismatched", Name: "Sigma2 and its prior both set", Err: with(func(c *spec) { c.Sigma2Shape, c.Sigma2Scale = 1, 1 })},
		{Category: "empty", Name: "no predictors' law", Err: with(func(c *spec) { c.PredictorMean = nil })},
		{Category: "mismatched", Name: "PredictorMean length 3", Err: with(func(c *spec) { c.PredictorMean = []float64{0, 0, 0} })},
		{Category: "nonpositive", Name: "PredictorCov singular", Err: with(func(c *spec) { c.PredictorCov = []float64{1, 1, 1, 1} })},
		{Category: "mismatched", Name: "PredictorMean and PredictorPrior", Err: with(func(c *spec) {
			c.PredictorPrior = &NIW{Kappa: 1, DF: 3}
		})},
		{Category: "nonpositive", Name: "PredictorPrior.Kappa 0", Err: with(func(c *spec) {
			c.PredictorMean, c.PredictorPrior = nil, &NIW{DF: 3}
		})},
		{Category: "nonpositive", Name: "PredictorPrior.DF 1", Err: with(func(c *spec) {
			c.PredictorMean, c.PredictorPrior = nil, &NIW{Kappa: 1, DF: 1}
		})},
		{Category: "nan", Name: "PredictorPrior.Mean NaN", Err: with(func(c *spec) {
			c.PredictorMean, c.PredictorPrior = nil, &NIW{Mean: []float64{nan, 0}, Kappa: 1, DF: 3}
		})},
		{Category: "mismatched", Name: "PredictorPrior.Scale length 1", Err: with(func(c *spec) {
			c.PredictorMean, c.PredictorPrior = nil, &NIW{Scale: []float64{1}, Kappa: 1, DF: 3}
		})},
		{Category: "nonpositive", Name: "Chains -1", Err: with(func(c *spec) { c.Chains = -1 })},
		{Category: "nonpositive", Name: "Warmup -1", Err: with(func(c *spec) { c.Warmup = -1 })},
		{Category: "nonpositive", Name: "Draws -1", Err: with(func(c *spec) { c.Draws = -1 })},
		{Category: "nonpositive", Name: "Thin -1", Err: with(func(c *spec) { c.Thin = -1 })},
		{Category: "huge", Name: "Chains 1e6", Err: with(func(c *spec) { c.Chains = 1e6 })},
		{Category: "huge", Name: "Draws·Thin overflow", Err: with(func(c *spec) { c.Draws, c.Thin = 1e6, math.MaxInt/2 })},
		{Category: "mismatched", Name: "Names length 4", Err: with(func(c *spec) { c.Names = []string{"a", "b", "c", "d"} })},
		{Category: "mismatched", Name: "Names repeated", Err: with(func(c *spec) { c.Names = []string{"a", "a", "c"} })},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}

// TestRunBadInput feeds invalid Problems and Configs to Run: every call
// returns an error wrapping ErrInvalid that says what the sampler needs,
// and none panics; a Problem without records or without a mechanism
// returns privinfer's named error.
func TestRunBadInput(t *testing.T) {
	ctx := context.Background()
	good := func() privinfer.Problem {
		p, _, err := linregda.SBIPaper(10)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	nig, _, err := linregda.SlidesN10(3)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Draws: 5}
	withP := func(f func(*privinfer.Problem)) func() error {
		return func() error {
			p := good()
			f(&p)
			_, err := Run(ctx, p, cfg)
			return err
		}
	}
	withC := func(f func(*Config)) func() error {
		return func() error {
			c := cfg
			f(&c)
			_, err := Run(ctx, good(), c)
			return err
		}
	}
	gauss, err := mechanism.NewGaussian(mechanism.ScaleConfig{Sigma: 0.1, Dim: 9})
	if err != nil {
		t.Fatal(err)
	}
	lap8, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.13, Epsilon: 10, Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "zerovalue", Name: "Problem{}", Err: func() error { _, err := Run(ctx, privinfer.Problem{}, cfg); return err }},
		{Category: "nil", Name: "nil context", Err: func() error {
			var c context.Context
			_, err := Run(c, good(), cfg)
			return err
		}},
		{Category: "nil", Name: "nil Prior", Err: withP(func(p *privinfer.Problem) { p.Prior = nil })},
		{Category: "nan", Name: "Observed NaN", Err: withP(func(p *privinfer.Problem) { p.Observed = append([]float64{math.NaN()}, p.Observed[1:]...) })},
		{Category: "mismatched", Name: "Gaussian mechanism", Err: withP(func(p *privinfer.Problem) { p.Mechanism = gauss })},
		{Category: "mismatched", Name: "Laplace of 8 statistics", Err: withP(func(p *privinfer.Problem) { p.Mechanism = lap8 })},
		{Category: "mismatched", Name: "NIG prior for the known-σ² model", Err: withP(func(p *privinfer.Problem) { p.Prior = nig.Prior })},
		{Category: "mismatched", Name: "Gaussian prior for the NIG model", Err: func() error {
			p := nig
			p.Prior = good().Prior
			_, err := Run(ctx, p, cfg)
			return err
		}},
		{Category: "mismatched", Name: "Names length 2", Err: withP(func(p *privinfer.Problem) { p.Names = []string{"a", "b"} })},
		{Category: "nonpositive", Name: "Config.Chains -1", Err: withC(func(c *Config) { c.Chains = -1 })},
		{Category: "nonpositive", Name: "Config.Thin -1", Err: withC(func(c *Config) { c.Thin = -1 })},
		{Category: "nonpositive", Name: "Config.PredictorPrior.Kappa 0", Err: withC(func(c *Config) { c.PredictorPrior = &NIW{DF: 3} })},
		{Category: "nonpositive", Name: "Config.PredictorPrior.DF 1 (P = 2)", Err: withC(func(c *Config) { c.PredictorPrior = &NIW{Kappa: 1, DF: 1} })},
		{Category: "nan", Name: "Config.PredictorPrior.Mean NaN", Err: withC(func(c *Config) { c.PredictorPrior = &NIW{Mean: []float64{math.NaN(), 0}, Kappa: 1, DF: 3} })},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
	p := good()
	p.Mechanism = nil
	if _, err := Run(ctx, p, cfg); !errors.Is(err, privinfer.ErrNoMechanism) {
		t.Errorf("no mechanism: %v, want privinfer.ErrNoMechanism", err)
	}
	p = good()
	p.Simulator = summaryOnly{p.Simulator}
	if _, err := Run(ctx, p, cfg); !errors.Is(err, privinfer.ErrNoRecords) {
		t.Errorf("no records: %v, want privinfer.ErrNoRecords", err)
	}
}

// summaryOnly hides a simulator's record model.
type summaryOnly struct{ simulate.Simulator }
