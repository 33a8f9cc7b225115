package privinfer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid Draws (ragged Theta, Dim 0, weights of the
// wrong length, negative or NaN weights, bad chains), invalid Problems and
// invalid SBC and grid settings to the root package: the error-returning
// calls return errors wrapping ErrInvalid, and the accessors without an
// error return give their documented value (nil, NaN, 0) rather than part
// of a ragged row.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	r := rand.New(rand.NewPCG(3, 4))
	bad := map[string]*Draws{
		"ragged Theta":        {Dim: 2, Theta: []float64{1, 2, 3}},
		"Dim 0":               {Dim: 0, Theta: []float64{1, 2}},
		"Dim -1":              {Dim: -1, Theta: []float64{1, 2}},
		"weights length":      {Dim: 1, Theta: []float64{1, 2, 3}, Weights: []float64{1, 1}},
		"negative weight":     {Dim: 1, Theta: []float64{1, 2, 3}, Weights: []float64{1, -1, 1}},
		"NaN weight":          {Dim: 1, Theta: []float64{1, 2, 3}, Weights: []float64{1, nan, 1}},
		"Inf weight":          {Dim: 1, Theta: []float64{1, 2, 3}, Weights: []float64{1, inf, 1}},
		"zero weights":        {Dim: 1, Theta: []float64{1, 2, 3}, Weights: []float64{0, 0, 0}},
		"chains not dividing": {Dim: 1, Theta: []float64{1, 2, 3}, Chains: 2},
		"names length":        {Dim: 2, Theta: []float64{1, 2}, Names: []string{"a"}},
		"nil":                 nil,
	}
	category := map[string]string{"ragged Theta": "mismatched", "Dim 0": "nonpositive", "Dim -1": "nonpositive", "weights length": "mismatched",
		"negative weight": "nonpositive", "NaN weight": "nan", "Inf weight": "inf", "zero weights": "nonpositive", "chains not dividing": "mismatched",
		"names length": "mismatched", "nil": "nil"}
	isNaN := func(v float64) error {
		if !math.IsNaN(v) {
			return fmt.Errorf("got %v, want NaN", v)
		}
		return nil
	}
	type B = testutil.BadInput
	var cases []B
	for name, d := range bad {
		c := category[name]
		cases = append(cases,
			B{Category: c, Name: "Validate " + name, Err: d.Validate},
			B{Category: c, Name: "Resample " + name, Err: func() error { _, err := d.Resample(r, 4); return err }},
			B{Category: c, Name: "Map " + name, Err: func() error { _, err := d.Map([]string{"x"}, func(th, dst []float64) { dst[0] = 0 }); return err }},
			B{Category: c, Name: "RHat " + name, Err: func() error { _, err := d.RHat(0); return err }},
			B{Category: c, Name: "MCSEMean " + name, Err: func() error { _, err := d.MCSEMean(0); return err }},
			B{Category: c, Name: "Mean " + name, Check: func() error {
				if m := d.Mean(); m != nil {
					return fmt.Errorf("Mean = %v, want nil", m)
				}
				return nil
			}},
			B{Category: c, Name: "SD " + name, Check: func() error {
				if m := d.SD(); m != nil {
					return fmt.Errorf("SD = %v, want nil", m)
				}
				return nil
			}},
			B{Category: c, Name: "Summary " + name, Check: func() error {
				if s := d.Summary(); s != nil {
					return fmt.Errorf("Summary = %v, want nil", s)
				}
				return nil
			}},
			B{Category: c, Name: "ESS " + name, Check: func() error { return isNaN(d.ESS()) }},
			B{Category: c, Name: "Quantile " + name, Check: func() error { return isNaN(d.Quantile(0, 0.5)) }},
			B{Category: c, Name: "HDI " + name, Check: func() error { lo, _ := d.HDI(0, 0.9); return isNaN(lo) }},
			B{Category: c, Name: "CDF " + name, Check: func() error { return isNaN(d.CDF(0, 0)) }},
		)
	}
	// Accessors that read the shape only: a ragged or dimensionless Draws
	// has no rows, never part of one.
	for _, name := range []string{"ragged Theta", "Dim 0", "Dim -1", "nil"} {
		d, c := bad[name], category[name]
		cases = append(cases,
			B{Category: c, Name: "Len " + name, Check: func() error {
				if n := d.Len(); n != 0 {
					return fmt.Errorf("Len = %d, want 0", n)
				}
				return nil
			}},
			B{Category: c, Name: "Row(0) " + name, Check: func() error {
				if row := d.Row(0); row != nil {
					return fmt.Errorf("Row(0) = %v, want nil", row)
				}
				return nil
			}},
			B{Category: c, Name: "Column(0) " + name, Check: func() error {
				if col := d.Column(0); col != nil {
					return fmt.Errorf("Column(0) = %v, want nil", col)
				}
				return nil
			}},
		)
	}
	good := &Draws{Dim: 1, Theta: []float64{1, 2, 3, 4}}
	cases = append(cases,
		B{Category: "nil", Name: "Resample nil rand", Err: func() error { _, err := good.Resample(nil, 2); return err }},
		B{Category: "nonpositive", Name: "Resample n 0", Err: func() error { _, err := good.Resample(r, 0); return err }},
		B{Category: "nil", Name: "Map nil f", Err: func() error { _, err := good.Map([]string{"x"}, nil); return err }},
		B{Category: "empty", Name: "Map no names", Err: func() error { _, err := good.Map(nil, func(th, dst []float64) {}); return err }},
		B{Category: "mismatched", Name: "RHat coordinate 1 of 1", Err: func() error { _, err := good.RHat(1); return err }},
		B{Category: "nan", Name: "Interval NaN level", Check: func() error { lo, _ := good.Interval(0, nan); return isNaN(lo) }},
		B{Category: "nonpositive", Name: "SummaryHDI prob 0", Check: func() error {
			if s := good.SummaryHDI(0); s != nil {
				return fmt.Errorf("SummaryHDI(0) = %v, want nil", s)
			}
			return nil
		}},
		B{Category: "nan", Name: "CDF NaN q", Check: func() error { return isNaN(good.CDF(0, nan)) }},
		B{Category: "mismatched", Name: "Quantile coordinate -1", Check: func() error { return isNaN(good.Quantile(-1, 0.5)) }},
	)

	// Problem checks.
	prob := func(f func(p *Problem)) func() error {
		return func() error { p := goodProblem(); f(&p); return p.Validate() }
	}
	cases = append(cases,
		B{Category: "nil", Name: "Problem nil", Err: func() error { var p *Problem; return p.Validate() }},
		B{Category: "zerovalue", Name: "Problem{}", Err: func() error { return (&Problem{}).Validate() }},
		B{Category: "nil", Name: "Problem nil Prior", Err: prob(func(p *Problem) { p.Prior = nil })},
		B{Category: "typednil", Name: "Problem typed nil Prior", Err: prob(func(p *Problem) { p.Prior = (*simulate.Dirichlet)(nil) })},
		B{Category: "typednil", Name: "Problem typed nil Simulator", Err: prob(func(p *Problem) { p.Simulator = (*simulate.MeanStat)(nil) })},
		B{Category: "typednil", Name: "Problem typed nil Mechanism", Err: prob(func(p *Problem) { p.Mechanism = (*mechanism.Laplace)(nil) })},
		B{Category: "nonpositive", Name: "Problem Prior.Dim 0", Err: prob(func(p *Problem) { p.Prior = normalPrior{0} })},
		B{Category: "mismatched", Name: "Problem Prior.Dim vs ParamDim", Err: prob(func(p *Problem) { p.Prior = normalPrior{3} })},
		B{Category: "mismatched", Name: "Problem Observed length", Err: prob(func(p *Problem) { p.Observed = []float64{1} })},
		B{Category: "nan", Name: "Problem Observed NaN", Err: prob(func(p *Problem) { p.Observed = []float64{nan, 1} })},
		B{Category: "inf", Name: "Problem Observed Inf", Err: prob(func(p *Problem) { p.Observed = []float64{1, inf} })},
		B{Category: "mismatched", Name: "Problem Names length", Err: prob(func(p *Problem) { p.Names = []string{"a"} })},
		B{Category: "empty", Name: "Problem empty name", Err: prob(func(p *Problem) { p.Names = []string{"a", ""} })},
		B{Category: "mismatched", Name: "Problem Mechanism Dim", Err: prob(func(p *Problem) { p.Mechanism = addMech{3} })},
		B{Category: "nil", Name: "Problem.Require nil", Err: func() error { var p *Problem; return p.Require(0) }},
		B{Category: "nil", Name: "ReleaseSimulator nil Prior", Err: func() error { p := goodProblem(); p.Prior = nil; _, err := p.ReleaseSimulator(); return err }},
	)

	// SBC configuration and arguments.
	fit := func(ctx context.Context, p Problem, seed uint64) (*Draws, error) { return good, nil }
	sbc := func(p Problem, f SBCFit, cfg SBCConfig) func() error {
		return func() error { _, err := SBC(context.Background(), p, f, cfg); return err }
	}
	ok := SBCConfig{Datasets: 2, Draws: 3, Bins: 2}
	cases = append(cases,
		B{Category: "nonpositive", Name: "SBCConfig Datasets -1", Err: SBCConfig{Datasets: -1}.Validate},
		B{Category: "nonpositive", Name: "SBCConfig Draws -1", Err: SBCConfig{Draws: -1}.Validate},
		B{Category: "huge", Name: "SBCConfig Datasets 1<<40", Err: SBCConfig{Datasets: 1 << 40}.Validate},
		B{Category: "mismatched", Name: "SBCConfig Bins > Draws+1", Err: SBCConfig{Draws: 3, Bins: 5}.Validate},
		B{Category: "nonpositive", Name: "SBCConfig Bins 1", Err: SBCConfig{Bins: 1}.Validate},
		B{Category: "nil", Name: "SBC nil fit", Err: sbc(goodProblem(), nil, ok)},
		B{Category: "zerovalue", Name: "SBC zero Problem", Err: sbc(Problem{}, fit, ok)},
		B{Category: "typednil", Name: "SBC typed nil Simulator", Err: sbc(Problem{Prior: normalPrior{2}, Simulator: (*simulate.MeanStat)(nil)}, fit, ok)},
		B{Category: "typednil", Name: "SBC typed nil Prior", Err: sbc(Problem{Prior: (*simulate.Dirichlet)(nil), Simulator: shiftSim{2}}, fit, ok)},
	)

	// Grid settings.
	ld := func(th []float64) float64 { return 0 }
	grid := func(f func([]float64) float64, cfg GridConfig) func() error {
		return func() error { _, err := Grid(f, cfg); return err }
	}
	cases = append(cases,
		B{Category: "nil", Name: "Grid nil logDensity", Err: grid(nil, GridConfig{Lo: []float64{0}, Hi: []float64{1}})},
		B{Category: "zerovalue", Name: "Grid zero GridConfig", Err: grid(ld, GridConfig{})},
		B{Category: "mismatched", Name: "Grid Lower/Upper lengths", Err: grid(ld, GridConfig{Lo: []float64{0}, Hi: []float64{1, 2}})},
		B{Category: "nan", Name: "Grid NaN bound", Err: grid(ld, GridConfig{Lo: []float64{nan}, Hi: []float64{1}})},
		B{Category: "inf", Name: "Grid Inf bound", Err: grid(ld, GridConfig{Lo: []float64{0}, Hi: []float64{inf}})},
		B{Category: "nonpositive", Name: "Grid Upper <= Lower", Err: grid(ld, GridConfig{Lo: []float64{1}, Hi: []float64{1}})},
	)
	testutil.RunBadInput(t, ErrInvalid, cases)
}
