package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-eps", "x"}, {"-eps", "3"}, {"-methods", "abc"}, {"-rounds", "0"}, {"-sims", "1"}, {"-M", "0"},
		{"-lr", "-1"}, {"-n", "2"}, {"-nope"}, {"stray"}, {"-depths", "0"}, {"-depths", "5,x"}, {"-depths", "5", "-outbreaks"},
		{"-trials", "-1"}, {"-trials-dir", "d"}, {"-trial-range", "1-2"}, {"-trials", "3", "-trial-range", "2-4", "-trials-dir", "d"},
		{"-trials", "3", "-trial-range", "2-1", "-trials-dir", "d"}, {"-trials", "3", "-trial-range", "1-2"}, {"-trials", "2", "-outbreaks"},
	} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-quick", "-rounds", "3"})
	if err != nil || c.Rounds != 3 || c.Sims != 100 || len(c.Eps) != 1 {
		t.Errorf("-quick: %+v, %v", c, err)
	}
}

func TestSyntheticVerdict(t *testing.T) {
	au, ours := "SMC-ABC (authors)", "SMC-ABC (ours)"
	for _, tc := range []struct {
		acc  []accuracy
		want string
	}{
		{[]accuracy{{"sppe", au, 0.55, 0.05}, {"sple", au, 0.6, 0.1}}, cli.Reproduced},
		// Our own reference takes precedence over the authors' sample.
		{[]accuracy{{"sppe", au, 0.55, 0.05}, {"sppe", ours, 0.9, 0.05}}, cli.Differs},
		{[]accuracy{{"sppe", au, 0.9, 0.5}, {"sppe", ours, 0.58, 0.05}}, cli.Reproduced},
		// The exact reference takes precedence over both.
		{[]accuracy{{"sppe", refExact, 0.58, 0.05}, {"sppe", ours, 0.9, 0.5}}, cli.Reproduced},
		{[]accuracy{{"sppe", refExact, 0.9, 0.05}, {"sppe", ours, 0.58, 0.05}}, cli.Differs},
		{[]accuracy{{"sppe", au, 0.55, 0.05}, {"sple", au, 0.8, 0.05}}, cli.Partial},
		// Both criteria must hold.
		{[]accuracy{{"sppe", au, 0.55, 0.2}}, cli.Differs},
		{[]accuracy{{"sppe", au, 0.9, 0.01}}, cli.Differs},
		{nil, cli.Partial},
	} {
		var b bytes.Buffer
		syntheticVerdict(&b, 10, tc.acc)
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != tc.want {
			t.Errorf("%+v: got %+v, want %s", tc.acc, vs, tc.want)
		}
	}
}

func TestMarginalVerdict(t *testing.T) {
	for _, tc := range []struct {
		acc  []marginalAccuracy
		want string
	}{
		{[]marginalAccuracy{{"SPPE", "β", 0.1, 0.8}, {"SPLE", "β", 0.4, 1.4}}, cli.Reproduced},
		{[]marginalAccuracy{{"SPPE", "β", 0.1, 0.8}, {"SPLE", "β", 0.6, 1}}, cli.Partial},
		// Too narrow and too wide both fail.
		{[]marginalAccuracy{{"SPPE", "β", 0.1, 0.6}, {"SPLE", "γ", 0.1, 1.6}}, cli.Differs},
		{nil, cli.Partial},
	} {
		var b bytes.Buffer
		marginalVerdict(&b, 10, tc.acc)
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != tc.want || !strings.Contains(vs[0].What, "Fig. 6") {
			t.Errorf("%+v: got %+v, want %s", tc.acc, vs, tc.want)
		}
	}
}

