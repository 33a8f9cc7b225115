package sbi

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/flow/nn"
	"github.com/privinfer/privinfer/flow/optim"
	"github.com/privinfer/privinfer/flow/spline"
)

// flowPrefixes matches the package prefix of an error message of flow/**
// ("flow: ", "sbi: ", …) where it starts a message or follows a
// separator, so that words such as "posterior flow" do not count.
var flowPrefixes = regexp.MustCompile(`(?:^|[\s(:;,])(ad|nn|spline|optim|metrics|flow|sbi): `)

// leading matches the start every invalid-argument message of flow/** has.
var leading = regexp.MustCompile(`^(ad|nn|spline|optim|metrics|flow|sbi): invalid argument: `)

// TestErrorPrefixesOnce produces errors that cross the flow packages (a
// flow/ad network inside a flow configuration inside an sbi run, flow
// training settings inside an sbi run, a corrupt flow inside a saved
// posterior, nil receivers and bad arguments of every package) and checks
// that every package prefix appears at most once in each message and that
// each message starts with its package's "<pkg>: invalid argument: ".
func TestErrorPrefixesOnce(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	p := testProblem()
	run := func(edit func(c *Config)) error {
		c := smallConfig()
		fc, tc := *c.Flow, *c.Train
		c.Flow, c.Train = &fc, &tc
		edit(&c)
		_, err := SPPE(ctx, p, c)
		return err
	}
	var nilFlow *flow.Flow
	fcfg := flow.DefaultConfig(1, 1)
	fcfg.Embedding = &ad.Net{In: 1, Out: 0}
	_, errNewFlow := flow.New(fcfg, r)
	fcfg = flow.DefaultConfig(1, 1)
	fcfg.Bins = 1
	_, errBins := flow.New(fcfg, r)
	good, err := flow.New(flow.DefaultConfig(1, 1), r)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := good.Save(&buf); err != nil {
		t.Fatal(err)
	}
	trunc := buf.Bytes()[:buf.Len()/2]
	_, errLoad := flow.Load(bytes.NewReader(trunc))
	_, errFit := good.Fit(ctx, []float64{math.NaN(), 1}, []float64{0, 0}, 2, flow.DefaultTrainConfig())
	_, errNN := nn.NewResNet(nn.ResNetConfig{In: 1, Hidden: 0, Out: 1})
	_, errOptim := optim.NewAdamW(1, optim.AdamWConfig{})
	_, errSpline := spline.New(spline.Config{Bins: 1})
	_, errMetrics := metrics.MMD(nil, nil, 1, metrics.MMDOptions{})
	tape := ad.NewTape()
	tape.MatMul(tape.Const([]float64{1, 2}, 1, 2), tape.Const([]float64{1, 2}, 1, 2))
	_, errInner := InnerIntegral(nil, PosteriorFlow, nil, nil, nil, 1, RQMC, r)
	_, errPosterior := LoadPosterior(bytes.NewReader(trunc), p.Prior)

	errs := map[string]error{
		"sbi ← flow ← ad (Config.Flow.Embedding)": run(func(c *Config) { c.Flow.Embedding = &ad.Net{In: 1, Out: 0} }),
		"sbi ← ad (Config.Embedding)":             run(func(c *Config) { c.Embedding = &ad.Net{In: 1, Out: 0} }),
		"sbi ← flow (Config.Flow.Bins)":           run(func(c *Config) { c.Flow.Bins = 1 }),
		"sbi ← flow (Config.Train.LearningRate)":  run(func(c *Config) { c.Train.LearningRate = -1 }),
		"sbi (Config.Rounds)":                     run(func(c *Config) { c.Rounds = -1 }),
		"flow ← ad (New, Embedding)":              errNewFlow,
		"flow ← spline (New, Bins)":               errBins,
		"flow (nil LogDensityBatch)":              nilFlow.LogDensityBatch(nil, nil, 1, nil),
		"flow (Load, truncated)":                  errLoad,
		"flow (Fit, NaN)":                         errFit,
		"flow (TrainConfig.Validate)":             flow.TrainConfig{}.Validate(),
		"nn (NewResNet)":                          errNN,
		"optim (NewAdamW)":                        errOptim,
		"spline (New)":                            errSpline,
		"metrics (MMD)":                           errMetrics,
		"ad (Tape.MatMul shapes)":                 tape.Err(),
		"ad (Net.Validate)":                       ad.Net{}.Validate(),
		"sbi (InnerIntegral nil flow)":            errInner,
		"sbi ← flow (LoadPosterior, truncated)":   errPosterior,
	}
	for name, err := range errs {
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		msg := err.Error()
		seen := map[string]int{}
		for _, m := range flowPrefixes.FindAllStringSubmatch(msg, -1) {
			seen[m[1]]++
		}
		for pkg, n := range seen {
			if n > 1 {
				t.Errorf("%s: prefix %q appears %d times in %q", name, pkg+": ", n, msg)
			}
		}
		if !leading.MatchString(msg) {
			t.Errorf("%s: %q does not start with \"<package>: invalid argument: \"", name, msg)
		}
		t.Logf("%s: %s", name, msg)
	}
}
