package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/flow/sbi"
)

// Simulation-based calibration (-sbc) of flow/sbi's engines with their
// defaults on the suite's problems: privinfer.SBC draws θ from the prior
// and a release from the simulator (and the mechanism), asks the method
// for posterior draws at that release, and ranks θ among 99 of them; for
// a calibrated method the ranks are uniform on {0, …, 99}. The methods:
//
//   - npe: amortized NPE (sbi.SPPE with Rounds 1, SimsPerRound the
//     budget, every other field zero) trained ONCE per problem and budget
//     on prior simulations of its own seed, then conditioned on each data
//     set's release with Posterior.At. Given the trained flow the data
//     sets are independent, so this calibrates the amortized posterior
//     q(θ | x) over the prior predictive (not the training procedure over
//     training sets, which would need a training per data set).
//   - snpe, snle: sequential SPPE and SPLE (SNPE and SNLE when the problem
//     has no mechanism), trained afresh on every data set with the
//     package defaults except the budget: -sims simulations in total,
//     spread evenly over -rounds rounds; the ranks are those of the
//     run's Result.Draws (1,000 draws, thinned evenly to 99: independent
//     flow draws for SNPE, 20 Metropolis chains for SNLE).
//   - exact: the suite's reference posterior (closed form or grid inverse
//     CDF), which must pass: a check of the references and of the
//     plumbing.
//
// The test of uniformity is privinfer.SBC's: per parameter, Pearson's
// chi-square of the rank histogram in 20 equal bins (fewer with under 200
// data sets: about ten expected ranks per bin) against the uniform law,
// and a Bonferroni correction over the parameters: the cell is rejected
// when d·min_j p_j < 10⁻³ (SBCResult.Calibrated), which for a calibrated
// method happens with probability at most 10⁻³ per cell.
//
// Sequential fits are cached one file per data set under
// -out/sbc_<method>_<problem>_<budget>_s<seed>/, so a stopped run resumes
// where it stopped, and a run with fewer data sets reuses them. The CPU
// recorded there is summed over the runs that made the fits; a run with
// fewer data sets than the cache holds is charged its share of it.

// sbcAlpha is the family-wise false-alarm rate of each cell's test.
const sbcAlpha = 1e-3

// sbcMethods are the methods -sbc accepts.
var sbcMethods = []string{"npe", "snpe", "snle", "exact"}

// sbcDraws is the number L of posterior draws each θ is ranked among.
const sbcDraws = 99

// sbcCell is one SBC run: a problem, a method and a budget.
type sbcCell struct {
	problem, method string
	sims, rounds    int // the budget (0 for exact); rounds of the sequential methods
	datasets        int
	seed            uint64
	res             *privinfer.SBCResult
	cpu             float64 // process CPU seconds of the whole cell (training and fits)
	trainCPU        float64 // of npe's one training (NaN otherwise)
}

// budget describes the cell's simulation budget.
func (c *sbcCell) budget() string {
	switch {
	case c.method == "exact":
		return "—"
	case c.rounds > 1:
		return fmt.Sprintf("%d×%d", c.rounds, c.sims/c.rounds)
	}
	return strconv.Itoa(c.sims)
}

// name is the cell's file name stem.
func (c *sbcCell) name() string {
	if c.method == "exact" {
		return fmt.Sprintf("sbc_exact_%s_n%d_s%d", c.problem, c.datasets, c.seed)
	}
	return fmt.Sprintf("sbc_%s_%s_%dx%d_n%d_s%d", c.method, c.problem, max(c.rounds, 1), c.sims/max(c.rounds, 1), c.datasets, c.seed)
}

// cacheDir is the folder of the cell's cached fits and CPU record: the
// same for every number of data sets, since data set i is the same in
// every run (its streams derive from the seed and i only), so a run with
// fewer data sets reuses a longer run's fits.
func (c *sbcCell) cacheDir() string {
	return fmt.Sprintf("sbc_%s_%s_%dx%d_s%d", c.method, c.problem, max(c.rounds, 1), c.sims/max(c.rounds, 1), c.seed)
}

// sbcDatasets is the default number of data sets of a method.
func sbcDatasets(method string) int {
	if method == "snpe" || method == "snle" {
		return 100
	}
	return 500
}

