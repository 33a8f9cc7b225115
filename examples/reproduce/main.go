// Command reproduce runs every example program that reproduces a paper
// table or figure and writes REPRODUCTION.md at the repository root: for
// each one the settings, the seed, the wall time, the example's own table of
// the paper's numbers beside ours, and a plain verdict (reproduced, partial
// or differs, with the reason).
//
//	go run ./examples/reproduce -quick     # reduced settings, < 15 minutes on 2 cores
//	go run ./examples/reproduce            # paper scale (hours)
//	go run ./examples/reproduce -only naivebayes,modips -quick
//
// Each example is built once with `go build` and then run as a subprocess
// with -seed, optionally -quick and -out DIR/<name> (the contract of
// examples/internal/cli); its stdout is captured, its progress on stderr
// is passed through, and its typed verdicts (cli.Verdict) are collected
// through the file named by cli.VerdictFileEnv. Examples listed in the registry that do not follow the
// contract yet, or do not exist, are reported as "not run" with the reason.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/privinfer/privinfer/examples/internal/cli"
)

// entry is one example program in the reproduction.
type entry struct {
	Name   string // section name, also the -out subdirectory
	Pkg    string // package path relative to the repository root
	Target string // the paper tables or figures it reproduces
	// Quick and Full are extra arguments for the two modes (beyond -seed,
	// -quick and -out, which every contract example accepts).
	Quick, Full []string
	// Demo marks examples with no paper target (no verdict expected).
	Demo bool
	// Plain marks examples whose stdout is fixed-width text rather than
	// Markdown; it is shown in a code block.
	Plain bool
	// Pending, when non-empty, is why the example is not run.
	Pending string
}

// paperFlow is the SBI paper's budget of 10 rounds × 1000 simulations with
// the SPPE/SPLE settings validated against exact references (a 4-layer flow
// of 32-unit blocks, M = 4 RQMC points, 5 atoms, up to 40 epochs a round);
// the paper's own 8 × 2 × 50 gated flow with M = 16 and 10 atoms costs
// about fifty times as much per SPPE epoch.
var paperFlow = []string{"-rounds", "10", "-sims", "1000", "-M", "4", "-atoms", "5", "-epochs", "40", "-patience", "8"}

