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

	"github.com/privinfer/privinfer/examples/support/cli"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-eps", "x"}, {"-eps", "3"}, {"-methods", "abc"}, {"-rounds", "0"}, {"-sims", "1"}, {"-M", "0"},
		{"-lr", "-1"}, {"-n", "2"}, {"-nope"}, {"stray"}, {"-depths", "0"}, {"-depths", "5,x"}, {"-depths", "5", "-outbreaks"},
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
		"-abc", "../../abc/testdata", "-out", dir}, extra...)
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
	out, errs, dir := runSmall(t)
	checkPlot(t, dir, "sir_eps10_marginals")
	vs := cli.ParseVerdicts(out)
	if len(vs) != 2 || !strings.Contains(vs[0].What, "Fig. 1") || !strings.Contains(vs[1].What, "Fig. 6") {
		t.Errorf("verdicts %+v", vs)
	}
	for _, frag := range []string{"Fig. 6: marginal posteriors", "exact (kernel IS)", "β/γ"} {
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
