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

// TestRunSmall runs every section at tiny sizes (Fig. 5 only when the
// shared Adult data is present) and checks the verdict lines and tables,
// the plots (PNG and SVG) and the progress lines.
func TestRunSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	fs := flag.NewFlagSet("regression", flag.ContinueOnError)
	c, err := parse(fs, []string{"-repeats", "1", "-eps-lin", "0.5,8", "-eps-log", "1", "-warmup", "60", "-draws", "60", "-chains", "2",
		"-coverage-reps", "2", "-coverage-n", "500", "-input-n", "500", "-adult-limit", "2500", "-seed", "3", "-out", dir})
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if err := run(t.Context(), c, &out, &errw); err != nil {
		t.Fatal(err)
	}
	plots := clitest.Check(t, dir, errw.String())
	for _, base := range []string{"ldp_fig4_wine_rmse", "ldp_regression_coverage"} {
		if !slices.Contains(plots, base+".png") || !slices.Contains(plots, base+".svg") {
			t.Errorf("plots %v lack %s", plots, base)
		}
	}
	if !strings.Contains(errw.String(), "NUTS: chain") {
		t.Errorf("no NUTS progress on stderr:\n%s", errw.String())
	}
	s := out.String()
	want := []string{"Fig. 4", "Coverage of the regression posteriors"}
	_, adult := cli.SharedFile("data/adult/adult.data")
	if adult {
		want = append(want, "Fig. 5")
	} else if !strings.Contains(s, "Adult is not present") {
		t.Error("without the shared data the output must say that Fig. 5 was skipped")
	}
	if v := cli.ParseVerdicts(s); len(v) != len(want) {
		t.Fatalf("want %d verdicts, got %d:\n%s", len(want), len(v), s)
	}
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("output lacks %q", w)
		}
	}
}

func TestParseRejectsBadValues(t *testing.T) {
	for _, args := range [][]string{{"-repeats", "0"}, {"-eps-lin", "0,1"}, {"-eps-log", "x"}, {"-delta", "1"}, {"-d-wine", "13"},
		{"-d-adult", "9"}, {"-coverage-reps", "1"}, {"-sgd-rate", "-1"}, {"-input-n", "5"}} {
		fs := flag.NewFlagSet("regression", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		if _, err := parse(fs, args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}
