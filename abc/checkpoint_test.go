package abc

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
	"github.com/privinfer/privinfer/internal/testutil"
)

// ckptConfig is the checkpoint tests' SMC-ABC run: 200 particles, an
// adaptive schedule of six rounds (whose tolerances depend on the
// previous round, so a resumed run must restore it exactly).
func ckptConfig(path string) SMCConfig {
	return SMCConfig{Distance: Euclidean{}, Particles: 200, Schedule: Adaptive{Initial: 3, Quantile: 0.5, Rounds: 6, Min: 0.01},
		Seed: 9, Checkpoint: path}
}

// smcText writes what must not change when a run is stopped and resumed:
// every round's particles, weights, distances, tolerance and counts as bit
// patterns (not the wall times), the total simulations and the stop
// reason.
func smcText(w io.Writer, r *SMCResult) {
	bits := func(v []float64) {
		for _, x := range v {
			fmt.Fprintf(w, "%x ", math.Float64bits(x))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "rounds %d simulations %d stop %v\n", len(r.Rounds), r.Simulations, r.Stop)
	for _, p := range r.Rounds {
		fmt.Fprintf(w, "round %d ε %x sims %d props %d spec %d acc %x ess %x resampled %v\n", p.Round, math.Float64bits(p.Tolerance),
			p.Simulations, p.Proposals, p.Speculative, math.Float64bits(p.Acceptance), math.Float64bits(p.ESS), p.Resampled)
		bits(p.Draws.Theta)
		bits(p.Draws.Weights)
		bits(p.Distance)
	}
}

func smcString(r *SMCResult) string {
	var b strings.Builder
	smcText(&b, r)
	return b.String()
}

// stoppedSMC runs SMC-ABC with a checkpoint at path and cancels it after
// round `after` (0-based) completes.
func stoppedSMC(t *testing.T, p privinfer.Problem, cfg SMCConfig, after int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Progress = func(e privinfer.Progress) {
		if e.Round == after+1 {
			cancel()
		}
	}
	if _, err := SMC(ctx, p, cfg); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestSMCCheckpointResume stops SMC-ABC runs after round 1, 2 or 4 of six
// and continues them from their checkpoints: the result equals the
// uninterrupted run's bit for bit (particles, weights, distances,
// tolerances, counts), and the checkpoint is gone afterwards.
func TestSMCCheckpointResume(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	want, err := SMC(context.Background(), p, ckptConfig(""))
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Rounds) != 6 {
		t.Fatalf("the uninterrupted run has %d rounds, want 6", len(want.Rounds))
	}
	for _, after := range []int{0, 1, 3} {
		path := filepath.Join(t.TempDir(), "smc.ckpt")
		cfg := ckptConfig(path)
		stoppedSMC(t, p, cfg, after)
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("stopped after round %d: no checkpoint (%v)", after, err)
		}
		got, err := SMC(context.Background(), p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if smcString(got) != smcString(want) {
			t.Errorf("resumed after round %d: the result differs from the uninterrupted run's", after)
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("resumed after round %d: checkpoint left (%v)", after, err)
		}
	}
}

// TestSMCCheckpointRefused checks that a checkpoint is refused by a run
// with another seed, particle count, schedule, distance, perturbation or
// observation (ErrCheckpointMismatch) and that a damaged file is refused
// with ErrCorrupt, both wrapping ErrInvalid, leaving the file untouched.
func TestSMCCheckpointRefused(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "smc.ckpt")
	cfg := ckptConfig(path)
	stoppedSMC(t, p, cfg, 1)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other := map[string]func(*SMCConfig, *privinfer.Problem){
		"seed":      func(c *SMCConfig, _ *privinfer.Problem) { c.Seed++ },
		"particles": func(c *SMCConfig, _ *privinfer.Problem) { c.Particles++ },
		"schedule": func(c *SMCConfig, _ *privinfer.Problem) {
			c.Schedule = Adaptive{Initial: 3, Quantile: 0.4, Rounds: 6, Min: 0.01}
		},
		"distance":     func(c *SMCConfig, _ *privinfer.Problem) { c.Distance = L1{} },
		"perturbation": func(c *SMCConfig, _ *privinfer.Problem) { c.Perturbation = PerturbOLCM },
		"budget":       func(c *SMCConfig, _ *privinfer.Problem) { c.MaxSimulations = 1 << 20 },
		"batch":        func(c *SMCConfig, _ *privinfer.Problem) { c.MinBatch = 32 },
		"release":      func(_ *SMCConfig, q *privinfer.Problem) { q.Observed = []float64{q.Observed[0] + 1e-9} },
	}
	for name, change := range other {
		c, q := cfg, p
		change(&c, &q)
		_, err := SMC(context.Background(), q, c)
		if !errors.Is(err, ErrCheckpointMismatch) || !errors.Is(err, ErrInvalid) {
			t.Errorf("other %s: err = %v, want ErrCheckpointMismatch", name, err)
		}
		if err != nil && strings.Count(err.Error(), "abc:") != 1 {
			t.Errorf("other %s: err = %q repeats the package prefix", name, err)
		}
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("a refused run changed the checkpoint")
	}
	flip := slices.Clone(orig)
	flip[len(flip)/2] ^= 1
	for name, b := range map[string][]byte{"flipped bit": flip, "truncated": orig[:len(orig)-9], "empty": {}, "other file": []byte("PRIVSBIC and more bytes than a header has")} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := SMC(context.Background(), p, cfg)
		if !errors.Is(err, ErrCorrupt) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
		if want := "abc: invalid argument: SMCConfig.Checkpoint " + strconv.Quote(path) + ": corrupt or unsupported checkpoint"; err != nil && !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %q, want it to begin %q (one prefix, the field and the file named)", name, err, want)
		}
	}
}