// sbcProblem is the privinfer.Problem of a suite problem (no observation).
func sbcProblem(p *problem) privinfer.Problem {
	q := privinfer.Problem{Prior: p.prior, Simulator: simulator{p}}
	if p.mech != nil {
		q.Mechanism = p.mech
	}
	return q
}

// runSBC runs -sbc: every method, problem and budget, then the table.
func runSBC(ctx context.Context, c config, stdout io.Writer, prog *cli.Progress) error {
	var cells []*sbcCell
	for _, method := range c.sbc {
		for _, name := range c.problems {
			sims := c.sims
			if method == "exact" {
				sims = []int{0}
			}
			for _, n := range sims {
				cl := &sbcCell{problem: name, method: method, sims: n, datasets: c.datasets, seed: c.seeds[0]}
				if cl.datasets == 0 {
					cl.datasets = sbcDatasets(method)
				}
				if method == "snpe" || method == "snle" {
					cl.rounds = c.rounds
					if n%c.rounds != 0 || n/c.rounds < 2 {
						return cli.Usagef("-sims %d cannot be spread evenly over -rounds %d", n, c.rounds)
					}
				}
				if err := sbcRunCell(ctx, c, cl, prog); err != nil {
					return fmt.Errorf("%s: %w", cl.name(), err)
				}
				cells = append(cells, cl)
			}
		}
	}
	sbcReport(stdout, cells)
	return nil
}

// sbcRunCell runs one cell, or reads its result from -out when an earlier
// run finished it (unless -force).
func sbcRunCell(ctx context.Context, c config, cl *sbcCell, prog *cli.Progress) error {
	resPath := c.Path(cl.name() + ".txt")
	if !c.force && readSBC(resPath, cl) {
		return nil
	}
	in, err := newProblem(cl.problem)
	if err != nil {
		return err
	}
	p := sbcProblem(in)
	cpu := newCPUMeter(filepath.Join(c.Out, cl.cacheDir(), "cpu_s"))
	cl.trainCPU = math.NaN()
	var fit privinfer.SBCFit
	switch cl.method {
	case "exact":
		fit = exactFit(in)
	case "npe":
		prog.Printf("%s: training amortized NPE on %d simulations", cl.name(), cl.sims)
		t0 := cpu.now()
		res, err := sbi.SPPE(ctx, p, sbi.Config{Rounds: 1, SimsPerRound: cl.sims, Seed: cl.seed})
		if err != nil {
			return err
		}
		cl.trainCPU = cpu.now() - t0
		fit = amortizedFit(res.Posterior)
	case "snpe", "snle":
		if err := os.MkdirAll(c.Path(cl.cacheDir()), 0o755); err != nil {
			return err
		}
		if err := cpu.load(); err != nil {
			return err
		}
		fit = cachedFit(c.Path(cl.cacheDir()), sequentialFit(cl.method, cl.rounds, cl.sims), cpu)
	default:
		return fmt.Errorf("unknown method %q", cl.method)
	}
	prog.Printf("%s: %d data sets", cl.name(), cl.datasets)
	res, err := privinfer.SBC(ctx, p, fit, privinfer.SBCConfig{
		Datasets: cl.datasets, Draws: sbcDraws, Seed: sbcSeed(cl),
		Progress: prog.Every(time.Minute, cl.name()),
	})
	if err != nil {
		return err
	}
	cl.res = res
	cl.cpu = cpu.total()
	if cl.method == "snpe" || cl.method == "snle" {
		// The cache may hold more fits than this run's data sets: the
		// cell is charged its share of the CPU they cost together.
		files, err := filepath.Glob(filepath.Join(c.Path(cl.cacheDir()), "*.csv"))
		if err != nil {
			return err
		}
		if len(files) > cl.datasets {
			cl.cpu *= float64(cl.datasets) / float64(len(files))
		}
	}
	prog.Printf("%s: overall p = %.3g, CPU %.0f s\n%v", cl.name(), res.OverallPValue(), cl.cpu, res)
	return writeSBC(resPath, cl)
}

