// Command sir-abc computes the SMC-ABC reference posterior of the SBI
// paper's synthetic SIR experiment (App. E.1.1) at ε = 10, 1 or 0.1: the exact
// stochastic SIR model (Gillespie, K = 10⁶, record times 0, 17, …, 153)
// composed with the DP infection-trajectory mechanism (n = m = 1000, L = 10),
// the observed release s_dp of the paper, the prior N((log 0.4, log 0.125),
// diag(0.5, 0.2)) on (log β, log γ), the ℓ2 distance and the paper's
// tolerance schedule ε_t = 0.5·0.7^t.
//
// With -out DIR it writes the weighted final population as CSV
// (DIR/sir_epsE_smcabc.csv: log_beta, log_gamma, weight) after every round,
// so an interrupted run leaves its last complete population, and a corner
// plot at the end. It prints the per-round table, posterior means and 95%
// intervals of β, γ and R0 = β/γ, the simulation count and the wall time.
// It compares the result with the authors' reference sample (CSV, first
// column an index; found next to the repository or given by -authors) by
// means, quantiles and MMD, and prints a verdict line.
//
//	go run ./examples/sir-abc -particles 400 -rounds 9 -walltime 15m -min-acceptance 0.02 -out abc/testdata -summary abc/testdata/sir_eps10_smcabc_summary.txt
//	go run ./examples/sir-abc -eps 1 -particles 400 -rounds 12 -walltime 15m -min-acceptance 0.02 -out abc/testdata -summary abc/testdata/sir_eps1_smcabc_summary.txt
//	go run ./examples/sir-abc -quick   # 100 particles, 4 rounds, at most 3 minutes
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/internal/cli"
	"github.com/privinfer/privinfer/examples/internal/plot"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate/sir"
)

// referenceFile is the authors' SMC-ABC sample of (log β, log γ) at ε,
// relative to the optional shared directory.
func referenceFile(eps float64) string {
	return "reference/authors-reference-posteriors/sir_eps" + epsName(eps) + "_log_theta.csv"
}

// csvName is the file written into -out after every round.
func csvName(eps float64) string { return "sir_eps" + epsName(eps) + "_smcabc.csv" }

func epsName(eps float64) string { return strconv.FormatFloat(eps, 'g', -1, 64) }

func main() {
	fs := flag.NewFlagSet("sir-abc", flag.ContinueOnError)
	cli.Main("sir-abc", cli.FlagUsage(fs), func(args []string, stdout, stderr io.Writer) error {
		o, err := parse(fs, args)
		if err != nil {
			return err
		}
		if o.exact > 0 {
			return runExact(o, stdout)
		}
		return run(o, stdout, stderr)
	})
}

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
	fs.StringVar(&o.summary, "summary", "", "file for the text summary (also printed)")
	fs.StringVar(&o.authors, "authors", "", "reference posterior CSV to compare with (default: ../shared/"+referenceFile(10)+" for ε = 10, likewise for 1 and 0.1, next to the repository, skipped when absent; \"none\" to skip)")
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