// wrapSMCState frames a gob-encoded state as a checkpoint file of
// fingerprint fp with a correct checksum.
func wrapSMCState(fp [32]byte, state []byte) []byte {
	return testutil.CheckpointFrame(smcMagic, smcVersion, fp, state)
}

// TestSMCCheckpointSemantic tampers with one field of a checkpoint saved
// after round 2 at a time, writing it again with a valid checksum and the
// run's fingerprint: every tampered file is refused with ErrCorrupt
// (wrapping ErrInvalid), and the untouched one resumes.
func TestSMCCheckpointSemantic(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "smc.ckpt")
	cfg := ckptConfig(path)
	stoppedSMC(t, p, cfg, 2)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fp [32]byte
	copy(fp[:], orig[len(smcMagic)+4:])
	nan, inf := math.NaN(), math.Inf(1)
	last := func(st *smcState) *smcRoundState { return &st.Rounds[len(st.Rounds)-1] }
	cases := []struct {
		name   string
		tamper func(st *smcState)
	}{
		{"no rounds", func(st *smcState) { st.Rounds = nil; st.Simulations = 0 }},
		{"elapsed negative", func(st *smcState) { st.Elapsed = -time.Second }},
		{"total simulations", func(st *smcState) { st.Simulations++ }},
		{"round renumbered", func(st *smcState) { st.Rounds[1].Round = 2 }},
		{"round missing", func(st *smcState) { st.Rounds = st.Rounds[1:] }},
		{"particle NaN", func(st *smcState) { last(st).Theta[0] = nan }},
		{"particle outside the support", func(st *smcState) { last(st).Theta[0] = 1e300 }},
		{"particle missing", func(st *smcState) { last(st).Theta = last(st).Theta[1:] }},
		{"weight negative", func(st *smcState) { last(st).Weights[0] = -last(st).Weights[0] }},
		{"weight NaN", func(st *smcState) { last(st).Weights[0] = nan }},
		{"weights not normalised", func(st *smcState) { last(st).Weights[0] += 0.5 }},
		{"weight missing", func(st *smcState) { last(st).Weights = last(st).Weights[1:] }},
		{"resampled with unequal weights", func(st *smcState) {
			r := last(st)
			r.Resampled = true
			r.Weights[0], r.Weights[1] = r.Weights[0]+1e-4, r.Weights[1]-1e-4
		}},
		{"distance above the tolerance", func(st *smcState) { last(st).Distance[0] = last(st).Tolerance * 1.01 }},
		{"distance negative", func(st *smcState) { last(st).Distance[0] = -1 }},
		{"distance Inf", func(st *smcState) { last(st).Distance[0] = inf }},
		{"tolerance 0", func(st *smcState) { last(st).Tolerance = 0 }},
		{"tolerance not the schedule's", func(st *smcState) { last(st).Tolerance *= 1.5 }},
		{"simulations below particles", func(st *smcState) { last(st).Simulations = 10 }},
		{"proposals below simulations", func(st *smcState) { last(st).Proposals = last(st).Simulations - 1 }},
		{"acceptance not N/simulations", func(st *smcState) { last(st).Acceptance *= 0.9 }},
		{"speculative negative", func(st *smcState) { last(st).Speculative = -1 }},
		{"speculative too many", func(st *smcState) { last(st).Speculative = last(st).Simulations }},
		{"ESS above N", func(st *smcState) { last(st).ESS = 201 }},
		{"ESS below 1", func(st *smcState) { last(st).ESS = 0.5 }},
		{"round wall time negative", func(st *smcState) { last(st).Elapsed = -1 }},
	}
	for _, c := range cases {
		st, err := decodeSMCCheckpoint(orig, fp)
		if err != nil {
			t.Fatal(err)
		}
		c.tamper(st)
		var g bytes.Buffer
		if err := gob.NewEncoder(&g).Encode(st); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, wrapSMCState(fp, g.Bytes()), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := SMC(context.Background(), p, cfg); !errors.Is(err, ErrCorrupt) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrCorrupt", c.name, err)
		}
	}
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := SMC(context.Background(), p, cfg); err != nil {
		t.Errorf("untouched checkpoint: %v", err)
	}
}

