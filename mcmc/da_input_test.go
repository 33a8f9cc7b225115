package mcmc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// TestDABadInput checks validation of DA problems, settings and chains,
// and that a problem lacking a capability gets the root package's named
// error.
func TestDABadInput(t *testing.T) {
	good, th := linRegProblem(t, 100, 1)
	cfg := DAConfig{ThetaStep: th, RecordStep: SOMA}
	r := rand.New(rand.NewPCG(1, 1))
	mut := []struct {
		f    func(p *privinfer.Problem, c *DAConfig)
		want error
	}{
		{func(p *privinfer.Problem, c *DAConfig) { p.Simulator = nil }, ErrInvalid},
		{func(p *privinfer.Problem, c *DAConfig) { c.ThetaStep = nil }, ErrInvalid},
		{func(p *privinfer.Problem, c *DAConfig) { p.Mechanism = nil }, privinfer.ErrNoMechanism},
		{func(p *privinfer.Problem, c *DAConfig) { p.Simulator = summaryOnly{p.Simulator} }, privinfer.ErrNoRecords},
		{func(p *privinfer.Problem, c *DAConfig) { p.Mechanism = releaseOnly{p.Mechanism} }, privinfer.ErrNoDensity},
		{func(p *privinfer.Problem, c *DAConfig) { p.Observed = p.Observed[:3] }, ErrInvalid},
		{func(p *privinfer.Problem, c *DAConfig) { p.Observed = []float64{1, 2, 3, 4, 5, 6, 7, 8, math.NaN()} }, ErrInvalid},
		{func(p *privinfer.Problem, c *DAConfig) { c.RecordStep = 7 }, ErrInvalid},
	}
	for i, m := range mut {
		p, c := good, cfg
		m.f(&p, &c)
		if _, err := NewDAChain(p, c, r, []float64{0, 0, 0}); !errors.Is(err, m.want) {
			t.Errorf("mutation %d: NewDAChain err = %v, want %v", i, err, m.want)
		}
		c.Init = farInits[:1]
		c.Chains, c.Draws = 1, 1
		if _, err := RunDA(context.Background(), p, c); !errors.Is(err, m.want) {
			t.Errorf("mutation %d: RunDA err = %v, want %v", i, err, m.want)
		}
	}
	if _, err := NewDAChain(good, cfg, r, []float64{0, 0}); err == nil {
		t.Error("wrong θ length accepted")
	}
	if _, err := NewDAChain(good, cfg, r, []float64{0, math.Inf(1), 0}); err == nil {
		t.Error("non-finite θ accepted")
	}
	if _, err := NewDAChain(good, DAConfig{ThetaStep: th, RecordStep: RecordStep(9)}, r, []float64{0, 0, 0}); err == nil {
		t.Error("unknown kernel accepted")
	}
	c, _ := NewDAChain(good, cfg, r, []float64{0, 0, 0})
	if err := c.SetRecords(make([]float64, 5)); err == nil {
		t.Error("wrong records length accepted")
	}
	if _, err := RunDA(context.Background(), good, DAConfig{ThetaStep: th, Chains: -1, Draws: 1, Init: farInits}); err == nil {
		t.Error("negative chains accepted")
	}
	if _, err := RunDA(context.Background(), good, DAConfig{ThetaStep: th, Chains: 1, Draws: 1, Init: farInits}); err == nil {
		t.Error("Init for 4 chains accepted for 1 chain")
	}
	if _, err := linreg.NewConjugate(linreg.ConjugateConfig{P: 2, Sigma2: -1, PriorMean: []float64{0, 0, 0}, PriorVar: []float64{1, 1, 1}}); err == nil {
		t.Error("negative sigma2 accepted")
	}
	if _, err := linreg.NewNIG(linreg.NIGConfig{PredictorMean: []float64{0}, A0: 0, B0: 1, G: 1, Clamp: 1}); err == nil {
		t.Error("a0 = 0 accepted")
	}
}

// summaryOnly hides the record model of a simulator.
type summaryOnly struct{ simulate.Simulator }

// nanMech is a release density that returns NaN away from the release.
type nanMech struct{ mechanism.Mechanism }

