package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-n", "0"}, {"-n", "x"}, {"-T", "0"}, {"-c", "0"}, {"-eps", "-1"}, {"-clip", "0"}, {"-noise-reps", "0"}, {"-nope"}, {"stray"}} {
		if err := runCLI(flag.NewFlagSet("t", flag.ContinueOnError), args, io.Discard, io.Discard); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}

// TestRunSmall runs the program on small settings (n = 3 and 10 outbreaks,
// 60 public draws) and checks the table, the verdict line and the output
// files: every method reports c accepted draws or fewer, rejection ABC's
// posterior mean is the mean of the first c draws within ε_abc, errors are
// finite and the table lists the four methods at both n; the plots are
// written as PNG and SVG and progress reaches stderr.
func TestRunSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	var out, errw bytes.Buffer
	args := []string{"-n", "3,10", "-T", "60", "-noise-reps", "5", "-out", dir}
	if err := runCLI(flag.NewFlagSet("t", flag.ContinueOnError), args, &out, &errw); err != nil {
		t.Fatal(err)
	}
	clitest.Check(t, dir, errw.String())
	t.Log("\n" + out.String())
	if vs := cli.ParseVerdicts(out.String()); len(vs) != 1 || vs[0].Kind == "invalid" {
		t.Errorf("verdicts %+v", vs)
	}
	for _, f := range []string{"tb_errors.csv", "tb_posterior_n3.svg", "tb_posterior_n10.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if !bytes.Contains(out.Bytes(), []byte("ABCDP R")) || bytes.Count(out.Bytes(), []byte("\n    10 ")) != 4 {
		t.Errorf("table does not list four methods at n = 10")
	}
}

// TestRunRows checks the rows of a small run: counts, errors and the ABC
// row against the definition.
func TestRunRows(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	cfg := Config{Ns: []int{6}, T: 60, C: 5, EpsTotal: 1, EpsABC: 150, Clip: 200, NoiseReps: 3, Seed: 9}
	rows, err := Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	for _, r := range rows {
		if r.Method != "prior" && r.Accepted > cfg.C {
			t.Errorf("%s accepted %d > c", r.Method, r.Accepted)
		}
		if math.IsNaN(r.Err) || r.Err <= 0 || math.IsNaN(r.AvgErr) {
			t.Errorf("%s: error %v, mean %v", r.Method, r.Err, r.AvgErr)
		}
		if len(r.Samples) != r.Accepted {
			t.Errorf("%s: %d samples for %d accepted", r.Method, len(r.Samples), r.Accepted)
		}
		if r.Accepted > 0 {
			for i := range r.Mean {
				m := 0.0
				for _, s := range r.Samples {
					m += s[i] / float64(len(r.Samples))
				}
				if r.Method != "prior" && math.Abs(m-r.Mean[i]) > 1e-9*math.Abs(m) {
					t.Errorf("%s: mean[%d] %v, samples' mean %v", r.Method, i, r.Mean[i], m)
				}
			}
		}
	}
}

// TestVerdict checks the verdict logic on made-up rows.
func TestVerdict(t *testing.T) {
	mk := func(e100R, e1000R, e100, e1000 float64) []Row {
		return []Row{
			{N: 100, Method: "ABCDP", AvgErr: e100, SDErr: 0.5}, {N: 100, Method: "ABCDP R", AvgErr: e100R, SDErr: 0.5},
			{N: 1000, Method: "ABCDP", AvgErr: e1000, SDErr: 0.3}, {N: 1000, Method: "ABCDP R", AvgErr: e1000R, SDErr: 0.3},
		}
	}
	// 100 runs: the standard error of a difference is 0.071 at n = 100
	// and 0.042 at n = 1000.
	cfg := Config{Ns: []int{100, 1000}, NoiseReps: 100}
	for _, c := range []struct {
		rows []Row
		want string
	}{
		{mk(4.7, 2.2, 4.5, 2.1), cli.Reproduced},
		{mk(4.55, 2.2, 4.5, 2.1), cli.Partial}, // a tie at n = 100
		{mk(4.7, 2.2, 4.8, 2.1), cli.Partial},
		{mk(1, 2, 1.5, 3), cli.Differs},
	} {
		var b bytes.Buffer
		verdict(&b, cfg, c.rows)
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != c.want {
			t.Errorf("%+v: got %+v, want %s", c.rows, vs, c.want)
		}
	}
}