// FuzzSMCCheckpoint feeds arbitrary states, framed as checkpoint files of
// the run's fingerprint, to the loader: each is refused with an error
// wrapping ErrCorrupt, or accepted with every round consistent (the checks
// of checkSMCState hold again on what was loaded), and never panics. The
// seed corpus holds a valid state after round 1 and, in testdata/fuzz,
// tampered ones.
func FuzzSMCCheckpoint(f *testing.F) {
	p, err := privateNormalMean()
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "smc.ckpt")
	cfg := ckptConfig(path)
	cfg.Particles = 20
	{
		ctx, cancel := context.WithCancel(context.Background())
		c := cfg
		c.Progress = func(e privinfer.Progress) {
			if e.Round == 2 {
				cancel()
			}
		}
		if _, err := SMC(ctx, p, c); !errors.Is(err, context.Canceled) {
			f.Fatal(err)
		}
		cancel()
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(orig[len(smcMagic)+4+32+8 : len(orig)-4])
	f.Add([]byte{})
	tg, err := newTarget(&p, cfg.Distance, "SMCConfig.Distance", nil)
	if err != nil {
		f.Fatal(err)
	}
	fp := smcFingerprint(&p, &cfg, tg.dim, tg.statDim)
	f.Fuzz(func(t *testing.T, state []byte) {
		file := filepath.Join(t.TempDir(), "smc.ckpt")
		if err := os.WriteFile(file, wrapSMCState(fp, state), 0o644); err != nil {
			t.Fatal(err)
		}
		c := cfg
		rounds, sims, _, err := loadSMCCheckpoint(file, fp, tg, &c)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%v does not wrap ErrCorrupt", err)
			}
			return
		}
		var total int64
		for i, r := range rounds {
			if r.Round != i || r.N() != c.Particles || len(r.Distance) != c.Particles {
				t.Fatalf("accepted round %d of %d particles", r.Round, r.N())
			}
			total += r.Simulations
		}
		if total != sims {
			t.Fatalf("accepted %d simulations, the rounds ran %d", sims, total)
		}
	})
}

// smcKillWorkerEnv, when set to a folder, makes TestSMCKillWorker run the
// crash-safety test's work there instead of skipping.
const smcKillWorkerEnv = "PRIVINFER_SMC_KILL_WORKER"

// smcKillConfig is ckptConfig with 800 particles, so that most of the
// worker's time is spent in its rounds rather than in starting.
func smcKillConfig(path string) SMCConfig {
	c := ckptConfig(path)
	c.Particles = 800
	return c
}

// TestSMCKillWorker is the work of TestSMCKillResume, run in a subprocess.
func TestSMCKillWorker(t *testing.T) {
	dir := os.Getenv(smcKillWorkerEnv)
	if dir == "" {
		t.Skip("the worker of TestSMCKillResume")
	}
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	res, err := SMC(context.Background(), p, smcKillConfig(filepath.Join(dir, "smc.ckpt")))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteResult(t, dir, func(w io.Writer) { smcText(w, res) })
}

// TestSMCKillResume kills an SMC-ABC run of six rounds (a subprocess) with
// SIGKILL at random points, 3 times (20 with PRIVINFER_LONG=1), and runs
// it again: every resumed run gives the uninterrupted run's rounds bit for
// bit. After every kill the checkpoint, when present, loads and passes
// every check, and only atomic writes' temporary files may be left, which
// the resumed run removes with its checkpoint.
func TestSMCKillResume(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("subprocess runs; not under -race or -short")
	}
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	rep := testenv.RunTrials(t, testenv.Trials{
		Trials: testenv.TrialCount(),
		Seed:   20261209,
		Worker: func(dir string) *exec.Cmd {
			return testenv.WorkerCommand("TestSMCKillWorker", smcKillWorkerEnv+"="+dir)
		},
		Result: func(dir string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, "result")) },
		AfterKill: func(dir string) (string, error) {
			return testutil.KilledRunState(dir, "smc.ckpt", "rounds 6 ", func(path string) (string, error) {
				cfg := smcKillConfig(path)
				tg, err := newTarget(&p, cfg.Distance, "SMCConfig.Distance", nil)
				if err != nil {
					return "", err
				}
				rounds, _, _, err := loadSMCCheckpoint(cfg.Checkpoint, smcFingerprint(&p, &cfg, tg.dim, tg.statDim), tg, &cfg)
				if err != nil {
					return "", fmt.Errorf("checkpoint left by the kill: %w", err)
				}
				return fmt.Sprintf("after round %d", len(rounds)), nil
			})
		},
		AfterResume: testutil.OnlyResultLeft,
	})
	if rep.Identical != rep.Resumes || rep.Resumes != testenv.TrialCount() {
		t.Errorf("%d resumes, %d identical", rep.Resumes, rep.Identical)
	}
}
