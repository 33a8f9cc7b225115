// Command sir-abc computes the SMC-ABC reference posterior of the SBI
// paper's synthetic SIR experiment (App. E.1.1) at ε = 10, 1 or 0.1: the exact
// stochastic SIR model (Gillespie, K = 10⁶, record times 0, 17, …, 153)
// composed with the DP infection-trajectory mechanism (n = m = 1000, L = 10),
// the observed release s_dp of the paper, the prior N((log 0.4, log 0.125),
// diag(0.5, 0.2)) on (log β, log γ), the ℓ2 distance and the paper's
// tolerance schedule ε_t = 0.5·0.7^t.
//
// With -out DIR it writes the weighted final population as CSV
// (DIR/sir_epsE_smcabc.csv: log_beta, log_gamma, weight) and a corner plot.
// It prints the per-round table, posterior means and 95% intervals of β, γ
// and R0 = β/γ, the simulation count and the wall time. It compares the
// result with the authors' reference sample (CSV, first column an index;
// found next to the repository or given by -authors) by means, quantiles
// and MMD, and prints a verdict line.
//
// Every run also measures each round's population against the exact
// posterior (abc/testdata/sir_epsE_exact.csv, made by -exact; -exact-ref
// names another file): the cumulative simulations and wall time, the MMD
// (the unbiased MMD² estimate with the reference's median-heuristic
// bandwidth, as in examples/reproduce/sir) and the C2ST — the paper's Fig. 5, printed
// and with -out written as CSV (sir_epsE_smcabc_fig5.csv) and a chart (SVG
// and PNG) — and the SMC-ABC row of the paper's Table 1: the simulations
// and wall time until the MMD first falls below 0.1, with a verdict on
// Fig. 5. With -trials N the run is repeated N times with seeds derived
// from -seed (trial 1 uses it), Fig. 5 shows the mean and quartiles per
// round and Table 1 the mean ± sd over the trials that reached the target,
// naming those that never did; with -trials-dir DIR each finished trial is
// saved there and reused when present, -trial-range a-b runs only those
// trials, and once all N are present the per-trial costs are written to
// DIR/sir_epsE_smcabc_table1.csv, where examples/reproduce/sir -trials reads Table
// 1's SMC-ABC row:
//
//	go run ./examples/reproduce/sir-abc -trials 10 -trials-dir .reproduce-cache/sir-trials -particles 400 -rounds 9 -walltime 30m -min-acceptance 0.02
//
//	go run ./examples/reproduce/sir-abc -particles 400 -rounds 9 -walltime 15m -min-acceptance 0.02 -out abc/testdata -summary abc/testdata/sir_eps10_smcabc_summary.txt
//	go run ./examples/reproduce/sir-abc -eps 1 -particles 400 -rounds 12 -walltime 15m -min-acceptance 0.02 -out abc/testdata -summary abc/testdata/sir_eps1_smcabc_summary.txt
//	go run ./examples/reproduce/sir-abc -quick   # 100 particles, 4 rounds, at most 3 minutes
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	trialstat "github.com/privinfer/privinfer/examples/reproduce/support/trials"
	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/simulate/sir"
)

// names are the parameters, (log β, log γ).
var names = []string{"log_beta", "log_gamma"}

// referenceFile is the authors' SMC-ABC sample of (log β, log γ) at ε, in
// cli.AuthorsDir.
func referenceFile(eps float64) string { return "sir_eps" + epsName(eps) + "_log_theta.csv" }

// csvName is the file written into -out.
func csvName(eps float64) string { return "sir_eps" + epsName(eps) + "_smcabc.csv" }

func epsName(eps float64) string { return strconv.FormatFloat(eps, 'g', -1, 64) }

func main() { cli.Program("sir-abc", parse, run) }

// options are the command-line settings.
type options struct {
	cli.Common
	particles, rounds  int
	eps                float64
	minTol             float64
	wall               time.Duration
	maxSims            int64
	minAcc             float64
	summary, authors   string
	exact, exactStages int
	exactInit          string
	exactRef           string // -exact-ref: the exact posterior of Fig. 5 and Table 1
	trials             int    // -trials: independent runs (0: one run)
	trialLo, trialHi   int    // -trial-range, 1-based inclusive
	trialsDir          string // -trials-dir: saved trials, reused when present
}

