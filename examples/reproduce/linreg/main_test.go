package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate/linreg"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-eps", "x"}, {"-eps", "2"}, {"-eps", "-1"}, {"-methods", "mcmc"}, {"-rounds", "0"}, {"-sims", "1"},
		{"-lr", "0"}, {"-n", "3"}, {"-nope"}, {"stray"}, {"-sweep", "0"}, {"-sweep", "1,x"}, {"-sweep", "1,1"}, {"-draws", "d"},
		{"-gibbs-iters", "10"}, {"-abc-sims", "5"}, {"-abc-sims", "-1"}, {"-abc-particles", "1"},
	} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-quick", "-sims", "50"})
	if err != nil || len(c.Eps) != 2 || c.Rounds != 2 || c.Sims != 50 || c.gibbsIters != 5000 || c.abcSims != 30000 || c.abcParticles != 300 {
		t.Errorf("-quick: %+v, %v", c, err)
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		acc  []methodAccuracy
		want string
	}{
		{[]methodAccuracy{{"sppe", 0.55, 0.1}, {"sple", 0.6, 0.1}}, cli.Reproduced},
		{[]methodAccuracy{{"sppe", 0.55, 0.1}, {"sple", 0.9, 1}}, cli.Partial},
		{[]methodAccuracy{{"sppe", 0.8, 1}}, cli.Differs},
		{[]methodAccuracy{{"sppe", 0.55, 0.2}}, cli.Differs},
	} {
		var b bytes.Buffer
		verdict(&b, 10, tc.acc)
		vs := cli.ParseVerdicts(b.String())
		if len(vs) != 1 || vs[0].Kind != tc.want || vs[0].What != "SBI paper Table 2 (linear regression, ε = 10)" {
			t.Errorf("%+v: got %+v, want %s", tc.acc, vs, tc.want)
		}
	}
}

