package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// confidentialMean is the posterior mean of β given the confidential data
// x (the paper's Table 2, first row), the dash-dotted lines of Fig. 11;
// the prior mean is 0.
var confidentialMean = []float64{-2.15, -2.79, -0.83}

// parseSweep reads -sweep: positive finite budgets, distinct.
func parseSweep(list, drawsDir string) ([]float64, error) {
	if list == "" {
		if drawsDir != "" {
			return nil, cli.Usagef("-draws needs -sweep")
		}
		return nil, nil
	}
	var eps []float64
	seen := map[float64]bool{}
	for _, f := range strings.Split(list, ",") {
		e, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(e > 0) || math.IsInf(e, 0) || seen[e] {
			return nil, cli.Usagef("-sweep: %q is not a new positive budget", f)
		}
		seen[e] = true
		eps = append(eps, e)
	}
	return eps, nil
}

// sweepProblem returns the private linear regression at ε whose release is
// the paper's for ε = 10, 1 and 0.1 and otherwise a simulated release: s̃
// plus the mechanism's Laplace noise of scale Δ/ε drawn by
// mechanism.Simulate from a generator seeded by seed and ε, so that the
// same seed gives the same release (the study's data set is simulated, so
// its release is a simulation of one, not a release of confidential
// data); source says which.
func sweepProblem(eps float64, seed uint64) (p privinfer.Problem, source string, err error) {
	model := linreg.Paper()
	sim, err := simulate.NewMeanStat(model, linreg.PaperN)
	if err != nil {
		return p, "", err
	}
	sens, err := linreg.Sensitivity(model.P(), linreg.PaperN)
	if err != nil {
		return p, "", err
	}
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: eps, Dim: model.ContribDim()})
	if err != nil {
		return p, "", err
	}
	prior, err := linreg.Prior(2)
	if err != nil {
		return p, "", err
	}
	obs, err := linreg.Release(eps)
	source = "the paper's release"
	if err != nil {
		obs = make([]float64, model.ContribDim())
		if err := mechanism.Simulate(mech, rand.New(rand.NewPCG(seed, math.Float64bits(eps))), linreg.ConfidentialStat(), obs); err != nil {
			return p, "", err
		}
		source = fmt.Sprintf("simulated: s̃ + Laplace noise of scale %.4g (seed %d)", sens/eps, seed)
	}
	return privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: mech, Observed: obs, Names: names}, source, nil
}

// drawsPath is the file of a saved sweep posterior: the budget, the method
// and a hash of every setting that changes it, the release it conditions
// on included (so a saved posterior is only ever shown beside the release
// it was trained on).
func drawsPath(c config, eps float64, meth string, observed []float64) string {
	h := sha256.New()
	fmt.Fprintf(h, "seed=%d rounds=%d sims=%d M=%d atoms=%d layers=%d hidden=%d blocks=%d gating=%v epochs=%d patience=%d batch=%d lr=%v mc=%v n=%d%s",
		c.Seed, c.Rounds, c.Sims, c.M, c.Atoms, c.Layers, c.Hidden, c.Blocks, c.Gating, c.Epochs, c.Patience, c.Batch, c.LR, c.MC, c.NPost, c.KeySuffix())
	for _, v := range observed {
		fmt.Fprintf(h, " %x", math.Float64bits(v))
	}
	return filepath.Join(c.drawsDir, fmt.Sprintf("linreg_sweep_eps%s_%s_%x.csv", epsName(eps), meth, h.Sum(nil)[:6]))
}

