// Soma reproduces the slides' comparison of the SOMA and IMwG record
// kernels for data-augmentation MCMC on privatized data, and runs
// DA-MCMC on the SBI paper's linear-regression releases.
//
// Part 1 is the slides' n = 10 table: acceptance rates (8 chains × 10,000
// iterations), coupling times of coupled chains (one started at
// stationarity, one from the prior; common random numbers and maximal
// couplings) and the implied convergence rates 1 − 1/E[τ], for ε = 3 and
// ε = 30, next to the slides' values.
//
// Part 2 is the slides' n = 2 example (the trace-plots slide), in the
// simplest setting of its stated form: two Uniform[0, 1] records whose
// mean is released by the Laplace mechanism at ε (sensitivity 1/2, release
// 0.5), the model as the record proposal, chains from (0.3, 0.3). It
// prints the three kernels' acceptance rates at ε = 10 from the library's
// chains and exactly on a grid discretisation, beside the DP lower bounds
// (4), and checks Theorem (5): the convergence rate of SOMA (the
// second-largest eigenvalue modulus of the exact transition matrix of the
// chain on an m×m grid, -n2-grid) against the bound at ε = 0.5 to 10.
//
// Part 3 mirrors the slides' n = 100 convergence diagnostics: the same
// normal-inverse-gamma model with n = 100 records and a release simulated
// at θ* = (−1.79, −2.89, −0.66, σ² = 2) for ε = 30 (the slides do not state
// their release or budget), four chains per kernel from prior draws, and the first
// checkpoint at which the split R̂ of every parameter is below 1.05, with a
// verdict computed from those checkpoints (rhatVerdict).
//
// Part 4 runs four chains started far apart on each of the SBI paper's
// releases (ε = 10, 1, 0.1) with systematic-scan IMwG and SOMA, and prints
// posterior means and 95% intervals beside the paper's Table 2/4 and the
// authors' reference draws (when the shared reference folder is present),
// with R̂, bulk ESS and ESS per CPU-second for each kernel (the process's
// CPU time, user and system over the four parallel chains, so that the
// figure does not count time spent waiting for a free core), and a verdict
// per paper table computed from every posterior mean and interval end
// (damcmcVerdict).
//
// With -out it draws the n = 10 coupling times as survival curves
// P(τ ≥ t) per kernel and ε (soma_n10_coupling), the n = 2 trace plots of
// the three kernels over 500 iterations (soma_n2_trace_soma,
// soma_n2_trace_ranimwg, soma_n2_trace_sysimwg), the n = 100 largest split
// R̂ against the iterations per kernel (soma_n100_rhat) and, for every
// linear-regression release, a corner plot of the kernels' draws, all as SVG
// and PNG.
//
// Run it with
//
//	go run ./examples/reproduce/soma            # full settings, a few minutes
//	go run ./examples/reproduce/soma -quick     # reduced settings
package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/privinfer/privinfer/simulate/linreg"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/linregda"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

const name = "soma"

func main() { cli.Main(name, usage, run) }

var usage = func(w io.Writer) {
	fs, _ := flags()
	cli.FlagUsage(fs)(w)
}

type opts struct {
	common         *cli.Common
	pairs          int
	linreg         bool
	n10, n100      int // iterations per chain of the n = 10 acceptance runs and the n = 100 diagnostics
	linregSweepDiv int // divides the linear-regression sweeps (5 with -quick)
	n2Grid         int // grid points per record of the exact n = 2 chain
}

func flags() (*flag.FlagSet, *opts) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	o := &opts{common: cli.Register(fs, 2026)}
	fs.IntVar(&o.pairs, "pairs", 1000, "coupled pairs per kernel for the coupling times")
	fs.BoolVar(&o.linreg, "linreg", true, "also run DA-MCMC on the SBI paper's linear-regression releases")
	fs.IntVar(&o.n10, "n10-iters", 0, "iterations per chain of the n = 10 acceptance runs (0: 10000, 3000 with -quick)")
	fs.IntVar(&o.n100, "n100-iters", 0, "iterations per chain of the n = 100 diagnostics, at least 100 (0: 5000, 2000 with -quick)")
	fs.IntVar(&o.n2Grid, "n2-grid", 0, "grid points per record of the exact n = 2 transition matrix, 2 to 40 (0: 24, 16 with -quick)")
	fs.IntVar(&o.linregSweepDiv, "linreg-div", 0, "divide the linear-regression sweeps (100000 IMwG, 30000 SOMA) by this (0: 1, 5 with -quick)")
	return fs, o
}