// registry lists the examples in the order of REPRODUCTION.md.
var registry = []entry{
	{Name: "quickstart", Pkg: "./examples/quickstart", Target: "none (first-run demonstration: noise-aware vs naive posterior of a Laplace-released mean)", Demo: true, Plain: true},
	{Name: "naivebayes", Pkg: "./examples/naivebayes", Target: "SBI paper App. E.3, Fig. 14 (naive Bayes log-linear model, ε = 10)"},
	{Name: "sir", Pkg: "./examples/sir", Target: "SBI paper §4.1, Fig. 1 and App. E.1 (SIR synthetic release: SPPE and SPLE against the exact posterior and SMC-ABC)",
		Full: append([]string{"-eps", "10,1,0.1"}, paperFlow...), Plain: true},
	{Name: "sir-outbreaks", Pkg: "./examples/sir", Target: "SBI paper Fig. 2B (R0 intervals of the five real outbreaks)",
		Quick: []string{"-outbreaks", "-methods", "sppe"}, Full: append([]string{"-outbreaks"}, paperFlow...), Plain: true},
	{Name: "linreg", Pkg: "./examples/linreg", Target: "SBI paper §4.2, Tables 2–4 (linear regression: SPPE and SPLE against DA-MCMC, with the paper's rows)",
		Full: paperFlow, Plain: true},
	{Name: "sir-abc", Pkg: "./examples/sir-abc", Target: "SBI paper App. E.1.1 (SMC-ABC reference posterior of the synthetic SIR release, ε = 10)",
		Full: []string{"-walltime", "2h"}, Plain: true},
	{Name: "abcdp-toy", Pkg: "./examples/abcdp/toy", Target: "ABCDP paper Fig. 1 (flip probability) and Fig. 2 (toy grid: MSE against ε_abc and ε_total, c = 10, 100, 1000)",
		Full: []string{"-n", "5000", "-T", "10000"}, Plain: true},
	{Name: "abcdp-tb", Pkg: "./examples/abcdp/tb", Target: "ABCDP paper §6.3, Fig. 5 (TB birth–death model: ABCDP beside rejection ABC at n = 100 and 1000, ε_total = 1)", Plain: true},
	{Name: "abcdp-covid", Pkg: "./examples/abcdp/covid", Target: "ABCDP paper §6.2, Fig. 4 (COVID-19 Netherlands, cubic growth model, on the authors' 18 Dutch counts)", Plain: true},
	{Name: "soma", Pkg: "./examples/soma", Target: "SOMA slides: n = 10 acceptance/coupling table, n = 100 R̂ comparison; DA-MCMC on the SBI paper's linear-regression releases (Tables 2–4)"},
	{Name: "ldp", Pkg: "./examples/ldp", Target: "LDP paper Fig. 1 (Gaussian calibration), Figs 3 and 9 (OUE histogram), Figs 10–11 (histogram and exponential calibration)"},
	{Name: "ldp-regression", Pkg: "./examples/ldp/regression", Target: "LDP paper Fig. 4 (Wine linear regression vs LDP-SGD), Fig. 5 (Adult logistic regression vs LDP-SGD), coverage of the regression posteriors"},
	{Name: "ldp-kosarak", Pkg: "./examples/ldp/kosarak", Target: "LDP paper Fig. 2 (histogram discovery on the filtered Kosarak)"},
	{Name: "modips", Pkg: "./examples/modips", Target: "modips paper Table 1 (coverage of five combination rules, m = 10)", Plain: true},
	{Name: "modips-mstudy", Pkg: "./examples/modips/mstudy", Target: "modips paper Figs 6–7 (m-study)", Full: []string{"-reps", "5000"}, Plain: true},
	{Name: "modips-fig8", Pkg: "./examples/modips/fig8", Target: "modips paper Fig. 8 (sd estimates of four combination rules, m = 10)", Full: []string{"-reps", "5000"}, Plain: true},
	{Name: "modips-allocation", Pkg: "./examples/modips/allocation", Target: "modips paper Fig. 9 (budget allocation)", Full: []string{"-reps", "5000"}, Plain: true},
}

type config struct {
	quick   bool
	seed    uint64
	out     string
	report  string
	only    map[string]bool
	timeout time.Duration
}

func main() { cli.Program("reproduce", parse, run) }

func parse(fs *flag.FlagSet, args []string) (config, error) {
	var cfg config
	fs.BoolVar(&cfg.quick, "quick", false, "reduced settings (the whole run finishes in < 15 minutes on 2 cores)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed passed to every example")
	fs.StringVar(&cfg.out, "out", "", "directory for the examples' plots and CSV files (one subdirectory each); empty writes none")
	fs.StringVar(&cfg.report, "report", "", "path of the report (default REPRODUCTION.md at the repository root)")
	only := fs.String("only", "", "comma-separated example names to run (default all); others are listed as not run")
	fs.DurationVar(&cfg.timeout, "timeout", 0, "time limit per example (default 6m with -quick, 12h otherwise)")
	if err := cli.Parse(fs, args); err != nil {
		return cfg, err
	}
	if cfg.timeout < 0 {
		return cfg, cli.Usagef("-timeout must be >= 0, got %v", cfg.timeout)
	}
	if cfg.timeout == 0 {
		cfg.timeout = 12 * time.Hour
		if cfg.quick {
			cfg.timeout = 6 * time.Minute
		}
	}
	if *only != "" {
		cfg.only = map[string]bool{}
		known := map[string]bool{}
		for _, e := range registry {
			known[e.Name] = true
		}
		for _, n := range strings.Split(*only, ",") {
			n = strings.TrimSpace(n)
			if !known[n] {
				return cfg, cli.Usagef("-only: unknown example %q", n)
			}
			cfg.only[n] = true
		}
	}
	return cfg, nil
}

