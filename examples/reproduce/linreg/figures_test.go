package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

func TestFigureModeFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-trials", "-1"}, {"-trial-range", "1-2"}, {"-trials-dir", "d"}, {"-trials", "2", "-trial-range", "2-3"},
		{"-trials", "2", "-depths", "5"}, {"-depths", "5", "-sweep", "1"}, {"-depths", "0"}, {"-depths", "5,x"}, {"-depths", "5,5"},
	} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-trials", "4", "-trial-range", "2-3", "-trials-dir", "d"})
	if err != nil || c.trials != 4 || c.trialLo != 2 || c.trialHi != 3 || c.trialsDir != "d" {
		t.Errorf("-trials: %+v, %v", c, err)
	}
	c, err = parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-depths", "5, 8,10"})
	if err != nil || !slices.Equal(c.depths, []int{5, 8, 10}) {
		t.Errorf("-depths: %v, %v", c.depths, err)
	}
}

// series returns a round series with the given C2ST values and mean
// differences (MMD 0).
func series(c2 []float64, dm float64) []roundAcc {
	rs := make([]roundAcc, len(c2))
	for i, v := range c2 {
		rs[i] = roundAcc{round: i + 1, sims: 100 * (i + 1), c2st: v, dmean: dm}
	}
	return rs
}

// TestTrialsVerdict checks that the Fig. 9 verdict follows the numbers:
// improving runs that end matching DA-MCMC, SPLE first below the threshold,
// reproduce; a run that does not improve, one that ends off the
// reference, or SPPE converging first each cost a check; missing trials
// give a partial verdict.
func TestTrialsVerdict(t *testing.T) {
	set := func(m string, runs ...[]roundAcc) accSet { return accSet{method: m, layers: 4, runs: runs} }
	good := series([]float64{0.9, 0.7, 0.55}, 0.05)
	fast := series([]float64{0.9, 0.58, 0.55}, 0.05)
	for _, tc := range []struct {
		name string
		sets []accSet
		want string
	}{
		{"both good, SPLE faster", []accSet{set("SPPE", good, good), set("SPLE", fast, fast)}, cli.Reproduced},
		{"SPPE faster", []accSet{set("SPPE", fast, fast), set("SPLE", good, good)}, cli.Partial},
		{"no improvement", []accSet{set("SPPE", series([]float64{0.55, 0.56, 0.58}, 0.05), series([]float64{0.55, 0.56, 0.58}, 0.05))}, cli.Partial},
		{"off the reference", []accSet{set("SPPE", series([]float64{0.9, 0.95, 0.95}, 0.5), series([]float64{0.9, 0.95, 0.95}, 0.5))}, cli.Differs},
		{"missing trials", []accSet{set("SPPE", good)}, cli.Partial},
	} {
		var b bytes.Buffer
		trialsVerdict(&b, 10, 2, tc.sets)
		vs := cli.ParseVerdicts(b.String())
		if len(vs) != 1 || vs[0].Kind != tc.want || !strings.Contains(vs[0].What, "Fig. 9") {
			t.Errorf("%s: got %+v, want %s", tc.name, vs, tc.want)
		}
	}
}

// TestDepthVerdict checks that the Fig. 15 C, D verdict follows the
// numbers: depths matching DA-MCMC and within depthTol of the 8-layer
// C2ST reproduce; a depth beyond depthTol of it, or off DA-MCMC, does not.
func TestDepthVerdict(t *testing.T) {
	run := func(m string, l int, c2, dm float64) accSet {
		return accSet{method: m, layers: l, runs: [][]roundAcc{series([]float64{0.9, c2}, dm)}}
	}
	for _, tc := range []struct {
		name string
		sets []accSet
		want string
	}{
		{"comparable", []accSet{run("SPPE", 5, 0.56, 0.05), run("SPPE", 8, 0.53, 0.05), run("SPPE", 10, 0.54, 0.05)}, cli.Reproduced},
		{"5 layers beyond the tolerance", []accSet{run("SPPE", 5, 0.6, 0.05), run("SPPE", 8, 0.51, 0.05)}, cli.Partial},
		{"5 layers just within it", []accSet{run("SPPE", 5, 0.59, 0.05), run("SPPE", 8, 0.52, 0.05)}, cli.Reproduced},
		{"no 8-layer run", []accSet{run("SPLE", 5, 0.55, 0.05), run("SPLE", 10, 0.57, 0.05)}, cli.Reproduced},
		{"off DA-MCMC", []accSet{run("SPLE", 5, 0.9, 1)}, cli.Differs},
	} {
		var b bytes.Buffer
		depthVerdict(&b, 10, tc.sets)
		vs := cli.ParseVerdicts(b.String())
		if len(vs) != 1 || vs[0].Kind != tc.want || !strings.Contains(vs[0].What, "Fig. 15 C, D") {
			t.Errorf("%s: got %+v, want %s", tc.name, vs, tc.want)
		}
	}
}