func (nanMech) LogDensity(sdp, s []float64) float64 {
	if s[0] > 0 {
		return math.NaN()
	}
	return -s[0] * s[0]
}

// TestDANaNReported checks that a NaN release density stops the chain
// with an error wrapping ErrNaN for every kernel.
func TestDANaNReported(t *testing.T) {
	model := linreg.Paper()
	p, th := linRegProblem(t, 100, 1)
	sim, _ := simulate.NewMeanStat(model, 5)
	p.Simulator, p.Mechanism = sim, nanMech{p.Mechanism}
	for _, k := range []RecordStep{RandomScanIMwG, SystematicScanIMwG, SOMA} {
		_, err := RunDA(context.Background(), p, DAConfig{ThetaStep: th, RecordStep: k, Chains: 1, Draws: 50, Init: [][]float64{{-3, 0, 0}}})
		if !errors.Is(err, ErrNaN) {
			t.Errorf("%v: err = %v, want ErrNaN", k, err)
		}
	}
	// NaN contributions under the Laplace fast path are reported too.
	lap, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.13, Epsilon: 1, Dim: 9})
	sim2, _ := simulate.NewMeanStat(nanContrib{model}, 5)
	p.Simulator, p.Mechanism = sim2, lap
	for _, k := range []RecordStep{RandomScanIMwG, SystematicScanIMwG, SOMA} {
		_, err := RunDA(context.Background(), p, DAConfig{ThetaStep: th, RecordStep: k, Chains: 1, Draws: 500, Init: [][]float64{{0, 0, 0}}})
		if !errors.Is(err, ErrNaN) {
			t.Errorf("%v with NaN contributions: err = %v, want ErrNaN", k, err)
		}
	}
}

// nanContrib returns NaN contributions for records with x1 > 2.5.
type nanContrib struct{ *linreg.Model }

func (n nanContrib) Contribution(rec, dst []float64) {
	n.Model.Contribution(rec, dst)
	if rec[0] > 2.5 {
		dst[0] = math.NaN()
	}
}

// TestRunDAContextAndProgress checks cancellation, progress reporting and
// seed determinism of RunDA.
func TestRunDAContextAndProgress(t *testing.T) {
	p, nig := nigProblem(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunDA(ctx, p, DAConfig{ThetaStep: nig, RecordStep: SOMA, Chains: 2, Draws: 1000}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	var events []privinfer.Progress
	cfg := DAConfig{ThetaStep: nig, RecordStep: SOMA, Chains: 2, Warmup: 5, Draws: 20, Thin: 3, Seed: 4,
		Progress: func(e privinfer.Progress) { events = append(events, e) }}
	a, err := RunDA(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkProgress(t, events, 2*65)
	cfg.Progress = nil
	b, _ := RunDA(context.Background(), p, cfg)
	if a.Draws.Chains != 2 || a.Draws.Len() != 2*20 || a.Draws.Dim != 4 || len(a.LogDensity) != 40 {
		t.Fatalf("draws: %d chains, %d draws of dimension %d, %d log densities; want 2, 40, 4, 40", a.Draws.Chains, a.Draws.Len(), a.Draws.Dim, len(a.LogDensity))
	}
	if !slices.Equal(a.Draws.Names, p.Names) {
		t.Errorf("names %v, want %v", a.Draws.Names, p.Names)
	}
	if !slices.Equal(a.Draws.Theta, b.Draws.Theta) || !slices.Equal(a.LogDensity, b.LogDensity) {
		t.Fatal("same seed, different draws")
	}
	for c := range 2 {
		if a.Proposed[c] != 60*10 {
			t.Errorf("proposed %d, want 600 post-warm-up attempts", a.Proposed[c])
		}
	}
	plain, _ := linRegProblem(t, 100, 1)
	if _, err := CoupleDA(context.Background(), plain, CouplingConfig{RecordStep: SOMA, Pairs: 1, MaxIter: 1,
		InitPair: func(int, *rand.Rand, []float64, []float64, []float64, []float64) error { return nil }}); err == nil {
		t.Error("record model without Coupler accepted")
	}
}
