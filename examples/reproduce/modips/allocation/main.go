// Command allocation reruns the budget-allocation study of the modips
// paper (Fig 9): N(0, 1) data synthesized through the normal–inverse-gamma
// model with individualized sanitization, share w of ε = 1 to the sample
// mean and 1 − w to the sample variance, m = 10, n = 100 and 1000, bounds
// (−4, 4) and (−4, 5), BIT and truncation; plus the communal allocation
// w = 1/(1 + c1 − c0). It reports the bias, coverage and half-width of the
// Theorem-7 95% interval for μ, checks the paper's stated findings, and
// with -out writes allocation.csv and one SVG per metric.
//
//	go run ./examples/reproduce/modips/allocation -reps 1000 -out /tmp/alloc
package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/privinfer/privinfer/examples/reproduce/modips/out"
	"github.com/privinfer/privinfer/examples/reproduce/modips/study"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

func main() { cli.Program("allocation", parse, run) }

// parse reads the common flags and -reps, the repetitions per point, into N.
var parse = cli.CountParser("reps", 500, 300, 10, "repetitions per point (the paper uses 5000; -quick: 300)")

// claim is one finding stated in the paper's text about Fig 9, checked on
// our points of the scenarios it concerns.
type claim struct {
	text  string
	match func(scenario string) bool
	check func(ps []study.Point, reps int) (ok bool, detail string)
}

// grid returns the points of the w grid (the communal point, reported last,
// is excluded).
func grid(ps []study.Point) []study.Point {
	if len(ps) > 1 {
		return ps[:len(ps)-1]
	}
	return ps
}

var claims = []claim{
	{
		text:  "symmetric bounds: w barely affects the point estimate (|bias| within 4 Monte Carlo se at every w)",
		match: func(s string) bool { return strings.Contains(s, "(-4,4)") },
		check: func(ps []study.Point, reps int) (bool, string) {
			worst := 0.0
			for _, p := range ps {
				worst = math.Max(worst, math.Abs(p.Bias)/(p.EmpSD/math.Sqrt(float64(reps))))
			}
			return worst <= 4, fmt.Sprintf("max |bias|/se = %.1f", worst)
		},
	},
	{
		text:  "asymmetric bounds, n = 100: the bias decreases as w increases (bias at w = 0.9 below bias at w = 0.1)",
		match: func(s string) bool { return strings.Contains(s, "(-4,5)") && strings.HasSuffix(s, "n=100") },
		check: func(ps []study.Point, _ int) (bool, string) {
			g := grid(ps)
			a, b := g[0], g[len(g)-1]
			return b.Bias < a.Bias, fmt.Sprintf("bias %.3f at w = %.1f, %.3f at w = %.1f", a.Bias, a.W, b.Bias, b.W)
		},
	},
	{
		text:  "BIT: coverage around nominal at every w (≥ 0.90)",
		match: func(s string) bool { return strings.Contains(s, "BIT") },
		check: func(ps []study.Point, _ int) (bool, string) {
			lo := 1.0
			for _, p := range ps {
				lo = math.Min(lo, p.CP)
			}
			return lo >= 0.90, fmt.Sprintf("min coverage %.3f", lo)
		},
	},
	{
		text:  "truncation, asymmetric bounds, n = 100: under-coverage at all w (mean coverage over the w grid below 0.95 by > 3 Monte Carlo se)",
		match: func(s string) bool { return strings.Contains(s, "(-4,5) truncation") && strings.HasSuffix(s, "n=100") },
		check: func(ps []study.Point, reps int) (bool, string) {
			return underCovered(grid(ps), reps)
		},
	},
	{
		text:  "truncation, asymmetric bounds, n = 1000: under-coverage for w > 0.5 (mean coverage over w > 0.5 below 0.95 by > 3 Monte Carlo se)",
		match: func(s string) bool { return strings.Contains(s, "(-4,5) truncation") && strings.HasSuffix(s, "n=1000") },
		check: func(ps []study.Point, reps int) (bool, string) {
			var hi []study.Point
			for _, p := range grid(ps) {
				if p.W > 0.5 {
					hi = append(hi, p)
				}
			}
			return underCovered(hi, reps)
		},
	},
	{
		text:  "the half-width decreases as w increases (w = 0.9 below w = 0.1)",
		match: func(string) bool { return true },
		check: func(ps []study.Point, _ int) (bool, string) {
			g := grid(ps)
			a, b := g[0], g[len(g)-1]
			return b.Half < a.Half, fmt.Sprintf("%.3f → %.3f", a.Half, b.Half)
		},
	},
}