var kernels = []mcmc.RecordStep{mcmc.RandomScanIMwG, mcmc.SystematicScanIMwG, mcmc.SOMA}

// slides holds the n = 10 table: acceptance %, coupling time (mean, q1,
// q3) and convergence rate.
var slides = map[float64]map[mcmc.RecordStep][5]float64{
	3: {mcmc.RandomScanIMwG: {94.80, 156.04, 46, 216, 0.9937}, mcmc.SystematicScanIMwG: {94.81, 99.60, 28, 138, 0.9904},
		mcmc.SOMA: {99.49, 152.98, 42, 211, 0.9937}},
	30: {mcmc.RandomScanIMwG: {50.95, 900.79, 261, 1262, 0.9989}, mcmc.SystematicScanIMwG: {50.94, 549.07, 170, 764, 0.9982},
		mcmc.SOMA: {91.91, 120.64, 46, 163, 0.9909}},
}

func run(args []string, stdout, stderr io.Writer) error {
	fs, o := flags()
	fs.SetOutput(io.Discard)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	for _, e := range []error{cli.AtLeast("pairs", o.pairs, 1), cli.AtLeast("n10-iters", o.n10, 0), cli.AtLeast("n100-iters", o.n100, 0), cli.AtLeast("linreg-div", o.linregSweepDiv, 0)} {
		if e != nil {
			return e
		}
	}
	if o.n2Grid != 0 && (o.n2Grid < 2 || o.n2Grid > 40) {
		return cli.Usagef("-n2-grid must be 0 or in [2, 40], got %d", o.n2Grid)
	}
	if o.n100 != 0 && o.n100 < 100 {
		return cli.Usagef("-n100-iters must be 0 or at least 100, got %d", o.n100)
	}
	if err := o.common.Prepare(); err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	ctx := context.Background()
	iters, pairs := 10000, o.pairs
	if o.common.Quick {
		iters, pairs = 3000, min(pairs, 150)
	}
	if o.n10 > 0 {
		iters = o.n10
	}
	var survival []plot.Series
	fmt.Fprintf(stdout, "### Slides' n = 10 table: acceptance, coupling time, convergence rate\n\n")
	fmt.Fprintf(stdout, "Acceptance: 8 chains × %d iterations (n attempts each). Coupling: %d pairs per kernel.\n\n", iters, pairs)
	tab := &cli.Table{Header: []string{"ε", "kernel", "acceptance % (ours)", "slides", "coupling τ mean (q1, q3)", "slides", "rate 1−1/E[τ]", "slides"}}
	var accs, couples []cli.Compared
	for _, eps := range []float64{3, 30} {
		p, nig, err := linregda.SlidesN10(eps)
		if err != nil {
			return err
		}
		for ki, k := range kernels {
			label := fmt.Sprintf("n=10 ε=%v %v", eps, k)
			res, err := mcmc.RunDA(ctx, p, mcmc.DAConfig{ThetaStep: nig, RecordStep: k, Chains: 8, Draws: iters, Seed: o.common.Seed + uint64(ki),
				Progress: prog.Every(3*time.Second, label+" acceptance")})
			if err != nil {
				return err
			}
			acc := 100 * res.AcceptRate()
			cr, err := mcmc.CoupleDA(ctx, p, mcmc.CouplingConfig{RecordStep: k, Pairs: pairs, MaxIter: 50000, Seed: o.common.Seed + 100 + uint64(ki),
				InitPair: linregda.SlidesN10CouplingInit(p, nig, 500), Progress: prog.Every(3*time.Second, label+" coupling")})
			if err != nil {
				return err
			}
			survival = append(survival, survivalSeries(fmt.Sprintf("ε = %v, %v", eps, k), cr.Times, eps == 30))
			q1, q3 := cr.Quartiles()
			ref := slides[eps][k]
			name := fmt.Sprintf("ε = %v %v", eps, k)
			accs = append(accs, cli.Compared{Name: name, Ours: acc, Paper: ref[0], Tol: n10AccTol})
			couples = append(couples, cli.Compared{Name: name, Ours: cr.Mean(), Paper: ref[1], Tol: coupleTol(ref[1], pairs)})
			tab.Add(cli.F(eps, 0), k.String(), cli.F(acc, 2), cli.F(ref[0], 2),
				fmt.Sprintf("%s (%s, %s)", cli.F(cr.Mean(), 1), cli.F(q1, 0), cli.F(q3, 0)),
				fmt.Sprintf("%s (%s, %s)", cli.F(ref[1], 2), cli.F(ref[2], 0), cli.F(ref[3], 0)),
				cli.F(cr.Rate(), 4), cli.F(ref[4], 4))
			prog.Printf("n=10 ε=%v %v done", eps, k)
		}
	}
	tab.Markdown(stdout)
	fmt.Fprintln(stdout)
	if o.common.Out != "" {
		cv, err := plot.LineChart{Title: fmt.Sprintf("Slides' n = 10: coupling times of %d pairs per kernel (dashed: ε = 30)", pairs),
			XLabel: "iteration t", YLabel: "P(τ ≥ t)", LogY: true, Series: survival}.Draw()
		if err != nil {
			return err
		}
		if _, err := o.common.WritePlot("soma_n10_coupling", cv); err != nil {
			return err
		}
	}
	for _, v := range n10Verdicts(accs, couples) {
		if err := cli.Report(stdout, v); err != nil {
			return err
		}
	}
	if err := runN2(ctx, o, stdout, prog); err != nil {
		return err
	}
	if err := diagnostics100(ctx, o, stdout, prog); err != nil {
		return err
	}
	if !o.linreg {
		return nil
	}
	return runLinReg(ctx, o, stdout, prog)
}

