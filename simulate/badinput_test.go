package simulate_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
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

// TestBadInputPrivate feeds nil and typed-nil simulators and mechanisms,
// mismatched dimensions and slice lengths to NewPrivate, SimulateBoth,
// Batch and PriorPredictive (errors wrapping ErrInvalid), and a nil random
// source or short θ to the priors' Sample (the panics the Prior interface
// documents).
func TestBadInputPrivate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ctx := context.Background()
	mix, _ := mixture.NewUniform(3)
	ms, _ := simulate.NewMeanStat(mix, 10) // StatDim 1, θ length 3
	g1, _ := mechanism.NewGaussian(mechanism.ScaleConfig{Sigma: 1, Dim: 1})
	g2, _ := mechanism.NewGaussian(mechanism.ScaleConfig{Sigma: 1, Dim: 2})
	ps, err := simulate.NewPrivate(ms, g1)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := simulate.NewDirichlet([]float64{1, 1, 1})
	mvn, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0, 0}, Variances: []float64{1, 1}})
	u, _ := simulate.NewUniform(simulate.UniformConfig{Lo: 0, Hi: 1})
	ind, _ := simulate.NewIndependent(u, u)
	cat, _ := simulate.NewConcat(dir, ind)
	th := []float64{0.2, 0.3, 0.5}
	priv := func(s simulate.Simulator, m mechanism.Mechanism) func() error {
		return func() error { _, err := simulate.NewPrivate(s, m); return err }
	}
	both := func(p *simulate.PrivateSimulator, r *rand.Rand, conf, dst []float64) func() error {
		return func() error { _, err := p.SimulateBoth(r, th, conf, dst); return err }
	}
	batch := func(ctx context.Context, s simulate.Simulator, thetas []float64, dim int, dst []float64) func() error {
		return func() error { return simulate.Batch(ctx, nil, s, thetas, dim, 1, dst) }
	}
	pp := func(ctx context.Context, p simulate.Prior, s simulate.Simulator, n int, thetas, stats []float64) func() error {
		return func() error { return simulate.PriorPredictive(ctx, nil, p, s, n, 1, thetas, stats) }
	}
	sample := func(p simulate.Prior, r *rand.Rand, n int) func() { return func() { p.Sample(r, make([]float64, n)) } }
	type B = testutil.BadInput
	cases := []B{
		{Category: "nil", Name: "NewPrivate nil sim", Err: priv(nil, g1)},
		{Category: "nil", Name: "NewPrivate nil mech", Err: priv(ms, nil)},
		{Category: "typednil", Name: "NewPrivate typed nil mech", Err: priv(ms, (*mechanism.Laplace)(nil))},
		{Category: "typednil", Name: "NewPrivate typed nil sim", Err: priv((*simulate.MeanStat)(nil), g1)},
		{Category: "typednil", Name: "NewPrivate typed nil PrivateSimulator", Err: priv((*simulate.PrivateSimulator)(nil), g1)},
		{Category: "mismatched", Name: "NewPrivate mech Dim 2 vs StatDim 1", Err: priv(ms, g2)},
		{Category: "zerovalue", Name: "NewPrivate zero-value MeanStat", Err: priv(&simulate.MeanStat{}, g1)},
		{Category: "typednil", Name: "nil PrivateSimulator SimulateBoth", Err: both(nil, r, nil, make([]float64, 1))},
		{Category: "zerovalue", Name: "PrivateSimulator{}.Simulate", Err: func() error { var p simulate.PrivateSimulator; return p.Simulate(r, th, make([]float64, 1)) }},
		{Category: "nil", Name: "SimulateBoth nil rand", Err: both(ps, nil, nil, make([]float64, 1))},
		{Category: "mismatched", Name: "SimulateBoth dst length", Err: both(ps, r, nil, make([]float64, 2))},
		{Category: "mismatched", Name: "SimulateBoth conf length", Err: both(ps, r, make([]float64, 3), make([]float64, 1))},
		{Category: "mismatched", Name: "Private.Simulate θ length", Err: func() error { return ps.Simulate(r, th[:2], make([]float64, 1)) }},
		{Category: "nil", Name: "Batch nil sim", Err: batch(ctx, nil, th, 3, make([]float64, 1))},
		{Category: "typednil", Name: "Batch typed nil sim", Err: batch(ctx, (*simulate.PrivateSimulator)(nil), th, 3, make([]float64, 1))},
		{Category: "nil", Name: "Batch nil ctx", Err: batch(nil, ms, th, 3, make([]float64, 1))}, //nolint:staticcheck // nil context is the bad input
		{Category: "nonpositive", Name: "Batch dim 0", Err: batch(ctx, ms, th, 0, make([]float64, 1))},
		{Category: "nonpositive", Name: "Batch dim -3", Err: batch(ctx, ms, th, -3, make([]float64, 1))},
		{Category: "mismatched", Name: "Batch thetas not a multiple of dim", Err: batch(ctx, ms, th[:2], 3, make([]float64, 1))},
		{Category: "mismatched", Name: "Batch dst length", Err: batch(ctx, ms, th, 3, make([]float64, 2))},
		{Category: "nil", Name: "PriorPredictive nil prior", Err: pp(ctx, nil, ms, 1, make([]float64, 3), make([]float64, 1))},
		{Category: "typednil", Name: "PriorPredictive typed nil prior", Err: pp(ctx, (*simulate.Dirichlet)(nil), ms, 1, make([]float64, 3), make([]float64, 1))},
		{Category: "typednil", Name: "PriorPredictive typed nil sim", Err: pp(ctx, dir, (*simulate.MeanStat)(nil), 1, make([]float64, 3), make([]float64, 1))},
		{Category: "nil", Name: "PriorPredictive nil ctx", Err: pp(nil, dir, ms, 1, make([]float64, 3), make([]float64, 1))}, //nolint:staticcheck // nil context is the bad input
		{Category: "nonpositive", Name: "PriorPredictive n -1", Err: pp(ctx, dir, ms, -1, nil, nil)},
		{Category: "huge", Name: "PriorPredictive n 1<<62", Err: pp(ctx, dir, ms, 1<<62, nil, nil)},
		{Category: "zerovalue", Name: "PriorPredictive zero-value Independent (Dim 0)", Err: pp(ctx, &simulate.Independent{}, ms, 2, nil, make([]float64, 2))},
		{Category: "mismatched", Name: "PriorPredictive thetas length", Err: pp(ctx, dir, ms, 2, make([]float64, 5), make([]float64, 2))},
		{Category: "mismatched", Name: "PriorPredictive stats length", Err: pp(ctx, dir, ms, 2, make([]float64, 6), make([]float64, 3))},
		{Category: "nil", Name: "Dirichlet.Sample nil rand", Panics: sample(dir, nil, 3)},
		{Category: "mismatched", Name: "Dirichlet.Sample short θ", Panics: sample(dir, r, 2)},
		{Category: "nil", Name: "MVNormal.Sample nil rand", Panics: sample(mvn, nil, 2)},
		{Category: "mismatched", Name: "MVNormal.Sample short θ", Panics: sample(mvn, r, 1)},
		{Category: "nil", Name: "Independent.Sample nil rand", Panics: sample(ind, nil, 2)},
		{Category: "mismatched", Name: "Independent.Sample short θ", Panics: sample(ind, r, 1)},
		{Category: "nil", Name: "Concat.Sample nil rand", Panics: sample(cat, nil, 5)},
		{Category: "mismatched", Name: "Concat.Sample short θ", Panics: sample(cat, r, 4)},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