// TestInv3 checks the cofactor inverse against the identity A·A⁻¹ = I and
// its refusal of matrices that are not positive definite.
func TestInv3(t *testing.T) {
	a := []float64{4, 1, 0.5, 1, 3, -0.2, 0.5, -0.2, 2}
	inv, ok := inv3(a)
	if !ok {
		t.Fatal("positive definite matrix refused")
	}
	for i := range 3 {
		for j := range 3 {
			var s float64
			for k := range 3 {
				s += a[i*3+k] * inv[k*3+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-12 {
				t.Fatalf("(A·A⁻¹)[%d,%d] = %v, want %v", i, j, s, want)
			}
		}
	}
	if _, ok := inv3([]float64{1, 2, 0, 2, 1, 0, 0, 0, 1}); ok {
		t.Fatal("indefinite matrix accepted")
	}
}

func TestSweepVerdict(t *testing.T) {
	// pt is a posterior with the given means and a symmetric interval of
	// half-width h (sd h/2).
	pt := func(m string, eps, h float64, mean ...float64) sweepPoint {
		p := sweepPoint{eps: eps, method: m, mean: mean}
		for _, v := range mean {
			p.lo, p.hi, p.sd = append(p.lo, v-h), append(p.hi, v+h), append(p.sd, h/2)
		}
		return p
	}
	prior := func(m string) sweepPoint { return pt(m, 0.1, 2, 0, 0, 0) }
	sharp := func(m string, shift float64) sweepPoint { return pt(m, 100, 0.5, -0.6+shift, -2.7, 0.5) }
	for _, tc := range []struct {
		pts  []sweepPoint
		want string
	}{
		{[]sweepPoint{prior("SPPE"), prior("SPLE"), sharp("SPPE", 0), sharp("SPLE", 0.1)}, cli.Reproduced},
		// The methods disagree at ε = 100.
		{[]sweepPoint{prior("SPPE"), prior("SPLE"), sharp("SPPE", 0), sharp("SPLE", 1)}, cli.Partial},
		// Neither narrower nor closer to E[β | x].
		{[]sweepPoint{prior("SPPE"), pt("SPPE", 100, 3, 1, 1, 1)}, cli.Differs},
		{[]sweepPoint{prior("SPPE")}, cli.Partial},
		{nil, cli.Partial},
	} {
		var b bytes.Buffer
		sweepVerdict(&b, tc.pts)
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != tc.want || !strings.Contains(vs[0].What, "Fig. 11") {
			t.Errorf("%+v: got %+v, want %s", tc.pts, vs, tc.want)
		}
	}
}

// TestSweepSmall runs the Fig. 11 mode at a tiny size: three budgets (two
// of the paper's releases and a simulated one), the charts (PNG and SVG),
// the verdict, and a second run that reuses the saved posteriors.
func TestSweepSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir, draws := t.TempDir(), t.TempDir()
	args := []string{"-quick", "-sweep", "0.1,10,100", "-rounds", "1", "-sims", "30", "-epochs", "1", "-n", "50", "-out", dir, "-draws", draws}
	runIt := func() string {
		c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args)
		if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if err := runAll(context.Background(), c, &out, &errb); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	out := runIt()
	for _, frag := range []string{"(the paper's release)", "simulated: s̃ + Laplace noise of scale 0.0013 (seed 1)", "100    SPLE", "trained in"} {
		if !strings.Contains(out, frag) {
			t.Errorf("stdout lacks %q:\n%s", frag, out)
		}
	}
	if vs := cli.ParseVerdicts(out); len(vs) != 1 || !strings.Contains(vs[0].What, "Fig. 11") {
		t.Errorf("verdicts %+v", vs)
	}
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, "linreg_sweep_"+name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Error(err)
		}
		f.Close()
		if svg, err := os.ReadFile(filepath.Join(dir, "linreg_sweep_"+name+".svg")); err != nil || !strings.HasPrefix(string(svg), "<svg") && !strings.HasPrefix(string(svg), "<?xml") {
			t.Errorf("%s.svg: %v %.40q", name, err, svg)
		}
	}
	again := runIt()
	if strings.Contains(again, "trained in") || strings.Count(again, "saved linreg_sweep_") != 6 {
		t.Errorf("second run did not reuse the saved posteriors:\n%s", again)
	}
	// The second run prints the releases the saved posteriors were
	// trained on: the same seed gives the same simulated releases.
	releases := func(s string) (ls []string) {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "s_dp =") {
				ls = append(ls, l)
			}
		}
		return ls
	}
	if r1, r2 := releases(out), releases(again); len(r1) != 3 || !slices.Equal(r1, r2) {
		t.Errorf("releases of the training run\n%s\nand of the run that read its posteriors\n%s", strings.Join(r1, "\n"), strings.Join(r2, "\n"))
	}
	// The saved posteriors give the same table.
	cut := func(s string) string { i := strings.Index(s, "verdict:"); return s[i:] }
	if cut(out) != cut(again) {
		t.Errorf("verdict changed on reuse:\n%s\n%s", cut(out), cut(again))
	}
}

// TestRunTiny runs SPPE and SPLE at ε = 10 with a one-layer flow on 40
// simulations, Gibbs-SS on 200 iterations per chain (160 draws, fewer than
// the other methods' 200, so every sample is thinned to 160 for C2ST) and
// SMC-ABC on 3000 simulations against the stored DA-MCMC draws: the table
// and Gibbs-SS verdicts are printed, the rows of every method appear, each
// method's corner plot is written as PNG and SVG, and progress reaches
// stderr.
func TestRunTiny(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	c, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-eps", "10", "-methods", "sppe,sple", "-rounds", "1", "-sims", "40",
		"-M", "2", "-atoms", "2", "-layers", "1", "-hidden", "8", "-epochs", "2", "-n", "200",
		"-gibbs-iters", "200", "-abc-sims", "3000", "-abc-particles", "100",
		"-damcmc", "../../../mcmc/testdata", "-authors", filepath.Join(dir, "none"), "-out", dir})
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if err := runAll(t.Context(), c, &out, &errw); err != nil {
		t.Fatal(err)
	}
	vs := cli.ParseVerdicts(out.String())
	if len(vs) != 2 || vs[0].Kind == "invalid" || vs[1].Kind == "invalid" || !strings.Contains(vs[0].What, "Gibbs-SS row") || !strings.Contains(vs[1].What, "Table 2") {
		t.Errorf("verdicts %+v in\n%s", vs, out.String())
	}
	for _, row := range []string{"paper Gibbs-SS", "Gibbs-SS (ours)", "Gibbs-SS NIW (ours)", "SMC-ABC (ours)", "\n  smc-abc ", "\n  gibbs-ss "} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("output lacks %q:\n%s", row, out.String())
		}
	}
	if !strings.Contains(out.String(), "mcmc/testdata/linreg_eps10_damcmc.csv") {
		t.Errorf("the stored DA-MCMC draws were not used:\n%s", out.String())
	}
	plots := clitest.Check(t, dir, errw.String())
	for _, want := range []string{"linreg_eps10_sppe.png", "linreg_eps10_sppe.svg", "linreg_eps10_sple.png", "linreg_eps10_sple.svg",
		"linreg_eps10_gibbs-ss.png", "linreg_eps10_gibbs-ss-niw.svg", "linreg_eps10_smc-abc.png"} {
		if !slices.Contains(plots, want) {
			t.Errorf("plots %v lack %s", plots, want)
		}
	}
}

