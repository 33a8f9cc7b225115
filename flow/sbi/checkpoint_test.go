package sbi

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
)

// runMethod runs SPPE or SPLE and returns the common result.
func runMethod(ctx context.Context, name string, p privinfer.Problem, c Config) (*Result, error) {
	if name == "SPPE" {
		r, err := SPPE(ctx, p, c)
		if err != nil {
			return nil, err
		}
		return &r.Result, nil
	}
	r, err := SPLE(ctx, p, c)
	if err != nil {
		return nil, err
	}
	return &r.Result, nil
}

// sameRounds reports whether two runs' round records agree in everything
// but their times.
func sameRounds(a, b []RoundResult) bool {
	eq := func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(u, v float64) bool { return math.Float64bits(u) == math.Float64bits(v) })
	}
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Round != y.Round || x.Simulations != y.Simulations || x.Epochs != y.Epochs || x.BestEpoch != y.BestEpoch ||
			!eq(x.TrainLoss, y.TrainLoss) || !eq(x.ValidationLoss, y.ValidationLoss) || !eq(x.Candidates, y.Candidates) ||
			x.Selected != y.Selected || math.Float64bits(x.InSupport) != math.Float64bits(y.InSupport) ||
			!eq(x.RHat, y.RHat) || math.Float64bits(x.ESS) != math.Float64bits(y.ESS) || x.Thin != y.Thin ||
			math.Float64bits(x.AcceptRate) != math.Float64bits(y.AcceptRate) || x.ChainGroups != y.ChainGroups {
			return false
		}
	}
	return true
}

// onRoundCall is what a test keeps of one OnRound call: the round, the
// draws and their chains, and the estimate's log density at a fixed θ.
type onRoundCall struct {
	round  int
	theta  []float64
	chains int
	logq   float64
}

func sameCalls(a, b []onRoundCall) bool {
	return slices.EqualFunc(a, b, func(x, y onRoundCall) bool {
		return x.round == y.round && slices.Equal(x.theta, y.theta) && x.chains == y.chains &&
			math.Float64bits(x.logq) == math.Float64bits(y.logq)
	})
}

// recorder returns an OnRound that appends to calls and runs then(round).
func recorder(calls *[]onRoundCall, then func(int)) func(int, Estimate, *privinfer.Draws) {
	return func(round int, est Estimate, d *privinfer.Draws) {
		lq := est.LogDensity([]float64{0.3})
		*calls = append(*calls, onRoundCall{round, slices.Clone(d.Theta), d.Chains, lq})
		if then != nil {
			then(round)
		}
	}
}

