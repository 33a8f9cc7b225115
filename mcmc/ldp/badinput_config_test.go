package ldp

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInputConfigs: every config struct of the package refuses its
// zero value and bad fields through Validate (and its constructor), with
// an error wrapping ErrInvalid that names the field.
func TestBadInputConfigs(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ok := LinRegDataConfig{ZX: []float64{0.1, 0.2}, ZY: []float64{1}, Dim: 2, SX: []float64{0.5, 0.5}}
	lin := func(f func(c *LinRegDataConfig)) func() error {
		return func() error {
			c := ok
			f(&c)
			_, err := NewLinRegData(c)
			return err
		}
	}
	lok := LogRegDataConfig{ZX: ok.ZX, ZY: []float64{1}, Dim: 2, SX: ok.SX, EpsilonY: 1}
	log := func(f func(c *LogRegDataConfig)) func() error {
		return func() error {
			c := lok
			f(&c)
			_, err := NewLogRegData(c)
			return err
		}
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "zerovalue", Name: "LinRegDataConfig{}", Err: LinRegDataConfig{}.Validate},
		{Category: "zerovalue", Name: "LogRegDataConfig{}", Err: LogRegDataConfig{}.Validate},
		{Category: "zerovalue", Name: "LogRegPosteriorConfig{}", Err: LogRegPosteriorConfig{}.Validate},
		{Category: "zerovalue", Name: "SuffStatLogRegPosteriorConfig{}", Err: SuffStatLogRegPosteriorConfig{}.Validate},
		{Category: "zerovalue", Name: "SuffStatLogRegCovPosteriorConfig{}", Err: SuffStatLogRegCovPosteriorConfig{}.Validate},
		{Category: "zerovalue", Name: "GaussianPrior{}", Err: GaussianPrior{}.Validate},
		{Category: "nonpositive", Name: "LinRegDataConfig.Dim 0", Err: lin(func(c *LinRegDataConfig) { c.Dim = 0 })},
		{Category: "mismatched", Name: "LinRegDataConfig.ZX length", Err: lin(func(c *LinRegDataConfig) { c.ZX = c.ZX[:1] })},
		{Category: "mismatched", Name: "LinRegDataConfig.SX length", Err: lin(func(c *LinRegDataConfig) { c.SX = c.SX[:1] })},
		{Category: "empty", Name: "LinRegDataConfig.ZY empty", Err: lin(func(c *LinRegDataConfig) { c.ZY, c.ZX = nil, nil })},
		{Category: "nan", Name: "LinRegDataConfig.ZY NaN", Err: lin(func(c *LinRegDataConfig) { c.ZY = []float64{nan} })},
		{Category: "inf", Name: "LinRegDataConfig.ZX Inf", Err: lin(func(c *LinRegDataConfig) { c.ZX = []float64{inf, 0} })},
		{Category: "nonpositive", Name: "LinRegDataConfig.SX 0", Err: lin(func(c *LinRegDataConfig) { c.SX = []float64{0, 1} })},
		{Category: "nonpositive", Name: "LogRegDataConfig.EpsilonY 0", Err: log(func(c *LogRegDataConfig) { c.EpsilonY = 0 })},
		{Category: "nan", Name: "LogRegDataConfig.EpsilonY NaN", Err: log(func(c *LogRegDataConfig) { c.EpsilonY = nan })},
		{Category: "mismatched", Name: "LogRegDataConfig.ZY not a bit", Err: log(func(c *LogRegDataConfig) { c.ZY = []float64{0.5} })},
		{Category: "inf", Name: "LogRegPosteriorConfig.SDTheta Inf", Err: LogRegPosteriorConfig{SDTheta: inf}.Validate},
		{Category: "nan", Name: "SuffStatLogRegPosteriorConfig.SigmaX NaN", Err: SuffStatLogRegPosteriorConfig{SigmaX: []float64{nan}, SDTheta: 1}.Validate},
		{Category: "nonpositive", Name: "SuffStatLogRegCovPosteriorConfig.Cov.Eta 0", Err: SuffStatLogRegCovPosteriorConfig{SDTheta: 1, Cov: ScaledLKJ{Scale: 1}}.Validate},
		{Category: "nonpositive", Name: "GaussianPrior.Sd0 0", Err: GaussianPrior{Shape: 1, Rate: 1}.Validate},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