var table = map[float64][3][3]float64{
	10:  {{-0.62, -2.50, 0.99}, {-2.72, -3.74, -0.96}, {0.54, -1.06, 2.46}},
	0.1: {{-0.12, -1.98, 1.77}, {-0.13, -2.13, 1.88}, {0.13, -1.91, 2.12}},
}

// summary3 returns the posterior mean and the 95% equal-tailed interval
// of coordinate j.
func summary3(d *privinfer.Draws, j int) [3]float64 {
	lo, hi := d.Interval(j, 0.95)
	return [3]float64{d.Mean()[j], lo, hi}
}

// worst returns the largest split R̂ and the smallest bulk ESS over the
// parameters of chained draws (NaN when a diagnostic cannot be estimated).
func worst(d *privinfer.Draws) (maxR, minE float64) {
	maxR, minE = 0, math.Inf(1)
	for _, row := range d.Summary().Rows {
		maxR, minE = math.Max(maxR, row.RHat), math.Min(minE, row.ESSBulk)
	}
	return maxR, minE
}

func ci(s [3]float64) string {
	return fmt.Sprintf("%s (%s, %s)", cli.F(s[0], 2), cli.F(s[1], 2), cli.F(s[2], 2))
}

func runLinReg(ctx context.Context, o *opts, stdout io.Writer, prog *cli.Progress) error {
	fmt.Fprintf(stdout, "\n### DA-MCMC on the SBI paper's linear-regression releases (n = 100)\n\n")
	sweeps := map[mcmc.RecordStep]int{mcmc.SystematicScanIMwG: 100000, mcmc.RandomScanIMwG: 100000, mcmc.SOMA: 30000}
	div := o.linregSweepDiv
	if div == 0 && o.common.Quick {
		div = 5
	}
	for k := range sweeps {
		sweeps[k] = max(sweeps[k]/max(div, 1), 20)
	}
	inits := [][]float64{{4, 4, 4}, {-4, -4, -4}, {4, -4, 4}, {-4, 4, -4}}
	post := &cli.Table{Header: []string{"ε", "β", "ours (Sys-IMwG)", "ours (SOMA)", "paper DA-MCMC", "authors' CSV"}}
	_, cpuOK := cli.ProcessCPU()
	clock := "CPU"
	if !cpuOK {
		clock = "wall"
	}
	eff := &cli.Table{Header: []string{"ε", "kernel", "sweeps/chain", "max R̂", "min bulk ESS", "ESS per 1000 sweeps", "ESS per " + clock + "-s", "acceptance"}}
	var verdicts []cli.Verdict
	for _, eps := range []float64{10, 1, 0.1} {
		p, th, err := linregda.SBIPaper(eps)
		if err != nil {
			return err
		}
		res := map[mcmc.RecordStep]*mcmc.Result{}
		for ki, k := range kernels {
			thin := max(1, sweeps[k]/1000)
			start := time.Now()
			cpu0, _ := cli.ProcessCPU()
			r, err := mcmc.RunDA(ctx, p, mcmc.DAConfig{ThetaStep: th, RecordStep: k, Chains: 4, Warmup: sweeps[k] / 10, Draws: sweeps[k] / thin, Thin: thin,
				Seed: o.common.Seed + 10*uint64(ki), Init: inits, Progress: prog.Every(3*time.Second, fmt.Sprintf("linreg ε=%v %v", eps, k))})
			if err != nil {
				return err
			}
			el := time.Since(start).Seconds()
			if cpuOK {
				cpu1, _ := cli.ProcessCPU()
				el = (cpu1 - cpu0).Seconds()
			}
			res[k] = r
			maxR, minE := worst(r.Draws)
			total := float64(4 * (sweeps[k] + sweeps[k]/10))
			eff.Add(cli.F(eps, 1), k.String(), strconv.Itoa(sweeps[k]), cli.F(maxR, 4), cli.F(minE, 0),
				cli.F(1000*minE/float64(4*sweeps[k]), 2), cli.F(minE/el*float64(4*sweeps[k])/total, 1), cli.F(r.AcceptRate(), 3))
			prog.Printf("linreg ε=%v %v: %.1f %s-s", eps, k, el, clock)
		}
		epsName := strconv.FormatFloat(eps, 'g', -1, 64)
		if _, err := o.common.WriteFile("linreg_eps"+epsName+"_damcmc.csv", res[mcmc.SystematicScanIMwG].Draws.WriteCSV); err != nil {
			return err
		}
		authors, err := cli.Authors("linreg_eps"+epsName+"_beta.csv", "beta0", "beta1", "beta2")
		if err != nil {
			return err
		}
		ok := authors != nil
		cmp, labels := []*privinfer.Draws{res[mcmc.SOMA].Draws}, []string{"SOMA"}
		if ok {
			cmp, labels = append(cmp, authors), append(labels, "authors' CSV")
		}
		if _, err := o.common.WriteCorner("linreg_eps"+epsName+"_damcmc", res[mcmc.SystematicScanIMwG].Draws, privinfer.CornerConfig{
			Title: "DA-MCMC posterior of β, linear-regression release ε = " + epsName, Label: "Sys-IMwG", Compare: cmp, CompareLabels: labels}); err != nil {
			return err
		}
		var ours3, authors3 [3][3]float64
		for j := range 3 {
			ours := summary3(res[mcmc.SystematicScanIMwG].Draws, j)
			soma := summary3(res[mcmc.SOMA].Draws, j)
			ours3[j] = ours
			paper, csvs := "—", "—"
			if row, ok := table[eps]; ok {
				paper = ci(row[j])
			}
			if ok {
				authors3[j] = summary3(authors, j)
				csvs = ci(authors3[j])
			}
			post.Add(cli.F(eps, 1), "β"+strconv.Itoa(j), ci(ours), ci(soma), paper, csvs)
		}
		var a *[3][3]float64
		if ok {
			a = &authors3
		}
		if v, has := damcmcVerdict(eps, ours3, a); has {
			verdicts = append(verdicts, v)
		}
	}
	post.Markdown(stdout)
	fmt.Fprintln(stdout)
	eff.Markdown(stdout)
	fmt.Fprintln(stdout)
	if cpuOK {
		fmt.Fprintln(stdout, "ESS per CPU-s divides the smallest bulk ESS by the process CPU seconds (user + system) of the 4 parallel chains, scaled to the post-warm-up share of the sweeps, so it does not count time spent waiting for a free core. ESS per 1000 sweeps is machine independent.")
	} else {
		fmt.Fprintln(stdout, "ESS per wall-s divides the smallest bulk ESS by the wall seconds of the 4 parallel chains (the process CPU time is not available on this system), scaled to the post-warm-up share of the sweeps: it depends on how many cores were free. ESS per 1000 sweeps is machine independent.")
	}
	fmt.Fprintln(stdout)
	for _, v := range verdicts {
		if err := cli.Report(stdout, v); err != nil {
			return err
		}
	}
	return nil
}