// TestCheckpointResume stops SPPE and SPLE runs of three rounds after round
// 1 or 2, and an SPLE run of four rounds with Config.CarryChains after
// round 1 or 3 (OnRound cancels the context), and continues them from their
// checkpoints: the draws and the round records equal those of the run that
// never stopped, bit for bit; OnRound sees the same calls (the saved
// rounds replayed with their estimates and draws, then the rest); and the
// file is gone afterwards. Resuming after round 1 restores SPPE's
// regression shift and the z-scoring fitted in round 1; SPLE with
// CarryChains, resumed after round 3, continues its chains from the
// checkpoint's draws.
func TestCheckpointResume(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := testProblem()
	for _, name := range []string{"SPPE", "SPLE", "SPLE carrying chains"} {
		cfg := quickConfig()
		cfg.Rounds = 3
		stops := []int{1, 2}
		if name == "SPLE carrying chains" {
			// The chains are carried from round 3's proposals on.
			cfg.Rounds, cfg.CarryChains, stops = 4, true, []int{1, 3}
		}
		var wantCalls []onRoundCall
		c := cfg
		c.OnRound = recorder(&wantCalls, nil)
		want, err := runMethod(context.Background(), name, p, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, stop := range stops {
			path := filepath.Join(t.TempDir(), "run.ckpt")
			c := cfg
			c.Checkpoint = path
			ctx, cancel := context.WithCancel(context.Background())
			var first []onRoundCall
			c.OnRound = recorder(&first, func(round int) {
				if round == stop {
					cancel()
				}
			})
			if _, err := runMethod(ctx, name, p, c); !errors.Is(err, context.Canceled) {
				t.Fatalf("%s stopped after round %d: err = %v, want context.Canceled", name, stop, err)
			}
			cancel()
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("%s stopped after round %d left no checkpoint: %v", name, stop, err)
			}
			var calls []onRoundCall
			c.OnRound = recorder(&calls, nil)
			got, err := runMethod(context.Background(), name, p, c)
			if err != nil {
				t.Fatalf("%s resumed after round %d: %v", name, stop, err)
			}
			if !slices.Equal(got.Draws.Theta, want.Draws.Theta) {
				t.Errorf("%s resumed after round %d: the draws differ from the uninterrupted run's", name, stop)
			}
			if !sameRounds(got.Rounds, want.Rounds) || got.Simulations != want.Simulations {
				t.Errorf("%s resumed after round %d: the round records differ from the uninterrupted run's", name, stop)
			}
			if !sameCalls(first, wantCalls[:stop]) || !sameCalls(calls, wantCalls) {
				t.Errorf("%s resumed after round %d: OnRound's calls differ from the uninterrupted run's", name, stop)
			}
			if got.TrainTime <= 0 || got.Elapsed < got.TrainTime {
				t.Errorf("%s resumed after round %d: train time %v, elapsed %v", name, stop, got.TrainTime, got.Elapsed)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s resumed after round %d: checkpoint still there (%v)", name, stop, err)
			}
		}
	}
}

// stoppedCheckpoint runs SPPE with cfg until round 1 ends and returns the
// checkpoint's path.
func stoppedCheckpoint(t *testing.T, p privinfer.Problem, cfg Config) string {
	t.Helper()
	cfg.Checkpoint = filepath.Join(t.TempDir(), "run.ckpt")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.OnRound = func(int, Estimate, *privinfer.Draws) { cancel() }
	if _, err := SPPE(ctx, p, cfg); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	return cfg.Checkpoint
}

// TestCheckpointRefused checks that a checkpoint is used only by the run
// that wrote it (another seed, flow, release or method is refused with
// ErrCheckpointMismatch and leaves the file alone), that damaged files give
// ErrCorrupt, that a path in a missing folder is refused before the run
// starts, and that a one-round run writes nothing.
func TestCheckpointRefused(t *testing.T) {
	p := testProblem()
	cfg := quickConfig()
	cfg.Rounds = 2
	path := stoppedCheckpoint(t, p, cfg)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other := map[string]func(*Config, *privinfer.Problem){
		"seed":    func(c *Config, _ *privinfer.Problem) { c.Seed++ },
		"atoms":   func(c *Config, _ *privinfer.Problem) { c.Atoms++ },
		"release": func(_ *Config, q *privinfer.Problem) { q.Observed = []float64{q.Observed[0] + 1e-9} },
		"flow": func(c *Config, _ *privinfer.Problem) {
			f := *c.Flow
			f.Hidden++
			c.Flow = &f
		},
		"carry": func(c *Config, _ *privinfer.Problem) { c.CarryChains = true },
		"epochs": func(c *Config, _ *privinfer.Problem) {
			tc := *c.Train
			tc.MaxEpochs++
			c.Train = &tc
		},
	}
	for name, change := range other {
		c, q := cfg, p
		c.Checkpoint = path
		change(&c, &q)
		if _, err := SPPE(context.Background(), q, c); !errors.Is(err, ErrCheckpointMismatch) || !errors.Is(err, ErrInvalid) {
			t.Errorf("other %s: err = %v, want ErrCheckpointMismatch", name, err)
		}
	}
	c := cfg
	c.Checkpoint = path
	if _, err := SPLE(context.Background(), p, c); !errors.Is(err, ErrCheckpointMismatch) {
		t.Errorf("SPLE on SPPE's checkpoint: err = %v, want ErrCheckpointMismatch", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("a refused run changed the checkpoint")
	}
	flip := slices.Clone(orig)
	flip[len(flip)/2] ^= 1
	for name, b := range map[string][]byte{
		"flipped bit": flip, "truncated": orig[:len(orig)-9], "empty": nil, "other file": []byte("PRIVFLOW and more bytes than a header has"),
	} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := SPPE(context.Background(), p, c); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
	c.Checkpoint = filepath.Join(t.TempDir(), "missing", "run.ckpt")
	if _, err := SPPE(context.Background(), p, c); !errors.Is(err, ErrInvalid) {
		t.Errorf("a checkpoint in a missing folder: err = %v, want ErrInvalid", err)
	}
	one := quickConfig()
	one.Checkpoint = filepath.Join(t.TempDir(), "one.ckpt")
	if _, err := SPPE(context.Background(), p, one); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(one.Checkpoint); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a one-round run left a checkpoint (%v)", err)
	}
}