// sweepPosterior returns the method's posterior draws at the release,
// read from -draws when saved there, otherwise trained (and saved).
func sweepPosterior(c config, p privinfer.Problem, eps float64, meth string) (*privinfer.Draws, string, error) {
	path := ""
	if c.drawsDir != "" {
		path = drawsPath(c, eps, meth, p.Observed)
		if d, err := cli.ReadDraws(path, names...); err == nil {
			return d, "saved " + filepath.Base(path), nil
		}
	}
	o := c.Config(3, 9, c.Seed)
	o.Checkpoint = c.CheckpointFile(meth, c.Seed, p.Observed)
	o.Progress = c.prog.Func()
	c.prog.Printf("ε = %s: %s", epsName(eps), strings.ToUpper(meth))
	start := time.Now()
	var d *privinfer.Draws
	if meth == "sppe" {
		r, err := sbi.SPPE(context.Background(), p, o)
		if err != nil {
			return nil, "", err
		}
		d = r.Draws
	} else {
		r, err := sbi.SPLE(context.Background(), p, o)
		if err != nil {
			return nil, "", err
		}
		d = r.Draws
	}
	how := "trained in " + time.Since(start).Round(time.Second).String()
	if path != "" {
		if err := os.MkdirAll(c.drawsDir, 0o755); err != nil {
			return nil, "", err
		}
		f, err := os.Create(path)
		if err != nil {
			return nil, "", err
		}
		err = d.WriteCSV(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, "", err
		}
	}
	return d, how, nil
}

// sweepPoint is one method's posterior summary at one budget.
type sweepPoint struct {
	eps            float64
	mean, lo, hi   []float64 // per coefficient, 95% interval
	sd             []float64
	method, source string
}