// underCovered tests whether the mean coverage of ps is below 0.95 by
// more than 3 standard errors of a mean of len(ps) binomial proportions
// over reps repetitions each (one-sided false-alarm rate 0.13%).
func underCovered(ps []study.Point, reps int) (bool, string) {
	if len(ps) == 0 {
		return false, "no points"
	}
	var m float64
	for _, p := range ps {
		m += p.CP / float64(len(ps))
	}
	se := math.Sqrt(0.95 * 0.05 / float64(reps*len(ps)))
	return m < 0.95-3*se, fmt.Sprintf("mean coverage %.3f over %d values of w, threshold %.3f", m, len(ps), 0.95-3*se)
}

func run(ctx context.Context, cfg cli.Count, stdout, stderr io.Writer) error {
	if err := cfg.Prepare(); err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	prog.Printf("allocation study: %d weights × 8 scenarios × %d repetitions", len(study.AllocationWeights)+1, cfg.N)
	pts, err := cli.WhileValue(prog, 3*time.Second, "allocation study", func() ([]study.Point, error) {
		return study.Allocation(ctx, study.Config{Seed: cfg.Seed, Reps: cfg.N, Progress: prog.Func()}, study.AllocationWeights)
	})
	if err != nil {
		return err
	}
	prog.Printf("allocation study done")
	fmt.Fprintf(stdout, "Budget allocation (m = 10, ε = 1, %d repetitions per point, seed %d; the last w of each scenario is the communal allocation)\n", cfg.N, cfg.Seed)
	for _, p := range pts {
		fmt.Fprintf(stdout, "%-34s w=%.3f bias=%+.4f cp=%.3f half=%.4f orig_half=%.4f\n", p.Scenario, p.W, p.Bias, p.CP, p.Half, p.OrigHalf)
	}
	order, by := out.Scenarios(pts)
	fmt.Fprintf(stdout, "\nFindings stated in the paper's text, checked on our points:\n")
	pass, total := 0, 0
	var failed []string
	for _, c := range claims {
		for _, sc := range order {
			if !c.match(sc) {
				continue
			}
			ok, detail := c.check(by[sc], cfg.N)
			total++
			mark := "holds"
			if ok {
				pass++
			} else {
				mark = "FAILS"
				failed = append(failed, fmt.Sprintf("%q on %s (%s)", c.text, sc, detail))
			}
			fmt.Fprintf(stdout, "  %-5s %s — %s: %s\n", mark, c.text, sc, detail)
		}
	}
	what := "modips Fig. 9 (budget allocation)"
	switch {
	case len(failed) == 0:
		cli.PrintVerdict(stdout, cli.Reproduced, what, fmt.Sprintf("all %d checks of the paper's stated findings hold (the paper prints no numbers for this figure)", total))
	case pass*2 >= total:
		cli.PrintVerdict(stdout, cli.Partial, what, fmt.Sprintf("%d of %d checks of the paper's stated findings hold; failing: %s", pass, total, strings.Join(failed, "; ")))
	default:
		cli.PrintVerdict(stdout, cli.Differs, what, fmt.Sprintf("only %d of %d checks of the paper's stated findings hold; failing: %s", pass, total, strings.Join(failed, "; ")))
	}
	// The curves are drawn over the grid of w; the communal points (last
	// of each scenario) are included at their own w.
	group := func(p study.Point) string { return "n" + p.Scenario[strings.LastIndex(p.Scenario, "=")+1:] }
	return out.Write(&cfg.Common, "allocation", "w (share of ε for the mean)", false, pts, group, func(p study.Point) float64 { return p.W }, []out.Metric{
		{Name: "bias", Value: func(p study.Point) float64 { return p.Bias }, Ref: []float64{0}},
		{Name: "coverage", Value: func(p study.Point) float64 { return p.CP }, Ref: []float64{0.95}},
		{Name: "half_width", Value: func(p study.Point) float64 { return p.Half }},
	})
}