// wrapState frames a gob-encoded state as a checkpoint file of
// fingerprint fp with a correct checksum.
func wrapState(fp [32]byte, state []byte) []byte {
	return testutil.CheckpointFrame(ckptMagic, ckptVersion, fp, state)
}

// FuzzCheckpointState feeds arbitrary states, framed as valid checkpoint
// files of the run's fingerprint, to the decoder and to resume: they must
// be refused with an error wrapping ErrCorrupt, or accepted with every
// size consistent, and never panic. The seed is a valid state; testdata/fuzz
// holds states with a field tampered with (a negative elapsed time, a log
// prior density that is not the prior's).
func FuzzCheckpointState(f *testing.F) {
	p := testProblem()
	cfg := quickConfig()
	cfg.Rounds = 2
	newEng := func() *engine {
		c := cfg
		e, err := newEngine(p, &c, PosteriorFlow)
		if err != nil {
			f.Fatal(err)
		}
		return e
	}
	e := newEng()
	fp, err := e.fingerprint()
	if err != nil {
		f.Fatal(err)
	}
	th, err := e.priorDraws(e.cfg.SimsPerRound, 1)
	if err != nil {
		f.Fatal(err)
	}
	if err := e.simulate(context.Background(), 1, th); err != nil {
		f.Fatal(err)
	}
	if err := e.standardize(); err != nil {
		f.Fatal(err)
	}
	var fb bytes.Buffer
	if err := e.f.Save(&fb); err != nil {
		f.Fatal(err)
	}
	n := e.ds.n()
	st := ckptState{Round: 1, Theta: e.ds.theta, Stat: e.ds.stat, LogPrior: e.ds.logPrior, Train: e.ds.train,
		Val: e.ds.val, Flow: fb.Bytes(), HasShift: true, ShiftA: e.shift.a, ShiftB: e.shift.b, Next: th,
		History: []roundState{{Params: e.f.Params()}}, Rounds: []RoundResult{{Round: 1, Simulations: n, Epochs: 1, BestEpoch: 1,
			TrainLoss: []float64{1}, ValidationLoss: []float64{1}, InSupport: 1, Diagnostics: Diagnostics{ESS: math.NaN(), AcceptRate: math.NaN()}}}}
	var g bytes.Buffer
	if err := gob.NewEncoder(&g).Encode(&st); err != nil {
		f.Fatal(err)
	}
	f.Add(g.Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, state []byte) {
		got, err := decodeCheckpoint("ckpt", wrapState(fp, state), fp)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decode: %v does not wrap ErrCorrupt", err)
			}
			return
		}
		e := newEng()
		next, res, err := e.resume(got)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("resume: %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if len(next) != e.cfg.SimsPerRound*e.ds.d || len(res.Rounds) != got.Round || e.ds.n()*e.ds.d != len(e.ds.theta) {
			t.Fatalf("accepted an inconsistent state: %d next values, %d rounds after round %d", len(next), len(res.Rounds), got.Round)
		}
	})
}
