package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
	"github.com/privinfer/privinfer/mcmc"
)

// TestTableTiny runs the table at tiny settings (two n, two ε, 60 sweeps)
// and checks its rows, R̂ and ESS columns, the capped SOMA sweeps, the
// verdict, the plots and the progress on stderr.
func TestTableTiny(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	c, err := parse(flag.NewFlagSet(name, flag.ContinueOnError), []string{"-n", "5,100", "-eps", "3,30", "-sweeps", "60",
		"-chains", "2", "-max-weights", "2e5", "-seed", "4", "-out", dir})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run(t.Context(), c, &out, &errb); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	rows := 0
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "| 5 ") || strings.HasPrefix(line, "| 100 ") {
			rows++
		}
	}
	if rows != 12 {
		t.Errorf("%d table rows, want 2 n × 2 ε × 3 kernels = 12:\n%s", rows, s)
	}
	for _, want := range []string{"max R̂", "ESS per 1000 sweeps", "ESS/s"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	// SOMA at n = 100 is capped at 2e5/(1.1·100²) → the minimum of 20
	// sweeps; IMwG runs all 60.
	for _, want := range [][]string{{"100", "3", "SOMA", "20"}, {"5", "30", "Sys-IMwG", "60"}, {"100", "30", "Ran-IMwG", "60"}} {
		if !hasRow(s, want) {
			t.Errorf("no row starting %q:\n%s", want, s)
		}
	}
	if v := cli.ParseVerdicts(s); len(v) != 1 {
		t.Errorf("want one verdict, got %d:\n%s", len(v), s)
	}
	if !strings.Contains(errb.String(), "n=100 ε=30 Ran-IMwG") {
		t.Errorf("stderr lacks the progress of the last cell:\n%s", errb.String())
	}
	files := clitest.Check(t, dir, errb.String())
	if len(files) != 4 {
		t.Errorf("plot files %v, want the two charts as SVG and PNG", files)
	}
}

// TestBadFlags checks that bad flags are usage errors and that nothing
// runs.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-n", "0"}, {"-n", "x"}, {"-eps", "-1"}, {"-eps", "1,,3"}, {"-sweeps", "5"}, {"-chains", "1"},
		{"-max-weights", "0"}, {"-nope"}, {"stray"}} {
		if _, err := parse(flag.NewFlagSet(name, flag.ContinueOnError), args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}

// hasRow reports whether a Markdown table row of out starts with cells.
func hasRow(out string, cells []string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(strings.Trim(line, "| "), "|")
		if len(f) < len(cells) {
			continue
		}
		ok := true
		for i, c := range cells {
			ok = ok && strings.TrimSpace(f[i]) == c
		}
		if ok {
			return true
		}
	}
	return false
}

// TestVerdictTies checks the verdict's reading of the ESS per sweep: a
// SOMA lead within tieMargin is a tie, not support for the slides' claim,
// and leads beyond it at every ε (or at none) give reproduced (differs).
func TestVerdictTies(t *testing.T) {
	cellsAt := func(soma ...float64) []cell {
		var cs []cell
		for i, v := range soma {
			e := float64(i + 1)
			cs = append(cs, cell{n: 100, eps: e, kernel: mcmc.SOMA, perKSweeps: v, maxRHat: 1.01, perCPU: 1},
				cell{n: 100, eps: e, kernel: mcmc.SystematicScanIMwG, perKSweeps: 10, maxRHat: 1.01, perCPU: 5},
				cell{n: 100, eps: e, kernel: mcmc.RandomScanIMwG, perKSweeps: 8, maxRHat: 1.01, perCPU: 4})
		}
		return cs
	}
	for _, tc := range []struct {
		soma []float64
		want cli.Outcome
	}{
		{[]float64{12.5, 13}, cli.Reproduced}, // leads by 25% and 30%
		{[]float64{11, 11.9}, cli.Differs},    // ties only
		{[]float64{6, 10.1}, cli.Differs},     // behind, then a tie
		{[]float64{12.5, 9}, cli.Partial},     // one lead
	} {
		var b strings.Builder
		verdict(cellsAt(tc.soma...), &b)
		v := cli.ParseVerdicts(b.String())
		if len(v) != 1 || v[0].Kind != string(tc.want) {
			t.Errorf("SOMA %v: verdicts %+v, want %s:\n%s", tc.soma, v, tc.want, b.String())
		}
	}
}