// sbcSeed is the seed of a cell's data sets: the same for every method
// and budget of a problem, so that they are ranked on the same data sets,
// and different from the training streams.
func sbcSeed(cl *sbcCell) uint64 { return stream(cl.seed, cl.problem, "/sbc").Uint64() }

// exactFit draws from the suite's reference posterior.
func exactFit(in *problem) privinfer.SBCFit { return miscalibratedFit(in, 1, 0) }

// miscalibratedFit draws from the suite's reference posterior and then
// maps every coordinate's draws x to m + f·(x − m) + b·s, with m and s
// the draws' mean and standard deviation: f < 1 is an over-confident
// posterior, f > 1 an over-dispersed one, b ≠ 0 one biased by b posterior
// standard deviations (f = 1 and b = 0: the exact posterior).
func miscalibratedFit(in *problem, f, b float64) privinfer.SBCFit {
	return func(_ context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		x := in.reference(rand.New(rand.NewPCG(seed, 0x657861)), p.Observed, sbcDraws)
		if f == 1 && b == 0 {
			return &privinfer.Draws{Dim: in.dim, Theta: x}, nil
		}
		d := in.dim
		for j := range d {
			var m, v float64
			for i := range sbcDraws {
				m += x[i*d+j]
			}
			m /= sbcDraws
			for i := range sbcDraws {
				e := x[i*d+j] - m
				v += e * e
			}
			s := math.Sqrt(v / (sbcDraws - 1))
			for i := range sbcDraws {
				x[i*d+j] = m + f*(x[i*d+j]-m) + b*s
			}
		}
		return &privinfer.Draws{Dim: in.dim, Theta: x}, nil
	}
}

// sbcPower estimates by simulation the probability that the cell's test
// rejects a posterior miscalibrated as by miscalibratedFit(f, b) in one
// parameter of a d-parameter problem (that parameter's p-value below
// sbcAlpha/d, the Bonferroni threshold), with n data sets: reps SBC runs
// on gauss1, returning the fraction rejected. The law of the ranks
// depends on the exact posterior only through its shape, so the figures
// hold for any Gaussian posterior (and roughly for unimodal ones).
func sbcPower(ctx context.Context, n, d int, f, b float64, reps int, seed uint64) (float64, error) {
	in, err := newProblem("gauss1")
	if err != nil {
		return 0, err
	}
	p := sbcProblem(in)
	fit := miscalibratedFit(in, f, b)
	rejected := 0
	for k := range reps {
		res, err := privinfer.SBC(ctx, p, fit, privinfer.SBCConfig{Datasets: n, Draws: sbcDraws, Seed: stream(seed, "power", n, f, b, k).Uint64()})
		if err != nil {
			return 0, err
		}
		if res.PValue[0] < sbcAlpha/float64(d) {
			rejected++
		}
	}
	return float64(rejected) / float64(reps), nil
}

// sbcPowerTable prints the power of the test for the data-set counts of
// the runs and a few miscalibrations.
func sbcPowerTable(ctx context.Context, w io.Writer, counts []int, reps int, seed uint64, prog *cli.Progress) error {
	type mis struct {
		label string
		f, b  float64
	}
	cases := []mis{{"sd ×0.9", 0.9, 0}, {"sd ×0.8", 0.8, 0}, {"sd ×0.7", 0.7, 0}, {"sd ×1.2", 1.2, 0}, {"sd ×1.5", 1.5, 0},
		{"bias 0.2 sd", 1, 0.2}, {"bias 0.3 sd", 1, 0.3}, {"bias 0.5 sd", 1, 0.5}}
	fmt.Fprintf(w, "### Power of the SBC test (level %g, Bonferroni over d parameters; one parameter miscalibrated; %d simulated runs per cell, s.e. ≤ %.3f)\n", sbcAlpha, reps, 0.5/math.Sqrt(float64(reps)))
	t := cli.Table{Header: []string{"miscalibration"}}
	for _, n := range counts {
		for _, d := range []int{1, 2} {
			t.Header = append(t.Header, fmt.Sprintf("n = %d, d = %d", n, d))
		}
	}
	for _, m := range cases {
		row := []string{m.label}
		for _, n := range counts {
			for _, d := range []int{1, 2} {
				pw, err := sbcPower(ctx, n, d, m.f, m.b, reps, seed)
				if err != nil {
					return err
				}
				row = append(row, cli.F(pw, 2))
			}
		}
		prog.Printf("power: %s done", m.label)
		t.Add(row...)
	}
	t.Markdown(w)
	return nil
}

