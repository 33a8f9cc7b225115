package testenv

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Trials describes a crash-safety test: a piece of work that keeps
// checkpoints, run as a subprocess (the test binary re-executed as a
// worker), killed with SIGKILL after random delays and then resumed.
type Trials struct {
	// Trials is the number of kill-and-resume trials.
	Trials int
	// Seed seeds the kill delays: trial i waits a uniform fraction of
	// the uninterrupted run's wall time drawn from PCG(Seed, i).
	Seed uint64
	// Worker returns a command that runs the work to completion in state
	// folder dir, continuing from the checkpoints it finds there (see
	// WorkerCommand).
	Worker func(dir string) *exec.Cmd
	// Result reads the finished work's result from dir.
	Result func(dir string) ([]byte, error)
	// AfterKill inspects dir after every kill: it reports an error for a
	// partial or unreadable file (temporary files of atomic writes are
	// allowed) and returns a short label of the state found (such as
	// "before the first checkpoint", "after round 2"), which the test
	// tallies.
	AfterKill func(dir string) (string, error)
	// AfterResume inspects dir after a resumed run finished, e.g. that no
	// checkpoint or temporary file is left; nil for none.
	AfterResume func(dir string) error
}

// Report is what RunTrials measured.
type Report struct {
	Resumes, Identical int
	// States counts the AfterKill labels.
	States map[string]int
}

// RunTrials runs the work once uninterrupted, then Trials times
// killed at a random point and resumed, each trial in a fresh folder, and
// fails t when a kill leaves a bad file or a resumed run's result differs
// from the uninterrupted one by a single bit.
func RunTrials(t *testing.T, k Trials) Report {
	t.Helper()
	if !killSupported {
		t.Skip("needs SIGKILL and process groups (unix)")
	}
	ref := t.TempDir()
	start := time.Now()
	if out, err := k.Worker(ref).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	wall := time.Since(start)
	want, err := k.Result(ref)
	if err != nil {
		t.Fatalf("uninterrupted run's result: %v", err)
	}
	rep := Report{States: map[string]int{}}
	for i := 0; i < k.Trials; i++ {
		dir := t.TempDir()
		delay := time.Duration(rand.New(rand.NewPCG(k.Seed, uint64(i))).Float64() * float64(wall))
		cmd := k.Worker(dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		setGroup(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(delay, func() { killGroup(cmd) })
		err := cmd.Wait()
		timer.Stop()
		killGroup(cmd) // the worker's own children, if it finished first
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("trial %d: %v", i, err)
		}
		state, err := k.AfterKill(dir)
		if err != nil {
			t.Errorf("trial %d (killed after %v): %v", i, delay, err)
		}
		rep.States[state]++
		if o, err := k.Worker(dir).CombinedOutput(); err != nil {
			t.Errorf("trial %d: resumed run after a kill at %v (%s): %v\n%s", i, delay, state, err, o)
			continue
		}
		rep.Resumes++
		got, err := k.Result(dir)
		switch {
		case err != nil:
			t.Errorf("trial %d: resumed run's result: %v", i, err)
		case !bytes.Equal(got, want):
			t.Errorf("trial %d: killed after %v (%s), the resumed run's result differs from the uninterrupted run's", i, delay, state)
		default:
			rep.Identical++
		}
		if k.AfterResume != nil {
			if err := k.AfterResume(dir); err != nil {
				t.Errorf("trial %d: after the resumed run: %v", i, err)
			}
		}
	}
	t.Logf("%d trials (uninterrupted run %v): %d resumes, %d identical results; states at the kills: %v",
		k.Trials, wall.Round(time.Millisecond), rep.Resumes, rep.Identical, rep.States)
	return rep
}

// TrialCount is 20 with PRIVINFER_LONG set and 3 otherwise.
func TrialCount() int {
	if os.Getenv(longEnv) != "" {
		return 20
	}
	return 3
}

// WorkerCommand returns a command that re-executes the test binary running
// only the test named test, with env (KEY=value entries) added to the
// environment; the test acts as the worker when it finds its variable set.
func WorkerCommand(test string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}