func run(o options, stdout, stderr io.Writer) error {
	particles, rounds, minTol, wall, maxSims, minAcc, seed, summary := o.particles, o.rounds, o.minTol, o.wall, o.maxSims, o.minAcc, o.Seed, o.summary
	if err := o.Prepare(); err != nil {
		return err
	}
	eps := o.eps
	out := o.Path(csvName(eps))
	authors := o.authors
	switch authors {
	case "none":
		authors = ""
	case "":
		if p, ok := cli.SharedFile(referenceFile(eps)); ok {
			authors = p
		} else {
			fmt.Fprintf(stdout, "authors' reference sample not found (optional file ../shared/%s); comparison skipped\n", referenceFile(eps))
		}
	}
	prog := cli.NewProgress(stderr)
	epi, err := sir.New(sir.Config{K: sir.SyntheticK})
	if err != nil {
		return err
	}
	m, err := sir.SyntheticM(eps)
	if err != nil {
		return err
	}
	mech, err := mechanism.NewInfectionTrajectory(sir.SyntheticN, m, sir.SyntheticK, sir.SyntheticL)
	if err != nil {
		return err
	}
	obs, err := sir.SyntheticRelease(eps)
	if err != nil {
		return err
	}
	prob := privinfer.Problem{Prior: sir.Prior(), Simulator: epi, Mechanism: mech, Observed: obs, Names: []string{"log_beta", "log_gamma"}}
	w := stdout
	var sb []byte
	logf := func(format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		sb = append(sb, s...)
		fmt.Fprint(w, s)
	}
	logf("SIR eps=%s SMC-ABC: K=%d, n=%d, m=%d, L=%d, %d particles, schedule 0.5*0.7^t (<= %d rounds), GOMAXPROCS=%d, seed %d\n",
		epsName(eps), sir.SyntheticK, sir.SyntheticN, m, sir.SyntheticL, particles, rounds, runtime.GOMAXPROCS(0), seed)
	logf("%5s %9s %9s %10s %8s %9s %10s %10s\n", "round", "eps", "sims", "accept", "ESS", "elapsed", "E[logb]", "E[logg]")
	cfg := abc.SMCConfig{
		Distance:  abc.Euclidean{},
		Particles: particles, Schedule: abc.Geometric{A: 0.5, R: 0.7, Rounds: rounds, Min: minTol},
		MaxSimulations: maxSims, MinAcceptance: minAcc, Seed: seed,
		Progress: func(p privinfer.Progress) { prog.Printf("SMC-ABC %v", p) },
	}
	ctx := context.Background()
	if wall > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wall)
		defer cancel()
	}
	res, err := abc.SMC(ctx, prob, cfg)
	if err != nil && !(res != nil && res.Stop == abc.StopWallTime && len(res.Rounds) > 0) {
		return err
	}
	elapsed := time.Duration(0)
	for _, p := range res.Rounds {
		elapsed += p.Elapsed
		mu := p.Draws.Mean()
		logf("%5d %9.4f %9d %10.4f %8.1f %9s %10.4f %10.4f\n", p.Round, p.Tolerance, p.Simulations, p.Acceptance, p.ESS,
			elapsed.Round(time.Second), mu[0], mu[1])
	}
	fin := res.Final()
	if out != "" {
		if err := writeCSV(out, fin); err != nil {
			return err
		}
	}
	logf("stopped: %s after %d rounds; %d simulations in %s (final tolerance %.4f)\n",
		res.Stop, len(res.Rounds), res.Simulations, res.Elapsed.Round(time.Second), fin.Tolerance)
	beta := func(t []float64) float64 { return math.Exp(t[0]) }
	gamma := func(t []float64) float64 { return math.Exp(t[1]) }
	r0 := func(t []float64) float64 { return math.Exp(t[0] - t[1]) }
	logb := func(t []float64) float64 { return t[0] }
	logg := func(t []float64) float64 { return t[1] }
	logf("%-10s %10s %10s %10s\n", "quantity", "mean", "q2.5", "q97.5")
	for _, q := range []struct {
		name string
		f    func([]float64) float64
	}{{"log beta", logb}, {"log gamma", logg}, {"beta", beta}, {"gamma", gamma}, {"R0", r0}} {
		m, lo, hi := summarize(fin.Draws, q.f)
		logf("%-10s %10.4f %10.4f %10.4f\n", q.name, m, lo, hi)
	}
	var ref []float64
	if authors != "" {
		if ref, err = readRef(authors); err != nil {
			return err
		}
		if err := compare(logf, fin, ref); err != nil {
			return err
		}
	}
	verdict(stdout, "SMC-ABC", eps, fin, ref)
	if err := writePlot(&o.Common, eps, fin, ref, stdout); err != nil {
		return err
	}
	if summary != "" {
		return os.WriteFile(summary, sb, 0o644)
	}
	return nil
}

