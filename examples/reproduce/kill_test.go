package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// killDriverEnv, when set to a folder, makes TestKillDriver run the
// reproduction of killEntries there instead of skipping.
const killDriverEnv = "PRIVINFER_REPRODUCE_KILL_DRIVER"

// killEntries is the crash-safety test's reproduction: one example split
// into two parts, each a small SPPE run of four rounds that keeps a
// checkpoint after every round in its job's checkpoint folder.
var killEntries = []entry{{Name: "k", Pkg: fakePkg, Target: "Fig. k", Full: []string{"-name", "k", "-sppe"}, Quick: []string{"-name", "k", "-sppe"},
	Split: []part{{"x", []string{"-part", "x"}, "1 s", ""}, {"y", []string{"-part", "y"}, "1 s", ""}}}}

// normalSim is s = θ + N(0, 0.5²).
type normalSim struct{}

func (normalSim) StatDim() int { return 1 }

func (normalSim) Simulate(r *rand.Rand, theta, dst []float64) error {
	dst[0] = theta[0] + 0.5*r.NormFloat64()
	return nil
}

// sppeExample is the fake example of killEntries: SPPE on a normal model
// with Laplace noise, continuing from the checkpoint in $PRIVINFER_CHECKPOINTS,
// printing a hash of its draws' bits and one verdict.
func sppeExample(name, part string, seed uint64) int {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	mech, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.5, Epsilon: 1, Dim: 1})
	obs := 1.2
	if part == "y" {
		obs = -0.4
	}
	p := privinfer.Problem{Prior: prior, Simulator: normalSim{}, Mechanism: mech, Observed: []float64{obs}}
	fc := flow.DefaultConfig(1, 1)
	fc.Layers, fc.Hidden, fc.Blocks, fc.Bins, fc.ContextGating = 2, 16, 1, 8, false
	tc := flow.DefaultTrainConfig()
	tc.BatchSize, tc.MaxEpochs, tc.LearningRate, tc.ValidationFraction = 50, 4, 3e-3, 0.1
	cfg := sbi.Config{Rounds: 4, SimsPerRound: 200, InnerPoints: 8, Atoms: 5, Flow: &fc, Train: &tc,
		Chains: 4, Warmup: 100, Thin: 2, PosteriorSamples: 200, Seed: seed,
		Checkpoint: cli.CheckpointFile(os.Getenv(cli.CheckpointsEnv), "SPPE", name, part, seed)}
	res, err := sbi.SPPE(context.Background(), p, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	h := sha256.New()
	for _, v := range res.Draws.Theta {
		_ = binary.Write(h, binary.LittleEndian, math.Float64bits(v))
	}
	fmt.Printf("sppe %s part %s: %d draws, mean %.6f, bits %x\n", name, part, len(res.Draws.Theta), res.Draws.Mean()[0], h.Sum(nil))
	cli.PrintVerdict(os.Stdout, cli.Partial, "Fig. "+name, "fake")
	return 0
}

