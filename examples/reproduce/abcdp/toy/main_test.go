package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

// TestToyTrends runs a small version of the experiment and checks Fig. 2's
// first trend, which holds without privacy noise by construction of the
// rejection step: the smallest ε_abc gives a smaller MSE than the largest,
// and that every entry of the table is a valid MSE. T = 2000 public draws
// let ε_abc = 0.05 accept draws in most data replicates (with T = 800 both
// replicates of seed 3 accepted none, and the check compared the prior
// mean's fallback MSE with ε_abc = 0.5's); the MSE at 0.05 is then 2–10
// times smaller than at 0.5 for seeds 3–6.
func TestToyTrends(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	cfg := Config{N: 300, T: 2000, Cs: []int{5}, Reps: 2, NoiseReps: 10, Features: 50,
		EpsABC: []float64{0.05, 0.5}, EpsTotal: []float64{0.5, 10}, Seed: 3}
	var buf bytes.Buffer
	tab, err := Run(context.Background(), cfg, &buf)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + buf.String())
	m := tab.MSE[0]
	if !(m[0][0] < m[1][0]) {
		t.Fatalf("ABC MSE at ε_abc = 0.05 (%v) not below that at 0.5 (%v)", m[0][0], m[1][0])
	}
	for i := range m {
		for _, v := range m[i] {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Fatalf("MSE %v out of range", v)
			}
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-n", "1"}, {"-c", "0"}, {"-c", "10,x"}, {"-reps", "0"}, {"-features", "0"}, {"-flip-mc", "-1"}, {"-nope"}, {"stray"}} {
		if err := runCLI(flag.NewFlagSet("t", flag.ContinueOnError), args, io.Discard, io.Discard); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}

// TestCLISmall runs the command on small settings and checks the verdict
// line, the output files, the plots (PNG and SVG) and the progress lines.
func TestCLISmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	var out, errw bytes.Buffer
	args := []string{"-n", "200", "-T", "300", "-c", "5,50", "-reps", "1", "-noise-reps", "3", "-features", "20", "-flip-mc", "2000", "-out", dir}
	if err := runCLI(flag.NewFlagSet("t", flag.ContinueOnError), args, &out, &errw); err != nil {
		t.Fatal(err)
	}
	clitest.Check(t, dir, errw.String())
	vs := cli.ParseVerdicts(out.String())
	if len(vs) != 2 || vs[0].Kind != cli.Reproduced || vs[1].Kind == "invalid" {
		t.Errorf("verdicts %+v in\n%s", vs, out.String())
	}
	for _, f := range []string{"toy_mse.csv", "toy_mse_c5.svg", "toy_mse_c50.png", "flip_probability.csv", "flip_probability_N10.svg", "flip_probability_N1000.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestFlipTable checks Fig. 1's numbers: each median is G_b at the median
// |ρ − ε_abc| with b = 2c/(N ε_total), the quartiles are ordered, and the
// simulated decisions of ABCDP flip at G_b (|z| < 4 in every setting with
// 4000 decisions each; fixed seed).
func TestFlipTable(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	rows, err := flipTable(7, 4000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3*3*len(flipEps) {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		b := 2 * float64(r.C) / float64(r.N) / r.EpsTotal
		if math.Abs(r.B-b) > 1e-12*b {
			t.Errorf("N = %d, c = %d, ε = %g: b = %v, want %v", r.N, r.C, r.EpsTotal, r.B, b)
		}
		if !(r.Min <= r.Q1 && r.Q1 <= r.Med && r.Med <= r.Q3 && r.Q3 <= r.Max && r.Max <= 0.5) {
			t.Errorf("unordered summary %+v", r)
		}
		a := math.Abs(r.RhoMed - 0.2)
		g := (4*math.Exp(-a/(2*b)) - math.Exp(-a/b)) / 6
		if math.Abs(r.GMed-g) > 1e-12 {
			t.Errorf("G_b = %v, want %v", r.GMed, g)
		}
		if z := (r.MC - r.GMed) / r.MCSE; math.Abs(z) > 4 {
			t.Errorf("N = %d, c = %d, ε = %g: simulated flip rate %v, G_b %v (z = %.1f)", r.N, r.C, r.EpsTotal, r.MC, r.GMed, z)
		}
	}
	var b bytes.Buffer
	flipVerdict(&b, rows)
	if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != cli.Reproduced {
		t.Errorf("verdict %+v", vs)
	}
}

// TestVerdictMonteCarloError checks that a reversal of RESAMPLE's order
// within two paired standard errors is undecided and one beyond them
// fails the check.
func TestVerdictMonteCarloError(t *testing.T) {
	cfg := Config{N: 10, T: 10, EpsABC: []float64{0.05}, EpsTotal: []float64{10}}
	tab := func(noR, withR []float64) *Table {
		mean := func(v []float64) float64 { return (v[0] + v[1] + v[2]) / 3 }
		return &Table{Cs: []int{10}, Columns: []string{"ABC", "10", "10R"},
			MSE:    [][][]float64{{{0.001, mean(noR), mean(withR)}}},
			RepMSE: [][][][]float64{{{{0.001, 0.001, 0.001}, noR, withR}}}}
	}
	var b strings.Builder
	verdict(&b, cfg, tab([]float64{0.0030, 0.0026, 0.0030}, []float64{0.0029, 0.0027, 0.0029}))
	if !strings.Contains(b.String(), "verdict: reproduced") || !strings.Contains(b.String(), "undecided") {
		t.Errorf("small reversal: %s", b.String())
	}
	b.Reset()
	verdict(&b, cfg, tab([]float64{0.0040, 0.0041, 0.0042}, []float64{0.0029, 0.0030, 0.0031}))
	if strings.Contains(b.String(), "verdict: reproduced") || !strings.Contains(b.String(), "above RESAMPLE true") {
		t.Errorf("large reversal: %s", b.String())
	}
}
