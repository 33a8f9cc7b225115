package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/flow/sbi"
)

// natural returns the draws of (β, γ, β/γ) from draws of (log β, log γ).
func natural(d *privinfer.Draws) *privinfer.Draws {
	r, _ := d.Map([]string{"beta", "gamma", "beta/gamma"}, func(t, dst []float64) {
		dst[0], dst[1], dst[2] = math.Exp(t[0]), math.Exp(t[1]), math.Exp(t[0]-t[1])
	})
	return r
}

// naturalNames label the panels of Fig. 6.
var naturalNames = []string{"β", "γ", "β/γ"}

// marginalAccuracy compares one marginal of a method's posterior on the
// natural scale with the reference's: the difference of the means in
// reference standard deviations and the ratio of the 95% interval widths.
type marginalAccuracy struct {
	method, param     string
	dmean, widthRatio float64
}

// Fig. 6 is judged reproduced when every marginal's mean is within
// margMean reference sds of the reference's and its 95% interval width
// within a factor margWidth of the reference's (the paper: SPPE "slightly
// more concentrated" than SMC-ABC and SPLE).
const (
	margMean  = 0.5
	margWidth = 1.5
)

// marginals prints the marginal posteriors of β, γ and β/γ of the final
// draws beside the reference (the paper's Fig. 6), compares each with the
// reference and, with -out, draws their histograms (SVG and PNG).
func marginals(c config, epsName string, thetaTrue []float64, best *ref, finals []ref) ([]marginalAccuracy, error) {
	if len(finals) == 0 {
		return nil, nil
	}
	c.hb.Phase("ε = %s: marginal histograms of β, γ, β/γ (Fig. 6)", epsName)
	truth := []float64{math.Exp(thetaTrue[0]), math.Exp(thetaTrue[1]), math.Exp(thetaTrue[0] - thetaTrue[1])}
	sets := finals
	if best != nil {
		sets = append([]ref{*best}, finals...)
	}
	w := c.w
	fmt.Fprintf(w, "\n  Fig. 6: marginal posteriors on the natural scale, mean (95%% interval):\n")
	fmt.Fprintf(w, "    %-20s %-26s %-26s %-26s\n", "sample", "β", "γ", "β/γ")
	fmt.Fprintf(w, "    %-20s %-26.4f %-26.4f %-26.3f\n", "true θ*", truth[0], truth[1], truth[2])
	nat := make([]*privinfer.Draws, len(sets))
	var samples []plot.Sample
	for i, s := range sets {
		nat[i] = natural(s.d)
		m := nat[i].Mean()
		fmt.Fprintf(w, "    %-20s", s.name)
		for j := range 3 {
			lo, hi := nat[i].Interval(j, 0.95)
			fmt.Fprintf(w, " %-26s", fmt.Sprintf("%.4f (%.4f, %.4f)", m[j], lo, hi))
		}
		fmt.Fprintln(w)
		rows := make([][]float64, nat[i].Len())
		for k := range rows {
			rows[k] = nat[i].Row(k)
		}
		samples = append(samples, plot.Sample{Name: s.name, Rows: rows, Weights: nat[i].Weights})
	}
	var acc []marginalAccuracy
	if best != nil {
		rm, rsd := nat[0].Mean(), nat[0].SD()
		fmt.Fprintf(w, "    against %s: |Δ mean| in reference sds, and 95%% interval width / reference's:\n", best.name)
		for i, s := range finals {
			d := nat[i+1]
			fmt.Fprintf(w, "    %-20s", s.name)
			for j, name := range naturalNames {
				lo, hi := d.Interval(j, 0.95)
				rlo, rhi := nat[0].Interval(j, 0.95)
				a := marginalAccuracy{s.name, name, math.Abs(d.Mean()[j]-rm[j]) / rsd[j], (hi - lo) / (rhi - rlo)}
				acc = append(acc, a)
				fmt.Fprintf(w, " %-26s", fmt.Sprintf("%s: %.2f sd, width ×%.2f", name, a.dmean, a.widthRatio))
			}
			fmt.Fprintln(w)
		}
	}
	if c.Out == "" {
		return acc, nil
	}
	cv, err := plot.Histograms{Title: "SIR ε = " + epsName + ": marginal posteriors of β, γ and β/γ (cf. SBI paper Fig. 6); line: true θ",
		Params: naturalNames, Sets: samples, Truth: truth}.Draw()
	if err != nil {
		return nil, err
	}
	_, err = c.WritePlot("sir_eps"+epsName+"_marginals", cv)
	return acc, err
}

