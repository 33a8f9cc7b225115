package flow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow/internal/train"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInputAPI is the bad-input table of every exported function and
// method of the package other than Load's file fields (TestBadInput):
// each bad argument (NaN, ±Inf, 0, negative, huge, nil, zero values,
// mismatched or empty slices) gives an error wrapping ErrInvalid or the
// documented value (LogDensity's NaN; the nil-safe accessors' zeros).
func TestBadInputAPI(t *testing.T) {
	type B = testutil.BadInput
	var cs []B
	add := func(cat, name string, f func() error) { cs = append(cs, B{Category: cat, Name: name, Err: f}) }
	check := func(cat, name string, f func() error) { cs = append(cs, B{Category: cat, Name: name, Check: f}) }
	rnd := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	nan, inf := math.NaN(), math.Inf(1)
	cfg := smallConfig(2, 1)
	fl := randomFlow(t, cfg, 3, 0.1)
	y, z := []float64{0.1, -0.2, 0.3, 0.4}, []float64{0.5, -0.5}
	var zero Flow
	var nilF *Flow
	isNaN := func(v float64) error {
		if !math.IsNaN(v) {
			return fmt.Errorf("got %v, want the documented NaN", v)
		}
		return nil
	}

	// Config and New.
	cfgWith := func(f func(*Config)) Config { c := smallConfig(2, 1); f(&c); return c }
	badCfgs := map[string]Config{
		"Dim 0":                   cfgWith(func(c *Config) { c.Dim = 0 }),
		"Dim -1":                  cfgWith(func(c *Config) { c.Dim = -1 }),
		"Dim MaxInt":              cfgWith(func(c *Config) { c.Dim = math.MaxInt }),
		"Dim 2^31":                cfgWith(func(c *Config) { c.Dim = 1 << 31 }),
		"ContextDim -1":           cfgWith(func(c *Config) { c.ContextDim = -1 }),
		"ContextDim MaxInt":       cfgWith(func(c *Config) { c.ContextDim = math.MaxInt }),
		"Layers 0":                cfgWith(func(c *Config) { c.Layers = 0 }),
		"Layers 2^31":             cfgWith(func(c *Config) { c.Layers = 1 << 31 }),
		"Bins 1":                  cfgWith(func(c *Config) { c.Bins = 1 }),
		"Bins MaxInt":             cfgWith(func(c *Config) { c.Bins = math.MaxInt }),
		"Hidden 0":                cfgWith(func(c *Config) { c.Hidden = 0 }),
		"Hidden 2^31":             cfgWith(func(c *Config) { c.Hidden = 1 << 31 }),
		"Blocks -1":               cfgWith(func(c *Config) { c.Blocks = -1 }),
		"Blocks 2^31":             cfgWith(func(c *Config) { c.Blocks = 1 << 31 }),
		"TailBound NaN":           cfgWith(func(c *Config) { c.TailBound = nan }),
		"TailBound Inf":           cfgWith(func(c *Config) { c.TailBound = inf }),
		"TailBound 0":             cfgWith(func(c *Config) { c.TailBound = 0 }),
		"TailBound -1":            cfgWith(func(c *Config) { c.TailBound = -1 }),
		"TailBound 1e300":         cfgWith(func(c *Config) { c.TailBound = 1e300 }),
		"MinBinWidth NaN":         cfgWith(func(c *Config) { c.MinBinWidth = nan }),
		"MinBinWidth 1":           cfgWith(func(c *Config) { c.MinBinWidth = 1 }),
		"MinBinHeight -1":         cfgWith(func(c *Config) { c.MinBinHeight = -1 }),
		"MinBinHeight Inf":        cfgWith(func(c *Config) { c.MinBinHeight = inf }),
		"MinDerivative NaN":       cfgWith(func(c *Config) { c.MinDerivative = nan }),
		"MinDerivative -1":        cfgWith(func(c *Config) { c.MinDerivative = -1 }),
		"zero Config":             {},
		"DefaultConfig(0, 0)":     DefaultConfig(0, 0),
		"DefaultConfig(-1, 1)":    DefaultConfig(-1, 1),
		"DefaultConfig(MaxInt,1)": DefaultConfig(math.MaxInt, 1),
	}
	cat := func(name string) string {
		switch {
		case bytes.Contains([]byte(name), []byte("NaN")):
			return "nan"
		case bytes.Contains([]byte(name), []byte("Inf")):
			return "inf"
		case bytes.Contains([]byte(name), []byte("zero")):
			return "zerovalue"
		case bytes.Contains([]byte(name), []byte("Max")), bytes.Contains([]byte(name), []byte("2^31")), bytes.Contains([]byte(name), []byte("1e300")), bytes.Contains([]byte(name), []byte(" 1")):
			return "huge"
		}
		return "nonpositive"
	}
	for name, c := range badCfgs {
		add(cat(name), "Config.Validate "+name, c.Validate)
		add(cat(name), "New "+name, func() error { _, err := New(c, rnd()); return err })
	}
	add("nil", "New nil *rand.Rand", func() error { _, err := New(cfg, nil); return err })

	// Methods on nil and zero-value flows.
	for name, g := range map[string]*Flow{"nil": nilF, "zero": &zero} {
		c := "nil"
		if name == "zero" {
			c = "zerovalue"
		}
		check(c, name+" Flow.LogDensity", func() error { return isNaN(g.LogDensity(y[:2], z[:1])) })
		add(c, name+" Flow.LogDensityBatch", func() error { return g.LogDensityBatch(y, z, 2, make([]float64, 2)) })
		add(c, name+" Flow.LogDensityGrad", func() error {
			return g.LogDensityGrad(y, z, 2, []float64{1, 1}, make([]float64, fl.NumParams()), nil)
		})
		add(c, name+" Flow.LogDensityGradContext", func() error {
			return g.LogDensityGradContext(y, z, 2, []float64{1, 1}, nil, make([]float64, 2), nil)
		})
		add(c, name+" Flow.Transform", func() error { return g.Transform(y, z, 2, make([]float64, 4), nil) })
		add(c, name+" Flow.InverseTransform", func() error { return g.InverseTransform(y, z, 2, make([]float64, 4), nil) })
		add(c, name+" Flow.Sample", func() error { return g.Sample(rnd(), z[:1], 2, make([]float64, 4)) })
		add(c, name+" Flow.SampleLogDensity", func() error { return g.SampleLogDensity(rnd(), z[:1], 2, make([]float64, 4), nil) })
		add(c, name+" Flow.SetParams", func() error { return g.SetParams(make([]float64, fl.NumParams())) })
		add(c, name+" Flow.SetStandardization", func() error { return g.SetStandardization(y, z, 2) })
		add(c, name+" Flow.Save", func() error { return g.Save(new(bytes.Buffer)) })
		add(c, name+" Flow.Fit", func() error { _, err := g.Fit(context.Background(), y, z, 2, DefaultTrainConfig()); return err })
		add(c, name+" NewTrainer", func() error { _, err := newTrainer(g, DefaultTrainConfig()); return err })
		check(c, name+" Flow accessors are zero", func() error {
			if g.Dim() != 0 || g.ContextDim() != 0 || g.NumParams() != 0 || g.Params() != nil || g.Standardized() || g.Clone() != nil {
				return errors.New("non-zero accessor")
			}
			my, _, _, _ := g.Standardization()
			if len(my) != 0 || g.Config().Dim != 0 {
				return errors.New("non-empty standardisation or configuration")
			}
			return nil
		})
	}

	// Data arguments of a valid flow.
	dataCases := []struct {
		cat, name string
		y, z      []float64
		n         int
	}{
		{"nan", "NaN y", []float64{nan, 0, 0, 0}, z, 2},
		{"inf", "+Inf y", []float64{inf, 0, 0, 0}, z, 2},
		{"inf", "-Inf y", []float64{0, 0, 0, -inf}, z, 2},
		{"nan", "NaN z", y, []float64{0, nan}, 2},
		{"inf", "infinite z", y, []float64{inf, 0}, 2},
		{"nonpositive", "n -1", y, z, -1},
		{"huge", "n MaxInt", y, z, math.MaxInt},
		{"huge", "n 2^62", y, z, 1 << 62},
		{"mismatched", "short y", y[:3], z, 2},
		{"mismatched", "short z", y, z[:1], 2},
		{"empty", "nil y", nil, z, 2},
		{"empty", "nil z", y, nil, 2},
	}
	for _, d := range dataCases {
		add(d.cat, "LogDensityBatch "+d.name, func() error { return fl.LogDensityBatch(d.y, d.z, d.n, make([]float64, 2)) })
		add(d.cat, "LogDensityGrad "+d.name, func() error {
			return fl.LogDensityGrad(d.y, d.z, d.n, []float64{1, 1}, make([]float64, fl.NumParams()), nil)
		})
		add(d.cat, "LogDensityGradContext "+d.name, func() error {
			return fl.LogDensityGradContext(d.y, d.z, d.n, []float64{1, 1}, nil, make([]float64, 2), nil)
		})
		add(d.cat, "Transform "+d.name, func() error { return fl.Transform(d.y, d.z, d.n, make([]float64, 4), nil) })
		add(d.cat, "InverseTransform "+d.name, func() error { return fl.InverseTransform(d.y, d.z, d.n, make([]float64, 4), nil) })
		add(d.cat, "SetStandardization "+d.name, func() error { return fl.Clone().SetStandardization(d.y, d.z, d.n) })
		add(d.cat, "Fit "+d.name, func() error {
			tc := DefaultTrainConfig()
			tc.MaxEpochs = 1
			_, err := fl.Clone().Fit(context.Background(), d.y, d.z, d.n, tc)
			return err
		})
		add(d.cat, "Trainer.Step "+d.name, func() error {
			tr, err := newTrainer(fl.Clone(), DefaultTrainConfig())
			if err != nil {
				return err
			}
			defer tr.Close()
			_, err = tr.Step(d.y, d.z, d.n)
			return err
		})
		add(d.cat, "Trainer.LogDensities "+d.name, func() error {
			tr, err := newTrainer(fl.Clone(), DefaultTrainConfig())
			if err != nil {
				return err
			}
			defer tr.Close()
			return tr.LogDensities(d.y, d.z, d.n, make([]float64, 2))
		})
	}
	check("nan", "LogDensity NaN y", func() error { return isNaN(fl.LogDensity([]float64{0, nan}, z[:1])) })
	check("inf", "LogDensity -Inf y", func() error { return isNaN(fl.LogDensity([]float64{-inf, 0}, z[:1])) })
	check("nan", "LogDensity NaN z", func() error { return isNaN(fl.LogDensity(y[:2], []float64{nan})) })
	check("inf", "LogDensity +Inf z", func() error { return isNaN(fl.LogDensity(y[:2], []float64{inf})) })
	check("mismatched", "LogDensity y of 3", func() error { return isNaN(fl.LogDensity(y[:3], z[:1])) })
	check("mismatched", "LogDensity z of 2", func() error { return isNaN(fl.LogDensity(y[:2], z)) })
	check("empty", "LogDensity nil, nil", func() error { return isNaN(fl.LogDensity(nil, nil)) })
	add("mismatched", "LogDensityBatch short dst", func() error { return fl.LogDensityBatch(y, z, 2, make([]float64, 1)) })
	add("mismatched", "LogDensityGrad short grad", func() error { return fl.LogDensityGrad(y, z, 2, []float64{1, 1}, make([]float64, 3), nil) })
	add("mismatched", "LogDensityGrad short dlogq", func() error {
		return fl.LogDensityGrad(y, z, 2, []float64{1}, make([]float64, fl.NumParams()), nil)
	})
	add("nan", "LogDensityGrad NaN dlogq", func() error {
		return fl.LogDensityGrad(y, z, 2, []float64{1, nan}, make([]float64, fl.NumParams()), nil)
	})
	add("mismatched", "LogDensityGrad short logq", func() error {
		return fl.LogDensityGrad(y, z, 2, []float64{1, 1}, make([]float64, fl.NumParams()), make([]float64, 1))
	})
	add("mismatched", "LogDensityGradContext short dz", func() error { return fl.LogDensityGradContext(y, z, 2, []float64{1, 1}, nil, make([]float64, 1), nil) })
	add("mismatched", "Transform short u", func() error { return fl.Transform(y, z, 2, make([]float64, 3), nil) })
	add("mismatched", "Transform short logdet", func() error { return fl.Transform(y, z, 2, make([]float64, 4), make([]float64, 1)) })
	add("mismatched", "InverseTransform short y", func() error { return fl.InverseTransform(y, z, 2, make([]float64, 3), nil) })
	add("mismatched", "SetStandardization 1 row", func() error { return fl.Clone().SetStandardization(y, z, 1) })
	add("nil", "Sample nil *rand.Rand", func() error { return fl.Sample(nil, z[:1], 2, make([]float64, 4)) })
	add("mismatched", "Sample context of 2", func() error { return fl.Sample(rnd(), z, 2, make([]float64, 4)) })
	add("nan", "Sample NaN context", func() error { return fl.Sample(rnd(), []float64{nan}, 2, make([]float64, 4)) })
	add("inf", "Sample infinite context", func() error { return fl.Sample(rnd(), []float64{-inf}, 2, make([]float64, 4)) })
	add("nonpositive", "Sample n -1", func() error { return fl.Sample(rnd(), z[:1], -1, make([]float64, 4)) })
	add("huge", "Sample n MaxInt", func() error { return fl.Sample(rnd(), z[:1], math.MaxInt, make([]float64, 4)) })
	add("mismatched", "Sample short dst", func() error { return fl.Sample(rnd(), z[:1], 2, make([]float64, 3)) })
	add("mismatched", "SampleLogDensity short logq", func() error { return fl.SampleLogDensity(rnd(), z[:1], 2, make([]float64, 4), make([]float64, 1)) })
	add("nil", "Save nil writer", testutil.Naming(func() error { return fl.Save(nil) }, "flow: invalid argument: w: "))
	add("typednil", "Save typed-nil writer", testutil.Naming(func() error { return fl.Save((*bytes.Buffer)(nil)) }, "flow: invalid argument: w: "))
	add("nil", "Load nil reader", testutil.Naming(func() error { _, err := Load(nil); return err }, "flow: invalid argument: r: "))
	add("typednil", "Load typed-nil reader", testutil.Naming(func() error { _, err := Load((*bytes.Buffer)(nil)); return err }, "flow: invalid argument: r: "))
	add("empty", "Load empty", testutil.Naming(func() error { _, err := Load(new(bytes.Buffer)); return err }, "flow: invalid argument: r: corrupt"))

	// Parameters: non-finite or beyond MaxParam are refused; extreme
	// parameters inside the bound give an error, never NaN with nil.
	np := fl.NumParams()
	params := func(v float64) []float64 {
		p := make([]float64, np)
		for i := range p {
			p[i] = v * float64(i%3-1)
		}
		return p
	}
	for _, v := range []float64{nan, inf, -inf, 2 * MaxParam, 1e300} {
		c := "huge"
		if math.IsNaN(v) {
			c = "nan"
		} else if math.IsInf(v, 0) {
			c = "inf"
		}
		add(c, fmt.Sprintf("SetParams %v", v), func() error { return fl.Clone().SetParams(params(v)) })
	}
	add("mismatched", "SetParams short", func() error { return fl.Clone().SetParams(make([]float64, np-1)) })
	add("empty", "SetParams nil", func() error { return fl.Clone().SetParams(nil) })
	extreme := func() *Flow {
		g := fl.Clone()
		if err := g.SetParams(params(MaxParam)); err != nil {
			t.Fatal(err)
		}
		return g
	}
	okOrErr := func(err error, vals ...float64) error {
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				return fmt.Errorf("error %v does not wrap ErrInvalid", err)
			}
			return nil
		}
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 1) {
				return fmt.Errorf("%v with a nil error", v)
			}
		}
		return nil
	}
	check("huge", "LogDensityBatch with parameters at MaxParam", func() error {
		dst := make([]float64, 2)
		return okOrErr(extreme().LogDensityBatch(y, z, 2, dst), dst...)
	})
	check("huge", "SampleLogDensity with parameters at MaxParam", func() error {
		dst, lq := make([]float64, 4), make([]float64, 2)
		err := extreme().SampleLogDensity(rnd(), z[:1], 2, dst, lq)
		for _, v := range dst {
			if err == nil && math.IsInf(v, 0) {
				return fmt.Errorf("sample %v with a nil error", dst)
			}
		}
		return okOrErr(err, append(dst, lq...)...)
	})
	check("huge", "Transform with parameters at MaxParam", func() error {
		u, ld := make([]float64, 4), make([]float64, 2)
		return okOrErr(extreme().Transform(y, z, 2, u, ld), append(u, ld...)...)
	})
	check("huge", "InverseTransform with parameters at MaxParam", func() error {
		u, ld := make([]float64, 4), make([]float64, 2)
		return okOrErr(extreme().InverseTransform(y, z, 2, u, ld), append(u, ld...)...)
	})
	check("huge", "LogDensityGrad with parameters at MaxParam", func() error {
		g := make([]float64, np)
		return okOrErr(extreme().LogDensityGrad(y, z, 2, []float64{1, 1}, g, nil), g...)
	})
	check("huge", "LogDensity with parameters at MaxParam is NaN, -Inf or finite", func() error {
		v := extreme().LogDensity(y[:2], z[:1])
		if math.IsInf(v, 1) {
			return fmt.Errorf("+Inf")
		}
		return nil
	})
	for _, v := range []float64{1e300, -1e300} {
		check("huge", fmt.Sprintf("LogDensityBatch y %g is -Inf or finite", v), func() error {
			dst := make([]float64, 2)
			return okOrErr(fl.LogDensityBatch([]float64{v, 0, 0, 0}, z, 2, dst), dst...)
		})
		check("huge", fmt.Sprintf("Sample context %g", v), func() error {
			dst := make([]float64, 4)
			return okOrErr(fl.Sample(rnd(), []float64{v}, 2, dst), dst...)
		})
	}

	// TrainConfig and Trainer.
	tcWith := func(f func(*TrainConfig)) TrainConfig { c := DefaultTrainConfig(); f(&c); return c }
	badTC := map[string]struct {
		cat string
		c   TrainConfig
	}{
		"LearningRate NaN":          {"nan", tcWith(func(c *TrainConfig) { c.LearningRate = nan })},
		"LearningRate 0":            {"nonpositive", tcWith(func(c *TrainConfig) { c.LearningRate = 0 })},
		"LearningRate Inf":          {"inf", tcWith(func(c *TrainConfig) { c.LearningRate = inf })},
		"WeightDecay -1":            {"nonpositive", tcWith(func(c *TrainConfig) { c.WeightDecay = -1 })},
		"WeightDecay NaN":           {"nan", tcWith(func(c *TrainConfig) { c.WeightDecay = nan })},
		"BatchSize 0":               {"nonpositive", tcWith(func(c *TrainConfig) { c.BatchSize = 0 })},
		"BatchSize MaxInt":          {"huge", tcWith(func(c *TrainConfig) { c.BatchSize = math.MaxInt })},
		"MaxEpochs 0":               {"nonpositive", tcWith(func(c *TrainConfig) { c.MaxEpochs = 0 })},
		"Patience -1":               {"nonpositive", tcWith(func(c *TrainConfig) { c.Patience = -1 })},
		"ValidationFraction 1":      {"huge", tcWith(func(c *TrainConfig) { c.ValidationFraction = 1 })},
		"ValidationFraction NaN":    {"nan", tcWith(func(c *TrainConfig) { c.ValidationFraction = nan })},
		"ValidationFraction -0.1":   {"nonpositive", tcWith(func(c *TrainConfig) { c.ValidationFraction = -0.1 })},
		"ClipNorm -1":               {"nonpositive", tcWith(func(c *TrainConfig) { c.ClipNorm = -1 })},
		"ClipNorm NaN":              {"nan", tcWith(func(c *TrainConfig) { c.ClipNorm = nan })},
		"EMA 1":                     {"huge", tcWith(func(c *TrainConfig) { c.EMA = 1 })},
		"EMA NaN":                   {"nan", tcWith(func(c *TrainConfig) { c.EMA = nan })},
		"Shards -1":                 {"nonpositive", tcWith(func(c *TrainConfig) { c.Shards = -1 })},
		"Shards MaxInt":             {"huge", tcWith(func(c *TrainConfig) { c.Shards = math.MaxInt })},
		"Workers -1":                {"nonpositive", tcWith(func(c *TrainConfig) { c.Workers = -1 })},
		"zero TrainConfig (Shards)": {"zerovalue", TrainConfig{}},
	}
	for name, b := range badTC {
		add(b.cat, "TrainConfig.Validate "+name, b.c.Validate)
		add(b.cat, "NewTrainer "+name, func() error { _, err := newTrainer(fl.Clone(), b.c); return err })
		add(b.cat, "Fit "+name, func() error { _, err := fl.Clone().Fit(context.Background(), y, z, 2, b.c); return err })
	}
	var nilT *trainer
	var zeroT trainer
	for name, tr := range map[string]*trainer{"nil": nilT, "zero": &zeroT} {
		c := "nil"
		if name == "zero" {
			c = "zerovalue"
		}
		add(c, name+" Trainer.Step", func() error { _, err := tr.Step(y, z, 2); return err })
		add(c, name+" Trainer.StepLoss", func() error { _, err := tr.StepLoss(y, z, 2, func(l, d []float64) float64 { return 0 }); return err })
		add(c, name+" Trainer.LogDensities", func() error { return tr.LogDensities(y, z, 2, make([]float64, 2)) })
		check(c, name+" Trainer accessors", func() error {
			tr.Close()
			tr.SwapAverage()
			if name == "nil" && (tr.Flow() != nil || tr.Gradient() != nil) {
				return errors.New("non-nil accessor")
			}
			return nil
		})
	}
	newTr := func() *trainer {
		tr, err := newTrainer(fl.Clone(), DefaultTrainConfig())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tr.Close)
		return tr
	}
	add("nil", "Trainer.StepLoss nil loss", func() error { _, err := newTr().StepLoss(y, z, 2, nil); return err })
	add("nil", "Trainer.StepLossShared nil loss", func() error { _, err := newTr().StepLossShared(y, z, 2, 1, nil); return err })
	add("nil", "Trainer.StepGroupLoss nil loss", func() error { _, err := newTr().StepGroupLoss(y, z, 2, 1, nil); return err })
	add("nan", "Trainer.StepLoss NaN loss gradient", func() error {
		_, err := newTr().StepLoss(y, z, 2, func(l, d []float64) float64 { d[0] = nan; return 0 })
		return err
	})
	add("nonpositive", "Trainer.StepLossShared group 0", func() error {
		_, err := newTr().StepLossShared(y, z, 2, 0, func(l, d []float64) float64 { return 0 })
		return err
	})
	add("mismatched", "Trainer.StepGroupLoss group 3 of 2 rows", func() error {
		_, err := newTr().StepGroupLoss(y, z, 2, 3, func(int, []float64, []float64) float64 { return 0 })
		return err
	})
	add("mismatched", "Trainer.LogDensitiesShared short dst", func() error { return newTr().LogDensitiesShared(y, z, 2, 1, make([]float64, 1)) })
	add("nonpositive", "Trainer.Step n 0", func() error { _, err := newTr().Step(y, z, 0); return err })
	add("mismatched", "Fit all rows for validation", func() error {
		tc := DefaultTrainConfig()
		tc.ValidationFraction = 0.9
		_, err := fl.Clone().Fit(context.Background(), y[:2], z[:1], 1, tc)
		return err
	})
	add("nil", "Fit nil context", func() error {
		tc := DefaultTrainConfig()
		tc.MaxEpochs = 1
		//lint:ignore SA1012 a nil context is the bad input under test
		_, err := fl.Clone().Fit(nil, y, z, 2, tc) //nolint:staticcheck
		return err
	})
	check("nan", "EpochMessage NaN losses", func() error {
		if m := train.EpochMessage(nan, nan); m == "" {
			return errors.New("empty message")
		}
		return nil
	})
	testutil.RunBadInput(t, ErrInvalid, cs)
}