func parse(fs *flag.FlagSet, args []string) (options, error) {
	var o options
	c := cli.Register(fs, 20240601)
	fs.Float64Var(&o.eps, "eps", 10, "privacy budget of the paper's synthetic release (10, 1 or 0.1)")
	fs.IntVar(&o.particles, "particles", 500, "number of SMC particles (-quick: 100)")
	fs.IntVar(&o.rounds, "rounds", 12, "maximum number of rounds of the schedule 0.5·0.7^t (-quick: 4)")
	fs.Float64Var(&o.minTol, "min-tol", 0, "stop before the first tolerance below this (0: none)")
	fs.DurationVar(&o.wall, "walltime", 20*time.Minute, "wall-time limit (-quick: 3m)")
	fs.Int64Var(&o.maxSims, "maxsims", 0, "simulation budget (0: none)")
	fs.Float64Var(&o.minAcc, "min-acceptance", 0.02, "stop after a round with a lower acceptance rate")
	fs.IntVar(&o.exact, "exact", 0, "instead of SMC-ABC, sample the exact posterior by kernel importance sampling with this many simulations per stage")
	fs.IntVar(&o.exactStages, "exact-stages", 2, "adaptive stages of -exact")
	fs.StringVar(&o.exactInit, "exact-init", "", "initial sample for -exact (default: abc/testdata/sir_epsE_smcabc.csv, else the authors' sample)")
	fs.StringVar(&o.exactRef, "exact-ref", "", "exact posterior for Fig. 5 and Table 1 (default abc/testdata/sir_epsE_exact.csv at the repository root, skipped when absent)")
	fs.IntVar(&o.trials, "trials", 0, "Fig. 5 and Table 1 over this many independent SMC-ABC runs with derived seeds (0: one run, with the usual outputs)")
	trialRange := fs.String("trial-range", "", "with -trials: run only trials a-b (1-based) and read the others from -trials-dir")
	fs.StringVar(&o.trialsDir, "trials-dir", "", "with -trials: folder where every finished trial's per-round accuracy is saved and reused when present (keyed by the settings), and the per-trial costs examples/reproduce/sir -trials reads")
	fs.StringVar(&o.summary, "summary", "", "file for the text summary (also printed)")
	fs.StringVar(&o.authors, "authors", "", "reference posterior CSV to compare with (default: ../shared/"+cli.AuthorsDir+referenceFile(10)+" for ε = 10, likewise for 1 and 0.1, next to the repository, skipped when absent; \"none\" to skip)")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	o.Common = *c
	if err := cli.QuickDefaults(fs, o.Quick, map[string]string{"particles": "100", "rounds": "4", "walltime": "3m"}); err != nil {
		return o, err
	}
	if _, err := sir.SyntheticRelease(o.eps); err != nil {
		return o, cli.Usagef("-eps: the paper has synthetic releases for ε = 10, 1 and 0.1 only, got %v", o.eps)
	}
	switch {
	case o.trials < 0:
		return o, cli.Usagef("-trials must be >= 0, got %d", o.trials)
	case o.trials == 0 && (*trialRange != "" || o.trialsDir != ""):
		return o, cli.Usagef("-trial-range and -trials-dir need -trials")
	case o.trials > 0 && o.exact > 0:
		return o, cli.Usagef("-trials cannot be combined with -exact")
	case *trialRange != "" && o.trialsDir == "":
		return o, cli.Usagef("-trial-range needs -trials-dir (where the other trials are saved)")
	}
	if o.trials > 0 {
		var err error
		if o.trialLo, o.trialHi, err = trialstat.ParseRange(*trialRange, o.trials); err != nil {
			return o, err
		}
	}
	switch {
	case o.exact < 0 || o.exact == 1:
		return o, cli.Usagef("-exact must be 0 or >= 2, got %d", o.exact)
	case o.exactStages < 1:
		return o, cli.Usagef("-exact-stages must be >= 1, got %d", o.exactStages)
	case o.particles < 2:
		return o, cli.Usagef("-particles must be >= 2, got %d", o.particles)
	case o.rounds < 1:
		return o, cli.Usagef("-rounds must be >= 1, got %d", o.rounds)
	case o.wall < 0:
		return o, cli.Usagef("-walltime must be >= 0, got %v", o.wall)
	case o.maxSims < 0:
		return o, cli.Usagef("-maxsims must be >= 0, got %d", o.maxSims)
	case !(o.minTol >= 0) || math.IsInf(o.minTol, 0):
		return o, cli.Usagef("-min-tol must be finite and >= 0, got %v", o.minTol)
	case !(o.minAcc >= 0 && o.minAcc < 1):
		return o, cli.Usagef("-min-acceptance must be in [0, 1), got %v", o.minAcc)
	}
	return o, nil
}

// problem is the SBI paper's synthetic SIR problem at ε.
func problem(eps float64) (privinfer.Problem, error) {
	ps, err := sir.SyntheticSimulator(eps)
	if err != nil {
		return privinfer.Problem{}, err
	}
	obs, err := sir.SyntheticRelease(eps)
	return privinfer.Problem{Prior: sir.Prior(), Simulator: ps.Confidential(), Mechanism: ps.Mechanism(), Observed: obs, Names: names}, err
}

