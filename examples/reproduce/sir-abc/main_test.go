package main

import (
	"bytes"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-particles", "1"}, {"-rounds", "0"}, {"-walltime", "-1s"}, {"-maxsims", "-1"},
		{"-min-tol", "-1"}, {"-min-acceptance", "1"}, {"-eps", "3"}, {"-eps", "0"}, {"-exact", "1"}, {"-exact", "-2"}, {"-exact-stages", "0"}, {"-nope"}, {"stray"},
		{"-trials", "-1"}, {"-trials-dir", "d"}, {"-trial-range", "1"}, {"-trials", "2", "-trial-range", "1-3", "-trials-dir", "d"},
		{"-trials", "2", "-trial-range", "1"}, {"-trials", "2", "-exact", "100"},
	} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	o, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-quick", "-rounds", "2"})
	if err != nil || o.particles != 100 || o.rounds != 2 || o.wall != 3*time.Minute {
		t.Errorf("-quick: %+v, %v", o, err)
	}
}

// TestVerdict checks the three verdict branches on synthetic populations.
func TestVerdict(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ref := &privinfer.Draws{Dim: 2}
	for range 2000 {
		ref.Theta = append(ref.Theta, -0.5+0.1*r.NormFloat64(), -3+0.05*r.NormFloat64())
	}
	pop := func(shift, tol float64) *abc.Round {
		p := &abc.Round{Draws: &privinfer.Draws{Dim: 2}, Tolerance: tol}
		for range 500 {
			p.Draws.Theta = append(p.Draws.Theta, -0.5+shift+0.1*r.NormFloat64(), -3+0.05*r.NormFloat64())
			p.Draws.Weights = append(p.Draws.Weights, 1.0/500)
		}
		return p
	}
	for _, tc := range []struct {
		p    *abc.Round
		ref  *privinfer.Draws
		want string
	}{
		{pop(0, 0.02), ref, cli.Reproduced},
		{pop(0.2, 0.2), ref, cli.Partial},
		{pop(0.2, 0.01), ref, cli.Differs},
		{pop(0, 0.2), nil, cli.Partial},
	} {
		var b bytes.Buffer
		verdict(&b, "SMC-ABC", 10, tc.p, tc.ref)
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != tc.want {
			t.Errorf("got %+v, want %s", vs, tc.want)
		}
	}
}

// TestFinish writes the outputs of a synthetic population: the CSV reads
// back to the same draws, the corner plot and the -summary file exist, and
// the summary table carries β, γ and R0 beside the reference.
func TestFinish(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(3, 4))
	ref := &privinfer.Draws{Dim: 2, Names: names}
	fin := &abc.Round{Draws: &privinfer.Draws{Dim: 2, Names: names}, Tolerance: 0.01}
	for range 500 {
		ref.Theta = append(ref.Theta, -0.5+0.1*r.NormFloat64(), -3+0.05*r.NormFloat64())
		fin.Draws.Theta = append(fin.Draws.Theta, -0.5+0.1*r.NormFloat64(), -3+0.05*r.NormFloat64())
		fin.Draws.Weights = append(fin.Draws.Weights, r.Float64())
	}
	dir := t.TempDir()
	o := options{Common: cli.Common{Out: dir, Seed: 1}, eps: 10, summary: filepath.Join(dir, "summary.txt")}
	var b bytes.Buffer
	if err := finish(o, &logger{w: &b}, "SMC-ABC", csvName(10), fin, ref); err != nil {
		t.Fatal(err)
	}
	back, err := cli.ReadDraws(filepath.Join(dir, csvName(10)))
	if err != nil || !slices.Equal(back.Theta, fin.Draws.Theta) || !slices.Equal(back.Weights, fin.Draws.Weights) {
		t.Fatalf("CSV read back %v, %v", back, err)
	}
	summary, err := os.ReadFile(o.summary)
	if err != nil || !strings.Contains(string(summary), "R0") || !strings.Contains(string(summary), "ref mean") || !strings.Contains(string(summary), "MMD²") {
		t.Errorf("summary %q, %v", summary, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sir_eps10_smcabc.svg")); err != nil {
		t.Error(err)
	}
	if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != cli.Reproduced {
		t.Errorf("verdicts %+v", vs)
	}
}