// amortizedFit conditions an amortized posterior on each data set's
// release and draws L independent draws.
func amortizedFit(post *sbi.Posterior) privinfer.SBCFit {
	return func(ctx context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		at, err := post.At(p.Observed)
		if err != nil {
			return nil, err
		}
		return at.Draws(ctx, sbcDraws, seed)
	}
}

// sequentialFit runs SPPE or SPLE with the defaults and the budget on one
// data set and returns its Result.Draws.
func sequentialFit(method string, rounds, sims int) privinfer.SBCFit {
	return func(ctx context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		cfg := sbi.Config{Rounds: rounds, SimsPerRound: sims / rounds, Seed: seed}
		if method == "snle" {
			res, err := sbi.SPLE(ctx, p, cfg)
			if err != nil {
				return nil, err
			}
			return res.Draws, nil
		}
		res, err := sbi.SPPE(ctx, p, cfg)
		if err != nil {
			return nil, err
		}
		return res.Draws, nil
	}
}

// cachedFit keeps every data set's draws in a file of dir named after the
// fit's seed and the release, and reads them back instead of fitting
// again; after every new fit it records the process CPU spent so far.
func cachedFit(dir string, fit privinfer.SBCFit, cpu *cpuMeter) privinfer.SBCFit {
	return func(ctx context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		key := stream(seed, fmt.Sprint(p.Observed)).Uint64()
		path := filepath.Join(dir, fmt.Sprintf("%016x_%016x.csv", seed, key))
		if d, err := readSBCDraws(path, p.Prior.Dim()); err == nil {
			return d, nil
		}
		d, err := fit(ctx, p, seed)
		if err != nil {
			return nil, err
		}
		if err := cli.WriteAtomic(path, func(w io.Writer) error { return writeSBCDraws(w, d) }); err != nil {
			return nil, err
		}
		return d, cpu.save()
	}
}

// writeSBCDraws writes draws as CSV: the weights (empty when unweighted),
// then the coordinates, in full precision.
func writeSBCDraws(w io.Writer, d *privinfer.Draws) error {
	cw := csv.NewWriter(w)
	rec := make([]string, d.Dim+1)
	for i := range d.Len() {
		rec[0] = ""
		if d.Weights != nil {
			rec[0] = strconv.FormatFloat(d.Weights[i], 'g', -1, 64)
		}
		for j := range d.Dim {
			rec[j+1] = strconv.FormatFloat(d.Theta[i*d.Dim+j], 'g', -1, 64)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// readSBCDraws reads draws of dimension dim written by writeSBCDraws.
func readSBCDraws(path string, dim int) (*privinfer.Draws, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	d := &privinfer.Draws{Dim: dim}
	for _, rec := range recs {
		if len(rec) != dim+1 {
			return nil, fmt.Errorf("%s: a row of %d fields, want %d", path, len(rec), dim+1)
		}
		if rec[0] != "" {
			w, err := strconv.ParseFloat(rec[0], 64)
			if err != nil {
				return nil, err
			}
			d.Weights = append(d.Weights, w)
		}
		for _, s := range rec[1:] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, err
			}
			d.Theta = append(d.Theta, x)
		}
	}
	if d.Weights != nil && len(d.Weights) != len(recs) {
		return nil, fmt.Errorf("%s: weights on some rows only", path)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no draws", path)
	}
	return d, d.Validate()
}

// cpuMeter accumulates the process CPU time of a cell over the runs that
// make it, kept in a file when the cell's fits are cached.
type cpuMeter struct {
	mu    sync.Mutex
	path  string
	prior float64 // seconds recorded by earlier runs
	start float64 // the process CPU when this run started
}

func newCPUMeter(path string) *cpuMeter {
	m := &cpuMeter{path: path}
	m.start = m.now()
	return m
}

// now is the process CPU time in seconds (NaN where unknown).
func (m *cpuMeter) now() float64 {
	d, ok := cli.ProcessCPU()
	if !ok {
		return math.NaN()
	}
	return d.Seconds()
}

// total is the CPU spent on the cell so far, earlier runs included.
func (m *cpuMeter) total() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.prior + m.now() - m.start
}

