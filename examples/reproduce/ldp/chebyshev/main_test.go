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
	"github.com/privinfer/privinfer/mcmc/ldp"
)

// TestProgram checks bad flags, then runs the quick study and checks the
// verdict line, the CSV file, the plots and the progress lines.
func TestProgram(t *testing.T) {
	program := cli.Runner("t", parse, run)
	for _, args := range [][]string{{"-runs", "1"}, {"-runs", "x"}, {"-nope"}, {"stray"}} {
		if err := program(args, io.Discard, io.Discard); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	var out, errw bytes.Buffer
	if err := program([]string{"-quick", "-out", dir}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	vs := cli.ParseVerdicts(out.String())
	if len(vs) != 1 || vs[0].Kind == "invalid" || vs[0].Reason == "" {
		t.Errorf("verdicts %+v in\n%s", vs, out.String())
	}
	clitest.Check(t, dir, errw.String())
	if _, err := os.Stat(filepath.Join(dir, "chebyshev.csv")); err != nil {
		t.Error(err)
	}
}

// TestDimensionSamplingError checks the study's numbers where they are
// known: with the symmetric expansion both expectations are ½, so the mean
// absolute difference over runs estimates E|mean of e(t)|, which the
// normal approximation √(2/π)·sd(e)/√n predicts. Over 400 runs the mean's
// standard error is about 0.6/√400 = 3% of it (|N(0, s²)| has sd 0.6 of
// its mean), so a 20% band has a false-alarm rate far below 10⁻⁶ at a
// fixed seed. The uniform error is also checked against the grid value.
func TestDimensionSamplingError(t *testing.T) {
	b, err := ldp.ChebyshevSigmoid(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []int{1, 4} {
		r := dimension(d, 400, b, 7)
		if math.Abs(r.mean-r.predicted) > 0.2*r.predicted {
			t.Errorf("d = %d: mean |difference| %.3g, predicted %.3g", d, r.mean, r.predicted)
		}
	}
	if w, at := uniformError(b); math.Abs(w-0.066812961041619426) > 1e-13 || math.Abs(math.Abs(at)-1.2981) > 1e-9 {
		t.Errorf("uniform error %.17g at %v", w, at)
	}
}
