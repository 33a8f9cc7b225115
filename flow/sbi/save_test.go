package sbi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// quickConfig is smallConfig cut to one round of 300 simulations and a
// few epochs: enough to exercise the bookkeeping, not to be accurate.
func quickConfig() Config {
	c := smallConfig()
	c.Rounds, c.SimsPerRound = 1, 300
	tc := *c.Train
	tc.MaxEpochs = 4
	c.Train = &tc
	c.Warmup, c.PosteriorSamples = 100, 200
	return c
}

// simulated returns the pairs SPPE simulates in round 1 of cfg on p: the
// same prior draws and simulator streams.
func simulated(t *testing.T, p privinfer.Problem, cfg Config) *Simulations {
	t.Helper()
	e, err := newEngine(p, &cfg, PosteriorFlow)
	if err != nil {
		t.Fatal(err)
	}
	th, err := e.priorDraws(e.cfg.SimsPerRound, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.simulate(context.Background(), 1, th); err != nil {
		t.Fatal(err)
	}
	return &Simulations{Theta: e.ds.theta, Stats: e.ds.stat}
}

// TestGivenSimulations checks training from pairs simulated beforehand:
// given the pairs SPPE and SPLE would simulate themselves, the runs are
// bit-identical (one round, and two rounds where round 2 simulates); with
// one round the simulator may be nil; bad pairs are refused.
func TestGivenSimulations(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ctx := context.Background()
	p := testProblem()
	for _, rounds := range []int{1, 2} {
		cfg := quickConfig()
		cfg.Rounds = rounds
		sims := simulated(t, p, cfg)
		given := cfg
		given.Simulations = sims
		for _, name := range []string{"SPPE", "SPLE"} {
			run := func(p privinfer.Problem, c Config) (*Result, error) { return runMethod(ctx, name, p, c) }
			a, err := run(p, cfg)
			if err != nil {
				t.Fatal(err)
			}
			b, err := run(p, given)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Draws.Theta, b.Draws.Theta) || a.Simulations != b.Simulations {
				t.Errorf("%s, %d rounds: given simulations change the run", name, rounds)
			}
			q := p
			q.Simulator = nil
			c, err := run(q, given)
			if rounds == 1 {
				if err != nil || !slices.Equal(a.Draws.Theta, c.Draws.Theta) {
					t.Errorf("%s without a simulator: %v", name, err)
				}
			} else if !errors.Is(err, ErrInvalid) {
				t.Errorf("%s, %d rounds without a simulator: err = %v, want ErrInvalid", name, rounds, err)
			}
		}
	}
	cfg := quickConfig()
	good := simulated(t, p, cfg)
	far := slices.Clone(good.Theta)
	far[3] = math.NaN()
	inf := slices.Clone(good.Stats)
	inf[5] = math.Inf(1)
	for name, s := range map[string]*Simulations{
		"ragged":     {Theta: good.Theta, Stats: good.Stats[1:]},
		"one pair":   {Theta: good.Theta[:1], Stats: good.Stats[:1]},
		"NaN θ":      {Theta: far, Stats: good.Stats},
		"Inf s":      {Theta: good.Theta, Stats: inf},
		"empty":      {},
		"nil slices": {Theta: nil, Stats: good.Stats},
	} {
		c := cfg
		c.Simulations = s
		if _, err := SPPE(ctx, p, c); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
}

// TestSaveLoad checks that saved posteriors reload bit-identically (the
// same draws for the same random source, the same densities, the same
// file when saved again), and that a different prior, a corrupted or
// truncated file and the wrong kind are refused. Both flows have the
// context-dependent affine layer, as Config.DefaultFlow gives SPLE's flow
// and one-round SPPE's.
func TestSaveLoad(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ctx := context.Background()
	p := testProblem()
	cfg := quickConfig()
	fc := *cfg.Flow
	fc.ContextAffine = true
	cfg.Flow = &fc
	pres, err := SPPE(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lres, err := SPLE(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{2}})
	wide, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0, 0}, Variances: []float64{1, 1}})
	cases := []struct {
		name string
		est  Estimate
		save func(*bytes.Buffer) error
		load func(*bytes.Reader, simulate.Prior) (Estimate, error)
	}{
		{"Posterior", pres.Posterior, func(b *bytes.Buffer) error { return pres.Posterior.Save(b) },
			func(r *bytes.Reader, pr simulate.Prior) (Estimate, error) { return LoadPosterior(r, pr) }},
		{"LikelihoodPosterior", lres.Posterior, func(b *bytes.Buffer) error { return lres.Posterior.Save(b) },
			func(r *bytes.Reader, pr simulate.Prior) (Estimate, error) { return LoadLikelihoodPosterior(r, pr) }},
	}
	for i, c := range cases {
		var b bytes.Buffer
		if err := c.save(&b); err != nil {
			t.Fatal(err)
		}
		file := b.Bytes()
		got, err := c.load(bytes.NewReader(file), p.Prior)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		x, y := make([]float64, 300), make([]float64, 300)
		if err := c.est.Sample(rand.New(rand.NewPCG(5, 6)), 300, x); err != nil {
			t.Fatal(err)
		}
		if err := got.Sample(rand.New(rand.NewPCG(5, 6)), 300, y); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x, y) {
			t.Errorf("%s: reloaded draws differ", c.name)
		}
		for _, th := range []float64{-1, 0.3, 2} {
			if a, b := c.est.LogDensity([]float64{th}), got.LogDensity([]float64{th}); a != b {
				t.Errorf("%s: LogDensity(%v) = %v after reload, %v before", c.name, th, b, a)
			}
		}
		var again bytes.Buffer
		if err := got.(interface{ Save(io.Writer) error }).Save(&again); err != nil || !bytes.Equal(again.Bytes(), file) {
			t.Errorf("%s: saved again differs (%v)", c.name, err)
		}
		if _, err := c.load(bytes.NewReader(file), other); !errors.Is(err, ErrIncompatiblePrior) {
			t.Errorf("%s with another prior: err = %v", c.name, err)
		}
		if _, err := c.load(bytes.NewReader(file), wide); !errors.Is(err, ErrIncompatiblePrior) {
			t.Errorf("%s with a prior of another dimension: err = %v", c.name, err)
		}
		if _, err := c.load(bytes.NewReader(file), nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s with a nil prior: err = %v", c.name, err)
		}
		for _, k := range []int{0, 9, 20, len(file) / 2, len(file) - 1} {
			bad := slices.Clone(file)
			bad[k] ^= 0x10
			if _, err := c.load(bytes.NewReader(bad), p.Prior); !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s with byte %d flipped: err = %v", c.name, k, err)
			}
		}
		for _, n := range []int{0, 7, 40, len(file) - 5} {
			if _, err := c.load(bytes.NewReader(file[:n]), p.Prior); !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s truncated to %d bytes: err = %v", c.name, n, err)
			}
		}
		// The other loader refuses the file.
		o := cases[1-i]
		if _, err := o.load(bytes.NewReader(file), p.Prior); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrCorrupt) {
			t.Errorf("%s read as %s: err = %v", c.name, o.name, err)
		}
	}
	var zero Posterior
	if err := zero.Save(&bytes.Buffer{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero Posterior Save: %v", err)
	}
	if err := pres.Posterior.Save(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Save(nil): %v", err)
	}
}