// result is the outcome of one entry.
type result struct {
	entry
	Args     []string
	Ran      bool
	NotRun   string // reason when not run
	Err      string // failure (build, exit status, timeout)
	Stdout   string
	Stderr   string // tail, for failures
	Wall     time.Duration
	Verdicts []cli.Verdict
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	root, err := cli.RepoRoot()
	if err != nil {
		return err
	}
	if cfg.report == "" {
		cfg.report = filepath.Join(root, "REPRODUCTION.md")
	}
	if cfg.out != "" {
		if cfg.out, err = filepath.Abs(cfg.out); err != nil {
			return err
		}
	}
	bin, err := os.MkdirTemp("", "privinfer-reproduce-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	prog := cli.NewProgress(stderr)
	start := time.Now()
	var results []result
	for _, e := range registry {
		r := result{entry: e}
		switch {
		case cfg.only != nil && !cfg.only[e.Name]:
			r.NotRun = "not selected by -only"
		case e.Pending != "":
			r.NotRun = e.Pending
		default:
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(e.Pkg))); err != nil {
				r.NotRun = e.Pkg + " does not exist"
			}
		}
		if r.NotRun == "" {
			prog.Printf("%s: building %s", e.Name, e.Pkg)
			runOne(ctx, cfg, root, bin, &r, prog)
		} else {
			prog.Printf("%s: not run (%s)", e.Name, r.NotRun)
		}
		results = append(results, r)
	}
	total := time.Since(start)
	var buf bytes.Buffer
	writeReport(&buf, cfg, results, total)
	if err := os.WriteFile(cfg.report, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (total wall time %s)\n\n", cfg.report, total.Round(time.Second))
	summaryTable(results).Markdown(stdout)
	return nil
}

func runOne(ctx context.Context, cfg config, root, bin string, r *result, prog *cli.Progress) {
	exe := filepath.Join(bin, r.Name)
	build := exec.CommandContext(ctx, "go", "build", "-o", exe, r.Pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		r.Err = fmt.Sprintf("build failed: %v", err)
		r.Stderr = tail(string(out), 20)
		prog.Printf("%s: %s", r.Name, r.Err)
		return
	}
	r.Args = []string{"-seed", fmt.Sprint(cfg.seed)}
	if cfg.quick {
		r.Args = append(r.Args, "-quick")
		r.Args = append(r.Args, r.Quick...)
	} else {
		r.Args = append(r.Args, r.Full...)
	}
	if cfg.out != "" {
		r.Args = append(r.Args, "-out", filepath.Join(cfg.out, r.Name))
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, exe, r.Args...)
	cmd.Dir = root
	// The example records its typed verdicts in this file (cli.Report).
	verdicts := filepath.Join(bin, r.Name+".verdicts.jsonl")
	cmd.Env = append(os.Environ(), cli.VerdictFileEnv+"="+verdicts)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.MultiWriter(&errb, &prefixWriter{w: prog.W, prefix: "  " + r.Name + ": "})
	prog.Printf("%s: running %s %s", r.Name, r.Pkg, strings.Join(r.Args, " "))
	t0 := time.Now()
	err := cmd.Run()
	r.Wall = time.Since(t0)
	r.Ran = true
	r.Stdout = out.String()
	var verr error
	r.Verdicts, verr = cli.ReadVerdicts(verdicts)
	if err == nil && verr != nil {
		err = fmt.Errorf("reading its verdicts: %w", verr)
	}
	if err != nil {
		r.Err = err.Error()
		if errors.Is(rctx.Err(), context.DeadlineExceeded) {
			r.Err = fmt.Sprintf("timed out after %s", cfg.timeout)
		}
		r.Stderr = tail(errb.String(), 20)
	}
	prog.Printf("%s: done in %s (%s)", r.Name, r.Wall.Round(100*time.Millisecond), overall(*r))
}

