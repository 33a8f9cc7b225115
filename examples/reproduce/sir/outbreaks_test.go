package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
	"github.com/privinfer/privinfer/simulate/sir"
)

func TestOutbreakFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-abc-sims", "100"}, {"-outbreaks-dir", "d"}, {"-outbreaks", "-abc-sims", "-1"},
		{"-outbreaks", "-abc-particles", "1"}, {"-outbreaks", "-abc-sims", "5", "-abc-particles", "10"},
	} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-outbreaks", "-quick"})
	if err != nil || c.ob.abcSims != 2000 || c.ob.abcParticles != 100 {
		t.Errorf("-quick: %+v, %v", c.ob, err)
	}
	c, err = parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-outbreaks", "-quick", "-abc-sims", "0"})
	if err != nil || c.ob.abcSims != 0 {
		t.Errorf("-abc-sims 0: %+v, %v", c.ob, err)
	}
}

// fakeOutbreak is an outbreak result whose SMC-ABC R0 interval is (2, 4)
// and whose SPPE R0 mean is sppe; the typical range is (1.5, 3.5).
func fakeOutbreak(name string, sppe float64) outbreakResult {
	return outbreakResult{ob: sir.Outbreak{Name: name}, typical: [2]float64{1.5, 3.5}, odeR0: 3,
		runs: []outbreakRun{{method: methodABC, r0: [3]float64{3, 2, 4}}, {method: "sppe", r0: [3]float64{sppe, sppe - 1, sppe + 1}}}}
}

func TestOutbreakVerdicts(t *testing.T) {
	for _, tc := range []struct {
		res         []outbreakResult
		fig2B, fig2 string
	}{
		{[]outbreakResult{fakeOutbreak("a", 3), fakeOutbreak("b", 2.5)}, cli.Reproduced, cli.Reproduced},
		{[]outbreakResult{fakeOutbreak("a", 3), fakeOutbreak("b", 3.8)}, cli.Partial, cli.Reproduced},
		{[]outbreakResult{fakeOutbreak("a", 3), fakeOutbreak("b", 5)}, cli.Partial, cli.Partial},
		{[]outbreakResult{fakeOutbreak("a", 1), fakeOutbreak("b", 5)}, cli.Differs, cli.Differs},
		// Without SMC-ABC nothing is compared.
		{[]outbreakResult{{ob: sir.Outbreak{Name: "a"}, typical: [2]float64{1, 2}, runs: []outbreakRun{{method: "sple", r0: [3]float64{1.5, 1, 2}}}}}, cli.Reproduced, cli.Partial},
	} {
		var b bytes.Buffer
		outbreakVerdicts(config{w: &b}, tc.res)
		vs := cli.ParseVerdicts(b.String())
		if len(vs) != 2 || vs[0].Kind != tc.fig2B || vs[1].Kind != tc.fig2 || !strings.Contains(vs[1].Reason, "wider than the exact posterior") && tc.fig2 != cli.Partial {
			t.Errorf("%+v: got %+v, want %s, %s", tc.res, vs, tc.fig2B, tc.fig2)
		}
	}
}

// TestOutbreaksSmall runs the -outbreaks mode at a tiny size with SMC-ABC
// and SPPE: Fig. 2B's table has SMC-ABC rows, Fig. 2A (one corner plot per
// outbreak) and Fig. 2B are written as PNG and SVG, both verdicts are
// printed with what could be rebuilt from raw counts; a second run reads
// every posterior from -outbreaks-dir and simulates nothing.
func TestOutbreaksSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	saved := t.TempDir()
	args := []string{"-outbreaks", "-abc-sims", "2000", "-abc-particles", "10", "-outbreaks-dir", saved}
	out, errs, dir := runSmall(t, args...)
	checkPlot(t, dir, "sir_outbreaks_r0")
	for _, ob := range sir.Outbreaks() {
		checkPlot(t, dir, "sir_outbreak_"+ob.Name)
	}
	vs := cli.ParseVerdicts(out)
	if len(vs) != 2 || !strings.Contains(vs[0].What, "Fig. 2B") || !strings.Contains(vs[1].What, "agree with SMC-ABC") {
		t.Errorf("verdicts %+v", vs)
	}
	for _, frag := range []string{"SMC-ABC R0", "flu_boarding_school SMC-ABC:", "WIDER than the exact posterior", "rebuilt: days 1–9", "not rebuilt", "2020-08-28"} {
		if !strings.Contains(out, frag) {
			t.Errorf("stdout lacks %q:\n%s", frag, out)
		}
	}
	if !strings.Contains(errs, "SMC-ABC, 10 particles, budget 2000 simulations") {
		t.Errorf("stderr:\n%s", errs)
	}
	files, _ := filepath.Glob(filepath.Join(saved, "*.csv"))
	if len(files) != 10 {
		t.Errorf("saved posteriors %v", files)
	}
	out2, errs2, _ := runSmall(t, args...)
	if strings.Contains(errs2, "simulating") || strings.Contains(errs2, "budget") || strings.Count(out2, "saved posterior reused") != 10 {
		t.Errorf("second run computed again:\n%s\n%s", out2, errs2)
	}
	table := func(s string) string { return s[strings.Index(s, "Fig. 2B: R0"):] }
	if table(out2) != table(out) {
		t.Errorf("second run differs:\n%s\nfirst:\n%s", table(out2), table(out))
	}
	if _, err := os.Stat(filepath.Join(dir, "sir_outbreak_flu_boarding_school.svg")); err != nil {
		t.Error(err)
	}
}