// TestAt checks amortized use: one-round SPPE and SPLE posteriors trained
// on a non-private location model (s | θ ~ N(θ, τ²), θ ~ N(0, 1)) and
// conditioned by At on a release they were not trained for match that
// release's exact posterior N(s/(1+τ²), τ²/(1+τ²)) with the tolerances of
// TestNonPrivate; sequential posteriors refuse another release with
// ErrSequential and accept their own.
func TestAt(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ctx := context.Background()
	p := testProblem()
	p.Mechanism = nil
	cfg := smallConfig()
	cfg.Rounds, cfg.SimsPerRound = 1, 1000
	const x2 = -0.8
	mean := x2 / (1 + testTau*testTau)
	sd := math.Sqrt(testTau * testTau / (1 + testTau*testTau))
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-(x-mean)/(sd*math.Sqrt2)) }
	pres, err := SPPE(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lres, err := SPLE(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !pres.Posterior.Amortized() || !lres.Posterior.Amortized() {
		t.Fatal("one-round posteriors are not amortized")
	}
	pa, err := pres.Posterior.At([]float64{x2})
	if err != nil {
		t.Fatal(err)
	}
	la, err := lres.Posterior.At([]float64{x2})
	if err != nil {
		t.Fatal(err)
	}
	if o := pa.Observed(); len(o) != 1 || o[0] != x2 || pres.Posterior.Observed()[0] != testObs {
		t.Errorf("observations %v, %v", o, pres.Posterior.Observed())
	}
	for name, est := range map[string]Estimate{"SPPE": pa, "SPLE": la} {
		x := make([]float64, 1000)
		if err := est.Sample(rand.New(rand.NewPCG(3, 4)), 1000, x); err != nil {
			t.Fatal(err)
		}
		m, s := stats.Mean(x), math.Sqrt(stats.Variance(x))
		d, _ := stats.KSOneSample(x, cdf)
		t.Logf("exact mean %.3f sd %.3f; %s at %v: mean %.3f sd %.3f KS D %.3f", mean, sd, name, x2, m, s, d)
		if math.Abs(m-mean) > 0.1 || math.Abs(s/sd-1) > 0.2 || d > 0.1 {
			t.Errorf("%s at a new release off: mean %.3f (exact %.3f), sd %.3f (exact %.3f), KS D %.3f", name, m, mean, s, sd, d)
		}
	}
	if _, err := pres.Posterior.At([]float64{math.NaN()}); !errors.Is(err, ErrInvalid) {
		t.Errorf("At(NaN): %v", err)
	}
	if _, err := lres.Posterior.At([]float64{1, 2}); !errors.Is(err, ErrInvalid) {
		t.Errorf("At of the wrong length: %v", err)
	}

	q := quickConfig()
	q.Rounds = 2
	sp, err := SPPE(ctx, p, q)
	if err != nil {
		t.Fatal(err)
	}
	sl, err := SPLE(ctx, p, q)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Posterior.Amortized() || sl.Posterior.Amortized() || sp.Posterior.Rounds() != 2 {
		t.Fatal("two-round posteriors are amortized")
	}
	if _, err := sp.Posterior.At([]float64{x2}); !errors.Is(err, ErrSequential) || !errors.Is(err, ErrInvalid) {
		t.Errorf("sequential SPPE At: %v", err)
	}
	if _, err := sl.Posterior.At([]float64{x2}); !errors.Is(err, ErrSequential) {
		t.Errorf("sequential SPLE At: %v", err)
	}
	same, err := sp.Posterior.At([]float64{testObs})
	if err != nil || same.InSupport() != sp.Posterior.InSupport() {
		t.Errorf("sequential SPPE at its own observation: %v", err)
	}
	if _, err := sl.Posterior.At([]float64{testObs}); err != nil {
		t.Errorf("sequential SPLE at its own observation: %v", err)
	}
	var zero Posterior
	if _, err := zero.At([]float64{0}); !errors.Is(err, ErrInvalid) || zero.Amortized() || zero.Rounds() != 0 {
		t.Errorf("zero Posterior: %v", err)
	}
}
