package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
	"github.com/privinfer/privinfer/simulate/naivebayes"
)

// TestExactLikMatchesMonteCarlo checks the exact privatized likelihood
// against an independent Monte Carlo estimate E_x[Π_j Lap(s_j − r_j(x))]
// over confidential data simulated by package simulate. With 200 000 draws
// the estimate's relative standard error is computed from the sample; the
// test fails beyond 5 standard errors (false-alarm rate < 1e-6 per case
// under a normal approximation).
func TestExactLikMatchesMonteCarlo(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	levels := []int{2, 2}
	m, err := naivebayes.New(naivebayes.Config{Classes: 2, Levels: levels, N: 6})
	if err != nil {
		t.Fatal(err)
	}
	b := m.Sensitivity() / 2 // ε = 2
	r := rand.New(rand.NewPCG(3, 4))
	thetas := [][]float64{
		naivebayes.PaperTheta(),
		{0.1, 0.9, 0.5, 0.5, 0.7, 0.3, 0.2, 0.8, 0.4, 0.6},
	}
	for ci, theta := range thetas {
		obs := make([]float64, m.StatDim())
		if err := m.Simulate(r, theta, obs); err != nil {
			t.Fatal(err)
		}
		for j := range obs {
			obs[j] += 0.3 * r.NormFloat64() * b
		}
		lik, err := newExactLik(m, levels, obs, b)
		if err != nil {
			t.Fatal(err)
		}
		got := lik.LogLik(theta)
		const draws = 200000
		x := make([]float64, m.StatDim())
		var s1, s2 float64
		for range draws {
			if err := m.Simulate(r, theta, x); err != nil {
				t.Fatal(err)
			}
			v := 1.0
			for j := range x {
				v *= math.Exp(-math.Abs(obs[j]-x[j])/b) / (2 * b)
			}
			s1 += v
			s2 += v * v
		}
		mean := s1 / draws
		se := math.Sqrt((s2/draws - mean*mean) / draws)
		if d := math.Abs(math.Exp(got) - mean); d > 5*se {
			t.Errorf("case %d: exact likelihood %v, Monte Carlo %v ± %v", ci, math.Exp(got), mean, se)
		}
	}
	if _, err := newExactLik(m, []int{2, 3}, make([]float64, 10), b); !errors.Is(err, errNotBinary) {
		t.Errorf("non-binary features: got %v, want errNotBinary", err)
	}
}