// verdict compares the posterior means of (log β, log γ) with the authors'
// reference sample in units of the reference's standard deviations.
func verdict(w io.Writer, method string, eps float64, fin *abc.Round, ref []float64) {
	what := "SBI paper App. E.1.1 (reference posterior of the SIR release, ε = " + epsName(eps) + ", by " + method + ")"
	if ref == nil {
		cli.PrintVerdict(w, cli.Partial, what, fmt.Sprintf("the authors' reference sample is absent, so nothing is compared; our run stopped at tolerance %.4f", fin.Tolerance))
		return
	}
	n := len(ref) / 2
	worst, width := 0.0, 0.0
	for j := range 2 {
		var m1, m2 float64
		v := make([]float64, n)
		for i := range n {
			v[i] = ref[2*i+j]
			m1 += v[i] / float64(n)
			m2 += v[i] * v[i] / float64(n)
		}
		sd := math.Sqrt(math.Max(m2-m1*m1, 0))
		d := fin.Draws
		worst = math.Max(worst, math.Abs(d.Mean()[j]-m1)/sd)
		slices.Sort(v)
		width += (d.Quantile(j, 0.975) - d.Quantile(j, 0.025)) / (quant(v, 0.975) - quant(v, 0.025)) / 2
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

// writePlot draws our weighted population and the reference sample as a
// corner plot of (log β, log γ) with the true values.
func writePlot(c *cli.Common, eps float64, fin *abc.Round, ref []float64, w io.Writer) error {
	if c.Out == "" {
		return nil
	}
	sets := []plot.Sample{{Name: "SMC-ABC (ours)", Weights: fin.Draws.Weights}}
	for i := 0; i < fin.N(); i++ {
		sets[0].Rows = append(sets[0].Rows, fin.Draws.Row(i))
	}
	if ref != nil {
		s := plot.Sample{Name: "authors' SMC-ABC"}
		for i := 0; i+1 < len(ref); i += 2 {
			s.Rows = append(s.Rows, ref[i:i+2])
		}
		sets = append([]plot.Sample{s}, sets...)
	}
	cv, err := plot.Corner{Title: "SIR ε = " + epsName(eps) + ": posterior of (log β, log γ); circle: true θ", Params: []string{"log β", "log γ"}, Sets: sets, Truth: sir.SyntheticTheta(), Panel: 260}.Draw()
	if err != nil {
		return err
	}
	files, err := c.WritePlot("sir_eps"+epsName(eps)+"_smcabc", cv)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s, %s\n", c.Path(csvName(eps)), strings.Join(files, ", "))
	return nil
}

func writeCSV(path string, p *abc.Round) error {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	fmt.Fprintf(bw, "log_beta,log_gamma,weight\n")
	d := p.Draws
	for i := 0; i < d.Len(); i++ {
		fmt.Fprintf(bw, "%.8g,%.8g,%.8g\n", d.Theta[2*i], d.Theta[2*i+1], weightOf(d, i))
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// readRef reads the authors' sample (an index column, log β, log γ).
func readRef(path string) ([]float64, error) {
	x, _, err := readSample(path)
	return x, err
}

func compare(logf func(string, ...any), fin *abc.Round, ref []float64) error {
	n := len(ref) / 2
	logf("comparison with the reference sample (%d draws):\n", n)
	logf("%-10s %10s %10s %10s | %10s %10s %10s\n", "quantity", "mean", "q2.5", "q97.5", "ref mean", "ref q2.5", "ref q97.5")
	fs := []struct {
		name string
		f    func([]float64) float64
	}{
		{"log beta", func(t []float64) float64 { return t[0] }},
		{"log gamma", func(t []float64) float64 { return t[1] }},
		{"R0", func(t []float64) float64 { return math.Exp(t[0] - t[1]) }},
	}
	for _, q := range fs {
		v := make([]float64, n)
		s := 0.0
		for i := range v {
			v[i] = q.f(ref[2*i : 2*i+2])
			s += v[i]
		}
		slices.Sort(v)
		m, lo, hi := summarize(fin.Draws, q.f)
		logf("%-10s %10.4f %10.4f %10.4f | %10.4f %10.4f %10.4f\n", q.name, m, lo, hi,
			s/float64(n), quant(v, 0.025), quant(v, 0.975))
	}
	// Equal-weight resample of the population (systematic, deterministic)
	// for the MMD.
	ours := systematic(fin, 2000)
	pooled := append(slices.Clone(ours[:min(len(ours), 1000)]), ref[:min(len(ref), 1000)]...)
	bw, err := abc.MedianHeuristic(pooled, 2, 1000)
	if err != nil {
		return err
	}
	mmd, err := abc.NewMMD(2, bw, false)
	if err != nil {
		return err
	}
	mmdU, _ := abc.NewMMD(2, bw, true)
	logf("MMD (Gaussian kernel, median-heuristic bandwidth %.4f on (log beta, log gamma)): biased %.4f, unbiased MMD^2 %.5f\n",
		bw, mmd.Distance(ours, ref), mmdU.Distance(ours, ref))
	return nil
}

func quant(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	i := int(h)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

func systematic(p *abc.Round, n int) []float64 {
	d := p.Draws
	out := make([]float64, 0, n*d.Dim)
	cum, j := weightOf(d, 0), 0
	for i := 0; i < n; i++ {
		x := (float64(i) + 0.5) / float64(n)
		for x > cum && j < d.Len()-1 {
			j++
			cum += weightOf(d, j)
		}
		out = append(out, d.Row(j)...)
	}
	return out
}

// weightOf returns the normalised weight of draw i (1/n for unweighted
// draws; the engines' weights already sum to one).
func weightOf(d *privinfer.Draws, i int) float64 {
	if d.Weights == nil {
		return 1 / float64(d.Len())
	}
	return d.Weights[i]
}

// summarize returns the weighted mean and the 2.5% and 97.5% quantiles of
// f(θ) over the draws.
func summarize(d *privinfer.Draws, f func([]float64) float64) (mean, lo, hi float64) {
	v := &privinfer.Draws{Dim: 1, Theta: make([]float64, d.Len()), Weights: d.Weights}
	for i := range v.Theta {
		v.Theta[i] = f(d.Row(i))
	}
	return v.Mean()[0], v.Quantile(0, 0.025), v.Quantile(0, 0.975)
}
