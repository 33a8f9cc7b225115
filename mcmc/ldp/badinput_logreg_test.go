package ldp

import (
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInputLogRegLKJ is the bad-input table of the sufficient-statistics
// logistic model, the LKJ priors and the posteriors built on them.
func TestBadInputLogRegLKJ(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	good := SuffStatLogRegConfig{Z: make([]float64, 5), Dim: 2, N: 10, Sigma1: 1, Sigma2: 1}
	cfg := func(f func(*SuffStatLogRegConfig)) error {
		c := good
		f(&c)
		_, err := NewSuffStatLogReg(c)
		return err
	}
	s, _ := NewSuffStatLogReg(good)
	id := []float64{1, 0, 0, 1}
	isNaN := func(name string, v float64) error {
		if !math.IsNaN(v) {
			return fmt.Errorf("%s = %v, want NaN", name, v)
		}
		return nil
	}
	isNegInf := func(name string, v float64) error {
		if !math.IsInf(v, -1) {
			return fmt.Errorf("%s = %v, want −Inf", name, v)
		}
		return nil
	}
	lkj := ScaledLKJ{Eta: 2, Scale: 2.5}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nan", Name: "SuffStatLogRegConfig.Sigma1 NaN", Err: func() error { return cfg(func(c *SuffStatLogRegConfig) { c.Sigma1 = nan }) }},
		{Category: "inf", Name: "SuffStatLogRegConfig.Sigma2 Inf", Err: func() error { return cfg(func(c *SuffStatLogRegConfig) { c.Sigma2 = inf }) }},
		{Category: "nonpositive", Name: "SuffStatLogRegConfig.N 0", Err: func() error { return cfg(func(c *SuffStatLogRegConfig) { c.N = 0 }) }},
		{Category: "huge", Name: "SuffStatLogRegConfig.Sigma1 1e200", Err: func() error { return cfg(func(c *SuffStatLogRegConfig) { c.Sigma1 = 1e200 }) }},
		{Category: "subnormal", Name: "SuffStatLogRegConfig.Sigma2 1e-320", Err: func() error { return cfg(func(c *SuffStatLogRegConfig) { c.Sigma2 = 1e-320 }) }},
		{Category: "empty", Name: "SuffStatLogRegConfig.Z nil", Err: func() error { return cfg(func(c *SuffStatLogRegConfig) { c.Z = nil }) }},
		{Category: "mismatched", Name: "SuffStatLogRegConfig.Dim 3 for 5 statistics", Err: func() error { return cfg(func(c *SuffStatLogRegConfig) { c.Dim = 3 }) }},
		{Category: "nan", Name: "SuffStatLogRegConfig.Chebyshev NaN", Err: func() error { return cfg(func(c *SuffStatLogRegConfig) { c.Chebyshev = &[3]float64{nan, 0, 0} }) }},
		{Category: "huge", Name: "LogRegStats x 1e200 overflows", Err: func() error { return LogRegStats([]float64{1e200, 1e200}, 1, make([]float64, 5)) }},
		{Category: "mismatched", Name: "LogRegStats dst length", Err: func() error { return LogRegStats([]float64{1, 2}, 1, make([]float64, 3)) }},
		{Category: "nan", Name: "SuffStatLogReg.LogDensity Σ NaN", Check: func() error { return isNaN("LogDensity", s.LogDensity([]float64{0, 0}, []float64{1, nan, nan, 1})) }},
		{Category: "mismatched", Name: "SuffStatLogReg.Moments short mean", Err: func() error { return s.Moments([]float64{0, 0}, id, make([]float64, 2), make([]float64, 25)) }},
		{Category: "zerovalue", Name: "SuffStatLogReg{}.LogDensityGrad", Check: func() error {
			var z SuffStatLogReg
			return isNaN("LogDensityGrad", z.LogDensityGrad([]float64{0, 0}, id, make([]float64, 2), make([]float64, 4)))
		}},
		{Category: "nil", Name: "NewSuffStatLogRegCovPosterior nil model", Err: func() error {
			_, err := NewSuffStatLogRegCovPosterior(nil, SuffStatLogRegCovPosteriorConfig{SDTheta: 1, Cov: lkj})
			return err
		}},
		{Category: "zerovalue", Name: "NewSuffStatLogRegCovPosterior zero prior", Err: func() error {
			_, err := NewSuffStatLogRegCovPosterior(s, SuffStatLogRegCovPosteriorConfig{SDTheta: 1, Cov: ScaledLKJ{}})
			return err
		}},
		{Category: "nan", Name: "NewSuffStatLogRegPosterior sdTheta NaN", Err: func() error {
			_, err := NewSuffStatLogRegPosterior(s, SuffStatLogRegPosteriorConfig{SigmaX: id, SDTheta: nan})
			return err
		}},
		{Category: "nan", Name: "ScaledLKJ Eta NaN", Err: func() error { return ScaledLKJ{Eta: nan, Scale: 1}.Validate(2) }},
		{Category: "huge", Name: "ScaledLKJ Eta 1e300", Err: func() error { return ScaledLKJ{Eta: 1e300, Scale: 1}.Validate(2) }},
		{Category: "subnormal", Name: "ScaledLKJ Scale 1e-310", Err: func() error { return ScaledLKJ{Eta: 2, Scale: 1e-310}.Validate(2) }},
		{Category: "huge", Name: "ScaledLKJ Scale 1e200", Err: func() error { return ScaledLKJ{Eta: 2, Scale: 1e200}.Validate(2) }},
		{Category: "nonpositive", Name: "LKJ.LogNormalizer d 0", Err: func() error { _, err := LKJ{Eta: 2}.LogNormalizer(0); return err }},
		{Category: "nil", Name: "LKJ.Sample nil generator", Err: func() error { return LKJ{Eta: 2}.Sample(nil, 2, make([]float64, 4)) }},
		{Category: "mismatched", Name: "ScaledLKJ.Params short x", Err: func() error { return lkj.Params(id, 2, make([]float64, 2)) }},
		{Category: "inf", Name: "ScaledLKJ.Params Inf variance", Err: func() error { return lkj.Params([]float64{inf, 0, 0, 1}, 2, make([]float64, 3)) }},
		{Category: "huge", Name: "ScaledLKJ.Cov log τ 400 overflows", Check: func() error { return isNegInf("Cov", lkj.Cov([]float64{400, 0, 0}, 2, make([]float64, 4))) }},
		{Category: "nan", Name: "ScaledLKJ.Cov NaN coordinate", Check: func() error { return isNegInf("Cov", lkj.Cov([]float64{0, nan, 0}, 2, make([]float64, 4))) }},
		{Category: "mismatched", Name: "ScaledLKJ.Cov short sigma", Check: func() error { return isNaN("Cov", lkj.Cov([]float64{0, 0, 0}, 2, make([]float64, 3))) }},
		{Category: "huge", Name: "CovPrior.Cov log L 800 overflows", Check: func() error {
			return isNegInf("Cov", CovPrior{Nu: 3, Scale: 1}.Cov([]float64{800, 0, 0}, 2, make([]float64, 4)))
		}},
		{Category: "zerovalue", Name: "SuffStatCovPosterior{}.Gradient", Check: func() error {
			var p SuffStatCovPosterior
			return isNaN("Gradient", p.Gradient(make([]float64, 6), make([]float64, 6)))
		}},
		{Category: "zerovalue", Name: "LinRegCovPosterior{}.LogDensity", Check: func() error { var p LinRegCovPosterior; return isNaN("LogDensity", p.LogDensity(make([]float64, 6))) }},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
