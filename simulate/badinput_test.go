package simulate

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInputSimulators feeds invalid settings, parameters, sizes, nil
// values and unconstructed values to the simulators and record models:
// every call returns an error wrapping ErrInvalid and never panics. (The
// priors' table is TestBadInput.)
func TestBadInputSimulators(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	nan, inf := math.NaN(), math.Inf(1)
	mix, _ := NewUniformMixture(3)
	lr := LinRegPaper()
	sir, _ := NewSIR(SIRConfig{K: 100})
	tau, _ := NewSIRTauLeap(SIRConfig{K: 100}, 0.1)
	ode, _ := NewSIRODE(SIRConfig{K: 100}, 0)
	nb := NaiveBayesPaper()
	cubic, _ := NewCubicPolynomial([]float64{0, 1, 2}, 0.5)
	ms, _ := NewMeanStat(mix, 10)
	ds, _ := NewDataset(mix, 4)
	th := []float64{0.2, 0.3, 0.5}
	sim := func(s Simulator, r *rand.Rand, theta []float64, n int) func() error {
		return func() error { return s.Simulate(r, theta, make([]float64, n)) }
	}
	type B = testutil.BadInput
	cases := []B{
		// Record-model simulators.
		{Category: "nil", Name: "NewMeanStat nil model", Err: func() error { _, err := NewMeanStat(nil, 3); return err }},
		{Category: "nil", Name: "NewMeanStat typed nil model", Err: func() error { _, err := NewMeanStat((*LinReg)(nil), 3); return err }},
		{Category: "zerovalue", Name: "NewMeanStat zero-value LinReg", Err: func() error { _, err := NewMeanStat(&LinReg{}, 3); return err }},
		{Category: "zerovalue", Name: "NewMeanStat zero-value RegressionInputs", Err: func() error { _, err := NewMeanStat(&RegressionInputs{}, 3); return err }},
		{Category: "nonpositive", Name: "NewMeanStat n 0", Err: func() error { _, err := NewMeanStat(mix, 0); return err }},
		{Category: "nil", Name: "NewDataset nil model", Err: func() error { _, err := NewDataset(nil, 3); return err }},
		{Category: "zerovalue", Name: "NewDataset zero-value Histogram", Err: func() error { _, err := NewDataset(&Histogram{}, 3); return err }},
		{Category: "nonpositive", Name: "NewDataset n -1", Err: func() error { _, err := NewDataset(mix, -1); return err }},
		{Category: "huge", Name: "NewDataset n 1<<40", Err: func() error { _, err := NewDataset(lr, 1<<40); return err }},
		{Category: "nil", Name: "NewRecords nil rand", Err: func() error { _, err := NewRecords(mix, 3, nil, th); return err }},
		{Category: "nil", Name: "NewRecords nil model", Err: func() error { _, err := NewRecords(nil, 3, r, th); return err }},
		{Category: "huge", Name: "NewRecords n 1<<40", Err: func() error { _, err := NewRecords(mix, 1<<40, r, th); return err }},
		{Category: "nan", Name: "NewRecords θ NaN", Err: func() error { _, err := NewRecords(mix, 3, r, []float64{nan, 0.5, 0.5}); return err }},
		{Category: "zerovalue", Name: "NewRecords zero-value ClippedGaussian", Err: func() error { _, err := NewRecords(&ClippedGaussian{}, 3, r, []float64{0, 1}); return err }},
		{Category: "zerovalue", Name: "MeanStat{}.Simulate", Err: func() error { var s MeanStat; return s.Simulate(r, th, make([]float64, 1)) }},
		{Category: "zerovalue", Name: "Dataset{}.Simulate", Err: func() error { var s Dataset; return s.Simulate(r, th, nil) }},
		{Category: "nil", Name: "MeanStat.Simulate nil rand", Err: sim(ms, nil, th, 1)},
		{Category: "nil", Name: "Dataset.Simulate nil rand", Err: sim(ds, nil, th, 4)},
		{Category: "mismatched", Name: "MeanStat.Simulate dst length", Err: sim(ms, r, th, 2)},
		{Category: "mismatched", Name: "MeanStat.Simulate θ length", Err: sim(ms, r, th[:2], 1)},
		{Category: "inf", Name: "Dataset.Simulate θ Inf", Err: sim(ds, r, []float64{inf, 0, 0}, 4)},
		{Category: "nonpositive", Name: "Dataset.Simulate θ negative weight", Err: sim(ds, r, []float64{-0.5, 0.5, 1}, 4)},
		{Category: "nil", Name: "MeanContribution nil model", Err: func() error { return MeanContribution(nil, []float64{1}, make([]float64, 1)) }},
		{Category: "empty", Name: "MeanContribution no records", Err: func() error { return MeanContribution(mix, nil, make([]float64, 1)) }},
		{Category: "mismatched", Name: "MeanContribution dst length", Err: func() error { return MeanContribution(mix, []float64{1}, make([]float64, 3)) }},
		{Category: "nan", Name: "MeanContribution NaN record", Err: func() error { return MeanContribution(mix, []float64{nan}, make([]float64, 1)) }},
		// Record models.
		{Category: "nonpositive", Name: "NewUniformMixture k 1", Err: func() error { _, err := NewUniformMixture(1); return err }},
		{Category: "zerovalue", Name: "UniformMixture{}.CheckParam", Err: func() error { var m UniformMixture; return m.CheckParam(nil) }},
		{Category: "nan", Name: "NewClippedGaussian a NaN", Err: func() error { _, err := NewClippedGaussian(nan, 1); return err }},
		{Category: "mismatched", Name: "NewClippedGaussian a > b", Err: func() error { _, err := NewClippedGaussian(2, 1); return err }},
		{Category: "inf", Name: "NewClippedGaussian b Inf", Err: func() error { _, err := NewClippedGaussian(0, inf); return err }},
		{Category: "zerovalue", Name: "ClippedGaussian{}.CheckParam", Err: func() error { var m ClippedGaussian; return m.CheckParam([]float64{0, 1}) }},
		{Category: "nonpositive", Name: "ClippedGaussian σ 0", Err: func() error { m, _ := NewClippedGaussian(0, 1); return m.CheckParam([]float64{0, 0}) }},
		{Category: "nonpositive", Name: "NewClippedExponential b 0", Err: func() error { _, err := NewClippedExponential(0); return err }},
		{Category: "nan", Name: "NewClippedExponential b NaN", Err: func() error { _, err := NewClippedExponential(nan); return err }},
		{Category: "zerovalue", Name: "ClippedExponential{}.CheckParam", Err: func() error { var m ClippedExponential; return m.CheckParam([]float64{1}) }},
		{Category: "nonpositive", Name: "NewHistogram d 1", Err: func() error { _, err := NewHistogram(1); return err }},
		{Category: "zerovalue", Name: "Histogram{}.CheckParam", Err: func() error { var m Histogram; return m.CheckParam(nil) }},
		{Category: "nonpositive", Name: "NewLinearInputs dim 0", Err: func() error { _, err := NewLinearInputs(0, nil, 1); return err }},
		{Category: "nonpositive", Name: "NewLinearInputs σ² 0", Err: func() error { _, err := NewLinearInputs(2, nil, 0); return err }},
		{Category: "mismatched", Name: "NewLogisticInputs cov length", Err: func() error { _, err := NewLogisticInputs(2, []float64{1, 0, 1}); return err }},
		{Category: "nonpositive", Name: "NewLogisticInputs cov not positive definite", Err: func() error { _, err := NewLogisticInputs(2, []float64{1, 2, 2, 1}); return err }},
		{Category: "nan", Name: "NewLogisticInputs cov NaN", Err: func() error { _, err := NewLogisticInputs(1, []float64{nan}); return err }},
		{Category: "zerovalue", Name: "RegressionInputs{}.CheckParam", Err: func() error { var m RegressionInputs; return m.CheckParam(nil) }},
		{Category: "empty", Name: "NewLinReg no predictors", Err: func() error { _, err := NewLinReg(LinRegConfig{Sigma2: 1}); return err }},
		{Category: "nan", Name: "NewLinReg predictor mean NaN", Err: func() error { _, err := NewLinReg(LinRegConfig{PredictorMean: []float64{nan}, Sigma2: 1}); return err }},
		{Category: "nonpositive", Name: "NewLinReg σ² 0", Err: func() error { _, err := NewLinReg(LinRegConfig{PredictorMean: []float64{0}}); return err }},
		{Category: "inf", Name: "NewLinReg σ² Inf", Err: func() error { _, err := NewLinReg(LinRegConfig{PredictorMean: []float64{0}, Sigma2: inf}); return err }},
		{Category: "nonpositive", Name: "NewLinReg clamp -1", Err: func() error {
			_, err := NewLinReg(LinRegConfig{PredictorMean: []float64{0}, Sigma2: 1, Clamp: -1})
			return err
		}},
		{Category: "mismatched", Name: "NewLinReg cov length", Err: func() error {
			_, err := NewLinReg(LinRegConfig{PredictorMean: []float64{0, 0}, PredictorCov: []float64{1}, Sigma2: 1})
			return err
		}},
		{Category: "zerovalue", Name: "LinReg{}.CheckParam", Err: func() error { var m LinReg; return m.CheckParam([]float64{0}) }},
		{Category: "nan", Name: "LinReg.CheckParam θ NaN", Err: func() error { return lr.CheckParam([]float64{nan, 0, 0}) }},
		{Category: "nonpositive", Name: "LinRegPrior p 0", Err: func() error { _, err := LinRegPrior(0); return err }},
		{Category: "nan", Name: "LinRegRelease ε NaN", Err: func() error { _, err := LinRegRelease(nan); return err }},
		{Category: "nonpositive", Name: "NewNaiveBayes classes 1", Err: func() error { _, err := NewNaiveBayes(1, []int{2}, 10); return err }},
		{Category: "empty", Name: "NewNaiveBayes no features", Err: func() error { _, err := NewNaiveBayes(2, nil, 10); return err }},
		{Category: "nonpositive", Name: "NewNaiveBayes n 0", Err: func() error { _, err := NewNaiveBayes(2, []int{2}, 0); return err }},
		{Category: "nonpositive", Name: "NewNaiveBayes levels 1", Err: func() error { _, err := NewNaiveBayes(2, []int{1}, 10); return err }},
		{Category: "zerovalue", Name: "NaiveBayes{}.Simulate", Err: func() error { var m NaiveBayes; return m.Simulate(r, nil, nil) }},
		{Category: "nil", Name: "NaiveBayes.Simulate nil rand", Err: sim(nb, nil, NaiveBayesPaperTheta(), nb.StatDim())},
		{Category: "mismatched", Name: "NaiveBayes.Simulate dst length", Err: sim(nb, r, NaiveBayesPaperTheta(), 1)},
		{Category: "nan", Name: "NaiveBayes.Simulate θ NaN", Err: func() error {
			th := NaiveBayesPaperTheta()
			th[0] = nan
			return nb.Simulate(r, th, make([]float64, nb.StatDim()))
		}},
		{Category: "empty", Name: "NewCubicPolynomial no times", Err: func() error { _, err := NewCubicPolynomial(nil, 1); return err }},
		{Category: "nan", Name: "NewCubicPolynomial time NaN", Err: func() error { _, err := NewCubicPolynomial([]float64{nan}, 1); return err }},
		{Category: "nonpositive", Name: "NewCubicPolynomial noise -1", Err: func() error { _, err := NewCubicPolynomial([]float64{1}, -1); return err }},
		{Category: "zerovalue", Name: "CubicPolynomial{}.Simulate", Err: func() error { var m CubicPolynomial; return m.Simulate(r, []float64{0, 0, 0, 0}, nil) }},
		{Category: "nil", Name: "CubicPolynomial.Simulate nil rand", Err: sim(cubic, nil, []float64{0, 0, 0, 0}, 3)},
		{Category: "inf", Name: "CubicPolynomial.Simulate θ Inf", Err: sim(cubic, r, []float64{0, inf, 0, 0}, 3)},
		// SIR simulators.
		{Category: "zerovalue", Name: "NewSIR SIRConfig{}", Err: func() error { _, err := NewSIR(SIRConfig{}); return err }},
		{Category: "nonpositive", Name: "NewSIR K -5", Err: func() error { _, err := NewSIR(SIRConfig{K: -5}); return err }},
		{Category: "huge", Name: "NewSIR K MaxInt64", Err: func() error { _, err := NewSIR(SIRConfig{K: math.MaxInt64}); return err }},
		{Category: "huge", Name: "NewSIR I0 > K", Err: func() error { _, err := NewSIR(SIRConfig{K: 10, I0: 11}); return err }},
		{Category: "nonpositive", Name: "NewSIR I0 -1", Err: func() error { _, err := NewSIR(SIRConfig{K: 10, I0: -1}); return err }},
		{Category: "huge", Name: "NewSIR Param 7", Err: func() error { _, err := NewSIR(SIRConfig{K: 10, Param: 7}); return err }},
		{Category: "huge", Name: "NewSIR Output 7", Err: func() error { _, err := NewSIR(SIRConfig{K: 10, Output: 7}); return err }},
		{Category: "empty", Name: "NewSIR empty times", Err: func() error { _, err := NewSIR(SIRConfig{K: 10, Times: []float64{}}); return err }},
		{Category: "nan", Name: "NewSIR time NaN", Err: func() error { _, err := NewSIR(SIRConfig{K: 10, Times: []float64{1, nan}}); return err }},
		{Category: "inf", Name: "NewSIR time Inf", Err: func() error { _, err := NewSIR(SIRConfig{K: 10, Times: []float64{inf}}); return err }},
		{Category: "nonpositive", Name: "NewSIR time -1", Err: func() error { _, err := NewSIR(SIRConfig{K: 10, Times: []float64{-1}}); return err }},
		{Category: "mismatched", Name: "NewSIR unsorted times", Err: func() error { _, err := NewSIR(SIRConfig{K: 10, Times: []float64{2, 1}}); return err }},
		{Category: "zerovalue", Name: "SIR{}.Simulate", Err: func() error { var s SIR; return s.Simulate(r, []float64{0, 0}, nil) }},
		{Category: "zerovalue", Name: "SIRTauLeap{}.Simulate", Err: func() error { var s SIRTauLeap; return s.Simulate(r, []float64{0, 0}, nil) }},
		{Category: "zerovalue", Name: "SIRODE{}.Simulate", Err: func() error { var s SIRODE; return s.Simulate(r, []float64{0, 0}, nil) }},
		{Category: "nil", Name: "SIR.Simulate nil rand", Err: sim(sir, nil, []float64{0, -1}, 10)},
		{Category: "nil", Name: "SIRTauLeap.Simulate nil rand", Err: sim(tau, nil, []float64{0, -1}, 10)},
		{Category: "nan", Name: "SIR.Simulate θ NaN", Err: sim(sir, r, []float64{nan, 0}, 10)},
		{Category: "huge", Name: "SIR.Simulate log-rate 1e308", Err: sim(sir, r, []float64{1e308, 0}, 10)},
		{Category: "inf", Name: "SIRODE.Simulate θ Inf", Err: sim(ode, r, []float64{0, inf}, 10)},
		{Category: "mismatched", Name: "SIR.Simulate dst length", Err: sim(sir, r, []float64{0, -1}, 3)},
		{Category: "mismatched", Name: "SIRTauLeap.Simulate θ length", Err: sim(tau, r, []float64{0}, 10)},
		{Category: "nonpositive", Name: "SIR Rates β < 0", Err: func() error {
			s, _ := NewSIR(SIRConfig{K: 10, Param: Rates})
			return s.Simulate(r, []float64{-1, 1}, make([]float64, s.StatDim()))
		}},
		{Category: "subnormal", Name: "NewSIRTauLeap step 5e-324", Err: func() error { _, err := NewSIRTauLeap(SIRConfig{K: 10}, 5e-324); return err }},
		{Category: "subnormal", Name: "NewSIRTauLeap step 1e-310", Err: func() error { _, err := NewSIRTauLeap(SIRConfig{K: 10}, 1e-310); return err }},
		{Category: "huge", Name: "NewSIRTauLeap time 1e308", Err: func() error { _, err := NewSIRTauLeap(SIRConfig{K: 10, Times: []float64{1e308}}, 1); return err }},
		{Category: "nan", Name: "NewSIRTauLeap step NaN", Err: func() error { _, err := NewSIRTauLeap(SIRConfig{K: 10}, nan); return err }},
		{Category: "nonpositive", Name: "NewSIRTauLeap step 0", Err: func() error { _, err := NewSIRTauLeap(SIRConfig{K: 10}, 0); return err }},
		{Category: "nan", Name: "NewSIRODE rtol NaN", Err: func() error { _, err := NewSIRODE(SIRConfig{K: 10}, nan); return err }},
		{Category: "huge", Name: "NewSIRODE rtol 1", Err: func() error { _, err := NewSIRODE(SIRConfig{K: 10}, 1); return err }},
		{Category: "nonpositive", Name: "NewSIRODE rtol -1", Err: func() error { _, err := NewSIRODE(SIRConfig{K: 10}, -1); return err }},
		{Category: "nan", Name: "SIRSyntheticM ε NaN", Err: func() error { _, err := SIRSyntheticM(nan); return err }},
		{Category: "inf", Name: "SIRSyntheticRelease ε Inf", Err: func() error { _, err := SIRSyntheticRelease(inf); return err }},
		{Category: "empty", Name: "OutbreakByName empty", Err: func() error { _, err := OutbreakByName(""); return err }},
		{Category: "nan", Name: "R0 θ NaN", Check: func() error {
			if v := R0([]float64{nan, 0}, LogRates); !math.IsNaN(v) {
				return errors.New("R0 of NaN θ is not NaN")
			}
			return nil
		}},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
