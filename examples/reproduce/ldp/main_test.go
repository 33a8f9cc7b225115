package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

// TestRunSmall runs every section at tiny sizes and checks that each
// prints its verdict line and writes its plot as PNG and SVG, and that
// progress reaches stderr.
func TestRunSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	c := config{n: 40, datasets: 12, histN: []int{200}, histEps: []float64{1}, histRuns: 2, calEps: []float64{1}, histCalRuns: 3, expRuns: 3, warmup: 100, draws: 100, seed: 3, out: dir}
	var out, errw bytes.Buffer
	if err := run(t.Context(), c, &out, &errw); err != nil {
		t.Fatal(err)
	}
	plots := clitest.Check(t, dir, errw.String())
	for _, base := range []string{"ldp_fig1_calibration", "ldp_fig3_histogram", "ldp_fig9_histogram_eps1", "ldp_fig10_histogram_calibration", "ldp_fig11_exponential_calibration"} {
		if !slices.Contains(plots, base+".png") || !slices.Contains(plots, base+".svg") {
			t.Errorf("plots %v lack %s", plots, base)
		}
	}
	v := cli.ParseVerdicts(out.String())
	if len(v) != 5 {
		t.Fatalf("want 5 verdicts, got %d:\n%s", len(v), out.String())
	}
	for _, want := range []string{"Fig. 1", "Fig. 3", "Fig. 9", "Fig. 10", "Fig. 11"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestParseRejectsBadValues(t *testing.T) {
	for _, args := range [][]string{{"-n", "-1"}, {"-datasets", "3"}, {"-hist-runs", "1"}, {"-fig10-runs", "1"}, {"-fig11-runs", "0"}, {"-cal-eps", "0"}, {"-fig9-eps", "x"}} {
		fs := flag.NewFlagSet("ldp", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		if _, err := parse(fs, args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

// TestSkipParts checks that the -skip flags leave out exactly their parts:
// with three skipped only Fig. 11 runs and prints its single verdict.
func TestSkipParts(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	fs := flag.NewFlagSet("ldp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c, err := parse(fs, []string{"-skip-fig1", "-skip-hist", "-skip-fig10", "-fig11-runs", "3", "-cal-eps", "1"})
	if err != nil {
		t.Fatal(err)
	}
	if !c.skip["fig1"] || !c.skip["hist"] || !c.skip["fig10"] || c.skip["fig11"] {
		t.Fatalf("skip = %v", c.skip)
	}
	var out, errw bytes.Buffer
	if err := run(t.Context(), c, &out, &errw); err != nil {
		t.Fatal(err)
	}
	v := cli.ParseVerdicts(out.String())
	if len(v) != 1 || !strings.Contains(out.String(), "Fig. 11") || strings.Contains(out.String(), "Fig. 1:") {
		t.Fatalf("want only Fig. 11, got %d verdicts:\n%s", len(v), out.String())
	}
}