// marginalVerdict judges Fig. 6 from the marginal comparisons.
func marginalVerdict(w io.Writer, eps float64, acc []marginalAccuracy) {
	what := fmt.Sprintf("SBI paper Fig. 6 (SIR marginal posteriors of β, γ, β/γ, ε = %s)", strconv.FormatFloat(eps, 'g', -1, 64))
	if len(acc) == 0 {
		cli.PrintVerdict(w, cli.Partial, what, "no reference sample was found, so the marginals are not compared")
		return
	}
	good := 0
	worst := map[string][2]float64{}
	var methods []string
	for _, a := range acc {
		if a.dmean <= margMean && a.widthRatio <= margWidth && a.widthRatio >= 1/margWidth {
			good++
		}
		v, ok := worst[a.method]
		if !ok {
			methods = append(methods, a.method)
			v = [2]float64{0, 1}
		}
		v[0] = math.Max(v[0], a.dmean)
		if math.Abs(math.Log(a.widthRatio)) > math.Abs(math.Log(v[1])) {
			v[1] = a.widthRatio
		}
		worst[a.method] = v
	}
	var parts []string
	for _, m := range methods {
		parts = append(parts, fmt.Sprintf("%s: means up to %.2f reference sds away, interval widths ×%.2f at worst", m, worst[m][0], worst[m][1]))
	}
	detail := strings.Join(parts, "; ") + fmt.Sprintf(" (thresholds %.1f sd and a factor %.1f; the paper finds SPPE slightly more concentrated than SMC-ABC and SPLE)", margMean, margWidth)
	switch {
	case good == len(acc):
		cli.PrintVerdict(w, cli.Reproduced, what, detail)
	case good > 0:
		cli.PrintVerdict(w, cli.Partial, what, detail)
	default:
		cli.PrintVerdict(w, cli.Differs, what, detail)
	}
}

// depthRun is one method's per-round accuracy with a flow of the given
// depth.
type depthRun struct {
	method    string
	layers    int
	sims      []float64 // simulations after each round
	c2st, mmd []float64 // per round, against the best reference
	wall      time.Duration
}