func TestDepthVerdict(t *testing.T) {
	good := func(m string, l int) depthRun {
		return depthRun{method: m, layers: l, c2st: []float64{0.9, 0.55}, mmd: []float64{0.5, 0.05}}
	}
	bad := depthRun{method: "SPLE", layers: 5, c2st: []float64{0.9, 0.7}, mmd: []float64{0.5, 0.05}}
	for _, tc := range []struct {
		runs []depthRun
		want string
	}{
		{[]depthRun{good("SPPE", 5), good("SPLE", 5), good("SPPE", 10)}, cli.Reproduced},
		{[]depthRun{good("SPPE", 5), bad}, cli.Partial},
		{[]depthRun{bad}, cli.Differs},
		{[]depthRun{{method: "SPPE", layers: 5, c2st: []float64{math.NaN()}, mmd: []float64{math.NaN()}}}, cli.Partial},
	} {
		var b bytes.Buffer
		depthVerdict(&b, 10, "exact", tc.runs)
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != tc.want || !strings.Contains(vs[0].What, "Fig. 15") {
			t.Errorf("%+v: got %+v, want %s", tc.runs, vs, tc.want)
		}
	}
}

// runSmall runs the program with tiny settings (one or two rounds of ten
// simulations, one epoch) and the given extra arguments, writing into a
// temporary -out directory, and returns its stdout, stderr and directory.
func runSmall(t *testing.T, extra ...string) (stdout, stderr, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("simulates SIR epidemics of a million people")
	}
	dir = t.TempDir()
	args := append([]string{"-quick", "-rounds", "2", "-sims", "10", "-epochs", "1", "-n", "10", "-methods", "sppe",
		"-abc", "../../../abc/testdata", "-out", dir}, extra...)
	c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := runAll(context.Background(), c, &out, &errb); err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), dir
}

// checkPlot checks that base.png decodes as a PNG and base.svg is SVG.
func checkPlot(t *testing.T, dir, base string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, base+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("%s.png: %v", base, err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, base+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(svg); !strings.HasPrefix(s, "<svg") && !strings.HasPrefix(s, "<?xml") {
		t.Errorf("%s.svg does not start as SVG: %.40q", base, s)
	}
}

// TestSyntheticSmall runs the synthetic mode at a tiny size: Fig. 6's
// marginal histograms are drawn (PNG and SVG) and judged, and progress
// reaches stderr during the simulations and after every round.
func TestSyntheticSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	out, errs, dir := runSmall(t)
	checkPlot(t, dir, "sir_eps10_marginals")
	vs := cli.ParseVerdicts(out)
	if len(vs) != 2 || !strings.Contains(vs[0].What, "Fig. 1") || !strings.Contains(vs[1].What, "Fig. 6") {
		t.Errorf("verdicts %+v", vs)
	}
	for _, frag := range []string{"Fig. 6: marginal posteriors", "exact (kernel IS)", "β/γ", "γ>q99.9", "γ tail against exact (kernel IS) (100000 draws)"} {
		if !strings.Contains(out, frag) {
			t.Errorf("stdout lacks %q:\n%s", frag, out)
		}
	}
	for _, frag := range []string{"SPPE: round 1, simulating 10 epidemics", "round 2 simulate 10/10", "SPPE round 2: C2ST and MMD", "marginal histograms"} {
		if !strings.Contains(errs, frag) {
			t.Errorf("stderr lacks %q:\n%s", frag, errs)
		}
	}
}

// TestDepthsSmall runs the Fig. 15 mode with flows of one and two layers.
func TestDepthsSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	out, errs, dir := runSmall(t, "-depths", "1,2")
	checkPlot(t, dir, "sir_depth_eps10_c2st")
	if _, err := os.Stat(filepath.Join(dir, "sir_depth_eps10.csv")); err != nil {
		t.Error(err)
	}
	vs := cli.ParseVerdicts(out)
	if len(vs) != 1 || !strings.Contains(vs[0].What, "Fig. 15") || !strings.Contains(vs[0].What, "1, 2 layers") {
		t.Errorf("verdicts %+v", vs)
	}
	if !strings.Contains(out, "SPPE        2     2     20") || !strings.Contains(errs, "SPPE 2 layers round 2: C2ST") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errs)
	}
}

