package sbi

import (
	"fmt"
	"testing"

	"github.com/privinfer/privinfer/flow"
)

// epochRows returns the rows a training epoch evaluates in each round of
// cfg (defaults filled) for a problem with a mechanism: the training pairs
// so far times M inner points, times the atoms after round 1 (SPPE).
func epochRows(cfg Config, m int) []int {
	out := make([]int, cfg.Rounds)
	for r := 1; r <= cfg.Rounds; r++ {
		pairs := r * (cfg.SimsPerRound - int(float64(cfg.SimsPerRound)*cfg.Train.ValidationFraction+0.5))
		out[r-1] = pairs * m
		if r > 1 {
			out[r-1] *= cfg.Atoms
		}
	}
	return out
}

// TestDefaultSizes checks the sizes the zero Config gives SPPE on a
// one-dimensional problem with a mechanism (the newcomer's first run),
// without timing anything: 4 rounds of 500 simulations, M = 8, 10 atoms,
// the 3-layer flow of Config.DefaultFlow and DefaultTrain; and the work of one
// epoch per round summed over the rounds: at most 4·10⁵ row evaluations
// and, since in dimension 1 the conditioners run once per shared context,
// at most 5·10⁴ conditioner evaluations. On two loaded cores such a row
// costs about 2 µs of CPU (a 3-layer flow with the conditioners shared by
// 10 atoms) and the rounds stop after 40–100 epochs: the whole run took 37
// s of CPU (SPLE 22 s) when this test was written, and 29 s on two idle
// cores (53 s of CPU; SPLE 9 s) at seed 1 with Laplace noise of scale 0.5
// on a normal mean later, so well under a minute on two cores. The
// paper's settings (paperConfig, the preset of
// examples/reproduce/support/sbiflags.PaperConfig) need 20 times as many rows per
// epoch.
func TestDefaultSizes(t *testing.T) {
	var c Config
	e, err := newEngine(testProblem(), &c, PosteriorFlow)
	if err != nil {
		t.Fatal(err)
	}
	fc := e.f.Config()
	tc := *e.cfg.Train
	want := DefaultTrain()
	if e.cfg.Rounds != 4 || e.cfg.SimsPerRound != 500 || e.m != 8 || e.cfg.Atoms != 10 ||
		fc.Layers != 3 || fc.Hidden != 50 || fc.Blocks != 2 || fc.Bins != 10 || !sameTrain(tc, want) {
		t.Fatalf("zero Config resolves to %d rounds × %d, M = %d, %d atoms, flow %+v, training %+v",
			e.cfg.Rounds, e.cfg.SimsPerRound, e.m, e.cfg.Atoms, fc, tc)
	}
	rows, evals := 0, 0
	for r, n := range epochRows(e.cfg, e.m) {
		rows += n
		if r == 0 {
			evals += n
		} else {
			evals += n / e.cfg.Atoms
		}
	}
	t.Logf("default: %d row and %d conditioner evaluations per epoch summed over the rounds", rows, evals)
	if rows > 400_000 || evals > 50_000 {
		t.Errorf("default work per epoch: %d rows, %d conditioner evaluations", rows, evals)
	}
	var seq, amortized Config
	amortized.Rounds = 1
	if d := seq.DefaultFlow(PosteriorFlow, 2, 10); d.Layers != 5 || d.Hidden != 50 || !d.LU || !d.ContextGating || d.ContextAffine {
		t.Errorf("Config{}.DefaultFlow(PosteriorFlow, 2, 10) = %+v, want the sbi package's nsf", d)
	}
	if d := amortized.DefaultFlow(PosteriorFlow, 2, 10); d.Layers != 5 || !d.ContextAffine {
		t.Errorf("Config{Rounds: 1}.DefaultFlow(PosteriorFlow, 2, 10) = %+v, want the sbi package's nsf with the context-dependent affine layer", d)
	}
	for _, c := range []Config{seq, amortized} {
		if d := c.DefaultFlow(LikelihoodFlow, 10, 2); d.Layers != 5 || d.Hidden != 50 || !d.LU || !d.ContextGating || !d.ContextAffine {
			t.Errorf("Config{Rounds: %d}.DefaultFlow(LikelihoodFlow, 10, 2) = %+v, want the sbi package's nsf with the context-dependent affine layer", c.Rounds, d)
		}
	}
	for _, rounds := range []int{0, 1, 2} {
		for _, role := range []Role{PosteriorFlow, LikelihoodFlow} {
			cfg := Config{Rounds: rounds}
			e, err := newEngine(testProblem(), &cfg, role)
			if err != nil {
				t.Fatal(err)
			}
			want := role == LikelihoodFlow || rounds == 1
			if got := e.f.Config(); got.ContextAffine != want {
				t.Errorf("role %d, %d rounds, Config.Flow nil: ContextAffine %v, want %v (SPLE's flow and one-round SPPE's)", role, rounds, got.ContextAffine, want)
			}
		}
	}

	p := paperConfig()
	e, err = newEngine(testProblem(), &p, PosteriorFlow)
	if err != nil {
		t.Fatal(err)
	}
	prow := 0
	for _, n := range epochRows(e.cfg, e.m) {
		prow += n
	}
	if pf := e.f.Config(); pf.Layers != 8 || e.cfg.Rounds != 10 || e.cfg.SimsPerRound != 1000 || e.m != 16 || !sameTrain(*e.cfg.Train, flow.DefaultTrainConfig()) || prow < 20*rows {
		t.Errorf("paperConfig resolves to flow %+v, %d rounds × %d, M = %d, %d rows per epoch", pf, e.cfg.Rounds, e.cfg.SimsPerRound, e.m, prow)
	}
}

// sameTrain compares training settings other than Progress.
func sameTrain(a, b flow.TrainConfig) bool {
	a.Progress, b.Progress = nil, nil
	return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b)
}

// paperConfig is the SBI paper's setting (App. E), as
// examples/reproduce/support/sbiflags.PaperConfig gives it.
func paperConfig() Config {
	fc := flow.DefaultConfig(1, 1)
	tc := flow.DefaultTrainConfig()
	return Config{Rounds: 10, SimsPerRound: 1000, InnerPoints: 16, Atoms: 10, Flow: &fc, Train: &tc, RegressionShift: ShiftOff}
}
