package sbiflags

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
)

var def = Settings{Rounds: 4, Sims: 300, M: 8, Atoms: 5, Layers: 4, Hidden: 32, Blocks: 1, Epochs: 30, Patience: 5, Batch: 100, LR: 1e-3, NPost: 1000}

func TestRegisterValidateConfig(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	s := Register(fs, def, map[string]string{"rounds": "2"})
	if u := fs.Lookup("rounds").Usage; !strings.Contains(u, "(-quick: 2)") {
		t.Errorf("rounds usage %q lacks the -quick hint", u)
	}
	if s.Config(3, 9, 7).RegressionShift != sbi.ShiftOff {
		t.Error("regression shift on without -shift")
	}
	if err := fs.Parse([]string{"-rounds", "10", "-M", "4", "-mc", "-gating", "-lr", "0.01", "-shift"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	o := s.Config(3, 9, 7)
	if o.Rounds != 10 || o.SimsPerRound != 300 || o.InnerPoints != 4 || o.Integration != sbi.MC || !o.Flow.ContextGating ||
		o.Flow.Dim != 3 || o.Flow.ContextDim != 9 || o.Train.LearningRate != 0.01 || o.Seed != 7 || o.PosteriorSamples != 1000 || o.RegressionShift != sbi.ShiftOn {
		t.Errorf("config %+v", o)
	}
	for _, args := range [][]string{{"-rounds", "0"}, {"-sims", "1"}, {"-M", "0"}, {"-atoms", "1"}, {"-layers", "0"},
		{"-hidden", "0"}, {"-blocks", "-1"}, {"-epochs", "0"}, {"-patience", "0"}, {"-batch", "0"}, {"-n", "9"}, {"-lr", "0"}, {"-lr", "+Inf"}} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		s := Register(fs, def, nil)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}

// TestParse reads -eps and -methods, applies the -quick defaults and
// refuses budgets without a release and unknown methods.
func TestParse(t *testing.T) {
	release := func(eps float64) error {
		if eps != 10 && eps != 1 && eps != 0.1 {
			return errors.New("no release")
		}
		return nil
	}
	parse := func(args ...string) (*Settings, error) {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		common := cli.Register(fs, 1)
		d := def
		d.EpsList, d.MethodList = "10,1,0.1", "sppe,sple"
		s := Register(fs, d, map[string]string{"eps": "10", "rounds": "2"})
		return s, s.Parse(fs, args, common, release)
	}
	s, err := parse("-quick", "-methods", " sple")
	if err != nil || !slices.Equal(s.Eps, []float64{10}) || s.Rounds != 2 || !slices.Equal(s.Methods, []string{"sple"}) {
		t.Errorf("-quick: %+v, %v", s, err)
	}
	if s, err = parse("-eps", "0.1, 1"); err != nil || !slices.Equal(s.Eps, []float64{0.1, 1}) || s.Rounds != 4 || len(s.Methods) != 2 {
		t.Errorf("-eps 0.1,1: %+v, %v", s, err)
	}
	for _, args := range [][]string{{"-eps", "x"}, {"-eps", "3"}, {"-eps", "-1"}, {"-eps", "Inf"}, {"-methods", "abc"}, {"-rounds", "0"}, {"stray"}} {
		if _, err := parse(args...); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}

// TestChooseAffineAndKeySuffix checks -choose-affine's candidate (the same
// flow with the affine layer), its exclusion with -affine, and that the
// key suffix is empty without options (saved results keep their keys) and
// different for every option.
func TestChooseAffineAndKeySuffix(t *testing.T) {
	parse := func(args ...string) *Settings {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		s := Register(fs, def, nil)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if k := parse().KeySuffix(); k != "" {
		t.Errorf("default key suffix %q, want empty", k)
	}
	if k := parse("-tail-bound=3").KeySuffix(); k != "" {
		t.Errorf("key suffix %q with the default tail bound given, want empty", k)
	}
	s := parse("-choose-affine", "-gating")
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	o := s.Config(2, 10, 1)
	if o.Flow.ContextAffine || len(o.FlowCandidates) != 1 || !o.FlowCandidates[0].ContextAffine || !o.FlowCandidates[0].ContextGating || o.FlowCandidates[0].Layers != def.Layers {
		t.Errorf("-choose-affine: Flow %+v, candidates %+v", o.Flow, o.FlowCandidates)
	}
	if err := parse("-affine", "-choose-affine").Validate(); !errors.Is(err, cli.ErrUsage) {
		t.Errorf("-affine with -choose-affine: got %v, want a usage error", err)
	}
	seen := map[string]string{"": "none"}
	for _, f := range []string{"-shift", "-float32", "-affine", "-choose-affine", "-tail-bound=6"} {
		k := parse(f).KeySuffix()
		if prev, ok := seen[k]; ok {
			t.Errorf("%s has key suffix %q, as %s", f, k, prev)
		}
		seen[k] = f
	}
}

// TestCheckpoints checks -checkpoints: its default comes from
// cli.CheckpointsEnv, Parse creates the folder, and CheckpointFile names
// one file per method, seed, release and settings (the same inputs, the
// same name), none without the flag.
func TestCheckpoints(t *testing.T) {
	release := func(float64) error { return nil }
	parse := func(args ...string) *Settings {
		t.Helper()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		common := cli.Register(fs, 1)
		s := Register(fs, def, nil)
		if err := s.Parse(fs, append([]string{"-eps", "1", "-methods", "sppe"}, args...), common, release); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if f := parse().CheckpointFile("sppe", 1, []float64{1}); f != "" {
		t.Errorf("without -checkpoints: %q, want none", f)
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	s := parse("-checkpoints", dir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("Parse did not create the folder: %v", err)
	}
	obs := []float64{0.5, 2}
	base := s.CheckpointFile("sppe", 1, obs)
	if filepath.Dir(base) != dir || !strings.HasPrefix(filepath.Base(base), "sppe-") || !strings.HasSuffix(base, ".ckpt") {
		t.Errorf("checkpoint %q, want sppe-….ckpt in %s", base, dir)
	}
	other := parse("-checkpoints", dir, "-layers", "5")
	names := map[string]string{
		"same":    s.CheckpointFile("sppe", 1, slices.Clone(obs)),
		"method":  s.CheckpointFile("sple", 1, obs),
		"seed":    s.CheckpointFile("sppe", 2, obs),
		"release": s.CheckpointFile("sppe", 1, []float64{0.5, 2.0000001}),
		"layers":  other.CheckpointFile("sppe", 1, obs),
	}
	for what, f := range names {
		if (f == base) != (what == "same") {
			t.Errorf("%s: %q against %q", what, f, base)
		}
	}
	t.Setenv(cli.CheckpointsEnv, dir)
	if f := parse().CheckpointFile("sppe", 1, obs); f != base {
		t.Errorf("from $%s: %q, want %q", cli.CheckpointsEnv, f, base)
	}
}

// TestPaperConfig checks the SBI paper's preset (App. E): 10 rounds of
// 1000 simulations, M = 16, 10 atoms, an 8-layer flow of 10 bins with tail
// bound 3, batches of 100 and no regression shift.
func TestPaperConfig(t *testing.T) {
	c := PaperConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Rounds != 10 || c.SimsPerRound != 1000 || c.InnerPoints != 16 || c.Atoms != 10 || c.RegressionShift != sbi.ShiftOff {
		t.Errorf("PaperConfig() = %+v", c)
	}
	if c.Flow == nil || c.Flow.Layers != 8 || c.Flow.Bins != 10 || c.Flow.TailBound != 3 || c.Train == nil || c.Train.BatchSize != 100 {
		t.Errorf("PaperConfig() flow %+v, training %+v", c.Flow, c.Train)
	}
}

// TestTailBound checks -tail-bound: the flow package's bound by default,
// the given one in the flow and in -choose-affine's candidate, and a usage
// error for a bound that is not positive.
func TestTailBound(t *testing.T) {
	parse := func(args ...string) *Settings {
		t.Helper()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		s := Register(fs, def, nil)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if o := parse().Config(2, 10, 1); o.Flow.TailBound != flow.DefaultConfig(2, 10).TailBound {
		t.Errorf("default tail bound %v, want the flow package's %v", o.Flow.TailBound, flow.DefaultConfig(2, 10).TailBound)
	}
	s := parse("-tail-bound", "6", "-choose-affine")
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if o := s.Config(2, 10, 1); o.Flow.TailBound != 6 || o.FlowCandidates[0].TailBound != 6 {
		t.Errorf("-tail-bound 6: flow %v, candidate %v", o.Flow.TailBound, o.FlowCandidates[0].TailBound)
	}
	for _, v := range []string{"0", "-1"} {
		if err := parse("-tail-bound", v).Validate(); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("-tail-bound %s: got %v, want a usage error", v, err)
		}
	}
}