// FuzzNew feeds arbitrary numbers to Config: New must return an error
// wrapping ErrInvalid or a flow whose log density at 0 and whose samples
// are finite. Sizes above small limits are tried only where New refuses
// them before allocating.
func FuzzNew(f *testing.F) {
	f.Add(2, 1, 2, 4, 8, 1, 3.0, 1e-3, 1e-3, 1e-3)
	f.Add(0, -1, 0, 1, 0, -1, math.NaN(), -1.0, 2.0, math.Inf(1))
	f.Add(1<<31, math.MaxInt, 1<<20, 1<<24, 1<<28, 1<<20, 1e300, 0.0, 0.0, 0.0)
	f.Add(3, 0, 1, 2, 1, 0, 0x1p-20, 0.0, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, dim, ctx, layers, bins, hidden, blocks int, tail, mw, mh, md float64) {
		cfg := Config{Dim: dim, ContextDim: ctx, Layers: layers, Bins: bins, Hidden: hidden, Blocks: blocks,
			TailBound: tail, MinBinWidth: mw, MinBinHeight: mh, MinDerivative: md, LU: true, ContextGating: ctx > 0}
		small := dim <= 4 && ctx <= 4 && layers <= 4 && bins <= 16 && hidden <= 16 && blocks <= 2
		if !small && cfg.Validate() == nil {
			t.Skip("valid but large: not built in the fuzz target")
		}
		fl, err := New(cfg, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		y, z := make([]float64, fl.Dim()), make([]float64, fl.ContextDim())
		if v := fl.LogDensity(y, z); math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%+v: log density %v at 0", cfg, v)
		}
		dst := make([]float64, 4*fl.Dim())
		if err := fl.Sample(rand.New(rand.NewPCG(3, 4)), z, 4, dst); err != nil {
			t.Fatalf("%+v: Sample: %v", cfg, err)
		}
	})
}
