package gibbsss_test

import (
	"context"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mcmc/gibbsss"
)

// TestBadInput feeds invalid settings to Config.Validate and Run: every
// call returns an error wrapping ErrInvalid that names the field, and none
// panics.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	good := func() gibbsss.Config {
		return gibbsss.Config{P: 2, N: 100, Observed: make([]float64, 9), LaplaceScale: 0.013, Scale: 10, Sigma2: 2,
			PredictorMean: []float64{0.9, -1.17}, Draws: 10}
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	with := func(f func(*gibbsss.Config)) func() error {
		return func() error {
			c := good()
			f(&c)
			if err := c.Validate(); err == nil {
				return nil
			}
			_, err := gibbsss.Run(context.Background(), c)
			return err
		}
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "zerovalue", Name: "Config{}", Err: func() error { _, err := gibbsss.Run(context.Background(), gibbsss.Config{}); return err }},
		{Category: "nil", Name: "nil context", Err: func() error {
			var ctx context.Context
			_, err := gibbsss.Run(ctx, good())
			return err
		}},
		{Category: "nonpositive", Name: "P 0", Err: with(func(c *gibbsss.Config) { c.P = 0 })},
		{Category: "huge", Name: "P 1000", Err: with(func(c *gibbsss.Config) { c.P = 1000 })},
		{Category: "nonpositive", Name: "N 0", Err: with(func(c *gibbsss.Config) { c.N = 0 })},
		{Category: "empty", Name: "Observed nil", Err: with(func(c *gibbsss.Config) { c.Observed = nil })},
		{Category: "mismatched", Name: "Observed length 8", Err: with(func(c *gibbsss.Config) { c.Observed = make([]float64, 8) })},
		{Category: "nan", Name: "Observed NaN", Err: with(func(c *gibbsss.Config) { c.Observed[3] = nan })},
		{Category: "inf", Name: "Observed Inf", Err: with(func(c *gibbsss.Config) { c.Observed[0] = inf })},
		{Category: "nonpositive", Name: "LaplaceScale 0 (ε/scale missing)", Err: with(func(c *gibbsss.Config) { c.LaplaceScale = 0 })},
		{Category: "nonpositive", Name: "LaplaceScale -1", Err: with(func(c *gibbsss.Config) { c.LaplaceScale = -1 })},
		{Category: "nan", Name: "LaplaceScale NaN", Err: with(func(c *gibbsss.Config) { c.LaplaceScale = nan })},
		{Category: "inf", Name: "LaplaceScale Inf", Err: with(func(c *gibbsss.Config) { c.LaplaceScale = inf })},
		{Category: "nonpositive", Name: "Scale -10", Err: with(func(c *gibbsss.Config) { c.Scale = -10 })},
		{Category: "nan", Name: "Scale NaN", Err: with(func(c *gibbsss.Config) { c.Scale = nan })},
		{Category: "mismatched", Name: "PriorMean length 2", Err: with(func(c *gibbsss.Config) { c.PriorMean = []float64{0, 0} })},
		{Category: "nan", Name: "PriorMean NaN", Err: with(func(c *gibbsss.Config) { c.PriorMean = []float64{0, nan, 0} })},
		{Category: "mismatched", Name: "PriorCov length 4", Err: with(func(c *gibbsss.Config) { c.PriorCov = []float64{1, 0, 0, 1} })},
		{Category: "nonpositive", Name: "PriorCov indefinite", Err: with(func(c *gibbsss.Config) { c.PriorCov = []float64{1, 0, 0, 0, -1, 0, 0, 0, 1} })},
		{Category: "mismatched", Name: "PriorCov asymmetric", Err: with(func(c *gibbsss.Config) { c.PriorCov = []float64{1, 0.5, 0, 0, 1, 0, 0, 0, 1} })},
		{Category: "inf", Name: "PriorCov Inf", Err: with(func(c *gibbsss.Config) { c.PriorCov = []float64{inf, 0, 0, 0, 1, 0, 0, 0, 1} })},
		{Category: "nonpositive", Name: "Sigma2 -2", Err: with(func(c *gibbsss.Config) { c.Sigma2 = -2 })},
		{Category: "nan", Name: "Sigma2 NaN", Err: with(func(c *gibbsss.Config) { c.Sigma2 = nan })},
		{Category: "inf", Name: "Sigma2 Inf", Err: with(func(c *gibbsss.Config) { c.Sigma2 = inf })},
		{Category: "zerovalue", Name: "Sigma2 0 without its prior", Err: with(func(c *gibbsss.Config) { c.Sigma2 = 0 })},
		{Category: "nonpositive", Name: "Sigma2Scale 0", Err: with(func(c *gibbsss.Config) { c.Sigma2, c.Sigma2Shape = 0, 1 })},
		{Category: "mismatched", Name: "Sigma2 and its prior both set", Err: with(func(c *gibbsss.Config) { c.Sigma2Shape, c.Sigma2Scale = 1, 1 })},
		{Category: "empty", Name: "no predictors' law", Err: with(func(c *gibbsss.Config) { c.PredictorMean = nil })},
		{Category: "mismatched", Name: "PredictorMean length 3", Err: with(func(c *gibbsss.Config) { c.PredictorMean = []float64{0, 0, 0} })},
		{Category: "nonpositive", Name: "PredictorCov singular", Err: with(func(c *gibbsss.Config) { c.PredictorCov = []float64{1, 1, 1, 1} })},
		{Category: "mismatched", Name: "PredictorMean and PredictorPrior", Err: with(func(c *gibbsss.Config) {
			c.PredictorPrior = &gibbsss.NIW{Kappa: 1, DF: 3}
		})},
		{Category: "nonpositive", Name: "PredictorPrior.Kappa 0", Err: with(func(c *gibbsss.Config) {
			c.PredictorMean, c.PredictorPrior = nil, &gibbsss.NIW{DF: 3}
		})},
		{Category: "nonpositive", Name: "PredictorPrior.DF 1", Err: with(func(c *gibbsss.Config) {
			c.PredictorMean, c.PredictorPrior = nil, &gibbsss.NIW{Kappa: 1, DF: 1}
		})},
		{Category: "nan", Name: "PredictorPrior.Mean NaN", Err: with(func(c *gibbsss.Config) {
			c.PredictorMean, c.PredictorPrior = nil, &gibbsss.NIW{Mean: []float64{nan, 0}, Kappa: 1, DF: 3}
		})},
		{Category: "mismatched", Name: "PredictorPrior.Scale length 1", Err: with(func(c *gibbsss.Config) {
			c.PredictorMean, c.PredictorPrior = nil, &gibbsss.NIW{Scale: []float64{1}, Kappa: 1, DF: 3}
		})},
		{Category: "nonpositive", Name: "Chains -1", Err: with(func(c *gibbsss.Config) { c.Chains = -1 })},
		{Category: "nonpositive", Name: "Warmup -1", Err: with(func(c *gibbsss.Config) { c.Warmup = -1 })},
		{Category: "nonpositive", Name: "Draws -1", Err: with(func(c *gibbsss.Config) { c.Draws = -1 })},
		{Category: "nonpositive", Name: "Thin -1", Err: with(func(c *gibbsss.Config) { c.Thin = -1 })},
		{Category: "huge", Name: "Chains 1e6", Err: with(func(c *gibbsss.Config) { c.Chains = 1e6 })},
		{Category: "huge", Name: "Draws·Thin overflow", Err: with(func(c *gibbsss.Config) { c.Draws, c.Thin = 1e6, math.MaxInt/2 })},
		{Category: "mismatched", Name: "Names length 4", Err: with(func(c *gibbsss.Config) { c.Names = []string{"a", "b", "c", "d"} })},
		{Category: "mismatched", Name: "Names repeated", Err: with(func(c *gibbsss.Config) { c.Names = []string{"a", "a", "c"} })},
	}
	testutil.RunBadInput(t, gibbsss.ErrInvalid, cases)
}
