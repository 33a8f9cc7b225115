package main

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

// TestProgram checks bad flags, then runs 60 data sets per setting and
// checks the two verdict lines, the CSV files, the plots (PNG and SVG) and
// the progress lines.
func TestProgram(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	program := cli.Runner("t", parse, run)
	for _, args := range [][]string{{"-datasets", "0"}, {"-datasets", "x"}, {"-nope"}, {"stray"}} {
		if err := program(args, io.Discard, io.Discard); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	var out, errw bytes.Buffer
	if err := program([]string{"-quick", "-datasets", "60", "-out", dir}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	vs := cli.ParseVerdicts(out.String())
	if len(vs) != 2 || vs[0].Kind == "invalid" || vs[1].Kind == "invalid" || vs[0].Reason == "" || vs[1].Reason == "" {
		t.Errorf("verdicts %+v in\n%s", vs, out.String())
	}
	clitest.Check(t, dir, errw.String())
	for _, f := range []string{"coverage.csv", "ranks.csv", "abcdp_ranks.svg", "abcdp_coverage.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// The same seed gives the same bytes although the fits run in
	// parallel (the exact-limit widths were once summed in completion
	// order, which changed the last digits of coverage.csv).
	again := filepath.Join(t.TempDir(), "again")
	if err := program([]string{"-quick", "-datasets", "60", "-out", again}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"coverage.csv", "ranks.csv"} {
		a, errA := os.ReadFile(filepath.Join(dir, f))
		b, errB := os.ReadFile(filepath.Join(again, f))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs with the same seed (%v, %v)", f, errA, errB)
		}
	}
}

// TestExactSD checks the exact posterior sd at k = 10 of n = 20 records
// (Beta(12, 12), sd √(144/(576·25)) = 0.1) and that the mean ratio of the
// prior's sd to the posterior's lies between its extremes over k.
func TestExactSD(t *testing.T) {
	if got := exactSD(0.5); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("exactSD(0.5) = %v, want 0.1", got)
	}
	r := priorRatio()
	lo, hi := math.Sqrt(0.05)/exactSD(0.5), math.Sqrt(0.05)/exactSD(0)
	if !(r > lo && r < hi) {
		t.Errorf("prior ratio %v outside (%v, %v)", r, lo, hi)
	}
}