// runFig runs the program with args and returns stdout.
func runFig(t *testing.T, args ...string) (string, string) {
	t.Helper()
	c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), append([]string{"-eps", "10", "-rounds", "2", "-sims", "40", "-M", "2", "-atoms", "2",
		"-hidden", "8", "-epochs", "2", "-n", "200", "-damcmc", "../../../mcmc/testdata"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if err := runAll(t.Context(), c, &out, &errw); err != nil {
		t.Fatal(err)
	}
	return out.String(), errw.String()
}

// TestTrialsSmall runs the Fig. 9 mode with two trials of two rounds on a
// one-layer flow: the per-round table, CSV and charts appear, the trials
// are saved, and a second run reads them back into the same table.
func TestTrialsSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir, tdir := t.TempDir(), t.TempDir()
	out, errs := runFig(t, "-layers", "1", "-trials", "2", "-trial-range", "1-1", "-trials-dir", tdir, "-out", dir)
	if vs := cli.ParseVerdicts(out); len(vs) != 1 || vs[0].Kind != cli.Partial || !strings.Contains(vs[0].Reason, "1 of 2 trials") {
		t.Errorf("after one trial: verdicts %+v in\n%s", vs, out)
	}
	out, errs = runFig(t, "-layers", "1", "-trials", "2", "-trials-dir", tdir, "-out", dir)
	vs := cli.ParseVerdicts(out)
	if len(vs) != 1 || vs[0].Kind == cli.Partial && strings.Contains(vs[0].Reason, "so far") || !strings.Contains(vs[0].Reason, "checks hold") {
		t.Errorf("verdicts %+v in\n%s", vs, out)
	}
	if !strings.Contains(out, "2 runs (1 read from -trials-dir)") {
		t.Errorf("the saved trial was not reused:\n%s", out)
	}
	saved, _ := filepath.Glob(filepath.Join(tdir, "linreg_eps10_*_layers1_*.csv"))
	if len(saved) != 4 {
		t.Errorf("saved trials %v, want 4", saved)
	}
	rows, err := readCSVRows(filepath.Join(dir, "linreg_trials_eps10.csv"))
	if err != nil || len(rows) != 1+2*2 || len(rows[0]) != 4+15+1 {
		t.Errorf("CSV: %d rows, %v", len(rows), err)
	}
	plots := clitest.Check(t, dir, errs)
	for _, want := range []string{"linreg_trials_eps10_c2st.png", "linreg_trials_eps10_mmd.svg", "linreg_trials_eps10_dmean.png", "linreg_trials_eps10_nlog.svg", "linreg_trials_eps10_lmd.png"} {
		if !slices.Contains(plots, want) {
			t.Errorf("plots %v lack %s", plots, want)
		}
	}
	again, _ := runFig(t, "-layers", "1", "-trials", "2", "-trials-dir", tdir)
	// The tables and the verdict match; only the count of runs read
	// from -trials-dir differs.
	cut := func(s string) (ls []string) {
		for _, l := range strings.Split(s[strings.Index(s, "round   sims"):], "\n") {
			if !strings.Contains(l, "read from -trials-dir") {
				ls = append(ls, l)
			}
		}
		return ls
	}
	if !slices.Equal(cut(again), cut(out)) {
		t.Errorf("the saved trials gave another table:\n%s\n%s", cut(out), cut(again))
	}
}

// TestDepthsSmall runs the Fig. 15 mode with flows of one and two layers.
func TestDepthsSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	out, errs := runFig(t, "-depths", "1,2", "-methods", "sppe", "-out", dir)
	for _, frag := range []string{"SPPE, 1 layers: 1 runs", "SPPE, 2 layers: 1 runs", "no 8-layer run here"} {
		if !strings.Contains(out, frag) {
			t.Errorf("output lacks %q:\n%s", frag, out)
		}
	}
	if vs := cli.ParseVerdicts(out); len(vs) != 1 || !strings.Contains(vs[0].What, "flows of 1, 2 layers") {
		t.Errorf("verdicts %+v", vs)
	}
	rows, err := readCSVRows(filepath.Join(dir, "linreg_depth_eps10.csv"))
	if err != nil || len(rows) != 1+2*2 {
		t.Errorf("CSV: %d rows, %v", len(rows), err)
	}
	if plots := clitest.Check(t, dir, errs); !slices.Contains(plots, "linreg_depth_eps10_c2st.png") {
		t.Errorf("plots %v", plots)
	}
}

// readCSVRows reads a CSV file's lines split at commas.
func readCSVRows(path string) ([][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows, nil
}