// TestExactLikEdges checks that probabilities at the simplex boundary give
// finite or −Inf log-likelihoods, never NaN.
func TestExactLikEdges(t *testing.T) {
	m := naivebayes.Paper()
	lik, err := newExactLik(m, []int{2, 2}, naivebayes.Release(), m.Sensitivity()/10)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range [][]float64{
		{0, 1, 1, 0, 0.5, 0.5, 0.5, 0.5, 1, 0},
		{0.4, 0.6, 0.75, 0.25, 0.6, 0.4, 0.6, 0.4, 0.77, 0.23},
	} {
		if v := lik.LogLik(th); math.IsNaN(v) || math.IsInf(v, 1) {
			t.Errorf("LogLik(%v) = %v", th, v)
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-eps", "0"}, {"-eps", "-1"}, {"-n", "0"}, {"-particles", "3"}, {"-quantile", "1"},
		{"-chains", "1"}, {"-burn", "10"}, {"-bogus"}, {"-seed", "x"}, {"extra"},
		{"-sppe-rounds", "-1"}, {"-sppe-sims", "5"}, {"-sppe-inner", "0"},
		{"-sple-rounds", "-1"}, {"-sple-sims", "5"}, {"-sple-inner", "0"},
		{"-trials", "-1"}, {"-trials", "3", "-sppe-rounds", "0", "-sple-rounds", "0"}, {"-trials", "0", "-trials-dir", "d"},
	} {
		_, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args)
		if !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-quick", "-particles", "77"})
	if err != nil || cfg.particles != 77 || cfg.iters != 5000 || !cfg.Quick {
		t.Errorf("-quick with explicit -particles: %+v, %v", cfg, err)
	}
}

// TestFloat32Flag checks that -float32 reaches both neural runs and their
// cache keys, and that float64 runs keep the key they had before the flag.
func TestFloat32Flag(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	plain, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	f32, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-float32"})
	if err != nil {
		t.Fatal(err)
	}
	if plain.sppe.Float32 || plain.sple.Float32 || !f32.sppe.Float32 || !f32.sple.Float32 {
		t.Errorf("Float32: default %v/%v, -float32 %v/%v", plain.sppe.Float32, plain.sple.Float32, f32.sppe.Float32, f32.sple.Float32)
	}
	const old = "rounds=6 sims=500 M=8 atoms=10 layers=4 hidden=32 blocks=1 epochs=40 patience=5 draws=2000 seed=3"
	if k := plain.sppe.key(); k != old {
		t.Errorf("float64 key %q, want %q", k, old)
	}
	if f32.sppe.key() == plain.sppe.key() || f32.sple.key() == plain.sple.key() {
		t.Errorf("-float32 does not change the cache keys: %q", f32.sppe.key())
	}
}

// TestRunTiny runs the whole program on tiny settings with a fake
// reference file and checks the table, the verdict line, the files, the
// plots (PNG and SVG) and the progress lines.
func TestRunTiny(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.csv")
	var b strings.Builder
	b.WriteString(",0,1,2,3,4,5,6,7,8,9\n")
	r := rand.New(rand.NewPCG(5, 6))
	m := naivebayes.Paper()
	prior, _ := m.Prior(2)
	th := make([]float64, 10)
	for i := range 50 {
		prior.Sample(r, th)
		b.WriteString(strings.Join(append([]string{string(rune('0' + i%10))}, cli.FloatRow(th...)...), ",") + "\n")
	}
	if err := os.WriteFile(ref, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{
		"-particles", "60", "-rounds", "3", "-iters", "200", "-burn", "1000", "-chains", "2", "-sppe-rounds", "0", "-sple-rounds", "0",
		"-reference", ref, "-out", filepath.Join(dir, "out"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if err := run(context.Background(), cfg, &out, &errw); err != nil {
		t.Fatal(err)
	}
	plots := clitest.Check(t, filepath.Join(dir, "out"), errw.String())
	for _, want := range []string{"naivebayes_corner.svg", "naivebayes_corner.png", "naivebayes_abc_rounds.svg", "naivebayes_abc_rounds.png"} {
		if !slices.Contains(plots, want) {
			t.Errorf("plots %v lack %s", plots, want)
		}
	}
	s := out.String()
	if vs := cli.ParseVerdicts(s); len(vs) != 1 || vs[0].Kind == "invalid" {
		t.Errorf("verdicts %+v in\n%s", vs, s)
	}
	for _, want := range []string{"| p^1_11 |", "| p_2 ", "authors' SMC-ABC (paper)", "50 draws"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	for _, f := range []string{"naivebayes_corner.svg", "naivebayes_abc_rounds.png", "naivebayes_smcabc.csv", "naivebayes_exact.csv"} {
		if st, err := os.Stat(filepath.Join(dir, "out", f)); err != nil || st.Size() == 0 {
			t.Errorf("missing output %s: %v", f, err)
		}
	}
	// A missing reference file is an error when named explicitly.
	cfg.reference = filepath.Join(dir, "nope.csv")
	cfg.Out = ""
	if err := run(context.Background(), cfg, io.Discard, io.Discard); err == nil {
		t.Error("missing explicit reference file: no error")
	}
}

// TestRunTinyNeural runs SPPE and SPLE in two trials on tiny settings
// with -out and -trials-dir and checks their columns, the Fig. 13 table,
// CSV files and charts (PNG and SVG), the progress lines and the two
// verdict lines; a second run reads the saved trials instead of training
// again and prints the same Fig. 13 table.
func TestRunTinyNeural(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	saved := filepath.Join(dir, "trials")
	args := []string{
		"-particles", "30", "-rounds", "2", "-iters", "100", "-burn", "1000", "-chains", "2", "-reference", "none",
		"-sppe-rounds", "2", "-sppe-sims", "40", "-sppe-inner", "2", "-sple-rounds", "2", "-sple-sims", "40", "-sple-inner", "2",
		"-trials", "2", "-trials-dir", saved,
	}
	runOnce := func(out string) (string, string) {
		t.Helper()
		cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), append(args, "-out", out))
		if err != nil {
			t.Fatal(err)
		}
		for _, nc := range []*neuralConfig{&cfg.sppe, &cfg.sple} {
			nc.Epochs, nc.Draws = 3, 200
		}
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), cfg, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String()
	}
	out1 := filepath.Join(dir, "out1")
	s, errs := runOnce(out1)
	plots := clitest.Check(t, out1, errs)
	for _, m := range []string{"c2st", "mmd", "nlog", "lmd"} {
		for _, ext := range []string{".svg", ".png"} {
			if !slices.Contains(plots, "naivebayes_fig13_"+m+ext) {
				t.Errorf("plots %v lack naivebayes_fig13_%s%s", plots, m, ext)
			}
		}
	}
	for _, f := range []string{"naivebayes_fig13.csv", "naivebayes_fig13_trials.csv", "naivebayes_sppe.csv", "naivebayes_sple.csv"} {
		if st, err := os.Stat(filepath.Join(out1, f)); err != nil || st.Size() == 0 {
			t.Errorf("missing output %s: %v", f, err)
		}
	}
	for _, want := range []string{"SPPE (ours)", "SPLE (ours)", "SPLE (ours) vs exact (ours)", "below the paper's 10 rounds",
		"Fig. 13: accuracy per round against the exact posterior, 2 trials", "SPLE (2 rounds × 40 simulations, M = 2):", "| 2     | 80   |"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	vs := cli.ParseVerdicts(s)
	if len(vs) != 2 || vs[0].Kind == "invalid" || vs[1].Kind == "invalid" || !strings.Contains(vs[1].What, "Fig. 13") {
		t.Errorf("verdicts %+v in\n%s", vs, s)
	}
	for _, want := range []string{"SPPE trial 2 of 2 round 2: C2ST", "SPLE trial 1 of 2 round 1: C2ST"} {
		if !strings.Contains(errs, want) {
			t.Errorf("progress lacks %q:\n%s", want, errs)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(saved, "*.csv")); len(files) != 6 { // 2 methods × 2 trials, and trial 1's draws
		t.Errorf("saved trials: %v", files)
	}

	// The second run reads every trial and prints the same table.
	s2, errs2 := runOnce(filepath.Join(dir, "out2"))
	if strings.Contains(errs2, "epoch") || strings.Count(errs2, "read from") != 4 {
		t.Errorf("the second run trained again instead of reading the saved trials:\n%s", errs2)
	}
	table := func(s string) string {
		i := strings.Index(s, "### Fig. 13")
		if i < 0 {
			return ""
		}
		var keep []string
		for _, line := range strings.Split(s[i:], "\n") {
			if strings.HasPrefix(line, "|") || strings.HasPrefix(line, "verdict:") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "\n")
	}
	if a, b := table(s), table(s2); a == "" || a != b {
		t.Errorf("Fig. 13 differs after reading the saved trials:\n%s\n----\n%s", a, b)
	}
	if !strings.Contains(s2, "2 of 2 trials read from -trials-dir") {
		t.Errorf("second run does not say the trials were read:\n%s", s2)
	}
}

// TestSummaries checks the quartiles, the per-round summary and the
// stabilization rule of Fig. 13's verdict, and that saved metrics read back
// unchanged.
func TestSummaries(t *testing.T) {
	st := summarize([]float64{4, 1, math.NaN(), 3, 2})
	if st.N != 4 || st.Mean != 2.5 || st.Q25 != 1.75 || st.Q75 != 3.25 {
		t.Errorf("summarize: %+v, want mean 2.5, quartiles 1.75 and 3.25 of 4 values", st)
	}
	if st := summarize([]float64{7}); st.Mean != 7 || st.Q25 != 7 || st.Q75 != 7 {
		t.Errorf("summarize of one value: %+v", st)
	}
	mk := func(c2, mmd []float64) curve {
		c := curve{meth: "X", trials: 1, stats: make([][]stat, len(metricDefs))}
		for r := range c2 {
			c.sims = append(c.sims, 100*(r+1))
			c.stats[0] = append(c.stats[0], stat{Mean: c2[r]})
			c.stats[1] = append(c.stats[1], stat{Mean: mmd[r]})
		}
		return c
	}
	if ok, d2, dm := mk([]float64{0.9, 0.7, 0.62, 0.6, 0.61}, []float64{0.4, 0.1, 0.05, 0.04, 0.03}).stable(); !ok || math.Abs(d2-0.02) > 1e-12 || math.Abs(dm-0.05) > 1e-12 {
		t.Errorf("a flat tail: stable %v, ΔC2ST %v, ΔMMD %v", ok, d2, dm)
	}
	if ok, _, _ := mk([]float64{0.9, 0.8, 0.75, 0.65, 0.6}, []float64{0.4, 0.3, 0.2, 0.1, 0.05}).stable(); ok {
		t.Error("a curve still improving after round 3 counts as stable")
	}
	path := filepath.Join(t.TempDir(), "m.csv")
	in := []roundMetrics{{1, 100, 0.9, 0.25, 3.5, -1.25, 0.5, 2}, {2, 200, 0.75, math.NaN(), 1e-300, -2, 1, 4.5}}
	if err := writeMetrics(path, in); err != nil {
		t.Fatal(err)
	}
	got, err := readMetrics(path)
	if err != nil || len(got) != 2 || got[0] != in[0] || got[1].Sims != 200 || !math.IsNaN(got[1].MMD) || got[1].NLOG != 1e-300 {
		t.Errorf("readMetrics: %+v, %v; want %+v", got, err, in)
	}
}