// TestGibbsVerdict checks the Gibbs-SS verdict: reproduced when both
// variants' β1 means lie at least half the paper's gap (1.1) above
// DA-MCMC's, partial for one, differs for none.
func TestGibbsVerdict(t *testing.T) {
	acc := methodAccuracy{"gibbs-ss", 0.55, 0.1}
	for _, tc := range []struct {
		known, niw, da float64
		want           string
	}{
		{-0.5, -0.6, -2.7, cli.Reproduced},
		{-2.6, -1.2, -2.7, cli.Partial},
		{-2.6, -2.0, -2.7, cli.Differs},
	} {
		var b bytes.Buffer
		gibbsVerdict(&b, tc.known, tc.niw, tc.da, acc, 0, 0.02)
		if vs := cli.ParseVerdicts(b.String()); len(vs) != 1 || vs[0].Kind != tc.want || !strings.Contains(vs[0].What, "Gibbs-SS row") {
			t.Errorf("%+v: got %+v, want %s", tc, vs, tc.want)
		}
	}
}

// TestSweepReleases checks the sweep's simulated releases (the budgets
// without a paper release): the same seed gives the same release, another
// seed another one, the noise has the mechanism's scale, and a saved
// posterior's file is keyed by its release, so a posterior is never read
// back beside a release it was not trained on. The scale check compares
// the mean absolute noise over 20 seeds and nine coordinates (180 draws)
// with Δ/ε; for Laplace noise the relative standard error of that mean is
// 1/√180 ≈ 0.075, and the band ±40% is more than five of them (false-alarm
// rate below 10⁻⁶).
func TestSweepReleases(t *testing.T) {
	s := linreg.ConfidentialStat()
	for _, eps := range []float64{0.3, 3, 30, 100} {
		p1, src, err := sweepProblem(eps, 1)
		if err != nil {
			t.Fatal(err)
		}
		p1b, _, _ := sweepProblem(eps, 1)
		p2, _, _ := sweepProblem(eps, 2)
		if !strings.HasPrefix(src, "simulated") || !slices.Equal(p1.Observed, p1b.Observed) {
			t.Errorf("ε = %v (%s): seed 1 gave %v, then %v", eps, src, p1.Observed, p1b.Observed)
		}
		if slices.Equal(p1.Observed, p2.Observed) {
			t.Errorf("ε = %v: seeds 1 and 2 gave the same release %v", eps, p1.Observed)
		}
		var c config
		if drawsPath(c, eps, "sppe", p1.Observed) == drawsPath(c, eps, "sppe", p2.Observed) {
			t.Errorf("ε = %v: two releases share a saved posterior's file", eps)
		}
		sum, n := 0.0, 0
		lap := p1.Mechanism.(*mechanism.Laplace)
		for seed := uint64(1); seed <= 20; seed++ {
			p, _, _ := sweepProblem(eps, seed)
			for i, v := range p.Observed {
				sum += math.Abs(v-s[i]) / lap.Scale(i)
				n++
			}
		}
		if m := sum / float64(n); m < 0.6 || m > 1.4 {
			t.Errorf("ε = %v: mean |noise| / scale = %.3f over %d draws, want about 1", eps, m, n)
		}
	}
	if p, src, err := sweepProblem(10, 1); err != nil || src != "the paper's release" || p.Observed == nil {
		t.Errorf("ε = 10: %v, %q", err, src)
	}
}
