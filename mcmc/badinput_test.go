package mcmc

import (
	"context"
	"errors"
	"fmt"
	"github.com/privinfer/privinfer/simulate/linreg"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// TestBadInput feeds invalid arguments, nil values and unconstructed values
// to the exported API: every call returns an error wrapping ErrInvalid (or,
// for the diagnostics and summaries, the documented NaN result) and never
// panics.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	nan, inf := math.NaN(), math.Inf(1)
	tgt := TargetFunc{N: 2, Fn: func(x []float64) float64 { return -0.5 * (x[0]*x[0] + x[1]*x[1]) }}
	gtgt := GradTargetFunc{N: 2, Fn: func(x, g []float64) float64 { g[0], g[1] = -x[0], -x[1]; return -0.5 * (x[0]*x[0] + x[1]*x[1]) }}
	cfg := Config{Chains: 1, Draws: 5, Warmup: 5, Seed: 1}
	with := func(f func(*Config)) Config { c := cfg; f(&c); return c }
	run := func(t Target, m Method, c Config) func() error {
		return func() error { _, err := Run(ctx, t, m, c); return err }
	}
	model := func() (privinfer.Problem, *linreg.NIG) {
		return nigProblem(t, 3)
	}
	dacfg := func(nig *linreg.NIG) DAConfig {
		return DAConfig{ThetaStep: nig, RecordStep: SOMA, Chains: 1, Draws: 5, Warmup: 5, Seed: 1}
	}
	daWith := func(f func(*privinfer.Problem)) func() error {
		return func() error {
			p, nig := model()
			f(&p)
			_, err := RunDA(ctx, p, dacfg(nig))
			return err
		}
	}
	daCfgWith := func(f func(*DAConfig)) func() error {
		return func() error {
			p, nig := model()
			c := dacfg(nig)
			f(&c)
			_, err := RunDA(ctx, p, c)
			return err
		}
	}
	newChain := func(k RecordStep, r *rand.Rand, th []float64) error {
		p, nig := model()
		_, err := NewDAChain(p, DAConfig{ThetaStep: nig, RecordStep: k}, r, th)
		return err
	}
	chain := func() *DAChain {
		p, nig := model()
		th := make([]float64, 4)
		nig.Sample(r, th)
		c, err := NewDAChain(p, DAConfig{ThetaStep: nig, RecordStep: SOMA}, r, th)
		if err != nil {
			panic(err)
		}
		return c
	}
	recs := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	// degenerate checks a diagnostic's documented NaN-and-ErrDegenerate result.
	degenerate := func(f func() (float64, error)) func() error {
		return func() error {
			v, err := f()
			if !math.IsNaN(v) || !errors.Is(err, ErrDegenerate) {
				return fmt.Errorf("got %v, %v; want NaN and ErrDegenerate", v, err)
			}
			return nil
		}
	}
	type B = testutil.BadInput
	cases := []B{
		// Run and its configuration.
		{Category: "nil", Name: "Run nil target", Err: run(nil, AdaptiveMetropolis{}, cfg)},
		{Category: "nil", Name: "Run typed nil target", Err: run((*TargetFunc)(nil), AdaptiveMetropolis{}, cfg)},
		{Category: "nil", Name: "Run TargetFunc nil Fn", Err: run(TargetFunc{N: 2}, AdaptiveMetropolis{}, cfg)},
		{Category: "nil", Name: "Run GradTargetFunc nil Fn", Err: run(GradTargetFunc{N: 2}, NUTS{}, cfg)},
		{Category: "nil", Name: "Run nil method", Err: run(tgt, nil, cfg)},
		{Category: "nil", Name: "Run nil context", Err: func() error {
			var c context.Context
			_, err := Run(c, tgt, Slice{}, cfg)
			return err
		}},
		{Category: "zerovalue", Name: "Run TargetFunc{}", Err: run(TargetFunc{}, Slice{}, cfg)},
		{Category: "nonpositive", Name: "Run Chains -1", Err: run(tgt, Slice{}, with(func(c *Config) { c.Chains = -1 }))},
		{Category: "nonpositive", Name: "Run target dim -1", Err: run(TargetFunc{N: -1, Fn: tgt.Fn}, Slice{}, cfg)},
		{Category: "mismatched", Name: "Run Names wrong length", Err: run(tgt, Slice{}, with(func(c *Config) { c.Names = []string{"a"} }))},
		{Category: "empty", Name: "Run Names empty name", Err: run(tgt, Slice{}, with(func(c *Config) { c.Names = []string{"a", ""} }))},
		{Category: "mismatched", Name: "Config.Validate Init of different lengths", Err: func() error {
			return Config{Chains: 2, Init: [][]float64{{0, 0}, {0}}}.Validate()
		}},
		{Category: "nonpositive", Name: "Config.Validate Draws -1", Err: func() error { return Config{Draws: -1}.Validate() }},
		{Category: "nonpositive", Name: "Run Draws -1", Err: run(tgt, Slice{}, with(func(c *Config) { c.Draws = -1 }))},
		{Category: "nonpositive", Name: "Run Warmup -1", Err: run(tgt, Slice{}, with(func(c *Config) { c.Warmup = -1 }))},
		{Category: "nonpositive", Name: "Run Thin -2", Err: run(tgt, Slice{}, with(func(c *Config) { c.Thin = -2 }))},
		{Category: "huge", Name: "Run Chains 1<<40", Err: run(tgt, Slice{}, with(func(c *Config) { c.Chains = 1 << 40 }))},
		{Category: "huge", Name: "Run Draws 1<<40", Err: run(tgt, Slice{}, with(func(c *Config) { c.Draws = 1 << 40 }))},
		{Category: "huge", Name: "Run Draws MaxInt", Err: run(tgt, Slice{}, with(func(c *Config) { c.Draws = math.MaxInt }))},
		{Category: "huge", Name: "Run Warmup+Draws·Thin overflows", Err: run(tgt, Slice{}, with(func(c *Config) { c.Warmup = math.MaxInt - 2; c.Thin = 1 << 40 }))},
		{Category: "huge", Name: "Run target dim 1<<40", Err: run(TargetFunc{N: 1 << 40, Fn: tgt.Fn}, Slice{}, cfg)},
		{Category: "mismatched", Name: "Run Init wrong count", Err: run(tgt, Slice{}, with(func(c *Config) { c.Init = [][]float64{{0, 0}, {0, 0}} }))},
		{Category: "mismatched", Name: "Run Init wrong length", Err: run(tgt, Slice{}, with(func(c *Config) { c.Init = [][]float64{{0}} }))},
		{Category: "nan", Name: "Run Init NaN", Err: run(tgt, Slice{}, with(func(c *Config) { c.Init = [][]float64{{nan, 0}} }))},
		{Category: "inf", Name: "Run Init +Inf", Err: run(tgt, Slice{}, with(func(c *Config) { c.Init = [][]float64{{0, inf}} }))},
		{Category: "empty", Name: "Run Init empty point", Err: run(tgt, Slice{}, with(func(c *Config) { c.Init = [][]float64{{}} }))},
		// Samplers' settings.
		{Category: "nan", Name: "AdaptiveMetropolis Scale NaN", Err: run(tgt, AdaptiveMetropolis{Scale: nan}, cfg)},
		{Category: "inf", Name: "AdaptiveMetropolis Scale Inf", Err: run(tgt, AdaptiveMetropolis{Scale: inf}, cfg)},
		{Category: "nonpositive", Name: "AdaptiveMetropolis Scale -1", Err: run(tgt, AdaptiveMetropolis{Scale: -1}, cfg)},
		{Category: "nan", Name: "AdaptiveMetropolis Beta NaN", Err: run(tgt, AdaptiveMetropolis{Beta: nan}, cfg)},
		{Category: "huge", Name: "AdaptiveMetropolis Beta 2", Err: run(tgt, AdaptiveMetropolis{Beta: 2}, cfg)},
		{Category: "nonpositive", Name: "AdaptiveMetropolis AdaptEvery -1", Err: run(tgt, AdaptiveMetropolis{AdaptEvery: -1}, cfg)},
		{Category: "nil", Name: "AdaptiveMetropolis.NewKernel nil", Err: func() error { _, err := AdaptiveMetropolis{}.NewKernel(nil); return err }},
		{Category: "nan", Name: "Slice Width NaN", Err: run(tgt, Slice{Width: nan}, cfg)},
		{Category: "inf", Name: "Slice Width -Inf", Err: run(tgt, Slice{Width: math.Inf(-1)}, cfg)},
		{Category: "nonpositive", Name: "Slice MaxSteps -1", Err: run(tgt, Slice{MaxSteps: -1}, cfg)},
		{Category: "nil", Name: "Slice.NewKernel nil", Err: func() error { _, err := Slice{}.NewKernel(nil); return err }},
		{Category: "nan", Name: "NUTS StepSize NaN", Err: run(gtgt, NUTS{StepSize: nan}, cfg)},
		{Category: "inf", Name: "NUTS StepSize Inf", Err: run(gtgt, NUTS{StepSize: inf}, cfg)},
		{Category: "nonpositive", Name: "NUTS StepSize -1", Err: run(gtgt, NUTS{StepSize: -1}, cfg)},
		{Category: "nan", Name: "NUTS TargetAccept NaN", Err: run(gtgt, NUTS{TargetAccept: nan}, cfg)},
		{Category: "nonpositive", Name: "NUTS MaxDepth -1", Err: run(gtgt, NUTS{MaxDepth: -1}, cfg)},
		{Category: "mismatched", Name: "NUTS without gradient", Err: run(tgt, NUTS{}, cfg)},
		{Category: "nil", Name: "NUTS.NewKernel nil", Err: func() error { _, err := NUTS{}.NewKernel(nil); return err }},
		// Data augmentation.
		{Category: "zerovalue", Name: "RunDA Problem{}", Err: func() error { _, nig := model(); _, err := RunDA(ctx, privinfer.Problem{}, dacfg(nig)); return err }},
		{Category: "zerovalue", Name: "RunDA DAConfig{}", Err: func() error { p, _ := model(); _, err := RunDA(ctx, p, DAConfig{}); return err }},
		{Category: "nil", Name: "RunDA nil Prior", Err: daWith(func(p *privinfer.Problem) { p.Prior = nil })},
		{Category: "nil", Name: "RunDA nil Simulator", Err: daWith(func(p *privinfer.Problem) { p.Simulator = nil })},
		{Category: "zerovalue", Name: "RunDA zero-value linreg.NIG θ-step", Err: daCfgWith(func(c *DAConfig) { c.ThetaStep = &linreg.NIG{} })},
		{Category: "nil", Name: "RunDA nil ThetaStep", Err: daCfgWith(func(c *DAConfig) { c.ThetaStep = nil })},
		{Category: "nil", Name: "RunDA typed nil ThetaStep", Err: daCfgWith(func(c *DAConfig) { c.ThetaStep = (*linreg.NIG)(nil) })},
		{Category: "huge", Name: "RunDA RecordStep 7", Err: daCfgWith(func(c *DAConfig) { c.RecordStep = 7 })},
		{Category: "nonpositive", Name: "RunDA Chains -1", Err: daCfgWith(func(c *DAConfig) { c.Chains = -1 })},
		{Category: "nonpositive", Name: "RunDA Draws -1", Err: daCfgWith(func(c *DAConfig) { c.Draws = -1 })},
		{Category: "nonpositive", Name: "RunDA Warmup -1", Err: daCfgWith(func(c *DAConfig) { c.Warmup = -1 })},
		{Category: "nonpositive", Name: "RunDA Thin -1", Err: daCfgWith(func(c *DAConfig) { c.Thin = -1 })},
		{Category: "huge", Name: "RunDA Draws 1<<40", Err: daCfgWith(func(c *DAConfig) { c.Draws = 1 << 40 })},
		{Category: "mismatched", Name: "RunDA Init wrong length", Err: daCfgWith(func(c *DAConfig) { c.Init = [][]float64{{0, 0, 0}} })},
		{Category: "nan", Name: "RunDA Init NaN", Err: daCfgWith(func(c *DAConfig) { c.Init = [][]float64{{0, nan, 0, 1}} })},
		{Category: "nonpositive", Name: "RunDA Init σ² 0", Err: daCfgWith(func(c *DAConfig) { c.Init = [][]float64{{0, 0, 0, 0}} })},
		{Category: "empty", Name: "DAConfig.Validate empty Init point", Err: func() error {
			_, nig := model()
			return DAConfig{ThetaStep: nig, Init: [][]float64{{}}}.Validate()
		}},
		{Category: "mismatched", Name: "RunDA Mechanism dimension differs from ContribDim", Err: daWith(func(p *privinfer.Problem) {
			lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 3})
			if err != nil {
				panic(err)
			}
			p.Mechanism = lap
		})},
		{Category: "mismatched", Name: "RunDA Observed short", Err: daWith(func(p *privinfer.Problem) { p.Observed = p.Observed[:2] })},
		{Category: "empty", Name: "RunDA Observed empty", Err: daWith(func(p *privinfer.Problem) { p.Observed = nil })},
		{Category: "nan", Name: "RunDA Observed NaN", Err: daWith(func(p *privinfer.Problem) { p.Observed[0] = nan })},
		{Category: "inf", Name: "RunDA Observed Inf", Err: daWith(func(p *privinfer.Problem) { p.Observed[1] = inf })},
		{Category: "mismatched", Name: "RunDA Names wrong length", Err: daWith(func(p *privinfer.Problem) { p.Names = p.Names[:2] })},
		{Category: "nil", Name: "RunDA nil context", Err: func() error {
			p, nig := model()
			var c context.Context
			_, err := RunDA(c, p, dacfg(nig))
			return err
		}},
		{Category: "huge", Name: "NewDAChain unknown record step", Err: func() error { return newChain(99, r, []float64{0, 0, 0, 1}) }},
		{Category: "nil", Name: "NewDAChain nil rand", Err: func() error { return newChain(SOMA, nil, []float64{0, 0, 0, 1}) }},
		{Category: "zerovalue", Name: "NewDAChain Problem{}", Err: func() error {
			_, nig := model()
			_, err := NewDAChain(privinfer.Problem{}, DAConfig{ThetaStep: nig}, r, []float64{0, 0, 0, 1})
			return err
		}},
		{Category: "nan", Name: "NewDAChain θ NaN", Err: func() error { return newChain(SOMA, r, []float64{nan, 0, 0, 1}) }},
		{Category: "nonpositive", Name: "NewDAChain σ² 0", Err: func() error { return newChain(SOMA, r, []float64{0, 0, 0, 0}) }},
		{Category: "mismatched", Name: "NewDAChain θ short", Err: func() error { return newChain(SOMA, r, []float64{0, 0}) }},
		{Category: "zerovalue", Name: "DAChain{}.Step", Err: func() error { var c DAChain; return c.Step(r) }},
		{Category: "zerovalue", Name: "DAChain{}.Sweep", Err: func() error { var c DAChain; return c.Sweep(r) }},
		{Category: "zerovalue", Name: "DAChain{}.ThetaStep", Err: func() error { var c DAChain; return c.ThetaStep(r) }},
		{Category: "zerovalue", Name: "DAChain{}.SetRecords", Err: func() error { var c DAChain; return c.SetRecords(recs) }},
		{Category: "zerovalue", Name: "DAChain{}.SetTheta", Err: func() error { var c DAChain; return c.SetTheta([]float64{0, 0, 0, 1}) }},
		{Category: "nil", Name: "DAChain.Step nil rand", Err: func() error { return chain().Step(nil) }},
		{Category: "nil", Name: "DAChain.Sweep nil rand", Err: func() error { return chain().Sweep(nil) }},
		{Category: "nil", Name: "DAChain.ThetaStep nil rand", Err: func() error { return chain().ThetaStep(nil) }},
		{Category: "mismatched", Name: "DAChain.SetRecords short", Err: func() error { return chain().SetRecords(recs) }},
		{Category: "nan", Name: "DAChain.SetRecords NaN", Err: func() error {
			c := chain()
			x := append([]float64(nil), c.Records()...)
			x[3] = nan
			return c.SetRecords(x)
		}},
		{Category: "inf", Name: "DAChain.SetTheta Inf", Err: func() error { return chain().SetTheta([]float64{0, inf, 0, 1}) }},
		// The Metropolis θ-step.
		{Category: "zerovalue", Name: "NewMetropolisTheta Problem{}", Err: func() error {
			_, err := NewMetropolisTheta(privinfer.Problem{}, []float64{1, 1, 1, 1}, 1)
			return err
		}},
		{Category: "mismatched", Name: "NewMetropolisTheta scale short", Err: func() error { p, _ := model(); _, err := NewMetropolisTheta(p, []float64{1, 1}, 1); return err }},
		{Category: "nan", Name: "NewMetropolisTheta scale NaN", Err: func() error { p, _ := model(); _, err := NewMetropolisTheta(p, []float64{1, nan, 1, 1}, 1); return err }},
		{Category: "inf", Name: "NewMetropolisTheta scale Inf", Err: func() error { p, _ := model(); _, err := NewMetropolisTheta(p, []float64{1, 1, inf, 1}, 1); return err }},
		{Category: "nonpositive", Name: "NewMetropolisTheta scale 0", Err: func() error { p, _ := model(); _, err := NewMetropolisTheta(p, []float64{1, 1, 1, 0}, 1); return err }},
		{Category: "nonpositive", Name: "NewMetropolisTheta steps 0", Err: func() error { p, _ := model(); _, err := NewMetropolisTheta(p, []float64{1, 1, 1, 1}, 0); return err }},
		{Category: "huge", Name: "NewMetropolisTheta steps 1<<40", Err: func() error {
			p, _ := model()
			_, err := NewMetropolisTheta(p, []float64{1, 1, 1, 1}, 1<<40)
			return err
		}},
		{Category: "zerovalue", Name: "MetropolisTheta{}.SampleTheta", Err: func() error { var m MetropolisTheta; return m.SampleTheta(r, nil, 0, make([]float64, 4)) }},
		{Category: "nil", Name: "MetropolisTheta.SampleTheta nil rand", Err: func() error {
			p, _ := model()
			m, _ := NewMetropolisTheta(p, []float64{1, 1, 1, 1}, 1)
			return m.SampleTheta(nil, recs, 2, []float64{0, 0, 0, 1})
		}},
		{Category: "mismatched", Name: "MetropolisTheta.SampleTheta records short", Err: func() error {
			p, _ := model()
			m, _ := NewMetropolisTheta(p, []float64{1, 1, 1, 1}, 1)
			return m.SampleTheta(r, recs[:5], 2, []float64{0, 0, 0, 1})
		}},
		{Category: "nonpositive", Name: "MetropolisTheta.SampleTheta σ² 0", Err: func() error {
			p, _ := model()
			m, _ := NewMetropolisTheta(p, []float64{1, 1, 1, 1}, 1)
			return m.SampleTheta(r, recs, 2, []float64{0, 0, 0, 0})
		}},
		// Coupling.
		{Category: "nonpositive", Name: "CoupleDA Pairs 0", Err: func() error {
			p, nig := model()
			_, err := CoupleDA(ctx, p, CouplingConfig{MaxIter: 5, InitPair: priorPair(nig)})
			return err
		}},
		{Category: "nonpositive", Name: "CoupleDA MaxIter 0", Err: func() error {
			p, nig := model()
			_, err := CoupleDA(ctx, p, CouplingConfig{Pairs: 1, InitPair: priorPair(nig)})
			return err
		}},
		{Category: "huge", Name: "CoupleDA Pairs 1<<40", Err: func() error {
			p, nig := model()
			_, err := CoupleDA(ctx, p, CouplingConfig{Pairs: 1 << 40, MaxIter: 5, InitPair: priorPair(nig)})
			return err
		}},
		{Category: "huge", Name: "CoupleDA RecordStep 5", Err: func() error {
			p, nig := model()
			_, err := CoupleDA(ctx, p, CouplingConfig{RecordStep: 5, Pairs: 1, MaxIter: 5, InitPair: priorPair(nig)})
			return err
		}},
		{Category: "nil", Name: "CoupleDA nil InitPair", Err: func() error {
			p, _ := model()
			_, err := CoupleDA(ctx, p, CouplingConfig{Pairs: 1, MaxIter: 5})
			return err
		}},
		{Category: "zerovalue", Name: "CoupleDA Problem{}", Err: func() error {
			_, nig := model()
			_, err := CoupleDA(ctx, privinfer.Problem{}, CouplingConfig{Pairs: 1, MaxIter: 5, Coupler: nig, InitPair: priorPair(nig)})
			return err
		}},
		{Category: "nil", Name: "CoupleDA nil context", Err: func() error {
			p, nig := model()
			var c context.Context
			_, err := CoupleDA(c, p, CouplingConfig{Pairs: 1, MaxIter: 5, InitPair: priorPair(nig)})
			return err
		}},
		{Category: "empty", Name: "CouplingResult{}.Mean", Check: func() error {
			var c CouplingResult
			if !math.IsNaN(c.Mean()) || !math.IsNaN(c.Rate()) {
				return errors.New("mean or rate of no pairs is not NaN")
			}
			if q1, q3 := c.Quartiles(); !math.IsNaN(q1) || !math.IsNaN(q3) {
				return errors.New("quartiles of no pairs are not NaN")
			}
			return nil
		}},
		// Conjugate θ-steps.
		// Results and diagnostics (documented NaN results).
		{Category: "zerovalue", Name: "Result{}.AcceptRate", Check: func() error {
			var z Result
			var np *Result
			if !math.IsNaN(z.AcceptRate()) || !math.IsNaN(np.AcceptRate()) {
				return errors.New("zero or nil Result gives an acceptance rate")
			}
			return nil
		}},
		{Category: "empty", Name: "RHat no chains", Check: degenerate(func() (float64, error) { return RHat(nil) })},
		{Category: "mismatched", Name: "RHat unequal chains", Check: degenerate(func() (float64, error) {
			return RHat([][]float64{{1, 2, 3, 4, 5, 6, 7}, {1, 2, 3, 4, 5, 6}})
		})},
		{Category: "nan", Name: "ESSBulk NaN draw", Check: degenerate(func() (float64, error) {
			return ESSBulk([][]float64{{1, 2, nan, 4, 5, 6, 7, 8}})
		})},
		{Category: "inf", Name: "ESSTail Inf draw", Check: degenerate(func() (float64, error) {
			return ESSTail([][]float64{{1, 2, inf, 4, 5, 6, 7, 8}})
		})},
		{Category: "nan", Name: "ESSQuantile p NaN", Err: func() error {
			_, err := ESSQuantile([][]float64{{1, 2, 3, 4, 5, 6, 7, 8}}, nan)
			return err
		}},
		{Category: "huge", Name: "ESSQuantile p 1", Err: func() error {
			_, err := ESSQuantile([][]float64{{1, 2, 3, 4, 5, 6, 7, 8}}, 1)
			return err
		}},
		{Category: "empty", Name: "MCSEMean empty chain", Check: degenerate(func() (float64, error) { return MCSEMean([][]float64{{}}) })},
		{Category: "empty", Name: "ESSMean nil chain", Check: degenerate(func() (float64, error) { return ESSMean([][]float64{nil}) })},
		{Category: "empty", Name: "Autocorrelation empty", Check: func() error {
			if _, err := Autocorrelation(nil, 0); !errors.Is(err, ErrDegenerate) {
				return fmt.Errorf("got %v, want ErrDegenerate", err)
			}
			return nil
		}},
		{Category: "huge", Name: "Autocorrelation maxLag too large", Check: func() error {
			if _, err := Autocorrelation([]float64{1, 2, 3}, 10); err == nil {
				return errors.New("no error")
			}
			return nil
		}},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