func TestTrialRange(t *testing.T) {
	c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-trials", "10", "-trial-range", "4-6", "-trials-dir", "d"})
	if err != nil || c.trials != (trialOptions{n: 10, lo: 4, hi: 6, dir: "d"}) {
		t.Errorf("%+v, %v", c.trials, err)
	}
	c, err = parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-trials", "10", "-trial-range", "7", "-trials-dir", "d"})
	if err != nil || c.trials.lo != 7 || c.trials.hi != 7 {
		t.Errorf("%+v, %v", c.trials, err)
	}
}

// fakeTrial is a trial whose MMD falls below the target at round hit (0:
// never), each round taking 1000 simulations, 10 s of simulation and 20 s
// of training.
func fakeTrial(k, rounds, hit int) trialRecord {
	tr := trialRecord{trial: k}
	for r := 1; r <= rounds; r++ {
		mmd := 0.5
		if hit > 0 && r >= hit {
			mmd = 0.05
		}
		tr.rounds = append(tr.rounds, roundMetrics{round: r, sims: 1000 * r, c2st: 0.55, mmd: mmd,
			simTime: time.Duration(r) * 10 * time.Second, trainTime: time.Duration(r) * 20 * time.Second})
	}
	return tr
}

func TestTable1(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	ts := trialSet{method: "SPPE", trials: []trialRecord{fakeTrial(1, 4, 1), fakeTrial(2, 4, 3), fakeTrial(3, 4, 0)}}
	r := table1Row(ts)
	if r.reached != 2 || r.trials != 3 || r.sims != [2]float64{2000, math.Sqrt(2e6)} || r.allT[0] != 60 || r.simT[0] != 20 || !strings.Contains(r.neverNote, "3") {
		t.Errorf("%+v", r)
	}
	sppe := trialSet{method: "SPPE", trials: []trialRecord{fakeTrial(1, 4, 1), fakeTrial(2, 4, 1)}}
	sple := trialSet{method: "SPLE", trials: []trialRecord{fakeTrial(1, 4, 2), fakeTrial(2, 4, 3)}}
	abcRow := func(sims, secs float64, reached int) *costRow {
		return &costRow{method: "SMC-ABC", reached: reached, trials: 2, sims: [2]float64{sims, 0}, allT: [2]float64{secs, 0}}
	}
	for _, tc := range []struct {
		sets []trialSet
		abc  *costRow
		want string
	}{
		{[]trialSet{sppe, sple}, abcRow(20000, 500, 2), cli.Reproduced},
		// SMC-ABC faster in time but not in simulations.
		{[]trialSet{sppe, sple}, abcRow(20000, 50, 2), cli.Partial},
		{[]trialSet{sple, sppe}, abcRow(20000, 500, 2), cli.Reproduced},
		// SPLE before SPPE in both.
		{[]trialSet{{method: "SPPE", trials: sple.trials}, {method: "SPLE", trials: sppe.trials}}, abcRow(20000, 500, 2), cli.Differs},
		// SMC-ABC never reaching it keeps the order.
		{[]trialSet{sppe, sple}, abcRow(0, 0, 0), cli.Reproduced},
		{[]trialSet{sppe, sple}, nil, cli.Partial},
		// One method only.
		{[]trialSet{sppe}, abcRow(20000, 500, 2), cli.Partial},
		// Too few trials so far.
		{[]trialSet{{method: "SPPE", trials: sppe.trials[:1]}, sple}, abcRow(20000, 500, 2), cli.Partial},
	} {
		var b bytes.Buffer
		table1Verdict(&b, 10, 2, tc.sets, tc.abc)
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != tc.want || !strings.Contains(vs[0].What, "Table 1") {
			t.Errorf("%+v: got %+v, want %s", tc.abc, vs, tc.want)
		}
	}
}

