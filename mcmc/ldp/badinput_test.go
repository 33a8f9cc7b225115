package ldp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds invalid privacy levels, bounds, reports, sizes and
// unconstructed values to the models, data objects and posteriors: every
// constructor returns an error wrapping ErrInvalid, every log-likelihood or
// density of a bad argument returns the documented NaN, and nothing panics.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ctx := context.Background()
	cg, _ := NewClippedGaussian(ClippedGaussianConfig{A: 0, B: 1, Epsilon: 1})
	ce, _ := NewClippedExponential(ClippedExponentialConfig{B: 1, Epsilon: 1})
	oue, _ := NewOUEModel(OUEModelConfig{Epsilon: 1, Dim: 3})
	z := []float64{0.1, 0.5, -0.3}
	prior := GaussianPrior{Mu0: 0, Sd0: 1, Shape: 2, Rate: 2}
	isNaN := func(name string, v float64) error {
		if !math.IsNaN(v) {
			return fmt.Errorf("%s = %v, want NaN", name, v)
		}
		return nil
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nan", Name: "NewClippedGaussian ε NaN", Err: func() error {
			_, err := NewClippedGaussian(ClippedGaussianConfig{A: 0, B: 1, Epsilon: nan})
			return err
		}},
		{Category: "inf", Name: "NewClippedGaussian ε Inf", Err: func() error {
			_, err := NewClippedGaussian(ClippedGaussianConfig{A: 0, B: 1, Epsilon: inf})
			return err
		}},
		{Category: "nonpositive", Name: "NewClippedGaussian ε 0", Err: func() error { _, err := NewClippedGaussian(ClippedGaussianConfig{A: 0, B: 1, Epsilon: 0}); return err }},
		{Category: "subnormal", Name: "NewClippedGaussian ε 5e-324", Err: func() error {
			_, err := NewClippedGaussian(ClippedGaussianConfig{A: 0, B: 1, Epsilon: 5e-324})
			return err
		}},
		{Category: "huge", Name: "NewClippedGaussian ε 1e308", Err: func() error {
			_, err := NewClippedGaussian(ClippedGaussianConfig{A: 0, B: 1, Epsilon: 1e308})
			return err
		}},
		{Category: "mismatched", Name: "NewClippedGaussian a ≥ b", Err: func() error { _, err := NewClippedGaussian(ClippedGaussianConfig{A: 1, B: 1, Epsilon: 1}); return err }},
		{Category: "huge", Name: "NewClippedGaussian bounds ±1e308", Err: func() error {
			_, err := NewClippedGaussian(ClippedGaussianConfig{A: -1e308, B: 1e308, Epsilon: 1})
			return err
		}},
		{Category: "nan", Name: "NewClippedGaussian a NaN", Err: func() error {
			_, err := NewClippedGaussian(ClippedGaussianConfig{A: nan, B: 1, Epsilon: 1})
			return err
		}},
		{Category: "nan", Name: "NewClippedExponential b NaN", Err: func() error {
			_, err := NewClippedExponential(ClippedExponentialConfig{B: nan, Epsilon: 1})
			return err
		}},
		{Category: "nonpositive", Name: "NewClippedExponential b 0", Err: func() error { _, err := NewClippedExponential(ClippedExponentialConfig{B: 0, Epsilon: 1}); return err }},
		{Category: "subnormal", Name: "NewClippedExponential ε 1e-310", Err: func() error {
			_, err := NewClippedExponential(ClippedExponentialConfig{B: 1, Epsilon: 1e-310})
			return err
		}},
		{Category: "nan", Name: "ClippedGaussian.LogDensitySum σ NaN", Check: func() error { return isNaN("LogDensitySum", cg.LogDensitySum(z, 0, nan)) }},
		{Category: "nonpositive", Name: "ClippedGaussian.LogDensitySum σ -1", Check: func() error { return isNaN("LogDensitySum", cg.LogDensitySum(z, 0, -1)) }},
		{Category: "nan", Name: "ClippedGaussian.LogDensity report NaN", Check: func() error { return isNaN("LogDensity", cg.LogDensity(nan, 0, 1)) }},
		{Category: "zerovalue", Name: "ClippedGaussian{}.LogDensitySum", Check: func() error { var m ClippedGaussian; return isNaN("LogDensitySum", m.LogDensitySum(z, 0, 1)) }},
		{Category: "zerovalue", Name: "ClippedGaussian{}.LogDensitySumGrad", Check: func() error {
			var m ClippedGaussian
			v, _, _ := m.LogDensitySumGrad(z, 0, 1)
			return isNaN("LogDensitySumGrad", v)
		}},
		{Category: "zerovalue", Name: "ClippedExponential{}.LogDensitySum", Check: func() error { var m ClippedExponential; return isNaN("LogDensitySum", m.LogDensitySum(z, 1)) }},
		{Category: "nonpositive", Name: "ClippedExponential.LogDensitySum rate 0", Check: func() error { return isNaN("LogDensitySum", ce.LogDensitySum(z, 0)) }},
		{Category: "inf", Name: "ClippedExponential.LogDensitySumGrad rate Inf", Check: func() error { v, _ := ce.LogDensitySumGrad(z, inf); return isNaN("LogDensitySumGrad", v) }},
		{Category: "nan", Name: "checkReports NaN", Err: func() error { return checkReports([]float64{0, nan}) }},
		{Category: "empty", Name: "checkReports empty", Err: func() error { return checkReports(nil) }},
		{Category: "nil", Name: "NewGaussianPosterior nil model", Err: func() error { _, err := NewGaussianPosterior(nil, z, prior); return err }},
		{Category: "zerovalue", Name: "NewGaussianPosterior zero-value model", Err: func() error { _, err := NewGaussianPosterior(&ClippedGaussian{}, z, prior); return err }},
		{Category: "empty", Name: "NewGaussianPosterior no reports", Err: func() error { _, err := NewGaussianPosterior(cg, nil, prior); return err }},
		{Category: "inf", Name: "NewGaussianPosterior report Inf", Err: func() error { _, err := NewGaussianPosterior(cg, []float64{inf}, prior); return err }},
		{Category: "nan", Name: "NewGaussianPosterior prior Sd0 NaN", Err: func() error {
			_, err := NewGaussianPosterior(cg, z, GaussianPrior{Sd0: nan, Shape: 1, Rate: 1})
			return err
		}},
		{Category: "zerovalue", Name: "NewGaussianPosterior GaussianPrior{}", Err: func() error { _, err := NewGaussianPosterior(cg, z, GaussianPrior{}); return err }},
		{Category: "zerovalue", Name: "GaussianPosterior{}.LogDensity", Check: func() error { var g GaussianPosterior; return isNaN("LogDensity", g.LogDensity([]float64{0, 0})) }},
		{Category: "mismatched", Name: "GaussianPosterior.LogDensity short x", Check: func() error {
			g, err := NewGaussianPosterior(cg, z, prior)
			if err != nil {
				return err
			}
			return isNaN("LogDensity", g.LogDensity([]float64{0}))
		}},
		{Category: "zerovalue", Name: "GaussianPosterior{}.Grid", Err: func() error { var g GaussianPosterior; _, err := g.Grid(ctx, 16); return err }},
		{Category: "nonpositive", Name: "GaussianPosterior.Grid n 0", Err: func() error {
			g, _ := NewGaussianPosterior(cg, z, prior)
			_, err := g.Grid(ctx, 0)
			return err
		}},
		{Category: "huge", Name: "GaussianPosterior.Grid n 1<<40", Err: func() error {
			g, _ := NewGaussianPosterior(cg, z, prior)
			_, err := g.Grid(ctx, 1<<40)
			return err
		}},
		{Category: "nil", Name: "NewExponentialPosterior nil model", Err: func() error {
			_, err := NewExponentialPosterior(nil, z, ExponentialPosteriorConfig{Shape: 1, Rate: 1})
			return err
		}},
		{Category: "nonpositive", Name: "NewExponentialPosterior shape 0", Err: func() error {
			_, err := NewExponentialPosterior(ce, z, ExponentialPosteriorConfig{Shape: 0, Rate: 1})
			return err
		}},
		{Category: "nan", Name: "NewExponentialPosterior rate NaN", Err: func() error {
			_, err := NewExponentialPosterior(ce, z, ExponentialPosteriorConfig{Shape: 1, Rate: nan})
			return err
		}},
		{Category: "zerovalue", Name: "ExponentialPosterior{}.LogDensity", Check: func() error { var e ExponentialPosterior; return isNaN("LogDensity", e.LogDensity([]float64{0})) }},
		{Category: "nan", Name: "NewOUEModel ε NaN", Err: func() error { _, err := NewOUEModel(OUEModelConfig{Epsilon: nan, Dim: 3}); return err }},
		{Category: "nonpositive", Name: "NewOUEModel d 1", Err: func() error { _, err := NewOUEModel(OUEModelConfig{Epsilon: 1, Dim: 1}); return err }},
		{Category: "huge", Name: "NewOUEModel d 1<<40", Err: func() error { _, err := NewOUEModel(OUEModelConfig{Epsilon: 1, Dim: 1 << 40}); return err }},
		{Category: "mismatched", Name: "OUEModel.NewData length", Err: func() error { _, err := oue.NewData([]float64{1, 0}); return err }},
		{Category: "empty", Name: "OUEModel.NewData empty", Err: func() error { _, err := oue.NewData(nil); return err }},
		{Category: "nan", Name: "OUEModel.NewData NaN bit", Err: func() error { _, err := oue.NewData([]float64{1, nan, 0}); return err }},
		{Category: "zerovalue", Name: "OUEModel{}.NewData", Err: func() error { var m OUEModel; _, err := m.NewData([]float64{1, 0, 0}); return err }},
		{Category: "zerovalue", Name: "OUEData{}.LogDensity", Check: func() error { var d OUEData; return isNaN("LogDensity", d.LogDensity([]float64{0.5, 0.5})) }},
		{Category: "mismatched", Name: "OUEModel.LogDensity θ length", Check: func() error { return isNaN("LogDensity", oue.LogDensity([]float64{1, 0, 0}, []float64{1})) }},
		{Category: "nil", Name: "NewHistogramPosterior nil data", Err: func() error { _, err := NewHistogramPosterior(nil, []float64{1, 1, 1}); return err }},
		{Category: "zerovalue", Name: "HistogramPosterior{}.LogDensity", Check: func() error { var h HistogramPosterior; return isNaN("LogDensity", h.LogDensity([]float64{0, 0})) }},
		{Category: "mismatched", Name: "ProjectSimplex length", Err: func() error { return ProjectSimplex(make([]float64, 2), []float64{1, 2, 3}) }},
		{Category: "nan", Name: "ProjectSimplex NaN", Err: func() error { return ProjectSimplex(make([]float64, 2), []float64{1, nan}) }},
		{Category: "empty", Name: "ProjectSimplex empty", Err: func() error { return ProjectSimplex(nil, nil) }},
		{Category: "mismatched", Name: "NewLinRegData zy length", Err: func() error {
			_, err := NewLinRegData(LinRegDataConfig{ZX: []float64{1, 2}, ZY: []float64{1}, Dim: 1, SX: []float64{1}})
			return err
		}},
		{Category: "nonpositive", Name: "NewLinRegData d 0", Err: func() error { _, err := NewLinRegData(LinRegDataConfig{ZX: nil, ZY: nil, Dim: 0, SX: nil}); return err }},
		{Category: "nonpositive", Name: "NewLinRegData sx 0", Err: func() error {
			_, err := NewLinRegData(LinRegDataConfig{ZX: []float64{1}, ZY: []float64{1}, Dim: 1, SX: []float64{0}})
			return err
		}},
		{Category: "nan", Name: "NewLinRegData report NaN", Err: func() error {
			_, err := NewLinRegData(LinRegDataConfig{ZX: []float64{nan}, ZY: []float64{1}, Dim: 1, SX: []float64{1}})
			return err
		}},
		{Category: "zerovalue", Name: "LinRegData{}.FixCov", Err: func() error { var l LinRegData; _, err := l.FixCov([]float64{1}, 1); return err }},
		{Category: "zerovalue", Name: "LinRegData{}.LogDensity", Check: func() error {
			var l LinRegData
			return isNaN("LogDensity", l.LogDensity([]float64{0}, 1, 1, []float64{1}))
		}},
		{Category: "nil", Name: "NewLinRegPosterior nil", Err: func() error {
			_, err := NewLinRegPosterior(nil, LinRegPosteriorConfig{SDTheta: 1, Shape: 1, Rate: 1})
			return err
		}},
		{Category: "nan", Name: "ChebyshevSigmoid NaN", Err: func() error { _, err := ChebyshevSigmoid(nan, 1); return err }},
		{Category: "mismatched", Name: "ChebyshevSigmoid lo ≥ hi", Err: func() error { _, err := ChebyshevSigmoid(1, -1); return err }},
		{Category: "nonpositive", Name: "NewLogRegData ε 0", Err: func() error {
			_, err := NewLogRegData(LogRegDataConfig{ZX: []float64{1}, ZY: []float64{1}, Dim: 1, SX: []float64{1}, EpsilonY: 0})
			return err
		}},
		{Category: "zerovalue", Name: "LogRegData{}.FixCov", Err: func() error { var l LogRegData; _, err := l.FixCov([]float64{1}, [3]float64{}); return err }},
		{Category: "nil", Name: "NewLogRegPosterior nil", Err: func() error { _, err := NewLogRegPosterior(nil, LogRegPosteriorConfig{SDTheta: 1}); return err }},
		{Category: "empty", Name: "NewPolyExpQuad empty g", Err: func() error {
			_, err := NewPolyExpQuad(PolyExpQuadConfig{G: nil, H0: 0, H1: 0, H2: -1, A: 0, B: 1})
			return err
		}},
		{Category: "nonpositive", Name: "NewPolyExpQuad h2 ≥ 0", Err: func() error {
			_, err := NewPolyExpQuad(PolyExpQuadConfig{G: []float64{1}, H0: 0, H1: 0, H2: 1, A: 0, B: 1})
			return err
		}},
		{Category: "nan", Name: "NewPolyExpQuad h1 NaN", Err: func() error {
			_, err := NewPolyExpQuad(PolyExpQuadConfig{G: []float64{1}, H0: 0, H1: nan, H2: -1, A: 0, B: 1})
			return err
		}},
		{Category: "huge", Name: "NewPolyExpQuad degree 100", Err: func() error {
			_, err := NewPolyExpQuad(PolyExpQuadConfig{G: make([]float64, 101), H0: 0, H1: 0, H2: -1, A: 0, B: 1})
			return err
		}},
		{Category: "zerovalue", Name: "PolyExpQuad{}.LogMarginal", Check: func() error { var p PolyExpQuad; return isNaN("LogMarginal", p.LogMarginal(0, 1)) }},
		{Category: "nan", Name: "truncNormalMoments σ NaN", Check: func() error { return isNaN("truncNormalMoments", truncNormalMoments(0, nan, 0, 1, make([]float64, 3))) }},
		{Category: "mismatched", Name: "SuffStats dst length", Err: func() error { return SuffStats([]float64{1}, 1, make([]float64, 2)) }},
		{Category: "nan", Name: "SuffStats y NaN", Err: func() error { return SuffStats([]float64{1}, nan, make([]float64, SuffStatDim(1))) }},
		{Category: "nonpositive", Name: "NewSuffStatLinReg n 0", Err: func() error {
			_, err := NewSuffStatLinReg(SuffStatLinRegConfig{Z: make([]float64, SuffStatDim(1)), Dim: 1, N: 0, Sigma1: 1, Sigma2: 1, Sigma3: 1})
			return err
		}},
		{Category: "nonpositive", Name: "NewSuffStatLinReg s1 0", Err: func() error {
			_, err := NewSuffStatLinReg(SuffStatLinRegConfig{Z: make([]float64, SuffStatDim(1)), Dim: 1, N: 5, Sigma1: 0, Sigma2: 1, Sigma3: 1})
			return err
		}},
		{Category: "mismatched", Name: "NewSuffStatLinReg z length", Err: func() error {
			_, err := NewSuffStatLinReg(SuffStatLinRegConfig{Z: make([]float64, 2), Dim: 1, N: 5, Sigma1: 1, Sigma2: 1, Sigma3: 1})
			return err
		}},
		{Category: "zerovalue", Name: "SuffStatLinReg{}.Moments", Err: func() error {
			var s SuffStatLinReg
			return s.Moments([]float64{0}, 1, []float64{1}, make([]float64, 3), make([]float64, 9))
		}},
		{Category: "nil", Name: "NewSuffStatPosterior nil", Err: func() error {
			_, err := NewSuffStatPosterior(nil, SuffStatPosteriorConfig{SigmaX: []float64{1}, SDTheta: 1, Shape: 1, Rate: 1})
			return err
		}},
		{Category: "nil", Name: "NewSuffStatCovPosterior nil", Err: func() error {
			_, err := NewSuffStatCovPosterior(nil, SuffStatCovPosteriorConfig{SDTheta: 1, Shape: 1, Rate: 1, Cov: CovPrior{Nu: 2, Scale: 1}})
			return err
		}},
		{Category: "nil", Name: "NewLinRegCovPosterior nil", Err: func() error {
			_, err := NewLinRegCovPosterior(nil, LinRegCovPosteriorConfig{SY: 1, SDTheta: 1, Shape: 1, Rate: 1, Cov: CovPrior{Nu: 2, Scale: 1}})
			return err
		}},
		{Category: "nonpositive", Name: "covFromParams d 0", Err: func() error { return covFromParams(nil, 0, nil) }},
		{Category: "mismatched", Name: "covFromParams length", Err: func() error { return covFromParams([]float64{1}, 2, make([]float64, 4)) }},
		{Category: "nan", Name: "covFromParams NaN", Err: func() error { return covFromParams([]float64{nan}, 1, make([]float64, 1)) }},
		{Category: "zerovalue", Name: "CalibrateGaussian CalibrationConfig{}", Err: func() error { _, err := CalibrateGaussian(ctx, CalibrationConfig{}); return err }},
		{Category: "huge", Name: "CalibrateGaussian Datasets 1<<40", Err: func() error {
			_, err := CalibrateGaussian(ctx, CalibrationConfig{A: 0, B: 1, Epsilon: 1, N: 10, Datasets: 1 << 40, Prior: prior})
			return err
		}},
		{Category: "nil", Name: "CalibrateGaussian nil context", Err: func() error {
			var c context.Context
			_, err := CalibrateGaussian(c, CalibrationConfig{A: 0, B: 1, Epsilon: 1, N: 10, Datasets: 1, Prior: prior})
			return err
		}},
		{Category: "zerovalue", Name: "CalibrationResult{}.Coverage", Check: func() error {
			var c CalibrationResult
			mu, sigma := c.Coverage(0.9)
			if !math.IsNaN(mu) || !math.IsNaN(sigma) {
				return errors.New("coverage of no datasets is not NaN")
			}
			return nil
		}},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
