// Command mstudy reruns the m-study of the modips paper (Figs 6–7): the
// bias, estimated and empirical standard deviation and coverage of the
// Theorem-7 inference as the number of synthetic sets m grows from 2 to
// 500 at ε = 1, for binary data (p = 0.1, 0.5) and Gaussian data (bounds
// (−4, 4) and (−4, 5), BIT and truncation), n = 100 and 1000. With -out it
// writes mstudy.csv and one SVG per metric.
//
// The paper prints no numbers for these figures; its text states where the
// coverage collapses ("severe under-coverage when m > 200, n = 100,
// p = 0.1"; "for m > 20 (truncation) and m > 40 (BIT) when n = 100, and for
// m > 80 ∼ 150 when n = 1,000" with asymmetric bounds; near nominal
// elsewhere). The program compares those onsets with ours.
//
// With -scale k every sample size is multiplied by k (the paper's onsets
// are still compared scenario by scenario: our n = 1000 at -scale 10 is
// the paper's n = 100). Table 1's binary rows only reproduce at 10× the
// printed n, so we checked whether the same holds here.
//
// Why three scenarios differ. Under the mechanism the paper states, the
// pooled estimate is biased by the boundary-inflated truncation (BIT) of
// the Laplace-noised statistic: with noise scale b, a statistic at
// distance d0 from the lower and d1 from the upper bound has expectation
// shifted by (b/2)(e^{−d0/b} − e^{−d1/b}). For binary data b = m/ε on the
// count n1 ≈ pn (so the bias of p̄ is about (m/2εn)e^{−εpn/m}); for Gaussian data
// b = (c1 − c0)m/(εn) on the mean. The program prints this closed form next
// to our bias, which it matches, at each differing scenario.
//
// The scenarios that differ (binary p = 0.1 at n = 100 and 1000, Gaussian
// (−4, 5) BIT at n = 1000), with our bias, standard deviations and
// coverage beside the closed form, are in examples/reproduce/modips/RESULTS.md.
//
//	go run ./examples/reproduce/modips/mstudy -reps 1000 -out /tmp/mstudy
//	go run ./examples/reproduce/modips/mstudy -scale 10 -m 20,50,100,200,500
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer/examples/reproduce/modips/out"
	"github.com/privinfer/privinfer/examples/reproduce/modips/study"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

type config struct {
	cli.Common
	reps  int
	ms    []int // numbers of synthetic sets
	scale int   // sample-size multiplier
}

func main() { cli.Program("mstudy", parse, run) }

func parse(fs *flag.FlagSet, args []string) (config, error) {
	var cfg config
	c := cli.Register(fs, 1)
	fs.IntVar(&cfg.reps, "reps", 300, "repetitions per point (the paper uses 5000; -quick: 100)")
	fs.IntVar(&cfg.scale, "scale", 1, "multiply every sample size by this factor (10: the paper's n = 100 is simulated at 1000)")
	ms := fs.String("m", "", "numbers of synthetic sets, comma separated (default the paper's grid 2, 3, …, 500)")
	if err := cli.Parse(fs, args); err != nil {
		return cfg, err
	}
	cfg.ms = study.MStudyValues
	if *ms != "" {
		cfg.ms = nil
		for _, f := range strings.Split(*ms, ",") {
			m, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || m < 2 {
				return cfg, cli.Usagef("-m: %q is not an integer >= 2", f)
			}
			cfg.ms = append(cfg.ms, m)
		}
	}
	cfg.Common = *c
	if err := cli.QuickDefaults(fs, cfg.Quick, map[string]string{"reps": "100"}); err != nil {
		return cfg, err
	}
	if cfg.scale < 1 || cfg.scale > study.MaxScale {
		return cfg, cli.Usagef("-scale must be in [1, %d], got %d", study.MaxScale, cfg.scale)
	}
	return cfg, cli.AtLeast("reps", cfg.reps, 10)
}

// printed maps a scenario name with the simulated n to the paper's name
// (n divided by scale).
func printed(scenario string, scale int) string {
	i := strings.LastIndex(scenario, "n=")
	n, err := strconv.Atoi(scenario[i+2:])
	if err != nil || scale == 1 {
		return scenario
	}
	return scenario[:i+2] + strconv.Itoa(n/scale)
}

// bitBias is the closed-form bias of the pooled estimate from BIT
// bounding of the Laplace-noised statistic at ε = 1 (see the package
// comment), for a scenario name and m; ok is false when the scenario is
// not bounded by BIT.
func bitBias(scenario string, m int) (bias float64, ok bool) {
	i := strings.LastIndex(scenario, "n=")
	n, err := strconv.Atoi(scenario[i+2:])
	if err != nil {
		return 0, false
	}
	shift := func(b, d0, d1 float64) float64 { return b / 2 * (math.Exp(-d0/b) - math.Exp(-d1/b)) }
	fm, fn := float64(m), float64(n)
	switch {
	case strings.HasPrefix(scenario, "binary p=0.1"):
		return shift(fm, 0.1*fn, 0.9*fn) / fn, true
	case strings.HasPrefix(scenario, "binary p=0.5"):
		return 0, true
	case strings.Contains(scenario, "BIT"):
		c1 := 4.0
		if strings.Contains(scenario, "(-4,5)") {
			c1 = 5
		}
		return shift((c1+4)*fm/fn, 4, c1), true
	}
	return 0, false
}

// severe is the coverage below which we call under-coverage severe.
const severe = 0.85