// TestTrialsSmall runs two tiny trials of SPPE and SPLE with -trials-dir:
// the per-round table, Table 1, the CSV files and the charts (PNG and SVG)
// are written and progress reaches stderr; a second run reads every trial
// from the folder and trains nothing; a run of one trial range only gives
// partial verdicts.
func TestTrialsSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	trials := t.TempDir()
	abcTable := "trial,seed,particles,reached,round,sims,seconds\n1,1,20,true,3,5000,600\n2,2,20,false,0,0,0\n"
	if err := os.WriteFile(filepath.Join(trials, "sir_eps10_smcabc_table1.csv"), []byte(abcTable), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-trials", "2", "-rounds", "1", "-methods", "sppe,sple", "-trials-dir", trials}
	out, errs, dir := runSmall(t, args...)
	for _, m := range metricNames {
		checkPlot(t, dir, "sir_trials_eps10_"+strings.ToLower(m))
	}
	for _, f := range []string{"sir_trials_eps10.csv", "sir_trials_eps10_table1.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	vs := cli.ParseVerdicts(out)
	if len(vs) != 2 || !strings.Contains(vs[0].What, "Fig. 1B") || !strings.Contains(vs[1].What, "Table 1") {
		t.Errorf("verdicts %+v", vs)
	}
	for _, frag := range []string{"SPPE: 2 of 2 trials (0 read", "SPLE: 2 of 2 trials", "Table 1", "SMC-ABC  1/2", "trial(s) 2 never reached it", "reduced flow", "SPPE per trial: 1: never; 2: never"} {
		if !strings.Contains(out, frag) {
			t.Errorf("stdout lacks %q:\n%s", frag, out)
		}
	}
	for _, frag := range []string{"trial 1/2, SPPE (seed 1): round 1, simulating 10 epidemics", "trial 2, SPLE round 1: C2ST", "trial 2/2, SPLE: done"} {
		if !strings.Contains(errs, frag) {
			t.Errorf("stderr lacks %q:\n%s", frag, errs)
		}
	}
	saved, _ := filepath.Glob(filepath.Join(trials, "sir_trial_eps10_*.csv"))
	if len(saved) != 4 {
		t.Errorf("saved trials %v", saved)
	}
	// Again: every trial is read back, nothing is simulated or trained, and
	// the tables are the same.
	out2, errs2, _ := runSmall(t, args...)
	if strings.Contains(errs2, "simulating") || strings.Contains(errs2, "epoch") || strings.Count(errs2, "reused") != 4 {
		t.Errorf("second run trained again:\n%s", errs2)
	}
	table := func(s string) string {
		i := strings.Index(s, "  SPPE: 2 of 2")
		return s[i+len("  SPPE: 2 of 2 trials (0"):]
	}
	if !strings.Contains(out2, "SPPE: 2 of 2 trials (2 read") || strings.ReplaceAll(table(out2), "(2 read", "(0 read") != table(out) {
		t.Errorf("second run differs:\n%s\nfirst:\n%s", out2, out)
	}
	// A third of four trials alone: the tables hold the trials saved so far
	// and the verdicts wait for all of them.
	out3, errs3, _ := runSmall(t, "-trials", "4", "-trial-range", "3", "-rounds", "1", "-methods", "sppe", "-trials-dir", trials)
	if strings.Count(errs3, "reused") != 2 || !strings.Contains(errs3, "trial 3/4, SPPE") || strings.Contains(errs3, "trial 4/4") || !strings.Contains(out3, "SPPE: 3 of 4 trials (2 read") {
		t.Errorf("stderr:\n%s", errs3)
	}
	for _, v := range cli.ParseVerdicts(out3) {
		if v.Kind != cli.Partial || !strings.Contains(v.Reason, "of 4") {
			t.Errorf("verdict %+v", v)
		}
	}
}