// load reads the CPU recorded by earlier runs.
func (m *cpuMeter) load() error {
	data, err := os.ReadFile(m.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 64)
	if err != nil {
		return fmt.Errorf("%s: %w", m.path, err)
	}
	m.mu.Lock()
	m.prior = v
	m.mu.Unlock()
	return nil
}

// save records the CPU spent so far.
func (m *cpuMeter) save() error {
	t := m.total()
	m.mu.Lock()
	defer m.mu.Unlock()
	return cli.WriteAtomic(m.path, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%.2f\n", t)
		return err
	})
}

// writeSBC writes a finished cell: the settings, the CPU, and per
// parameter the p-value, the chi-square statistic and the histogram.
func writeSBC(path string, cl *sbcCell) error {
	r := cl.res
	return cli.WriteAtomic(path, func(w io.Writer) error {
		fmt.Fprintf(w, "datasets=%d draws=%d bins=%d cpu_s=%.2f train_cpu_s=%.2f\n", r.Datasets, r.Draws, r.Bins, cl.cpu, cl.trainCPU)
		for j := range r.Dim {
			h := r.Histogram(j)
			hs := make([]string, len(h))
			for b, v := range h {
				hs[b] = strconv.Itoa(v)
			}
			fmt.Fprintf(w, "param=%d p=%.6g chi2=%.4f hist=%s\n", j, r.PValue[j], r.ChiSquare[j], strings.Join(hs, ","))
		}
		return nil
	})
}

// readSBC reads a cell written by writeSBC into cl.res (only the fields
// the report uses).
func readSBC(path string, cl *sbcCell) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	r := &privinfer.SBCResult{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		fields := map[string]string{}
		for _, f := range strings.Fields(line) {
			k, v, _ := strings.Cut(f, "=")
			fields[k] = v
		}
		num := func(k string) float64 {
			x, err := strconv.ParseFloat(fields[k], 64)
			if err != nil {
				return math.NaN()
			}
			return x
		}
		if _, ok := fields["datasets"]; ok {
			r.Datasets, r.Draws, r.Bins = int(num("datasets")), int(num("draws")), int(num("bins"))
			cl.cpu, cl.trainCPU = num("cpu_s"), num("train_cpu_s")
			continue
		}
		r.PValue = append(r.PValue, num("p"))
		r.ChiSquare = append(r.ChiSquare, num("chi2"))
	}
	r.Dim = len(r.PValue)
	if r.Dim == 0 || r.Datasets == 0 || slices.ContainsFunc(r.PValue, math.IsNaN) {
		return false
	}
	cl.res = r
	return true
}

// sbcReport prints the cells as a Markdown table.
func sbcReport(w io.Writer, cells []*sbcCell) {
	fmt.Fprintf(w, "### Simulation-based calibration (ranks among %d draws; chi-square per parameter, Bonferroni over parameters, level %g)\n", sbcDraws, sbcAlpha)
	t := cli.Table{Header: []string{"problem", "method", "budget", "data sets", "bins", "p per parameter", "overall p", "verdict", "CPU s (training)"}}
	for _, cl := range cells {
		r := cl.res
		ps := make([]string, len(r.PValue))
		for j, p := range r.PValue {
			ps[j] = strconv.FormatFloat(p, 'g', 3, 64)
		}
		verdict := "uniform"
		if !r.Calibrated(sbcAlpha) {
			verdict = "**rejected**"
		}
		cpu := cli.F(cl.cpu, 0)
		if !math.IsNaN(cl.trainCPU) {
			cpu += " (" + cli.F(cl.trainCPU, 0) + ")"
		}
		t.Add(cl.problem, cl.method, cl.budget(), strconv.Itoa(r.Datasets), strconv.Itoa(r.Bins), strings.Join(ps, ", "),
			strconv.FormatFloat(r.OverallPValue(), 'g', 3, 64), verdict, cpu)
	}
	t.Markdown(w)
}
