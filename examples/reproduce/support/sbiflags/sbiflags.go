// Package sbiflags registers the SPPE/SPLE settings that the SBI examples
// (linreg, sir) share as command-line flags, validates them and turns them
// into an sbi.Config.
package sbiflags

import (
	"flag"
	"math"
	"strconv"
	"strings"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
)

// Settings are the SPPE/SPLE settings of one run.
type Settings struct {
	// EpsList and MethodList are the -eps and -methods flags (comma
	// separated); Parse reads them into Eps and Methods.
	EpsList, MethodList     string
	Eps                     []float64
	Methods                 []string
	quick                   map[string]string
	ckpt                    *string // the -checkpoints flag's value
	Rounds, Sims, M, Atoms  int
	Layers, Hidden, Blocks  int
	Gating                  bool
	Epochs, Patience, Batch int
	LR                      float64
	MC                      bool // plain Monte Carlo inner points instead of RQMC
	Shift                   bool // SPPE's regression shift (off unless -shift: the paper's z-scoring)
	NPost                   int  // posterior draws
	Float32                 bool // training steps with float32 products (flow.TrainConfig.Float32)
	Affine                  bool // the flows' context-dependent affine layer (flow.Config.ContextAffine)
	// TailBound is the splines' interval [−TailBound, TailBound]
	// (flow.Config.TailBound); 0 in Register's defaults means the flow
	// package's.
	TailBound    float64
	ChooseAffine bool // train the flows with and without it and keep the lower validation loss
	// Checkpoints is the -checkpoints folder (cli.Checkpoints): every run
	// keeps its state there after each round; empty keeps none.
	Checkpoints string
}

// Register registers the flags on fs with the defaults def and returns the
// settings the flags fill when fs is parsed. quick holds the -quick
// defaults of some flags (by flag name), shown in their usage; the caller
// applies them with cli.QuickDefaults.
func Register(fs *flag.FlagSet, def Settings, quick map[string]string) *Settings {
	s := def
	s.quick = quick
	u := func(name, usage string) string {
		if v, ok := quick[name]; ok {
			return usage + " (-quick: " + v + ")"
		}
		return usage
	}
	fs.StringVar(&s.EpsList, "eps", def.EpsList, u("eps", "privacy budgets of the paper's releases, comma separated (10, 1, 0.1)"))
	fs.StringVar(&s.MethodList, "methods", def.MethodList, "methods, comma separated (sppe, sple)")
	fs.IntVar(&s.Rounds, "rounds", def.Rounds, u("rounds", "rounds R"))
	fs.IntVar(&s.Sims, "sims", def.Sims, u("sims", "simulations per round N"))
	fs.IntVar(&s.M, "M", def.M, u("M", "inner points per simulation"))
	fs.IntVar(&s.Atoms, "atoms", def.Atoms, u("atoms", "SPPE atoms"))
	fs.IntVar(&s.Layers, "layers", def.Layers, u("layers", "flow layers"))
	fs.IntVar(&s.Hidden, "hidden", def.Hidden, u("hidden", "hidden units per residual block"))
	fs.IntVar(&s.Blocks, "blocks", def.Blocks, u("blocks", "residual blocks per conditioner"))
	fs.BoolVar(&s.Gating, "gating", def.Gating, "context gating in every block")
	fs.IntVar(&s.Epochs, "epochs", def.Epochs, u("epochs", "maximum epochs per round"))
	fs.IntVar(&s.Patience, "patience", def.Patience, u("patience", "early-stopping patience"))
	fs.IntVar(&s.Batch, "batch", def.Batch, u("batch", "batch size"))
	fs.Float64Var(&s.LR, "lr", def.LR, u("lr", "learning rate"))
	fs.BoolVar(&s.MC, "mc", def.MC, "plain Monte Carlo inner points instead of RQMC")
	fs.BoolVar(&s.Shift, "shift", def.Shift, "SPPE: model θ's residual from its linear regression on the release (sbi.ShiftOn; without -shift sbi.ShiftOff, the SBI paper's plain z-scoring; sbi.Config.RegressionShift)")
	fs.IntVar(&s.NPost, "n", def.NPost, u("n", "posterior draws"))
	fs.BoolVar(&s.Affine, "affine", def.Affine, "give the flows a context-dependent affine layer before the first coupling (flow.Config.ContextAffine)")
	if s.TailBound == 0 {
		s.TailBound = defaultTailBound
	}
	fs.Float64Var(&s.TailBound, "tail-bound", s.TailBound, "the flows' splines act on [-B, B] of the standardised variables and are the identity outside (flow.Config.TailBound)")
	fs.BoolVar(&s.ChooseAffine, "choose-affine", def.ChooseAffine, "train the flows with and without the context-dependent affine layer in round 1 and keep the one of lower validation loss (sbi.Config.FlowCandidates)")
	fs.BoolVar(&s.Float32, "float32", def.Float32, "train with float32 products and splines in the flows' training steps (flow.TrainConfig.Float32; faster on machines with AVX2 or AVX-512)")
	s.ckpt = cli.Checkpoints(fs)
	return &s
}