// runSweep is the Fig. 11 mode.
func runSweep(c config) error {
	w := c.w
	fmt.Fprintf(w, "\n=== linear regression privacy sweep (cf. SBI paper Fig. 11): ε = %v, %d rounds × %d simulations\n", c.sweep, c.Rounds, c.Sims)
	fmt.Fprintf(w, "  confidential-data posterior mean (paper, Table 2): %v; prior mean 0\n", confidentialMean)
	fmt.Fprintf(w, "  %-6s %-6s  %-20s  %-20s  %-20s  %s\n", "ε", "method", "β0 mean (95% CI)", "β1", "β2", "posterior")
	var pts []sweepPoint
	for _, eps := range c.sweep {
		p, source, err := sweepProblem(eps, c.Seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  ε = %s: s_dp = %.4f (%s)\n", epsName(eps), p.Observed, source)
		for _, meth := range c.Methods {
			d, how, err := sweepPosterior(c, p, eps, meth)
			if err != nil {
				return fmt.Errorf("ε = %s, %s: %w", epsName(eps), meth, err)
			}
			pt := sweepPoint{eps: eps, method: strings.ToUpper(meth), mean: d.Mean(), sd: d.SD(), source: how}
			fmt.Fprintf(w, "  %-6s %-6s", epsName(eps), pt.method)
			for k := range 3 {
				lo, hi := d.Interval(k, 0.95)
				pt.lo, pt.hi = append(pt.lo, lo), append(pt.hi, hi)
				fmt.Fprintf(w, "  %6.2f (%5.2f, %5.2f)", pt.mean[k], lo, hi)
			}
			fmt.Fprintf(w, "  %s\n", how)
			pts = append(pts, pt)
		}
	}
	if err := sweepCharts(c, pts); err != nil {
		return err
	}
	sweepVerdict(w, pts)
	return nil
}

// sweepCharts draws, per coefficient, every method's posterior mean and
// 95% interval against ε with the confidential-data posterior mean and the
// prior mean as dashed lines (SVG and PNG).
func sweepCharts(c config, pts []sweepPoint) error {
	if c.Out == "" {
		return nil
	}
	for k, name := range names {
		var series []plot.Series
		for _, meth := range c.Methods {
			s := plot.Series{Name: strings.ToUpper(meth), Dashed: meth == "sple"}
			for _, pt := range pts {
				if pt.method == s.Name {
					s.X, s.Y = append(s.X, pt.eps), append(s.Y, pt.mean[k])
					s.Lo, s.Hi = append(s.Lo, pt.lo[k]), append(s.Hi, pt.hi[k])
				}
			}
			series = append(series, s)
		}
		cv, err := plot.LineChart{Title: fmt.Sprintf("%s against ε: mean and 95%% interval; dashed: E[%s | x] = %.2f, prior 0 (cf. Fig. 11)", name, name, confidentialMean[k]),
			XLabel: "ε", YLabel: name, LogX: true, Series: series, HLines: []float64{confidentialMean[k], 0}, Width: 760}.Draw()
		if err != nil {
			return err
		}
		if _, err := c.WritePlot("linreg_sweep_"+name, cv); err != nil {
			return err
		}
	}
	return nil
}

// The trends of Fig. 11 as checked by sweepVerdict: between the smallest
// and the largest budget every 95% interval narrows and every method's
// posterior mean moves towards the confidential-data posterior mean; at
// every budget SPPE's and SPLE's means agree within sameMethods of their
// average posterior sd (the paper: "the two methods yield very similar
// results").
const sameMethods = 0.5

// sweepVerdict judges the trends of Fig. 11.
func sweepVerdict(w io.Writer, pts []sweepPoint) {
	const what = "SBI paper Fig. 11 (linear regression posteriors against ε)"
	lo, hi := math.Inf(1), math.Inf(-1)
	byKey := map[string]sweepPoint{}
	var methods []string
	for _, p := range pts {
		lo, hi = math.Min(lo, p.eps), math.Max(hi, p.eps)
		if _, ok := byKey[p.method+"@"+epsName(p.eps)]; !ok {
			byKey[p.method+"@"+epsName(p.eps)] = p
		}
		found := false
		for _, m := range methods {
			found = found || m == p.method
		}
		if !found {
			methods = append(methods, p.method)
		}
	}
	if len(pts) == 0 || lo == hi {
		cli.PrintVerdict(w, cli.Partial, what, "a single budget: the trends need two or more (run the sweep's budgets together, reusing the saved posteriors with -draws)")
		return
	}
	var parts []string
	checks, pass := 0, 0
	for _, m := range methods {
		a, b := byKey[m+"@"+epsName(lo)], byKey[m+"@"+epsName(hi)]
		narrow := true
		var dA, dB float64
		for k := range 3 {
			narrow = narrow && b.hi[k]-b.lo[k] < a.hi[k]-a.lo[k]
			dA += math.Abs(a.mean[k] - confidentialMean[k])
			dB += math.Abs(b.mean[k] - confidentialMean[k])
		}
		checks += 2
		if narrow {
			pass++
		}
		if dB < dA {
			pass++
		}
		parts = append(parts, fmt.Sprintf("%s: intervals %s from ε = %s to %s, summed distance of the means to the confidential-data posterior mean %.2f → %.2f",
			m, map[bool]string{true: "all narrow", false: "do not all narrow"}[narrow], epsName(lo), epsName(hi), dA, dB))
	}
	if len(methods) == 2 {
		worst := 0.0
		for _, p := range pts {
			q, ok := byKey[methods[1]+"@"+epsName(p.eps)]
			if p.method != methods[0] || !ok {
				continue
			}
			for k := range 3 {
				worst = math.Max(worst, math.Abs(p.mean[k]-q.mean[k])/((p.sd[k]+q.sd[k])/2))
			}
		}
		checks++
		if worst <= sameMethods {
			pass++
		}
		parts = append(parts, fmt.Sprintf("%s and %s means differ by at most %.2f posterior sd (threshold %.1f)", methods[0], methods[1], worst, sameMethods))
	}
	detail := strings.Join(parts, "; ")
	switch {
	case pass == checks:
		cli.PrintVerdict(w, cli.Reproduced, what, detail)
	case pass > 0:
		cli.PrintVerdict(w, cli.Partial, what, detail)
	default:
		cli.PrintVerdict(w, cli.Differs, what, detail)
	}
}