// TestKillDriver is the work of TestKillReproduce, run in a subprocess: the
// reproduction of killEntries with its cache in the folder of
// killDriverEnv. It skips unless that variable is set.
func TestKillDriver(t *testing.T) {
	dir := os.Getenv(killDriverEnv)
	if dir == "" {
		t.Skip("the worker of TestKillReproduce")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The examples it runs are this binary as a fake example.
	os.Setenv(fakeEnv, "1")
	os.Setenv(fakeLogEnv, filepath.Join(dir, "log"))
	cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-cache", filepath.Join(dir, "cache"), "-report", filepath.Join(dir, "R.md")})
	if err != nil {
		t.Fatal(err)
	}
	cfg.entries = killEntries
	cfg.build = func(context.Context, string, string, string) (string, error) { return exe, nil }
	if err := run(context.Background(), cfg, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
}

// killJobs returns the reproduction's jobs (the two parts) in dir's cache.
func killJobs(dir string) []result {
	cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-cache", filepath.Join(dir, "cache")})
	if err != nil {
		panic(err)
	}
	cfg.entries = killEntries
	var rs []result
	for _, j := range jobs(cfg) {
		rs = append(rs, result{job: j, Args: args(cfg, j)})
	}
	return rs
}

// TestKillReproduce kills a reproduction of two SPPE parts (the driver and
// the example it runs, a process group) with SIGKILL at random points, 3
// times (20 with PRIVINFER_LONG=1), and runs it again: the cached results
// of the resumed run equal those of an uninterrupted run (each part's
// draws, hashed bit for bit). After every kill the cache holds no partial
// file: every cache record that is present loads, every wall-time record
// reads, every SPPE checkpoint is a whole file of its format, and only
// atomic writes' temporary files may be left; after the resumed run no
// checkpoint folder or temporary file is left.
func TestKillReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess runs of SPPE; not under -short")
	}
	cachedStdout := func(dir string) ([]byte, error) {
		var out []string
		for _, r := range killJobs(dir) {
			c, err := readCached(filepath.Join(dir, "cache"), &r)
			if err != nil {
				return nil, err
			}
			out = append(out, r.Name+": "+c.Stdout)
		}
		return []byte(strings.Join(out, "")), nil
	}
	rep := testenv.RunTrials(t, testenv.Trials{
		Trials: testenv.TrialCount(),
		Seed:   20261208,
		Worker: func(dir string) *exec.Cmd { return testenv.WorkerCommand("TestKillDriver", killDriverEnv+"="+dir) },
		Result: cachedStdout,
		AfterKill: func(dir string) (string, error) {
			cache := filepath.Join(dir, "cache")
			finished, ckpts, temps := 0, 0, 0
			err := filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					if os.IsNotExist(err) && path == cache {
						return filepath.SkipDir
					}
					return err
				}
				if d.IsDir() {
					return nil
				}
				name := d.Name()
				switch {
				case cli.IsTemp(name):
					temps++
				case filepath.Dir(path) == cache && strings.HasSuffix(name, ".json"):
					var c cached
					b, err := os.ReadFile(path)
					if err != nil || json.Unmarshal(b, &c) != nil {
						return fmt.Errorf("cache record %s does not load: %v", name, err)
					}
					found := false
					for _, r := range killJobs(dir) {
						if cachePath(cache, &r) == path {
							if _, err := readCached(cache, &r); err != nil {
								return err
							}
							found = true
						}
					}
					if !found {
						return fmt.Errorf("cache record %s of no job", name)
					}
					finished++
				case name == wallFile:
					if _, err := earlierWall(filepath.Dir(path)); err != nil {
						return err
					}
				case strings.HasSuffix(name, ".ckpt"):
					if err := wholeCheckpoint(path); err != nil {
						return err
					}
					ckpts++
				case name == "marker":
				default:
					return fmt.Errorf("unexpected file %s", path)
				}
				return nil
			})
			state := fmt.Sprintf("%d parts cached, %d checkpoints", finished, ckpts)
			if temps > 0 {
				state += fmt.Sprintf(", %d temporary file(s)", temps)
			}
			return state, err
		},
		AfterResume: func(dir string) error {
			cache := filepath.Join(dir, "cache")
			if left, _ := filepath.Glob(filepath.Join(cache, checkpointsDir, "*")); len(left) != 0 {
				return fmt.Errorf("checkpoint folders left: %v", left)
			}
			es, _ := os.ReadDir(cache)
			for _, e := range es {
				if cli.IsTemp(e.Name()) {
					return fmt.Errorf("temporary file %s left", e.Name())
				}
			}
			return nil
		},
	})
	if rep.Identical != rep.Resumes || rep.Resumes != testenv.TrialCount() {
		t.Errorf("%d resumes, %d identical", rep.Resumes, rep.Identical)
	}
}

// wholeCheckpoint checks that path is a whole SPPE checkpoint file: its
// magic number, and its CRC-32 over everything before the last four bytes
// (the format of sbi.Config.Checkpoint); the run that resumes from it
// checks the rest.
func wholeCheckpoint(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(b) < 8+4+32+8+4 || string(b[:8]) != "PRIVSBIC" {
		return fmt.Errorf("checkpoint %s is not a whole checkpoint file (%d bytes)", path, len(b))
	}
	if crc := binary.LittleEndian.Uint32(b[len(b)-4:]); crc != crc32.ChecksumIEEE(b[:len(b)-4]) {
		return fmt.Errorf("checkpoint %s fails its checksum", path)
	}
	return nil
}
