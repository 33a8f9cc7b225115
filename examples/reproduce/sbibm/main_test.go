package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
	"github.com/privinfer/privinfer/simulate/sbibm"
)

func runArgs(args ...string) (string, error) {
	out, _, err := runArgsStderr(args...)
	return out, err
}

// runArgsStderr runs the program and returns its stdout and stderr.
func runArgsStderr(args ...string) (stdout, stderr string, err error) {
	var out, errw bytes.Buffer
	err = cli.Runner("sbibm", parse, run)(args, &out, &errw)
	return out.String(), errw.String(), err
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-tasks", "three_moons"}, {"-sims", "10"}, {"-sims", "x"}, {"-obs", "0"}, {"-obs", "11"},
		{"-samples", "50"}, {"-samples", "20000"}, {"-simulate-only"}, {"extra"}, {"-affine", "-choose-affine"}, {"-affine=false", "-choose-affine"}, {"-affine=maybe"}, {"-shift", "maybe"},
	} {
		if _, err := runArgs(args...); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
	if _, err := runArgs("-h"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// TestSimulateOnly checks the simulations written for the peer: a header
// of the θ names and x[j], then N rows of finite numbers whose θ lie in
// the prior's support; and that the same seed writes the same file.
func TestSimulateOnly(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	if _, err := runArgs("-simulate-only", "-tasks", "slcp,two_moons", "-sims", "50", "-out", dir); err != nil {
		t.Fatal(err)
	}
	task, _ := sbibm.New(sbibm.SLCP)
	data, err := os.ReadFile(filepath.Join(dir, "slcp_50_sims.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) != 51 || len(recs[0]) != task.Dim()+task.DataDim() || recs[0][0] != "parameter_1" || recs[0][task.Dim()] != "x[0]" {
		t.Fatalf("sims file: %d records, header %v, %v", len(recs), recs[0], err)
	}
	for _, rec := range recs[1:] {
		v := make([]float64, len(rec))
		for j, s := range rec {
			if v[j], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		if lp := task.Prior().LogDensity(v[:task.Dim()]); lp < -1e300 {
			t.Fatalf("θ %v outside the prior support", v[:task.Dim()])
		}
	}
	again := t.TempDir()
	if _, err := runArgs("-simulate-only", "-tasks", "slcp", "-sims", "50", "-out", again); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(again, "slcp_50_sims.csv")); !bytes.Equal(b, data) {
		t.Error("the same seed wrote different simulations")
	}
}

// TestQuickRun trains on 300 two-moons simulations and scores observation 1
// (skipped without the benchmark's reference files). It checks the table,
// a C2ST between 0.5 and 1 (a small flow on 300 simulations is far from the
// reference but must be a probability of a correct classification above
// chance), the plots (PNG and SVG) and progress lines, and the peer path:
// the program's own draws, given as the peer's, score exactly as ours.
func TestQuickRun(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	needReferences(t)
	dir := t.TempDir()
	args := []string{"-tasks", "two_moons", "-sims", "300", "-obs", "1", "-samples", "500", "-out", dir}
	out, stderr, err := runArgsStderr(args...)
	if err != nil {
		t.Fatal(err)
	}
	plots := clitest.Check(t, dir, stderr)
	for _, want := range []string{"two_moons_300_o1.png", "two_moons_300_o1.svg", "sbibm_c2st.png", "sbibm_c2st.svg"} {
		if !slices.Contains(plots, want) {
			t.Errorf("plots %v lack %s", plots, want)
		}
	}
	re := regexp.MustCompile(`\| two_moons \| 300 +\| (0\.\d+) ± 0\.000`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no result row in\n%s", out)
	}
	score, _ := strconv.ParseFloat(m[1], 64)
	if score < 0.5 || score > 1 {
		t.Errorf("C2ST %v", score)
	}
	ours, err := os.ReadFile(filepath.Join(dir, "two_moons_300_ours_o1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "two_moons_300_sbi_o1.csv"), ours, 0o644)
	os.WriteFile(filepath.Join(dir, "two_moons_300_sbi_time.txt"), []byte("train_s=12.50 cpu_s=20.00 epochs=7\n"), 0o644)
	out, err = runArgs(append(args, "-peer", dir)...)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`\| two_moons \| 300 .*`).FindString(out)
	cells := strings.Split(row, "|")
	if len(cells) < 13 || strings.TrimSpace(cells[3]) != strings.TrimSpace(cells[7]) ||
		strings.TrimSpace(cells[8]) != "12.5s" || strings.TrimSpace(cells[9]) != "20.0s" || strings.TrimSpace(cells[10]) != "7" ||
		!strings.HasSuffix(strings.TrimSpace(cells[5]), "s") {
		t.Errorf("peer columns %q", row)
	}
}

// TestChooseAffine runs the amortized mode with -choose-affine on a small
// budget: the result row names the kept flow, and the progress line gives
// both validation losses, the kept one the lower.
func TestChooseAffine(t *testing.T) {
	needReferences(t)
	out, stderr, err := runArgsStderr("-tasks", "two_moons", "-sims", "300", "-obs", "1", "-samples", "500", "-choose-affine")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`\| two_moons \| 300 .*`).FindString(out)
	cells := strings.Split(row, "|")
	if len(cells) < 8 {
		t.Fatalf("no result row in\n%s", out)
	}
	kept := strings.TrimSpace(cells[7])
	m := regexp.MustCompile(`kept the flow (with|without) the affine layer \(validation loss (\S+) without, (\S+) with\)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no choice in the progress:\n%s", stderr)
	}
	without, _ := strconv.ParseFloat(m[2], 64)
	with, _ := strconv.ParseFloat(m[3], 64)
	want := map[bool]string{true: "affine", false: "plain"}[with < without]
	if kept != want || (m[1] == "with") != (want == "affine") {
		t.Errorf("kept %q (progress %q) with validation losses %v without and %v with; want %s", kept, m[1], without, with, want)
	}
}

// needReferences skips the test when the sbibm reference files are not
// present (the default -dir).
func needReferences(t *testing.T) {
	t.Helper()
	c, err := parse(flag.NewFlagSet("sbibm", flag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(c.dir, sbibm.TwoMoons)); c.dir == "" || err != nil || !st.IsDir() {
		t.Skip("sbibm reference files not present")
	}
}

// TestAffineFlag checks -affine's three states: unset, the package
// default (sbi.Config.DefaultFlow: the layer on SNLE's and amortized NPE's
// flows, not on sequential SNPE's) and no explicit architecture; -affine
// or -affine=true, the layer; -affine=false, the flow without it; and
// that -choose-affine offers the default with the layer switched.
func TestAffineFlag(t *testing.T) {
	methods := []string{"npe", "snpe", "snle"}
	for _, c := range []struct {
		args     []string
		affine   [3]bool // hasAffine for methods
		explicit bool    // flows returns an architecture
	}{
		{nil, [3]bool{true, false, true}, false},
		{[]string{"-affine"}, [3]bool{true, true, true}, true},
		{[]string{"-affine=true"}, [3]bool{true, true, true}, true},
		{[]string{"-affine=false"}, [3]bool{false, false, false}, true},
		{[]string{"-sequential", "snpe", "-rounds", "1"}, [3]bool{true, true, true}, false}, // one round is amortized
	} {
		cfg, err := parse(flag.NewFlagSet("sbibm", flag.ContinueOnError), c.args)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		for i, method := range methods {
			if got := cfg.hasAffine(method); got != c.affine[i] {
				t.Errorf("%v, %s: affine layer %v, want %v", c.args, method, got, c.affine[i])
			}
			fc, cand := cfg.flows(method, 2, 3)
			if (fc != nil) != c.explicit || cand != nil {
				t.Errorf("%v, %s: flows = %v, %v", c.args, method, fc, cand)
				continue
			}
			if fc != nil && fc.ContextAffine != c.affine[i] {
				t.Errorf("%v, %s: ContextAffine %v", c.args, method, fc.ContextAffine)
			}
		}
	}
	cfg, err := parse(flag.NewFlagSet("sbibm", flag.ContinueOnError), []string{"-choose-affine"})
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range methods {
		fc, cand := cfg.flows(method, 2, 3)
		if def := cfg.defaultAffine(method); fc != nil || len(cand) != 1 || cand[0].ContextAffine == def {
			t.Errorf("-choose-affine, %s: flows = %v, %v; the candidate should switch the default's layer (%v)", method, fc, cand, def)
		}
	}
}
