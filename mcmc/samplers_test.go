package mcmc

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/privinfer/privinfer"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
)

// corrGauss is N(μ, Σ) in 2-d with sd (1, 3) and correlation 0.9.
type corrGauss struct{}

var cgMu = [2]float64{1, -2}

const (
	cgS1, cgS2, cgRho = 1.0, 3.0, 0.9
)

func (corrGauss) Dim() int { return 2 }

func (c corrGauss) LogDensity(x []float64) float64 {
	g := make([]float64, 2)
	return c.Gradient(x, g)
}

func (corrGauss) Gradient(x, g []float64) float64 {
	a := (x[0] - cgMu[0]) / cgS1
	b := (x[1] - cgMu[1]) / cgS2
	det := 1 - cgRho*cgRho
	q := (a*a - 2*cgRho*a*b + b*b) / det
	g[0] = -(a - cgRho*b) / det / cgS1
	g[1] = -(b - cgRho*a) / det / cgS2
	return -0.5 * q
}

// checkGaussRun checks R̂, and KS of each marginal against the exact
// normal CDF on draws thinned to the bulk ESS (false-alarm rate 0.1% per
// marginal; with thinning the draws are close to independent).
func checkGaussRun(t *testing.T, name string, res *Result) {
	t.Helper()
	sd := [2]float64{cgS1, cgS2}
	for j := range 2 {
		s := summarize(res, j)
		if !(s.RHat < 1.02) {
			t.Errorf("%s: R̂[%d] = %v", name, j, s.RHat)
		}
		x := thinTo(pooled(res, j), s.ESSBulk)
		_, p := stats.KSOneSample(x, func(v float64) float64 { return special.NormCDF((v - cgMu[j]) / sd[j]) })
		t.Logf("%s x%d: mean %.3f (MCSE %.3f) sd %.3f ESS %.0f/%.0f KS p=%.3f n=%d acc=%.2f",
			name, j, s.Mean, s.MCSEMean, s.SD, s.ESSBulk, s.ESSTail, p, len(x), res.AcceptRate())
		if !(p > 1e-3) {
			t.Errorf("%s: KS p = %v for coordinate %d", name, p, j)
		}
		if math.Abs(s.Mean-cgMu[j]) > 5*s.MCSEMean {
			t.Errorf("%s: mean[%d] = %v ± %v, want %v", name, j, s.Mean, s.MCSEMean, cgMu[j])
		}
	}
}

func TestSamplersGaussian(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	methods := []struct {
		name string
		m    Method
		cfg  Config
	}{
		{"AM", AdaptiveMetropolis{}, Config{Chains: 4, Warmup: 2000, Draws: 5000, Seed: 1}},
		{"Slice", Slice{}, Config{Chains: 4, Warmup: 200, Draws: 3000, Seed: 2}},
		{"SliceHR", Slice{HitAndRun: true}, Config{Chains: 4, Warmup: 500, Draws: 5000, Seed: 3}},
		{"NUTS", NUTS{}, Config{Chains: 4, Warmup: 300, Draws: 1000, Seed: 4}},
	}
	for _, mm := range methods {
		init := [][]float64{{-10, 10}, {10, -10}, {10, 10}, {-10, -10}}
		mm.cfg.Init = init
		res, err := Run(context.Background(), corrGauss{}, mm.m, mm.cfg)
		if err != nil {
			t.Fatalf("%s: %v", mm.name, err)
		}
		checkGaussRun(t, mm.name, res)
	}
}

// gammaTarget is Gamma(shape 3, scale 1) on x > 0, −Inf outside.
type gammaTarget struct{}

func (gammaTarget) Dim() int { return 1 }
func (gammaTarget) LogDensity(x []float64) float64 {
	if x[0] <= 0 {
		return math.Inf(-1)
	}
	return 2*math.Log(x[0]) - x[0]
}

// TestSamplersBoundedSupport checks AM and slice on a target with a
// boundary (log density −Inf outside), KS against the Gamma(3) CDF.
func TestSamplersBoundedSupport(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	for _, m := range []Method{AdaptiveMetropolis{Scale: 1}, Slice{}} {
		res, err := Run(context.Background(), gammaTarget{}, m, Config{Chains: 2, Warmup: 500, Draws: 6000, Seed: 5, Init: [][]float64{{0.1}, {20}}})
		if err != nil {
			t.Fatal(err)
		}
		s := summarize(res, 0)
		x := thinTo(pooled(res, 0), s.ESSBulk)
		_, p := stats.KSOneSample(x, func(v float64) float64 { return special.GammaP(3, math.Max(v, 0)) })
		if !(p > 1e-3) {
			t.Errorf("%T: KS p = %v (mean %v)", m, p, s.Mean)
		}
	}
}

type nanTarget struct{}

func (nanTarget) Dim() int { return 1 }
func (nanTarget) LogDensity(x []float64) float64 {
	if x[0] > 0.5 {
		return math.NaN()
	}
	return -0.5 * x[0] * x[0]
}
func (n nanTarget) Gradient(x, g []float64) float64 { g[0] = -x[0]; return n.LogDensity(x) }

// TestNaNTargetReported checks that a NaN log density is reported as an
// error wrapping ErrNaN by every method, never silently accepted.
func TestNaNTargetReported(t *testing.T) {
	for _, m := range []Method{AdaptiveMetropolis{Scale: 3}, Slice{}, Slice{HitAndRun: true}, NUTS{StepSize: 0.5}} {
		_, err := Run(context.Background(), nanTarget{}, m, Config{Chains: 1, Draws: 2000, Seed: 1, Init: [][]float64{{0}}})
		if !errors.Is(err, ErrNaN) {
			t.Errorf("%T: err = %v, want ErrNaN", m, err)
		}
	}
	_, err := Run(context.Background(), nanTarget{}, Slice{}, Config{Chains: 1, Draws: 10, Init: [][]float64{{1}}})
	if !errors.Is(err, ErrNaN) {
		t.Errorf("NaN at the initial point: %v", err)
	}
}

