package simulate_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/clipped"
	"github.com/privinfer/privinfer/simulate/histogram"
	"github.com/privinfer/privinfer/simulate/linreg"
	"github.com/privinfer/privinfer/simulate/mixture"
	"github.com/privinfer/privinfer/simulate/regression"
)

// TestBadInputSimulators feeds invalid settings, parameters, sizes, nil
// values and unconstructed values to the record-model simulators
// (MeanStat, Dataset, Records, MeanContribution): every call returns an
// error wrapping ErrInvalid and never panics. (The priors' table is
// TestBadInput; each model package has its own.)
func TestBadInputSimulators(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	nan, inf := math.NaN(), math.Inf(1)
	mix, _ := mixture.NewUniform(3)
	lr := linreg.Paper()
	ms, _ := simulate.NewMeanStat(mix, 10)
	ds, _ := simulate.NewDataset(mix, 4)
	th := []float64{0.2, 0.3, 0.5}
	sim := func(s simulate.Simulator, r *rand.Rand, theta []float64, n int) func() error {
		return func() error { return s.Simulate(r, theta, make([]float64, n)) }
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nil", Name: "NewMeanStat nil model", Err: func() error { _, err := simulate.NewMeanStat(nil, 3); return err }},
		{Category: "nil", Name: "NewMeanStat typed nil model", Err: func() error { _, err := simulate.NewMeanStat((*linreg.Model)(nil), 3); return err }},
		{Category: "zerovalue", Name: "NewMeanStat zero-value linreg.Model", Err: func() error { _, err := simulate.NewMeanStat(&linreg.Model{}, 3); return err }},
		{Category: "zerovalue", Name: "NewMeanStat zero-value regression.Inputs", Err: func() error { _, err := simulate.NewMeanStat(&regression.Inputs{}, 3); return err }},
		{Category: "nonpositive", Name: "NewMeanStat n 0", Err: func() error { _, err := simulate.NewMeanStat(mix, 0); return err }},
		{Category: "nil", Name: "NewDataset nil model", Err: func() error { _, err := simulate.NewDataset(nil, 3); return err }},
		{Category: "zerovalue", Name: "NewDataset zero-value histogram.Model", Err: func() error { _, err := simulate.NewDataset(&histogram.Model{}, 3); return err }},
		{Category: "nonpositive", Name: "NewDataset n -1", Err: func() error { _, err := simulate.NewDataset(mix, -1); return err }},
		{Category: "huge", Name: "NewDataset n 1<<40", Err: func() error { _, err := simulate.NewDataset(lr, 1<<40); return err }},
		{Category: "nil", Name: "NewRecords nil rand", Err: func() error { _, err := simulate.NewRecords(mix, 3, nil, th); return err }},
		{Category: "nil", Name: "NewRecords nil model", Err: func() error { _, err := simulate.NewRecords(nil, 3, r, th); return err }},
		{Category: "huge", Name: "NewRecords n 1<<40", Err: func() error { _, err := simulate.NewRecords(mix, 1<<40, r, th); return err }},
		{Category: "nan", Name: "NewRecords θ NaN", Err: func() error { _, err := simulate.NewRecords(mix, 3, r, []float64{nan, 0.5, 0.5}); return err }},
		{Category: "zerovalue", Name: "NewRecords zero-value clipped.Gaussian", Err: func() error { _, err := simulate.NewRecords(&clipped.Gaussian{}, 3, r, []float64{0, 1}); return err }},
		{Category: "zerovalue", Name: "MeanStat{}.Simulate", Err: func() error { var s simulate.MeanStat; return s.Simulate(r, th, make([]float64, 1)) }},
		{Category: "zerovalue", Name: "Dataset{}.Simulate", Err: func() error { var s simulate.Dataset; return s.Simulate(r, th, nil) }},
		{Category: "nil", Name: "MeanStat.Simulate nil rand", Err: sim(ms, nil, th, 1)},
		{Category: "nil", Name: "Dataset.Simulate nil rand", Err: sim(ds, nil, th, 4)},
		{Category: "mismatched", Name: "MeanStat.Simulate dst length", Err: sim(ms, r, th, 2)},
		{Category: "mismatched", Name: "MeanStat.Simulate θ length", Err: sim(ms, r, th[:2], 1)},
		{Category: "inf", Name: "Dataset.Simulate θ Inf", Err: sim(ds, r, []float64{inf, 0, 0}, 4)},
		{Category: "nonpositive", Name: "Dataset.Simulate θ negative weight", Err: sim(ds, r, []float64{-0.5, 0.5, 1}, 4)},
		{Category: "nil", Name: "MeanContribution nil model", Err: func() error { return simulate.MeanContribution(nil, []float64{1}, make([]float64, 1)) }},
		{Category: "empty", Name: "MeanContribution no records", Err: func() error { return simulate.MeanContribution(mix, nil, make([]float64, 1)) }},
		{Category: "mismatched", Name: "MeanContribution dst length", Err: func() error { return simulate.MeanContribution(mix, []float64{1}, make([]float64, 3)) }},
		{Category: "nan", Name: "MeanContribution NaN record", Err: func() error { return simulate.MeanContribution(mix, []float64{nan}, make([]float64, 1)) }},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