// runDepths is the Fig. 15 mode: every method is trained with a flow of
// each depth on the release at ε, and its per-round C2ST and MMD against
// the best reference are tabulated and drawn.
func runDepths(c config, eps float64) error {
	p, err := syntheticProblem(c, eps)
	if err != nil {
		return err
	}
	epsName := strconv.FormatFloat(eps, 'g', -1, 64)
	w := c.w
	fmt.Fprintf(w, "\n=== SIR synthetic release, ε = %s: flow depths %v (cf. SBI paper Fig. 15 A, B), %d rounds × %d simulations, %d hidden units × %d blocks\n",
		epsName, c.depths, c.Rounds, c.Sims, c.Hidden, c.Blocks)
	c.hb.Phase("ε = %s: reading the reference samples", epsName)
	refs := loadRefs(c, epsName)
	var runs []depthRun
	for _, layers := range c.depths {
		cl := c
		cl.Layers = layers
		for _, meth := range c.Methods {
			dr := depthRun{method: strings.ToUpper(meth), layers: layers}
			onRound := func(round int, _ sbi.Estimate, d *privinfer.Draws, _ float64) {
				c2, mmd := math.NaN(), math.NaN()
				if len(refs) > 0 {
					c.hb.Phase("%s %d layers round %d: C2ST and MMD against %s", dr.method, layers, round, refs[0].name)
					c2, mmd, _ = compare(d, refs[0].d)
				}
				dr.sims = append(dr.sims, float64(round*c.Sims))
				dr.c2st, dr.mmd = append(dr.c2st, c2), append(dr.mmd, mmd)
				if round < c.Rounds {
					c.hb.Phase("%s %d layers: round %d, simulating %d epidemics", dr.method, layers, round+1, c.Sims)
				}
			}
			start := time.Now()
			if _, _, _, err := run(cl, meth, p, nil, onRound); err != nil {
				return fmt.Errorf("%d layers, %s: %w", layers, meth, err)
			}
			dr.wall = time.Since(start)
			runs = append(runs, dr)
		}
	}
	refName := "no reference"
	if len(refs) > 0 {
		refName = refs[0].name
	}
	fmt.Fprintf(w, "\n  per round against %s (C2ST 0.5 = indistinguishable):\n", refName)
	fmt.Fprintf(w, "    %-6s %6s %5s %6s %8s %8s\n", "method", "layers", "round", "sims", "C2ST", "MMD")
	var rows [][]string
	for _, r := range runs {
		for i := range r.sims {
			fmt.Fprintf(w, "    %-6s %6d %5d %6.0f %8.3f %8.4f\n", r.method, r.layers, i+1, r.sims[i], r.c2st[i], r.mmd[i])
			rows = append(rows, append([]string{r.method, strconv.Itoa(r.layers), strconv.Itoa(i + 1)}, cli.FloatRow(r.sims[i], r.c2st[i], r.mmd[i])...))
		}
		fmt.Fprintf(w, "    %-6s %6d  wall %v\n", r.method, r.layers, r.wall.Round(time.Second))
	}
	if _, err := c.WriteCSV("sir_depth_eps"+epsName+".csv", []string{"method", "layers", "round", "sims", "c2st", "mmd"}, rows); err != nil {
		return err
	}
	if c.Out != "" && len(refs) > 0 {
		var series []plot.Series
		for _, r := range runs {
			series = append(series, plot.Series{Name: fmt.Sprintf("%s, %d layers", r.method, r.layers), X: r.sims, Y: r.c2st, Dashed: r.method == "SPLE"})
		}
		cv, err := plot.LineChart{Title: "SIR ε = " + epsName + ": C2ST against " + refName + " by flow depth (cf. SBI paper Fig. 15 A, B)",
			XLabel: "simulations", YLabel: "C2ST", Series: series, HLines: []float64{0.5, c2stOK}}.Draw()
		if err != nil {
			return err
		}
		if _, err := c.WritePlot("sir_depth_eps"+epsName+"_c2st", cv); err != nil {
			return err
		}
	}
	depthVerdict(w, eps, refName, runs)
	return nil
}

// depthVerdict judges Fig. 15 A, B: the paper finds 5 and 10 layers about
// as accurate as 8 on the SIR model (SPLE with 5 layers converging slightly
// slower), so every depth should end within the synthetic release's
// thresholds.
func depthVerdict(w io.Writer, eps float64, refName string, runs []depthRun) {
	var ls []string
	seen := map[int]bool{}
	for _, r := range runs {
		if !seen[r.layers] {
			seen[r.layers] = true
			ls = append(ls, strconv.Itoa(r.layers))
		}
	}
	what := fmt.Sprintf("SBI paper Fig. 15 A, B (SIR, ε = %s, flows of %s layers)", strconv.FormatFloat(eps, 'g', -1, 64), strings.Join(ls, ", "))
	good, n := 0, 0
	var parts []string
	for _, r := range runs {
		if len(r.c2st) == 0 || math.IsNaN(r.c2st[len(r.c2st)-1]) {
			continue
		}
		n++
		c2, mmd := r.c2st[len(r.c2st)-1], r.mmd[len(r.mmd)-1]
		if c2 <= c2stOK && mmd <= mmdOK {
			good++
		}
		parts = append(parts, fmt.Sprintf("%s %d layers C2ST %.3f, MMD %.3f", r.method, r.layers, c2, mmd))
	}
	if n == 0 {
		cli.PrintVerdict(w, cli.Partial, what, "no reference sample was found, so the depths are not compared")
		return
	}
	detail := strings.Join(parts, "; ") + fmt.Sprintf(" after the last round against the %s sample (thresholds C2ST ≤ %.1f, MMD ≤ %.1f; the paper: 5 and 10 layers about as accurate as 8)", refName, c2stOK, mmdOK)
	printShare(w, what, detail, good, n)
}