// prefixWriter prefixes every line written through it.
type prefixWriter struct {
	w       io.Writer
	prefix  string
	midLine bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	if p.w == nil {
		return len(b), nil
	}
	var buf bytes.Buffer
	for _, c := range b {
		if !p.midLine {
			buf.WriteString(p.prefix)
			p.midLine = true
		}
		buf.WriteByte(c)
		if c == '\n' {
			p.midLine = false
		}
	}
	if _, err := p.w.Write(buf.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// overall summarises an entry's outcome in a few words.
func overall(r result) string {
	switch {
	case !r.Ran && r.Err == "":
		return "not run"
	case r.Err != "":
		return "failed"
	case r.Demo:
		return "ran (demonstration)"
	case len(r.Verdicts) == 0:
		return "no verdict printed"
	}
	worst := cli.Reproduced
	for _, v := range r.Verdicts {
		switch {
		case v.Validate() != nil || v.Outcome == cli.Differs:
			worst = cli.Differs
		case v.Outcome == cli.Partial && worst == cli.Reproduced:
			worst = cli.Partial
		}
	}
	return worst
}

func summaryTable(results []result) *cli.Table {
	t := &cli.Table{Header: []string{"example", "paper target", "wall time", "outcome"}}
	for _, r := range results {
		wall := "—"
		if r.Ran {
			wall = r.Wall.Round(100 * time.Millisecond).String()
		}
		o := overall(r)
		if r.NotRun != "" {
			o = "not run: " + r.NotRun
		}
		t.Add("["+r.Name+"](#"+r.Name+")", r.Target, wall, o)
	}
	return t
}

func writeReport(w io.Writer, cfg config, results []result, total time.Duration) {
	mode := "paper scale"
	cmd := "go run ./examples/reproduce"
	if cfg.quick {
		mode = "quick (reduced settings)"
		cmd += " -quick"
	}
	if cfg.seed != 1 {
		cmd += fmt.Sprintf(" -seed %d", cfg.seed)
	}
	fmt.Fprintf(w, "# Reproduction of the papers' results\n\n")
	fmt.Fprintf(w, "Generated by `%s` on %s (%s, %s/%s, %d CPUs, GOMAXPROCS %d).\n",
		cmd, time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "Mode: %s. Seed: %d for every example. Total wall time: %s (each example is built first; build time is not counted in its wall time).\n\n",
		mode, cfg.seed, total.Round(time.Second))
	fmt.Fprintf(w, "Verdicts are printed by the examples themselves (`verdict: reproduced|partial|differs — <target>: <reason>`): *reproduced* means our numbers agree with the paper's within the tolerance the example states, *partial* that some agree and some do not or that the comparison is only indirect, *differs* that they disagree (the reason says why, where known). Quick mode uses fewer repetitions, particles or rounds than the paper, so Monte Carlo error is larger there; rerun without -quick for paper scale.\n\n")
	fmt.Fprintf(w, "## Summary\n")
	summaryTable(results).Markdown(w)
	var verdicts cli.Table
	verdicts.Header = []string{"example", "verdict", "target", "reason"}
	for _, r := range results {
		for _, v := range r.Verdicts {
			verdicts.Add(r.Name, string(v.Outcome), v.Target, v.Reason)
		}
	}
	if len(verdicts.Rows) > 0 {
		fmt.Fprintf(w, "### All verdicts\n")
		verdicts.Markdown(w)
	}
	for _, r := range results {
		fmt.Fprintf(w, "## %s\n\n", r.Name)
		fmt.Fprintf(w, "- Paper target: %s\n", r.Target)
		if r.NotRun != "" {
			fmt.Fprintf(w, "- **Not run**: %s.\n\n", r.NotRun)
			continue
		}
		fmt.Fprintf(w, "- Command: `go run %s %s`\n", r.Pkg, strings.Join(r.Args, " "))
		fmt.Fprintf(w, "- Seed: %d; mode: %s\n", cfg.seed, mode)
		if r.Ran {
			fmt.Fprintf(w, "- Wall time: %s\n", r.Wall.Round(100*time.Millisecond))
		}
		fmt.Fprintf(w, "- Outcome: **%s**\n", overall(r))
		if r.Err != "" {
			fmt.Fprintf(w, "- Error: %s\n\n```text\n%s\n```\n", r.Err, r.Stderr)
		}
		fmt.Fprintln(w)
		switch out := strings.TrimSpace(r.Stdout); {
		case out == "":
		case r.Plain:
			fmt.Fprintf(w, "```text\n%s\n```\n\n", out)
		default:
			fmt.Fprintf(w, "%s\n\n", demoteHeadings(out))
		}
	}
}

// demoteHeadings keeps the examples' headings below the report's section
// level: "# x" and "## x" become "### x".
func demoteHeadings(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "# ") {
			lines[i] = "##" + l
		} else if strings.HasPrefix(l, "## ") {
			lines[i] = "#" + l
		}
	}
	return strings.Join(lines, "\n")
}
