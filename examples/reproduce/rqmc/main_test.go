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

// TestProgram checks bad flags, then runs 10 randomizations per M and
// checks the verdict line, the CSV file, the plots and the progress lines.
func TestProgram(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	program := cli.Runner("t", parse, run)
	for _, args := range [][]string{{"-reps", "1"}, {"-reps", "x"}, {"-nope"}, {"stray"}} {
		if err := program(args, io.Discard, io.Discard); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	var out, errw bytes.Buffer
	if err := program([]string{"-quick", "-reps", "10", "-out", dir}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	vs := cli.ParseVerdicts(out.String())
	if len(vs) != 1 || vs[0].Kind == "invalid" || vs[0].Reason == "" {
		t.Errorf("verdicts %+v in\n%s", vs, out.String())
	}
	clitest.Check(t, dir, errw.String())
	if _, err := os.Stat(filepath.Join(dir, "rqmc.csv")); err != nil {
		t.Error(err)
	}
}

// TestSlope checks the fitted slope on exact power laws.
func TestSlope(t *testing.T) {
	for _, k := range []float64{-0.5, -1, 0.3} {
		y := make([]float64, len(ms))
		for i, m := range ms {
			y[i] = 3 * math.Pow(float64(m), k)
		}
		if got := slope(ms, y); math.Abs(got-k) > 1e-12 {
			t.Errorf("slope of M^%g: %v", k, got)
		}
	}
}