// Parse parses args into fs (see cli.Parse), applies the -quick defaults
// given to Register when common.Quick is set, reads -eps (each budget
// accepted by release, which returns an error for a budget the paper has no
// release for) and -methods, and validates the settings.
func (s *Settings) Parse(fs *flag.FlagSet, args []string, common *cli.Common, release func(eps float64) error) error {
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if err := cli.QuickDefaults(fs, common.Quick, s.quick); err != nil {
		return err
	}
	if s.ckpt != nil {
		s.Checkpoints = *s.ckpt
	}
	if err := cli.PrepareCheckpoints(s.Checkpoints); err != nil {
		return err
	}
	s.Eps, s.Methods = nil, nil
	for _, f := range strings.Split(s.EpsList, ",") {
		e, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(e > 0) || math.IsInf(e, 0) {
			return cli.Usagef("-eps: %q is not a positive number", f)
		}
		if release(e) != nil {
			return cli.Usagef("-eps: the paper has releases for ε = 10, 1 and 0.1 only, got %v", e)
		}
		s.Eps = append(s.Eps, e)
	}
	for _, m := range strings.Split(s.MethodList, ",") {
		if m = strings.TrimSpace(m); m != "sppe" && m != "sple" {
			return cli.Usagef("-methods: unknown method %q (want sppe, sple)", m)
		}
		s.Methods = append(s.Methods, m)
	}
	return s.Validate()
}

// Validate returns a usage error naming the first flag out of range.
func (s *Settings) Validate() error {
	for _, f := range []struct {
		name   string
		v, min int
	}{{"rounds", s.Rounds, 1}, {"sims", s.Sims, 2}, {"M", s.M, 1}, {"atoms", s.Atoms, 2}, {"layers", s.Layers, 1},
		{"hidden", s.Hidden, 1}, {"blocks", s.Blocks, 0}, {"epochs", s.Epochs, 1}, {"patience", s.Patience, 1}, {"batch", s.Batch, 1}, {"n", s.NPost, 10}} {
		if err := cli.AtLeast(f.name, f.v, f.min); err != nil {
			return err
		}
	}
	if s.Affine && s.ChooseAffine {
		return cli.Usagef("-affine and -choose-affine exclude each other (-choose-affine tries the layer itself)")
	}
	if err := cli.Positive("tail-bound", s.TailBound); err != nil {
		return err
	}
	return cli.Positive("lr", s.LR)
}

// defaultTailBound is the flow package's tail bound (flow.DefaultConfig),
// the SBI paper's.
var defaultTailBound = flow.DefaultConfig(1, 0).TailBound

// KeySuffix returns the settings that change a run's results beyond the
// numeric ones (the regression shift, float32 products, the affine layer
// and the choice of it, a tail bound other than the default), for the
// keys of saved results: empty with none of them, so that keys written
// before these options existed still match.
func (s *Settings) KeySuffix() string {
	var b strings.Builder
	if s.TailBound != defaultTailBound {
		b.WriteString(" tail-bound=" + strconv.FormatFloat(s.TailBound, 'g', -1, 64))
	}
	for _, o := range []struct {
		on   bool
		name string
	}{{s.Shift, "shift"}, {s.Float32, "float32"}, {s.Affine, "affine"}, {s.ChooseAffine, "choose-affine"}} {
		if o.on {
			b.WriteString(" " + o.name)
		}
	}
	return b.String()
}

// Integration returns sbi.MC with -mc, sbi.RQMC otherwise.
func (s *Settings) Integration() sbi.Integration {
	if s.MC {
		return sbi.MC
	}
	return sbi.RQMC
}

// CheckpointFile returns the checkpoint of the run of method with the
// given seed on the release observed under these settings (empty without
// -checkpoints): the file for sbi.Config.Checkpoint.
func (s *Settings) CheckpointFile(method string, seed uint64, observed []float64) string {
	key := *s
	key.Checkpoints, key.ckpt = "", nil
	return cli.CheckpointFile(s.Checkpoints, method, key, seed, observed)
}

// Config returns the sbi configuration for a problem with parameter
// dimension dim and release dimension ctxDim.
func (s *Settings) Config(dim, ctxDim int, seed uint64) sbi.Config {
	fc := flow.DefaultConfig(dim, ctxDim)
	fc.Layers, fc.Hidden, fc.Blocks, fc.ContextGating = s.Layers, s.Hidden, s.Blocks, s.Gating
	fc.ContextAffine = s.Affine
	fc.TailBound = s.TailBound
	tc := flow.DefaultTrainConfig()
	tc.MaxEpochs, tc.Patience, tc.BatchSize, tc.LearningRate = s.Epochs, s.Patience, s.Batch, s.LR
	tc.Float32 = s.Float32
	var cand []flow.Config
	if s.ChooseAffine {
		alt := fc
		alt.ContextAffine = true
		cand = []flow.Config{alt}
	}
	cfg := sbi.Config{Rounds: s.Rounds, SimsPerRound: s.Sims, InnerPoints: s.M, Atoms: s.Atoms, Integration: s.Integration(),
		Flow: &fc, FlowCandidates: cand, Train: &tc, PosteriorSamples: s.NPost, Seed: seed, RegressionShift: sbi.ShiftOff}
	if s.Shift {
		cfg.RegressionShift = sbi.ShiftOn
	}
	return cfg
}

// PaperConfig returns the SBI paper's SPPE/SPLE settings (App. E, as its
// published code runs them): 10 rounds of 1000 simulations, M = 16 RQMC
// inner points, 10 atoms, flow.DefaultConfig (8 coupling layers, 10 bins,
// tail bound 3, two residual blocks of 50 units, LU layers, context
// gating, z-scoring), flow.DefaultTrainConfig (batches of 100) and no
// regression shift (the paper z-scores θ by the prior draws). SPPE and
// SPLE set the flow's dimensions from the problem. It is a preset of the
// paper's reproduction, not a library default (sbi.Config's zero values
// are those).
func PaperConfig() sbi.Config {
	fc := flow.DefaultConfig(1, 1)
	tc := flow.DefaultTrainConfig()
	return sbi.Config{Rounds: 10, SimsPerRound: 1000, InnerPoints: 16, Atoms: 10, Flow: &fc, Train: &tc, RegressionShift: sbi.ShiftOff}
}