// diagnostics100 runs the n = 100 convergence comparison.
func diagnostics100(ctx context.Context, o *opts, stdout io.Writer, prog *cli.Progress) error {
	const n = 100
	iters := 5000
	if o.common.Quick {
		iters = 2000
	}
	if o.n100 > 0 {
		iters = o.n100
	}
	nig, err := linreg.NewNIG(linreg.NIGConfig{PredictorMean: []float64{0.90, -1.17}, A0: 10, B0: 10, G: 2, Clamp: 6})
	if err != nil {
		return err
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 13.0 / n, Epsilon: 30, Dim: 9})
	if err != nil {
		return err
	}
	sim, err := simulate.NewMeanStat(nig, n)
	if err != nil {
		return err
	}
	// The release is simulated at θ* (a seeded study, no confidential data).
	rel, err := simulate.NewPrivate(sim, lap)
	if err != nil {
		return err
	}
	sdp := make([]float64, 9)
	if err := rel.Simulate(rand.New(rand.NewPCG(o.common.Seed, 100)), []float64{-1.79, -2.89, -0.66, 2}, sdp); err != nil {
		return err
	}
	p := privinfer.Problem{Prior: nig, Simulator: sim, Mechanism: lap, Observed: sdp, Names: []string{"beta0", "beta1", "beta2", "sigma2"}}
	fmt.Fprintf(stdout, "\n### n = 100 convergence diagnostics (simulated ε = 30 release, 4 chains × %d iterations)\n\n", iters)
	tab := &cli.Table{Header: []string{"kernel", "iterations to R̂ < 1.05", "min bulk ESS at the end", "acceptance"}}
	var trace []plot.Series
	reached := map[mcmc.RecordStep]int{}
	for ki, k := range kernels {
		res, err := mcmc.RunDA(ctx, p, mcmc.DAConfig{ThetaStep: nig, RecordStep: k, Chains: 4, Draws: iters, Seed: o.common.Seed + 500 + uint64(ki),
			Progress: prog.Every(3*time.Second, fmt.Sprintf("n=100 diagnostics %v", k))})
		if err != nil {
			return err
		}
		// The first checkpoint t (every 100 iterations) at which the split
		// R̂ of every parameter over the first t iterations is below 1.05,
		// and the largest R̂ at every checkpoint for the plot.
		reach := -1
		s := plot.Series{Name: k.String()}
		for t := rhatStep; t <= iters; t += rhatStep {
			worstR := 0.0
			head := firstDraws(res.Draws, t)
			for j := range 4 {
				v, err := head.RHat(j)
				if err != nil || math.IsNaN(v) {
					v = math.Inf(1)
				}
				worstR = math.Max(worstR, v)
			}
			if worstR < 1.05 && reach < 0 {
				reach = t
			}
			if !math.IsInf(worstR, 0) {
				s.X, s.Y = append(s.X, float64(t)), append(s.Y, worstR)
			}
		}
		if len(s.X) > 0 {
			trace = append(trace, s)
		}
		reached[k] = reach
		_, minE := worst(res.Draws)
		cell := "not reached"
		if reach > 0 {
			cell = strconv.Itoa(reach)
		}
		tab.Add(k.String(), cell, cli.F(minE, 0), cli.F(res.AcceptRate(), 3))
		prog.Printf("n=100 diagnostics %v done", k)
	}
	tab.Markdown(stdout)
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "Slides: SOMA reaches R̂ < 1.05 after about %d iterations, both IMwG scans after about %d (their release and ε are not stated).\n", slidesSOMAReach, slidesIMwGReach)
	if err := cli.Report(stdout, rhatVerdict(reached[mcmc.SOMA], reached[mcmc.RandomScanIMwG], reached[mcmc.SystematicScanIMwG], iters)); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if o.common.Out == "" || len(trace) == 0 {
		return nil
	}
	cv, err := plot.LineChart{Title: "n = 100, simulated ε = 30 release: largest split R-hat over the first t iterations (4 chains)",
		XLabel: "iterations t", YLabel: "max split R-hat", LogY: true, Series: trace, HLines: []float64{1.05}}.Draw()
	if err != nil {
		return err
	}
	_, err = o.common.WritePlot("soma_n100_rhat", cv)
	return err
}

// survivalSeries is the empirical P(τ ≥ t) of coupling times at every
// distinct time (at least 1/len(times), so that it has a logarithm).
func survivalSeries(name string, times []int, dashed bool) plot.Series {
	t := slices.Clone(times)
	slices.Sort(t)
	s := plot.Series{Name: name, Dashed: dashed}
	for i, v := range t {
		if i > 0 && v == t[i-1] {
			continue
		}
		s.X, s.Y = append(s.X, float64(v)), append(s.Y, float64(len(t)-i)/float64(len(t)))
	}
	return s
}

// firstDraws returns the first t draws of every chain of d.
func firstDraws(d *privinfer.Draws, t int) *privinfer.Draws {
	per := d.Len() / d.Chains
	out := &privinfer.Draws{Names: d.Names, Dim: d.Dim, Chains: d.Chains}
	for c := range d.Chains {
		out.Theta = append(out.Theta, d.Theta[c*per*d.Dim:(c*per+t)*d.Dim]...)
	}
	return out
}
