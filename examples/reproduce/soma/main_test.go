package main

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

// TestBadFlags checks that bad flags are usage errors (exit status 2 with
// the usage message through cli.Main) and that nothing runs.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-pairs", "0"}, {"-pairs", "x"}, {"-nope"}, {"-linreg=maybe"}, {"stray"}} {
		if err := run(args, io.Discard, io.Discard); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	if code := cli.Exit(name, usage, run, []string{"-nope"}, io.Discard, io.Discard); code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
}

// TestRunTiny runs the four parts at tiny sizes with -out: the verdicts
// are printed, the coupling, n = 2 trace, R-hat and corner plots are
// written as PNG and SVG, and progress reaches stderr.
func TestRunTiny(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	var out, errw bytes.Buffer
	if err := run([]string{"-pairs", "20", "-n10-iters", "300", "-n2-grid", "8", "-n100-iters", "300", "-linreg-div", "1000", "-out", dir}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	if vs := cli.ParseVerdicts(out.String()); len(vs) < 2 {
		t.Errorf("verdicts %+v in\n%s", vs, out.String())
	}
	plots := clitest.Check(t, dir, errw.String())
	for _, base := range []string{"soma_n10_coupling", "soma_n2_trace_soma", "soma_n2_trace_ranimwg", "soma_n2_trace_sysimwg", "soma_n100_rhat", "linreg_eps10_damcmc"} {
		if !slices.Contains(plots, base+".png") || !slices.Contains(plots, base+".svg") {
			t.Errorf("plots %v lack %s", plots, base)
		}
	}
	for _, args := range [][]string{{"-n100-iters", "50"}, {"-n10-iters", "-1"}, {"-linreg-div", "-2"}, {"-n2-grid", "1"}, {"-n2-grid", "41"}} {
		if err := run(args, io.Discard, io.Discard); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}