// logger prints to stdout and keeps a copy for -summary.
type logger struct {
	w io.Writer
	b strings.Builder
}

func (l *logger) f(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	l.b.WriteString(s)
	fmt.Fprint(l.w, s)
}

// reference returns the sample to compare with: -authors, else the
// authors' file when present (nil when absent or -authors none).
func reference(o options, l *logger) (*privinfer.Draws, error) {
	switch o.authors {
	case "none":
		return nil, nil
	case "":
		ref, err := cli.Authors(referenceFile(o.eps), names...)
		if ref == nil && err == nil {
			l.f("authors' reference sample not found (optional file ../shared/%s%s); comparison skipped\n", cli.AuthorsDir, referenceFile(o.eps))
		}
		return ref, err
	}
	return cli.ReadDraws(o.authors, names...)
}

// run runs SMC-ABC (repeatedly with -trials), or kernel IS with -exact.
func run(_ context.Context, o options, stdout, stderr io.Writer) error {
	if o.exact > 0 {
		return runExact(o, stdout, stderr)
	}
	if o.trials > 0 {
		return runTrials(o, stdout, stderr)
	}
	if err := o.Prepare(); err != nil {
		return err
	}
	l := &logger{w: stdout}
	ref, err := reference(o, l)
	if err != nil {
		return err
	}
	exact, exactPath, err := exactReference(o)
	if err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	p, err := problem(o.eps)
	if err != nil {
		return err
	}
	l.f("SIR eps=%s SMC-ABC: K=%d, n=%d, L=%d, %d particles, schedule 0.5*0.7^t (<= %d rounds), GOMAXPROCS=%d, seed %d\n",
		epsName(o.eps), sir.SyntheticK, sir.SyntheticN, sir.SyntheticL, o.particles, o.rounds, runtime.GOMAXPROCS(0), o.Seed)
	res, err := smc(o, p, o.Seed, prog, "SMC-ABC")
	if err != nil {
		return err
	}
	rounds(l, res.Rounds)
	fin := res.Final()
	l.f("stopped: %s after %d rounds; %d simulations in %s (final tolerance %.4f)\n",
		res.Stop, len(res.Rounds), res.Simulations, res.Elapsed.Round(time.Second), fin.Tolerance)
	if exact == nil {
		l.f("the exact posterior %s is absent: Fig. 5 and Table 1 are skipped (make it with -exact)\n", exactPath)
	} else {
		prog.Printf("C2ST and MMD of every round against the exact posterior (Fig. 5)")
		l.f("accuracy against the exact posterior %s (MMD: unbiased MMD² estimate, Gaussian kernel with the reference's median-heuristic bandwidth)\n", filepath.Base(exactPath))
		rs, err := measure(res.Rounds, exact, o.Seed)
		if err != nil {
			return err
		}
		if err := report(o, l, []abcTrial{{trial: 1, seed: o.Seed, rounds: rs}}, 1); err != nil {
			return err
		}
	}
	return finish(o, l, "SMC-ABC", csvName(o.eps), fin, ref)
}

// rounds prints the table of SMC-ABC rounds or kernel IS stages.
func rounds(l *logger, rs []*abc.Round) {
	l.f("%5s %9s %9s %8s %8s %9s %10s %10s %10s\n", "round", "eps", "sims", "accept", "ESS", "elapsed", "E[logb]", "E[logg]", "sd[logg]")
	elapsed := time.Duration(0)
	for _, r := range rs {
		elapsed += r.Elapsed
		mu, sd := r.Draws.Mean(), r.Draws.SD()
		l.f("%5d %9.4f %9d %8.4f %8.1f %9s %10.4f %10.4f %10.4f\n", r.Round, r.Tolerance, r.Simulations, r.Acceptance, r.ESS,
			elapsed.Round(time.Second), mu[0], mu[1], sd[1])
	}
}