// TestRunTiny runs SMC-ABC with 20 particles for 2 rounds: the verdict is
// printed, the corner plot is written as PNG and SVG beside the CSV, and
// progress reaches stderr.
func TestRunTiny(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	o, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-particles", "20", "-rounds", "2", "-authors", "none", "-out", dir})
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if err := run(t.Context(), o, &out, &errw); err != nil {
		t.Fatal(err)
	}
	if vs := cli.ParseVerdicts(out.String()); len(vs) != 2 || !strings.Contains(vs[0].What, "Fig. 5") || vs[1].Kind == "invalid" {
		t.Errorf("verdicts %+v in\n%s", vs, out.String())
	}
	plots := clitest.Check(t, dir, errw.String())
	for _, p := range []string{"sir_eps10_smcabc.png", "sir_eps10_smcabc.svg", "sir_eps10_smcabc_fig5.png", "sir_eps10_smcabc_fig5.svg"} {
		if !slices.Contains(plots, p) {
			t.Errorf("plots %v lack %s", plots, p)
		}
	}
	if !strings.Contains(out.String(), "Table 1") || !strings.Contains(out.String(), "Fig. 5") {
		t.Errorf("stdout:\n%s", out.String())
	}
}

// TestTrialsTiny runs two SMC-ABC trials of 20 particles and 2 rounds with
// -trials-dir: Fig. 5 (CSV, PNG, SVG) and Table 1's row are written, the
// per-trial costs land in the folder for examples/reproduce/sir; a second run reads
// both trials back without simulating; asking for a third trial without
// running it gives a partial verdict.
func TestTrialsTiny(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	trials := t.TempDir()
	runT := func(extra ...string) (string, string, string) {
		dir := t.TempDir()
		args := append([]string{"-particles", "20", "-rounds", "2", "-authors", "none", "-trials-dir", trials, "-out", dir}, extra...)
		o, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args)
		if err != nil {
			t.Fatal(err)
		}
		var out, errw bytes.Buffer
		if err := run(t.Context(), o, &out, &errw); err != nil {
			t.Fatal(err)
		}
		return out.String(), errw.String(), dir
	}
	out, errs, dir := runT("-trials", "2")
	plots := clitest.Check(t, dir, errs)
	if !slices.Contains(plots, "sir_eps10_smcabc_fig5.png") || !slices.Contains(plots, "sir_eps10_smcabc_fig5.svg") {
		t.Errorf("plots %v", plots)
	}
	if vs := cli.ParseVerdicts(out); len(vs) != 1 || !strings.Contains(vs[0].What, "Fig. 5") {
		t.Errorf("verdicts %+v", vs)
	}
	for _, frag := range []string{"2 independent trials", "Fig. 5", "Table 1", "SMC-ABC row", "per trial: 1: never; 2: never"} {
		if !strings.Contains(out, frag) {
			t.Errorf("stdout lacks %q:\n%s", frag, out)
		}
	}
	if !strings.Contains(errs, "trial 2/2 (seed") || !strings.Contains(errs, "C2ST and MMD per round") {
		t.Errorf("stderr:\n%s", errs)
	}
	costs, err := os.ReadFile(filepath.Join(trials, "sir_eps10_smcabc_table1.csv"))
	if err != nil || strings.Count(string(costs), "\n") != 3 || !strings.HasPrefix(string(costs), "trial,seed,particles,reached,round,sims,seconds\n") {
		t.Errorf("per-trial costs %q, %v", costs, err)
	}
	fig5 := func(s string) string { return s[strings.Index(s, "Fig. 5:"):] }
	out2, errs2, _ := runT("-trials", "2")
	if strings.Count(errs2, "reused") != 2 || strings.Contains(errs2, "SMC-ABC") || fig5(out2) != fig5(out) {
		t.Errorf("second run:\n%s\n%s", errs2, out2)
	}
	out3, errs3, _ := runT("-trials", "3", "-trial-range", "1-2")
	if strings.Count(errs3, "reused") != 2 || strings.Contains(errs3, "trial 3/3") {
		t.Errorf("third run:\n%s", errs3)
	}
	if vs := cli.ParseVerdicts(out3); len(vs) != 1 || vs[0].Kind != cli.Partial || !strings.Contains(vs[0].Reason, "2 of 3 trials") {
		t.Errorf("verdicts %+v", vs)
	}
}
