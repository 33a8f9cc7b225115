package sbi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
	"github.com/privinfer/privinfer/internal/testutil"
)

// killWorkerEnv, when set to a folder, makes TestKillWorker run the
// crash-safety test's work there instead of skipping.
const killWorkerEnv = "PRIVINFER_SBI_KILL_WORKER"

// killConfig is the crash-safety test's run: four small rounds of SPPE on
// the test problem, checkpointing after each.
func killConfig(dir string) Config {
	cfg := quickConfig()
	cfg.Rounds, cfg.SimsPerRound = 4, 200
	cfg.Checkpoint = filepath.Join(dir, "run.ckpt")
	return cfg
}

// resultText writes what must not change when a run is killed and resumed:
// every draw and every round record but the wall times, as bit patterns.
func resultText(w io.Writer, r *SPPEResult) {
	fmt.Fprintf(w, "draws %d chains %d\n", len(r.Draws.Theta), r.Draws.Chains)
	for _, v := range r.Draws.Theta {
		fmt.Fprintf(w, "%x\n", math.Float64bits(v))
	}
	for _, rr := range r.Rounds {
		fmt.Fprintf(w, "round %d sims %d epochs %d best %d in %x\n", rr.Round, rr.Simulations, rr.Epochs, rr.BestEpoch, math.Float64bits(rr.InSupport))
		for _, v := range append(rr.TrainLoss, rr.ValidationLoss...) {
			fmt.Fprintf(w, "%x ", math.Float64bits(v))
		}
		fmt.Fprintln(w)
	}
}

// TestKillWorker is the work of TestKillResume, run in a subprocess; it
// skips unless killWorkerEnv is set.
func TestKillWorker(t *testing.T) {
	dir := os.Getenv(killWorkerEnv)
	if dir == "" {
		t.Skip("the worker of TestKillResume")
	}
	res, err := SPPE(context.Background(), testProblem(), killConfig(dir))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteResult(t, dir, func(w io.Writer) { resultText(w, res) })
}

// TestKillResume kills an SPPE run of four rounds (a subprocess) with
// SIGKILL at random points, 3 times (20 with PRIVINFER_LONG=1), and runs
// it again: every resumed run gives the uninterrupted run's draws and
// round records bit for bit. After every kill the folder holds no partial
// file: the checkpoint, when present, loads (the run's fingerprint, a
// valid state for its round), and only atomic writes' temporary files may
// be left, which the resumed run removes with its checkpoint.
func TestKillResume(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("subprocess runs; not under -race or -short")
	}
	var fp [32]byte
	{
		cfg := killConfig(t.TempDir())
		e, err := newEngine(testProblem(), &cfg, PosteriorFlow)
		if err != nil {
			t.Fatal(err)
		}
		if fp, err = e.fingerprint(); err != nil {
			t.Fatal(err)
		}
	}
	rep := testenv.RunTrials(t, testenv.Trials{
		Trials: testenv.TrialCount(),
		Seed:   20261207,
		Worker: func(dir string) *exec.Cmd { return testenv.WorkerCommand("TestKillWorker", killWorkerEnv+"="+dir) },
		Result: func(dir string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, "result")) },
		AfterKill: func(dir string) (string, error) {
			return testutil.KilledRunState(dir, "run.ckpt", "draws ", func(path string) (string, error) {
				b, err := os.ReadFile(path)
				if err != nil {
					return "", err
				}
				st, err := decodeCheckpoint("ckpt", b, fp)
				if err != nil {
					return "", fmt.Errorf("checkpoint left by the kill: %w", err)
				}
				cfg := killConfig(dir)
				eng, err := newEngine(testProblem(), &cfg, PosteriorFlow)
				if err != nil {
					return "", err
				}
				if _, _, err := eng.resume(st); err != nil {
					return "", fmt.Errorf("checkpoint left by the kill: %w", err)
				}
				return fmt.Sprintf("after round %d", st.Round), nil
			})
		},
		AfterResume: func(dir string) error {
			if err := testutil.OnlyResultLeft(dir); err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(dir, "run.ckpt")); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("checkpoint left after the run (%v)", err)
			}
			return nil
		},
	})
	if rep.Identical != rep.Resumes || rep.Resumes != testenv.TrialCount() {
		t.Errorf("%d resumes, %d identical", rep.Resumes, rep.Identical)
	}
}
