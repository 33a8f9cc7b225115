package main

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-T", "0"}, {"-c", "0"}, {"-eps-abc", "0"}, {"-noise-reps", "0"}, {"-nope"}, {"-seed", "x"}, {"stray"}} {
		if err := runCLI(flag.NewFlagSet("t", flag.ContinueOnError), args, &bytes.Buffer{}, &bytes.Buffer{}); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}

// TestData checks the embedded counts: 18 cumulative (non-decreasing)
// values from 1 to 1705, equal to the shared copy of the authors' array when
// it is present.
func TestData(t *testing.T) {
	times, y, err := loadData()
	if err != nil {
		t.Fatal(err)
	}
	if len(y) != 18 || y[0] != 1 || y[17] != 1705 || times[17] != 17 {
		t.Fatalf("counts %v at %v", y, times)
	}
	for i := 1; i < len(y); i++ {
		if y[i] < y[i-1] {
			t.Errorf("not cumulative at %d: %v < %v", i, y[i], y[i-1])
		}
	}
	path, ok := cli.SharedFile("data/covid_netherlands/abcdp_observations.csv")
	if !ok {
		t.Skip("shared data absent")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, dataCSV) {
		t.Error("embedded counts differ from the shared copy")
	}
}

// TestRunSmall runs a reduced experiment and checks the table, the verdict
// line, the output files, the plots (PNG and SVG) and the progress lines.
func TestRunSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	var out, errw bytes.Buffer
	if err := runCLI(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-T", "5000", "-noise-reps", "20", "-out", dir}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	clitest.Check(t, dir, errw.String())
	vs := cli.ParseVerdicts(out.String())
	if len(vs) != 1 || vs[0].Kind == "invalid" {
		t.Errorf("verdicts %+v in\n%s", vs, out.String())
	}
	for _, f := range []string{"covid_table.csv", "covid_curves.csv", "covid_abc.svg", "covid_eps44.png", "covid_eps13.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestRows checks the rows against their definitions: at most c accepted
// draws, the posterior mean is their mean, the fit RMSE is that of the
// curve at the mean, and the noise scale is Thm. 4.1's for Δρ = 2/18.
func TestRows(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	res, err := Run(t.Context(), Config{T: 3000, C: 5, NoiseReps: 5, EpsABC: 0.1, Seed: 3}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 7 {
		t.Fatalf("%d rows", len(res.Rows))
	}
	for _, r := range res.Rows {
		if len(r.Accepted) > 5 {
			t.Errorf("%s: %d accepted", r.name(), len(r.Accepted))
		}
		m := make([]float64, 4)
		for _, th := range r.Accepted {
			for i, v := range th {
				m[i] += v / float64(len(r.Accepted))
			}
		}
		s := 0.0
		for j, tt := range res.Times {
			y := m[3] + m[2]*tt + m[1]*tt*tt + m[0]*tt*tt*tt
			s += (y - res.Observed[j]) * (y - res.Observed[j])
		}
		if rmse := math.Sqrt(s / 18); math.Abs(rmse-r.RMSE) > 1e-9*rmse {
			t.Errorf("%s: RMSE %v, want %v", r.name(), r.RMSE, rmse)
		}
		if !math.IsInf(r.EpsTotal, 1) {
			c := 5.0
			want := (c + 1) * (2.0 / 18) / r.EpsTotal
			if r.Resample {
				want = 2 * c * (2.0 / 18) / r.EpsTotal
			}
			if math.Abs(r.B-want) > 1e-12*want {
				t.Errorf("%s: b = %v, want %v", r.name(), r.B, want)
			}
		}
	}
}

// TestVerdict checks the verdict logic on made-up rows.
func TestVerdict(t *testing.T) {
	mk := func(spreads, rmses []float64) *Result {
		res := &Result{Rows: []Row{{EpsTotal: math.Inf(1), AvgRMSE: 50}}}
		k := 0
		for _, e := range epsTotals {
			for _, r := range []bool{false, true} {
				res.Rows = append(res.Rows, Row{EpsTotal: e, Resample: r, AvgSpread: spreads[k], AvgRMSE: rmses[k]})
				k++
			}
		}
		return res
	}
	for _, c := range []struct {
		spreads, rmses []float64
		want           string
	}{
		{[]float64{1, 2, 3, 4, 5, 6}, []float64{60, 70, 80, 90, 100, 110}, cli.Reproduced},
		{[]float64{1, 2, 3, 4, 5, 6}, []float64{60, 70, 50, 90, 100, 110}, cli.Partial},
		{[]float64{6, 5, 4, 3, 2, 1}, []float64{600, 500, 400, 300, 200, 100}, cli.Differs},
	} {
		var b bytes.Buffer
		verdict(&b, mk(c.spreads, c.rmses))
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != c.want {
			t.Errorf("%v %v: %+v, want %s", c.spreads, c.rmses, vs, c.want)
		}
	}
}