// paperOnset is the smallest m of our grid beyond the paper's stated onset
// of severe under-coverage (0: the paper reports near-nominal coverage for
// all m).
func paperOnset(scenario string) (m int, text string) {
	switch {
	case scenario == "binary p=0.1 n=100":
		return 500, "m > 200"
	case strings.HasPrefix(scenario, "binary"):
		return 0, "none (near nominal)"
	case strings.Contains(scenario, "(-4,4)"):
		return 0, "none (near nominal)"
	case strings.Contains(scenario, "truncation") && strings.HasSuffix(scenario, "n=100"):
		return 30, "m > 20"
	case strings.HasSuffix(scenario, "n=100"):
		return 50, "m > 40"
	default:
		return 100, "m > 80 ∼ 150"
	}
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	if err := cfg.Prepare(); err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	prog.Printf("m-study: %d values of m × 12 scenarios × %d repetitions", len(cfg.ms), cfg.reps)
	pts, err := cli.WhileValue(prog, 3*time.Second, "m-study", func() ([]study.Point, error) {
		return study.MStudyScaled(ctx, study.Config{Seed: cfg.Seed, Reps: cfg.reps, Progress: prog.Func()}, cfg.ms, cfg.scale)
	})
	if err != nil {
		return err
	}
	prog.Printf("m-study done")
	fmt.Fprintf(stdout, "m-study (ε = 1, %d repetitions per point, seed %d, sample sizes × %d)\n", cfg.reps, cfg.Seed, cfg.scale)
	for _, p := range pts {
		fmt.Fprintf(stdout, "%-34s m=%3d bias=%+.4f sd_est=%.4f emp_sd=%.4f orig_sd=%.4f cp=%.3f\n", p.Scenario, p.M, p.Bias, p.SDEst, p.EmpSD, p.OrigSD, p.CP)
	}

	// Onset of severe under-coverage: the smallest m from which the
	// coverage stays below `severe`.
	order, by := out.Scenarios(pts)
	fmt.Fprintf(stdout, "\nOnset of severe under-coverage (coverage < %.2f from that m on), paper's text vs ours:\n", severe)
	agree := 0
	var mismatches []string
	for _, sc := range order {
		ps := by[sc]
		onset := 0
		for i := len(ps) - 1; i >= 0 && ps[i].CP < severe; i-- {
			onset = ps[i].M
		}
		want, text := paperOnset(printed(sc, cfg.scale))
		// Agreement within one step of the m grid.
		ok := onset == want
		if !ok && onset != 0 && want != 0 {
			iw, io := gridIndex(want), gridIndex(onset)
			ok = iw-io <= 1 && io-iw <= 1
		}
		ours := "none"
		if onset != 0 {
			ours = fmt.Sprintf("m ≥ %d", onset)
		}
		mark := "agrees"
		if ok {
			agree++
		} else {
			mark = "DIFFERS"
			mismatches = append(mismatches, fmt.Sprintf("%s (paper %s, ours %s)", sc, text, ours))
		}
		fmt.Fprintf(stdout, "  %-34s paper: %-20s ours: %-8s %s\n", sc, text, ours, mark)
		if !ok {
			for _, p := range ps {
				if b, bit := bitBias(sc, p.M); bit {
					fmt.Fprintf(stdout, "      m=%3d  bias ours %+.4f, closed-form BIT bias %+.4f, bias/sd_est %.2f, coverage %.3f\n", p.M, p.Bias, b, p.Bias/p.SDEst, p.CP)
				}
			}
		}
	}
	if len(mismatches) > 0 {
		fmt.Fprintf(stdout, "Cause (see the program's documentation): the bias is the BIT bias of the noised statistic, which depends on m/n;\n"+
			"the binary p=0.1 n=1000 curve agrees at -scale 10 (like Table 1's binary rows), the n=100 curve needs n ≈ 50–100× the printed n,\n"+
			"and the paper's Gaussian (-4,5) n=1000 coverage falls where the bias is a small fraction of the sd (no rescaling of n explains it).\n")
	}
	what := "modips Figs 6–7 (coverage against m)"
	if len(mismatches) > 0 {
		mismatches = append(mismatches, "cause: the BIT bias of the noised statistic, whose closed form matches ours; "+
			"binary n=1000 agrees at 10× n (-scale 10, as Table 1), binary n=100 needs ≈50–100× n, the Gaussian onset is explained by no rescaling of n")
	}
	switch {
	case len(mismatches) == 0:
		cli.PrintVerdict(stdout, cli.Reproduced, what, fmt.Sprintf("the onset of severe under-coverage agrees with the paper's text in all %d scenarios (within one step of the m grid)", agree))
	case agree >= len(order)/2:
		cli.PrintVerdict(stdout, cli.Partial, what, fmt.Sprintf("%d of %d scenarios agree with the paper's text; differs: %s", agree, len(order), strings.Join(mismatches, "; ")))
	default:
		cli.PrintVerdict(stdout, cli.Differs, what, fmt.Sprintf("only %d of %d scenarios agree with the paper's text; differs: %s", agree, len(order), strings.Join(mismatches, "; ")))
	}
	group := func(p study.Point) string {
		kind := "gaussian"
		if strings.HasPrefix(p.Scenario, "binary") {
			kind = "binary"
		}
		return kind + "_n" + p.Scenario[strings.LastIndex(p.Scenario, "=")+1:]
	}
	return out.Write(&cfg.Common, "mstudy", "m (synthetic sets)", true, pts, group, func(p study.Point) float64 { return float64(p.M) }, []out.Metric{
		{Name: "bias", Value: func(p study.Point) float64 { return p.Bias }, Ref: []float64{0}},
		{Name: "sd_est", Value: func(p study.Point) float64 { return p.SDEst }},
		{Name: "coverage", Value: func(p study.Point) float64 { return p.CP }, Ref: []float64{0.95}},
	})
}

func gridIndex(m int) int {
	for i, v := range study.MStudyValues {
		if v >= m {
			return i
		}
	}
	return len(study.MStudyValues)
}