// TestRunBadInput checks argument validation.
func TestRunBadInput(t *testing.T) {
	ctx := context.Background()
	tg := corrGauss{}
	bad := []Config{
		{Chains: -1, Draws: 10},
		{Chains: 1, Draws: -1},
		{Chains: 1, Draws: 10, Warmup: -1},
		{Chains: 1, Draws: 10, Thin: -2},
		{Chains: 2, Draws: 10, Init: [][]float64{{0, 0}}},
		{Chains: 1, Draws: 10, Init: [][]float64{{0}}},
		{Chains: 1, Draws: 10, Init: [][]float64{{0, math.Inf(1)}}},
		{Chains: 1, Draws: 10, Names: []string{"a"}},
		{Chains: 1, Draws: 10, Names: []string{"a", "a"}},
		{Chains: 1, Draws: 10, Names: []string{"a", ""}},
	}
	for i, c := range bad {
		if _, err := Run(ctx, tg, Slice{}, c); err == nil {
			t.Errorf("config %d accepted", i)
		}
	}
	if _, err := Run(ctx, nil, Slice{}, Config{Chains: 1, Draws: 1}); err == nil {
		t.Error("nil target accepted")
	}
	if _, err := Run(ctx, TargetFunc{N: 1, Fn: func([]float64) float64 { return 0 }}, NUTS{}, Config{Chains: 1, Draws: 1}); err == nil {
		t.Error("NUTS without gradient accepted")
	}
	for _, m := range []Method{AdaptiveMetropolis{Beta: 2}, Slice{Width: -1}, NUTS{TargetAccept: 1.5}} {
		if _, err := m.NewKernel(tg); err == nil {
			t.Errorf("%#v accepted", m)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(cctx, tg, Slice{}, Config{Chains: 1, Draws: 1000}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestRunDeterministic checks that results depend on the seed only (with
// or without progress reporting), the shape and names of the draws, and
// the progress events.
func TestRunDeterministic(t *testing.T) {
	var events []privinfer.Progress
	cfg := Config{Chains: 2, Warmup: 10, Draws: 50, Thin: 2, Seed: 9, Names: []string{"x", "y"},
		Progress: func(e privinfer.Progress) { events = append(events, e) }}
	a, err := Run(context.Background(), corrGauss{}, AdaptiveMetropolis{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkProgress(t, events, 2*110)
	cfg.Progress = nil
	b, _ := Run(context.Background(), corrGauss{}, AdaptiveMetropolis{}, cfg)
	if a.Draws.Chains != 2 || a.Draws.Len() != 100 || a.Draws.Dim != 2 || len(a.LogDensity) != 100 {
		t.Fatalf("%d chains, %d draws of dimension %d, %d log densities; want 2 chains × 50 draws of dimension 2", a.Draws.Chains, a.Draws.Len(), a.Draws.Dim, len(a.LogDensity))
	}
	if err := a.Draws.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Draws.Names, []string{"x", "y"}) {
		t.Errorf("names %v", a.Draws.Names)
	}
	if !slices.Equal(a.Draws.Theta, b.Draws.Theta) || !slices.Equal(a.LogDensity, b.LogDensity) {
		t.Fatal("runs with the same seed differ")
	}
	for i := range a.LogDensity {
		if lp := (corrGauss{}).LogDensity(a.Draws.Row(i)); lp != a.LogDensity[i] {
			t.Fatalf("draw %d: log density %v, stored %v", i, lp, a.LogDensity[i])
		}
	}
	// The zero Config: 4 chains of 1000 draws.
	z, err := Run(context.Background(), corrGauss{}, Slice{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if z.Draws.Chains != 4 || z.Draws.Len() != 4000 {
		t.Errorf("zero Config: %d chains, %d draws; want 4 and 4000", z.Draws.Chains, z.Draws.Len())
	}
}

// TestNUTSBadlyScaled samples independent normals with standard deviations
// 0.01 and 100 (a ratio the identity mass matrix could only handle with
// ~10⁴ leapfrog steps per draw); the windowed diagonal mass adaptation
// makes it routine. KS on ESS-thinned draws, 0.1% false-alarm rate each.
func TestNUTSBadlyScaled(t *testing.T) {
	sd := []float64{0.01, 100}
	tg := GradTargetFunc{N: 2, Fn: func(x, g []float64) float64 {
		lp := 0.0
		for i := range x {
			z := x[i] / sd[i]
			g[i] = -z / sd[i]
			lp -= 0.5 * z * z
		}
		return lp
	}}
	res, err := Run(context.Background(), tg, NUTS{}, Config{Chains: 2, Warmup: 500, Draws: 1000, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	for j := range 2 {
		s := summarize(res, j)
		x := thinTo(pooled(res, j), s.ESSBulk)
		_, p := stats.KSOneSample(x, func(v float64) float64 { return special.NormCDF(v / sd[j]) })
		t.Logf("x%d: sd %.4g ESS %.0f KS p=%.3f", j, s.SD, s.ESSBulk, p)
		if !(p > 1e-3) || !(s.ESSBulk > 500) {
			t.Errorf("x%d: KS p = %v, ESS = %v", j, p, s.ESSBulk)
		}
	}
}