// finish prints the posterior summaries of (log β, log γ), β, γ and R0 (with
// the reference's beside them), the MMD to the reference and the verdict,
// and writes the CSV, the corner plot and the -summary file.
func finish(o options, l *logger, method, csvFile string, fin *abc.Round, ref *privinfer.Draws) error {
	derive := func(d *privinfer.Draws) (*privinfer.Draws, error) {
		return d.Map([]string{"log beta", "log gamma", "beta", "gamma", "R0"}, func(t, dst []float64) {
			dst[0], dst[1], dst[2], dst[3], dst[4] = t[0], t[1], math.Exp(t[0]), math.Exp(t[1]), math.Exp(t[0]-t[1])
		})
	}
	ds := []*privinfer.Draws{fin.Draws}
	l.f("%-10s %10s %10s %10s", "quantity", "mean", "q2.5", "q97.5")
	if ref != nil {
		ds = append(ds, ref)
		l.f(" | %10s %10s %10s (reference sample, %d draws)", "ref mean", "ref q2.5", "ref q97.5", ref.Len())
	}
	l.f("\n")
	for i, d := range ds {
		var err error
		if ds[i], err = derive(d); err != nil {
			return err
		}
	}
	for j, name := range ds[0].Names {
		l.f("%-10s", name)
		for i, d := range ds {
			lo, hi := d.Interval(j, 0.95)
			l.f("%s%10.4f %10.4f %10.4f", []string{" ", " | "}[i], d.Mean()[j], lo, hi)
		}
		l.f("\n")
	}
	if ref != nil {
		// An equally weighted resample of the population for the MMD.
		ours, err := fin.Draws.Resample(rand.New(rand.NewPCG(o.Seed, 1)), 2000)
		if err != nil {
			return err
		}
		biased, err := metrics.MMD(ours.Theta, ref.Theta, 2, metrics.MMDOptions{Biased: true})
		if err != nil {
			return err
		}
		unbiased, err := metrics.MMD(ours.Theta, ref.Theta, 2, metrics.MMDOptions{})
		if err != nil {
			return err
		}
		l.f("MMD² to the reference (Gaussian kernel, median-heuristic bandwidth of the reference on (log beta, log gamma)): biased %.5f, unbiased %.5f\n", biased, unbiased)
	}
	verdict(l.w, method, o.eps, fin, ref)
	csvPath, err := o.WriteFile(csvFile, fin.Draws.WriteCSV)
	if err != nil {
		return err
	}
	cfg := privinfer.CornerConfig{Title: "SIR ε = " + epsName(o.eps) + ": posterior of (log β, log γ) by " + method + "; mark: true θ",
		Label: method + " (ours)", Truth: sir.SyntheticTheta(), Panel: 260}
	if ref != nil {
		cfg.Compare, cfg.CompareLabels = []*privinfer.Draws{ref}, []string{"authors' SMC-ABC"}
	}
	plotPath, err := o.WriteCorner(strings.TrimSuffix(csvFile, ".csv"), fin.Draws, cfg)
	if err != nil {
		return err
	}
	if csvPath != "" {
		fmt.Fprintf(l.w, "wrote %s, %s\n", csvPath, plotPath)
	}
	if o.summary != "" {
		return os.WriteFile(o.summary, []byte(l.b.String()), 0o644)
	}
	return nil
}

// verdict compares the posterior means of (log β, log γ) with the authors'
// reference sample in units of the reference's standard deviations.
func verdict(w io.Writer, method string, eps float64, fin *abc.Round, ref *privinfer.Draws) {
	what := "SBI paper App. E.1.1 (reference posterior of the SIR release, ε = " + epsName(eps) + ", by " + method + ")"
	if ref == nil {
		cli.PrintVerdict(w, cli.Partial, what, fmt.Sprintf("the authors' reference sample is absent, so nothing is compared; our run stopped at tolerance %.4f", fin.Tolerance))
		return
	}
	worst, width := 0.0, 0.0
	d := fin.Draws
	for j := range 2 {
		worst = math.Max(worst, math.Abs(d.Mean()[j]-ref.Mean()[j])/ref.SD()[j])
		lo, hi := d.Interval(j, 0.95)
		rlo, rhi := ref.Interval(j, 0.95)
		width += (hi - lo) / (rhi - rlo) / 2
	}
	detail := fmt.Sprintf("posterior means of (log β, log γ) differ from the authors' SMC-ABC sample by up to %.2f reference sd, 95%% intervals %.2f× as wide", worst, width)
	if method == "SMC-ABC" {
		detail += fmt.Sprintf(", final tolerance %.4f", fin.Tolerance)
	} else {
		detail += " (no tolerance: the intervals of tolerance ABC are wider)"
	}
	switch {
	case worst <= 0.5:
		cli.PrintVerdict(w, cli.Reproduced, what, detail+" (tolerance 0.5 sd)")
	case method == "SMC-ABC" && fin.Tolerance > 0.05:
		cli.PrintVerdict(w, cli.Partial, what, detail+": the run stopped (round limit, budget or wall time) before the tolerance fell to the paper's level, so the posterior is still wider and shifted toward the prior")
	default:
		cli.PrintVerdict(w, cli.Differs, what, detail+" (> 0.5 sd at a small tolerance)")
	}
}
