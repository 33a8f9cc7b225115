// Command reproduce runs every example program that reproduces a paper
// table or figure and writes a report at the repository root: for each one
// the settings, the seed, the wall time, the example's own table of the
// paper's numbers beside ours, and a plain verdict (reproduced, partial or
// differs, with the reason).
//
// The report opens with one table per paper (writePaperSummary): every
// table and figure with its verdict, our numbers beside the paper's and the
// reason where it is not reproduced, generated from the results (cached or
// not), so it is regenerated with the report. Every result records the
// code fingerprint of the example that produced it (codeFingerprint: a
// hash of the source of the module's packages in the example's dependency
// closure, as `go list -deps` gives it); a result whose fingerprint is not
// the current code's, or that has none, is stale: the report marks it and
// lists it at its top with the reason (the packages changed since, from
// git) and its last wall time.
//
//	go run ./examples/reproduce            # paper scale (hours), writes REPRODUCTION.md
//	go run ./examples/reproduce -quick     # reduced settings (minutes), writes REPRODUCTION-quick.md
//	go run ./examples/reproduce -only sir,linreg-eps10
//
// The paper-scale run is resumable: every finished example (or part of a
// split example, see the registry) is cached as a JSON file in the -cache
// directory (default .reproduce-cache at the repository root), keyed by the
// example's package and complete argument list (seed, mode, settings and
// -out), and a later run with the same settings reuses it instead of
// running the example again, so an interrupted run continues where it
// stopped. Failed, timed-out and interrupted runs are not cached; -fresh
// reruns everything. Cached sections say when and at which commit they ran.
// The paper-scale examples are split so that no single run should need much
// more than an hour on two cores.
//
// A part stopped half-way is resumable too: with a cache, every run gets a
// folder of its own under -cache/checkpoints (named like its cached
// result) through cli.CheckpointsEnv, where its SPPE and SPLE runs keep
// their state after every round (sbi.Config.Checkpoint; the examples'
// -checkpoints flag). The next run of the same part continues from the
// last saved round, with the same results as an uninterrupted run, and its
// recorded wall time adds up the time of all its runs. A part that
// succeeds removes its folder. The checkpoints do not record the code
// that wrote them: delete the folder to start a part over after changing
// the engines.
//
// A report is also a record of its results: -from-report REPRODUCTION.md
// fills a lost or partial cache with the results the committed report
// holds (for the runs whose command is unchanged), so that new parts can be
// run and the report regenerated without rerunning the others:
//
//	go run ./examples/reproduce -from-report REPRODUCTION.md -only sir-paper,linreg-paper
//
// With -only the selected runs run (or come from the cache), and every
// other run whose result is in the cache is reported from it; the rest are
// listed as not run.
//
// The parts of a split example that save per-trial files for a later part
// (the SIR and naive Bayes trials) leave them under .reproduce-cache, and
// the run copies them to examples/reproduce/saved, which is committed with
// the report, and back at its start: the remaining parts can run on
// another clone.
//
// The quick report's verdicts carry the note that quick settings are not
// expected to reproduce the papers' numbers.
//
// Each example is built once with `go build` and then run as a subprocess
// with -seed, optionally -quick and -out DIR/<name> (the contract of
// examples/reproduce/support/cli); its stdout is captured, its progress on stderr
// is passed through, and its typed verdicts (cli.Verdict) are collected
// through the file named by cli.VerdictFileEnv. Examples listed in the
// registry that do not follow the contract yet, or do not exist, are
// reported as "not run" with the reason.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// entry is one example program in the reproduction.
type entry struct {
	Name   string // section name, also the -out subdirectory
	Pkg    string // package path relative to the repository root
	Target string // the paper tables or figures it reproduces
	// Quick and Full are extra arguments for the two modes (beyond -seed,
	// -quick and -out, which every contract example accepts).
	Quick, Full []string
	// Split divides the paper-scale run into parts run one after the other,
	// each with its own section, cached result and wall time, so that no
	// single run needs much more than an hour on two cores. Part p runs
	// with Full followed by p.Args and is called Name-p.Name. Quick mode
	// runs the entry once with Quick.
	Split []part
	// Expect is the expected paper-scale wall time of an entry that is not
	// split, on two cores, with its source ("not measured" when unknown).
	Expect string
	// Demo marks examples with no paper target (no verdict expected).
	Demo bool
	// Plain marks examples whose stdout is fixed-width text rather than
	// Markdown; it is shown in a code block.
	Plain bool
	// Pending, when non-empty, is why the example is not run.
	Pending string
}

// part is one piece of a split paper-scale run.
type part struct {
	Name string   // suffix of the section name
	Args []string // arguments after the entry's Full
	// Estimate is the expected wall time on two cores, with its source,
	// listed in the report.
	Estimate string
	// Target, when not empty, replaces the entry's Target in this part's
	// summary row and section.
	Target string
}

// paperFlow is the SBI paper's budget of 10 rounds × 1000 simulations with
// the SPPE/SPLE settings validated against exact references (a 4-layer flow
// of 32-unit blocks, M = 4 RQMC points, 5 atoms, up to 40 epochs a round);
// the paper's own 8 × 2 × 50 gated flow with M = 16 and 10 atoms costs
// about fifty times as much per SPPE epoch.
var paperFlow = []string{"-rounds", "10", "-sims", "1000", "-M", "4", "-atoms", "5", "-epochs", "40", "-patience", "8"}

// paperConfig is the SBI paper's own SPPE/SPLE configuration (App. E.1):
// the 8-layer flow of two 50-unit gated residual blocks, M = 16, 10 atoms,
// batch 100, learning rate 5·10⁻⁴ and patience 20 (the library's default
// training otherwise: weight decay 10⁻⁴, 5% validation), at ε = 10, with
// float32 products (flow.TrainConfig.Float32).
var paperConfig = []string{"-eps", "10", "-rounds", "10", "-sims", "1000", "-M", "16", "-atoms", "10", "-layers", "8", "-hidden", "50",
	"-blocks", "2", "-gating", "-epochs", "10000", "-patience", "20", "-batch", "100", "-lr", "5e-4", "-float32"}

// sweepDraws is where the parts of the Fig. 11 sweep save their posteriors
// (relative to the repository root, where the examples run) for its last
// part to put together; the example keys the files by its settings.
const sweepDraws = ".reproduce-cache/linreg-sweep"

// sirTrials is where the parts of the SIR trials (examples/reproduce/sir -trials and
// examples/reproduce/sir-abc -trials) save every finished trial (relative to the
// repository root, where the examples run), for the last parts to put
// together; the examples key the files by their settings, and sir-abc
// leaves there the per-trial costs of Table 1's SMC-ABC row that sir
// reads. sirTrialsQuick is the quick mode's.
const (
	sirTrials      = ".reproduce-cache/sir-trials"
	sirTrialsQuick = ".reproduce-cache/sir-trials-quick"
)

// sirTrialParts splits the paper-scale SIR trials (10 per method and
// budget): two trials of one method at one budget per part, and after each
// budget's parts one that puts its trials together.
func sirTrialParts() []part {
	var ps []part
	for _, eps := range []string{"10", "1", "0.1"} {
		for _, m := range []string{"sppe", "sple"} {
			for k := 1; k < 10; k += 2 {
				r := fmt.Sprintf("%d-%d", k, k+1)
				ps = append(ps, part{"eps" + eps + "-" + m + "-" + r, []string{"-eps", eps, "-methods", m, "-trial-range", r},
					"5–15 min (two trials; 6.7 min for SPPE and 7.0 min for SPLE measured at ε = 10 on two free cores)", ""})
			}
		}
		ps = append(ps, part{"eps" + eps + "-all", []string{"-eps", eps},
			"seconds once the budget's parts have run (the saved trials put together: tables, charts, verdicts)", ""})
	}
	return ps
}

// linregPaperParts runs the linear regression at the paper's configuration
// one budget and method at a time.
func linregPaperParts() []part {
	var ps []part
	for _, eps := range []string{"10", "1", "0.1"} {
		ps = append(ps,
			part{"eps" + eps + "-sppe", []string{"-eps", eps, "-methods", "sppe"}, "1–1.5 h (1 h 22 min of training at ε = 1 and 1 h 6 min at ε = 0.1, 0.1 s of simulation, most of it on two nearly free AVX2 cores; ε = 10 ran at older, slower code on a third of the CPU or less over several sessions)", ""},
			part{"eps" + eps + "-sple", []string{"-eps", eps, "-methods", "sple"}, "about 30 min (28 min at ε = 10 and 33 min at ε = 1 measured on two AVX2 cores beside a test run: almost all of it training, 12 s of proposals)", ""})
	}
	return ps
}

// linregTrials and linregDepth are where the parts of the linear
// regression's Fig. 9 trials and Fig. 15 C, D depths save every finished
// run (relative to the repository root), for their last parts to put
// together; the example keys the files by its settings. The Quick ones
// are the quick mode's.
const (
	linregTrials      = ".reproduce-cache/linreg-trials"
	linregTrialsQuick = ".reproduce-cache/linreg-trials-quick"
	linregDepth       = ".reproduce-cache/linreg-depth"
)

// linregTrialParts splits the ten linear-regression trials of Fig. 9 per
// method: two trials per part, and a last part that puts them together.
func linregTrialParts() []part {
	var ps []part
	for _, m := range []string{"sppe", "sple"} {
		for k := 1; k < 10; k += 2 {
			r := fmt.Sprintf("%d-%d", k, k+1)
			est := "15–25 min (two trials; one SPPE trial of 10 rounds took 9.0 min at low priority on a loaded two-core machine, 3.1 CPU-minutes with the SPLE trial)"
			if m == "sple" {
				est = "10–20 min (two trials; one SPLE trial of 10 rounds took 6.2 min at low priority on a loaded two-core machine)"
			}
			ps = append(ps, part{m + "-" + r, []string{"-methods", m, "-trial-range", r}, est, ""})
		}
	}
	return append(ps, part{"all", nil, "seconds once the parts have run (the saved trials put together: table, charts, verdict)", ""})
}

// sirABCTrialParts splits the ten SMC-ABC trials of Table 1 and Fig. 5 into
// parts of two, and a last part that puts them together.
func sirABCTrialParts() []part {
	var ps []part
	for k := 1; k < 10; k += 2 {
		r := fmt.Sprintf("%d-%d", k, k+1)
		ps = append(ps, part{"trials" + r, []string{"-trial-range", r},
			"15–30 min (two SMC-ABC runs of 400 particles, 9 rounds: 8–15 min each measured beside other jobs, 15–26 min a part; 30 min cap each)", ""})
	}
	return append(ps, part{"all", nil, "seconds once the parts have run (the saved trials put together)", ""})
}

// registry lists the examples in the order of the report.
//
// The paper-scale run is split so that no part should need much more than
// an hour of wall time on two cores (estimates from the examples'
// documentation and from quick-mode times scaled by the work; the report
// records the measured times):
//
//   - sir: one part per ε (10, 1, 0.1), SPPE and SPLE each 15–30 minutes;
//   - sir-outbreaks: one part per method (five outbreaks each), saving the
//     posteriors, and a last part adding SMC-ABC that reads them and draws
//     all three together;
//   - sir-depth (Fig. 15 A, B): one part per flow depth (5, 8 and 10
//     layers) and method;
//   - linreg: one part per ε (10, 1, 0.1), 10–30 minutes per method;
//   - linreg-trials (Fig. 9): two trials of one method per part, and a
//     last part that puts the ten trials together;
//   - linreg-depth (Fig. 15 C, D): one part per flow depth and method,
//     and a last part that compares the saved runs;
//   - linreg-sweep (Fig. 11): one part per ε, each saving its posteriors,
//     and a last part that reads them all for the figure and the verdict;
//   - sir-abc: a wall-time limit of 55 minutes;
//   - sir-abc-trials (Table 1's SMC-ABC row, Fig. 5 over ten runs): two
//     runs per part, and a last part that puts them together and leaves
//     the per-trial costs for sir-trials;
//   - sir-trials (Figs 1B and 8, Table 1 over ten trials): two trials of
//     one method at one budget per part, and per budget a last part that
//     puts the trials together;
//   - ldp-regression: Wine (Fig. 4), Adult (Fig. 5) and the coverage study
//     as three parts.
var registry = []entry{
	{Name: "quickstart", Pkg: "./examples/quickstart", Target: "none (first-run demonstration: noise-aware vs naive posterior of a Laplace-released mean)", Expect: "seconds", Demo: true, Plain: true},
	{Name: "naivebayes", Pkg: "./examples/reproduce/naivebayes", Target: "SBI paper App. E.3, Figs 13 and 14 (naive Bayes log-linear model, ε = 10: marginals of SMC-ABC, SPPE, SPLE and the exact posterior; per-round C2ST, MMD, NLOG and LMD of SPPE and SPLE against the exact posterior, mean and quartiles over 10 trials of 10 rounds × 1000 simulations with float32 training, saved per trial so each part adds two)",
		// -float32: three trials of 3 rounds × 1000 simulations scored the
		// same per-round C2ST as float64 training (final SPPE 0.615 against
		// 0.622, SPLE 0.582 against 0.582) with 0.57 of the CPU time.
		Full: []string{"-sppe-rounds", "10", "-sppe-sims", "1000", "-sple-rounds", "10", "-sple-sims", "1000", "-float32", "-trials-dir", ".reproduce-cache/naivebayes-trials"}, Split: []part{
			{"trials1-2", []string{"-trials", "2"}, "about 7 min on two free cores (parts 5–6 to 9–10 took 5 min 51 s to 6 min 53 s; parts 1–2 and 3–4, 43 and 55 min beside other jobs), with float32 training; SMC-ABC and the exact posterior, about 20 s, rerun in every part", ""},
			{"trials3-4", []string{"-trials", "4"}, "about 7 min (the earlier trials read from the saved ones)", ""},
			{"trials5-6", []string{"-trials", "6"}, "about 7 min", ""},
			{"trials7-8", []string{"-trials", "8"}, "about 7 min", ""},
			{"trials9-10", []string{"-trials", "10"}, "about 7 min (its Fig. 13 covers all 10 trials)", ""},
		}},
	{Name: "sir", Pkg: "./examples/reproduce/sir", Target: "SBI paper §4.1, Figs 1, 6 and App. E.1 (SIR synthetic release: SPPE and SPLE against the exact posterior and SMC-ABC; marginal histograms of β, γ, β/γ)",
		Full: paperFlow, Plain: true, Split: []part{
			{"eps10", []string{"-eps", "10"}, "15–20 min (14.4 min measured: SPPE 6 min, SPLE 8.5 min, sharing the two cores with two to four other jobs)", ""},
			{"eps1", []string{"-eps", "1"}, "about 20 min (19.6 min measured, shared cores)", ""},
			{"eps0.1", []string{"-eps", "0.1"}, "about 20 min (19.5 min measured, shared cores)", ""},
		}},
	{Name: "sir-paper", Pkg: "./examples/reproduce/sir", Target: "SBI paper §4.1, Fig. 1 and App. E.1 at the paper's own configuration (8 coupling layers of two 50-unit residual blocks with context gating, M = 16 RQMC points, 10 atoms, batch 100, learning rate 5·10⁻⁴, patience 20 on 5% validation, 10 rounds × 1000 exact simulations; the hidden layers' products in float32): SPPE and SPLE on the SIR release at ε = 10 against the exact posterior, per round, with simulation, training and proposal times",
		Quick: []string{"-eps", "10", "-layers", "8", "-hidden", "50", "-blocks", "2", "-gating", "-M", "16", "-atoms", "10", "-float32"},
		Full:  paperConfig, Plain: true, Split: []part{
			{"sppe", []string{"-methods", "sppe"}, "about 56 min (56 min 0 s measured on two free AVX2 cores with float32 splines: training 54 min over 601 epochs, simulation 2 min; 1 h 15 min earlier on two AVX-512 cores with float64 splines)", ""},
			{"sple", []string{"-methods", "sple"}, "about 50 min (50 min 56 s measured on two AVX2 cores, the first 28 min beside the test suite at low priority: training 47 min over 1168 epochs, simulation 3 min, proposals 12 s)", ""},
		}},
	{Name: "sir-outbreaks", Pkg: "./examples/reproduce/sir", Target: "SBI paper Fig. 2 (five real outbreaks: posteriors of SMC-ABC, SPPE and SPLE, Fig. 2A; R0 intervals, Fig. 2B)",
		Quick: []string{"-outbreaks", "-methods", "sppe"}, Full: append([]string{"-outbreaks", "-outbreaks-dir", ".reproduce-cache/sir-outbreaks"}, paperFlow...), Plain: true, Split: []part{
			{"sppe", []string{"-methods", "sppe", "-abc-sims", "0"}, "about 25 min (five outbreaks at K = 10⁵; 24.8 min measured, shared cores)", ""},
			{"sple", []string{"-methods", "sple", "-abc-sims", "0"}, "30–60 min", ""},
			{"smcabc", []string{"-methods", "sppe,sple"}, "10–40 min (SMC-ABC, 2×10⁵ simulations per outbreak at about 1 CPU-ms each, 0.5–2.5 by outbreak, measured at 10⁴ simulations on a loaded machine; SPPE and SPLE read from the earlier parts)", ""},
		}},
	{Name: "sir-depth", Pkg: "./examples/reproduce/sir", Target: "SBI paper Fig. 15 A, B (SPPE and SPLE per round with 5-, 8- and 10-layer flows on the SIR release, ε = 10; one 32-unit block per layer as in the other SIR runs, not the paper's two 50-unit blocks)",
		Quick: []string{"-depths", "5,10", "-methods", "sppe"}, Full: append([]string{"-eps", "10"}, paperFlow...), Plain: true, Split: []part{
			{"layers5-sppe", []string{"-depths", "5", "-methods", "sppe"}, "5–10 min (the sir part's SPPE at 5 layers; 6.9 min measured beside another part)", ""},
			{"layers5-sple", []string{"-depths", "5", "-methods", "sple"}, "5–10 min (6.8 min measured beside another part)", ""},
			{"layers8-sppe", []string{"-depths", "8", "-methods", "sppe"}, "5–10 min (6.5 min measured beside another part)", ""},
			{"layers8-sple", []string{"-depths", "8", "-methods", "sple"}, "5–10 min (6.4 min measured beside another part)", ""},
			{"layers10-sppe", []string{"-depths", "10", "-methods", "sppe"}, "5–15 min on two free cores (1 h 35 min measured at low priority beside other runs)", ""},
			{"layers10-sple", []string{"-depths", "10", "-methods", "sple"}, "5–10 min (4.2 min measured on two free cores)", ""},
		}},
	{Name: "linreg", Pkg: "./examples/reproduce/linreg", Target: "SBI paper §4.2, Tables 2–4 (linear regression: SPPE and SPLE against DA-MCMC, with the paper's rows)",
		Full: paperFlow, Plain: true, Split: []part{
			{"eps10", []string{"-eps", "10"}, "20–60 min (10–30 min per method, examples/reproduce/linreg)", ""},
			{"eps1", []string{"-eps", "1"}, "20–60 min", ""},
			{"eps0.1", []string{"-eps", "0.1"}, "20–60 min", ""},
		}},
	{Name: "linreg-rnpe", Pkg: "./examples/reproduce/linreg", Target: "SBI paper §4.2, Tables 2–4 RNPE rows and Figs 3 and 12 (RNPE, sbi.RNPE, against DA-MCMC on the same release, its KS statistics beside SPPE's; the paper finds RNPE biased)",
		Quick: []string{"-methods", "rnpe,sppe", "-abc-sims", "0"},
		Full:  append([]string{"-methods", "rnpe,sppe", "-abc-sims", "0"}, paperFlow...), Plain: true, Split: []part{
			{"eps10", []string{"-eps", "10"}, "5–15 min (RNPE about 2 min on 10,000 simulations, SPPE beside it for the KS comparison)", ""},
			{"eps1", []string{"-eps", "1"}, "5–15 min", ""},
			{"eps0.1", []string{"-eps", "0.1"}, "5–15 min", ""},
		}},
	{Name: "linreg-trials", Pkg: "./examples/reproduce/linreg", Target: "SBI paper Fig. 9 (linear regression, ε = 10: C2ST, MMD and largest posterior-mean difference of SPPE and SPLE against DA-MCMC per round, mean and quartiles over 10 trials of 10 rounds × 1000 simulations; the reduced 4-layer flow validated against DA-MCMC, not the paper's 8-layer flow)",
		Quick: []string{"-trials", "2", "-trials-dir", linregTrialsQuick},
		Full:  append([]string{"-eps", "10", "-trials", "10", "-trials-dir", linregTrials}, paperFlow...), Plain: true, Split: linregTrialParts()},
	{Name: "linreg-depth", Pkg: "./examples/reproduce/linreg", Target: "SBI paper Fig. 15 C, D (linear regression, ε = 10: SPPE and SPLE per round with 5-, 8- and 10-layer flows against DA-MCMC; one 32-unit block per layer as in the other linreg runs, not the paper's two 50-unit blocks)",
		Quick: []string{"-depths", "5,10", "-methods", "sppe"}, Full: append([]string{"-eps", "10", "-trials-dir", linregDepth}, paperFlow...), Plain: true, Split: []part{
			{"layers5-sppe", []string{"-depths", "5", "-methods", "sppe"}, "10–20 min (a 4-layer SPPE run of 10 rounds took 9.0 min at low priority on a loaded two-core machine; the work per epoch grows with the layers)", ""},
			{"layers5-sple", []string{"-depths", "5", "-methods", "sple"}, "5–15 min (a 4-layer SPLE run took 6.2 min on the same machine)", ""},
			{"layers8-sppe", []string{"-depths", "8", "-methods", "sppe"}, "15–30 min (twice the 4-layer flow's work per epoch)", ""},
			{"layers8-sple", []string{"-depths", "8", "-methods", "sple"}, "10–25 min", ""},
			{"layers10-sppe", []string{"-depths", "10", "-methods", "sppe"}, "20–40 min", ""},
			{"layers10-sple", []string{"-depths", "10", "-methods", "sple"}, "15–30 min", ""},
			{"all", []string{"-depths", "5,8,10"}, "seconds once the parts have run (the saved runs compared with the 8-layer flow)", ""},
		}},
	{Name: "linreg-paper", Pkg: "./examples/reproduce/linreg", Target: "SBI paper §4.2, Tables 2–4 at the paper's own configuration (8 coupling layers of two 50-unit residual blocks with context gating, M = 16 RQMC points, 10 atoms, batch 100, learning rate 5·10⁻⁴, patience 20 on 5% validation, 10 rounds × 1000 simulations; the hidden layers' products in float32): SPPE and SPLE against DA-MCMC at ε = 10, 1 and 0.1, one method and budget per part (no SMC-ABC row: the linreg parts have it)",
		Quick: []string{"-eps", "10", "-layers", "8", "-hidden", "50", "-blocks", "2", "-gating", "-M", "16", "-atoms", "10", "-float32"},
		Full:  append(slices.Clip(paperConfig[2:]), "-abc-sims", "0"), Plain: true, Split: linregPaperParts()},
	{Name: "linreg-sweep", Pkg: "./examples/reproduce/linreg", Target: "SBI paper Fig. 11 (linear regression posteriors of SPPE and SPLE at ε = 0.1, 0.3, 1, 3, 10, 30, 100 on the same confidential data)",
		Quick: []string{"-sweep", "0.1,100"}, Full: append([]string{"-draws", sweepDraws}, paperFlow...), Plain: true, Split: []part{
			{"eps0.1", []string{"-sweep", "0.1"}, "20–60 min (10–30 min per method, examples/reproduce/linreg)", ""},
			{"eps0.3", []string{"-sweep", "0.3"}, "20–60 min", ""},
			{"eps1", []string{"-sweep", "1"}, "20–60 min", ""},
			{"eps3", []string{"-sweep", "3"}, "20–60 min", ""},
			{"eps10", []string{"-sweep", "10"}, "20–60 min", ""},
			{"eps30", []string{"-sweep", "30"}, "20–60 min", ""},
			{"eps100", []string{"-sweep", "100"}, "20–60 min", ""},
			{"all", []string{"-sweep", "0.1,0.3,1,3,10,30,100"}, "seconds (the parts' saved posteriors put together: the figure and the verdict)", ""},
		}},
	{Name: "rqmc", Pkg: "./examples/reproduce/rqmc", Target: "SBI paper Fig. 7 (rate of convergence of MC and RQMC: RMSE of the inner-integral estimate, sbi.InnerIntegral, against the number of points M = 4–1024 over 100 randomizations, on a one-dimensional Laplace release and the SIR and linear-regression releases at ε = 10, at fixed perturbed parameters of a small neural spline flow)", Expect: "seconds (9.7 s wall on a loaded two-core machine; 3.4 s with -quick)"},
	{Name: "sir-abc", Pkg: "./examples/reproduce/sir-abc", Target: "SBI paper App. E.1.1 (SMC-ABC reference posterior of the synthetic SIR release, ε = 10; one run's accuracy per round against the exact posterior, Fig. 5)", Expect: "55 min (its wall-time limit)",
		Full: []string{"-walltime", "55m"}, Plain: true},
	{Name: "sir-abc-trials", Pkg: "./examples/reproduce/sir-abc", Target: "SBI paper App. E.1.1, Table 1's SMC-ABC row (simulations and wall time to reach MMD < 0.1 against the exact posterior, mean ± sd over 10 runs) and Fig. 5 (SMC-ABC accuracy against the simulations, mean and quartiles), ε = 10",
		Quick: []string{"-trials", "2", "-particles", "50", "-trials-dir", sirTrialsQuick},
		Full:  []string{"-trials", "10", "-trials-dir", sirTrials, "-particles", "400", "-rounds", "9", "-walltime", "30m", "-min-acceptance", "0.02"},
		Plain: true, Split: sirABCTrialParts()},
	{Name: "sir-trials", Pkg: "./examples/reproduce/sir", Target: "SBI paper Fig. 1B (ε = 10) and Fig. 8 A, B (ε = 1, 0.1): C2ST, MMD, NLOG and LMD per round, mean and quartiles over 10 trials of SPPE and SPLE; Table 1 (cost to reach MMD < 0.1, with sir-abc-trials' SMC-ABC row); the reduced flow validated against the exact posterior, not the paper's 8-layer flow",
		Quick: []string{"-trials", "2", "-trials-dir", sirTrialsQuick},
		Full:  append(slices.Clip(paperFlow), "-trials", "10", "-trials-dir", sirTrials),
		Plain: true, Split: sirTrialParts()},
	{Name: "abcdp-toy", Pkg: "./examples/reproduce/abcdp/toy", Target: "ABCDP paper Fig. 1 (flip probability) and Fig. 2 (toy grid: MSE against ε_abc and ε_total, c = 10, 100, 1000)", Expect: "5–20 min (5.2 min on a quiet two-core machine, 21.5 min loaded)",
		Full: []string{"-n", "5000", "-T", "10000"}, Plain: true},
	{Name: "abcdp-tb", Pkg: "./examples/reproduce/abcdp/tb", Target: "ABCDP paper §6.3, Fig. 5 (TB birth–death model: ABCDP beside rejection ABC at n = 100 and 1000, ε_total = 1)", Expect: "about 10 CPU-minutes (24 min wall on a loaded two-core machine)", Plain: true},
	{Name: "abcdp-covid", Pkg: "./examples/reproduce/abcdp/covid", Target: "ABCDP paper §6.2, Fig. 4 (COVID-19 Netherlands, cubic growth model, on the authors' 18 Dutch counts)", Expect: "seconds", Plain: true},
	{Name: "abcdp-coverage", Pkg: "./examples/reproduce/abcdp/coverage", Target: "ABCDP paper Prop. 4.2 and Thm 4.3 in the limit (SBC ranks and coverage of ABCDP's posterior over 2000 data sets at ε_total = 10⁴) and at the paper's budgets ε_total = 20 and 1 (not over-confident)", Expect: "under a minute (full: 7.6 CPU-s, 19 s wall on a loaded machine; quick: 1.6 CPU-s)"},
	{Name: "soma", Pkg: "./examples/reproduce/soma", Target: "SOMA slides: n = 10 acceptance/coupling table, n = 100 R̂ comparison; DA-MCMC on the SBI paper's linear-regression releases (Tables 2–4)", Expect: "about 30 min (28 min on a loaded two-core machine)"},
	{Name: "soma-table", Pkg: "./examples/reproduce/soma/table", Target: "SOMA slides' n = 100 claim (SOMA mixes better than IMwG): ESS per 1000 sweeps and per CPU-second of SOMA and both IMwG scans on the SBI paper's regression, n = 10, 100, 1000 and ε = 1, 3, 10, 30", Expect: "about 35 min (32.9 and 36.7 min measured on a loaded two-core AVX2 machine; n = 1000 takes 30 of them, SOMA's 11,000 sweeps per chain at about 7 ms each)", Full: []string{"-n", "10,100,1000", "-sweeps", "40000", "-max-weights", "1.1e10"}},
	{Name: "ldp", Pkg: "./examples/reproduce/ldp", Target: "LDP paper Fig. 1 (Gaussian calibration), Figs 3 and 9 (OUE histogram), Figs 10–11 (histogram and exponential calibration)",
		Split: []part{
			{"fig1", []string{"-skip-hist", "-skip-fig10", "-skip-fig11"}, "about 1 h 20 min (1 h 18 min with one core to itself beside another run; ε = 10 takes two thirds)", "LDP paper Fig. 1 (posterior calibration of the clipped-Gaussian model with Laplace noise, ε = 0.1, 1, 10)"},
			{"hist", []string{"-skip-fig1", "-skip-fig10", "-skip-fig11"}, "under a minute (41 s on a loaded two-core machine)", "LDP paper Figs 3 and 9 (OUE histogram: posterior-mean RMSE against the projected point estimate, ε = 0.5 and others)"},
			{"fig10", []string{"-skip-fig1", "-skip-hist", "-skip-fig11"}, "about a minute (53 s on a loaded two-core machine)", "LDP paper Fig. 10 (calibration of the OUE histogram posterior)"},
			{"fig11", []string{"-skip-fig1", "-skip-hist", "-skip-fig10"}, "about 4 min (4.0 min on a loaded two-core machine)", "LDP paper Fig. 11 (calibration of the clipped-exponential model)"},
		}},
	{Name: "ldp-regression", Pkg: "./examples/reproduce/ldp/regression", Target: "LDP paper Fig. 4 (Wine linear regression vs LDP-SGD), Fig. 5 (Adult logistic regression vs LDP-SGD), coverage of the regression posteriors",
		Split: []part{
			{"wine", []string{"-skip-adult", "-skip-coverage"}, "about 20 min on a loaded two-core machine", "LDP paper Fig. 4 (Wine linear regression: test RMSE against LDP-SGD over 30 repeats)"},
			{"adult", []string{"-skip-wine", "-skip-coverage"}, "about 1 h 40 min (1 h 37 min with one core to itself beside another run for 80 min, then two; about 95 CPU-minutes)", "LDP paper Fig. 5 (Adult logistic regression: test AUC of the sufficient-statistics and input-perturbation models against LDP-SGD over 30 repeats)"},
			{"coverage", []string{"-skip-wine", "-skip-adult"}, "about 12 min on a loaded two-core machine", "coverage of the LDP paper's regression posteriors (sufficient-statistics linear and logistic, input-perturbation linear) over prior-predictive data sets, as its Fig. 1 does for the Gaussian model"},
		}},
	{Name: "ldp-chebyshev", Pkg: "./examples/reproduce/ldp/chebyshev", Target: "LDP paper Fig. 6 (mean absolute difference between the empirical expectation of σ(xᵀθ) and its second-order Chebyshev expansion on [−3, 3], ldp.ChebyshevSigmoid: 50 runs of a new θ ~ N(0, I) and 1000 samples in the unit ball per dimension, d = 1–10)", Expect: "seconds (1.3 s wall on a loaded two-core machine)"},
	{Name: "ldp-kosarak", Pkg: "./examples/reproduce/ldp/kosarak", Target: "LDP paper Fig. 2 (histogram discovery on the filtered Kosarak)", Expect: "about 5 min (4.8 min on a loaded two-core machine)"},
	{Name: "modips", Pkg: "./examples/reproduce/modips", Target: "modips paper Table 1 (coverage of five combination rules, m = 10)", Expect: "under a minute (25 s on a loaded two-core machine)", Plain: true},
	{Name: "modips-mstudy", Pkg: "./examples/reproduce/modips/mstudy", Target: "modips paper Figs 6–7 (m-study)", Expect: "about an hour (63 min on a loaded two-core machine)", Full: []string{"-reps", "5000"}, Plain: true},
	{Name: "modips-fig8", Pkg: "./examples/reproduce/modips/fig8", Target: "modips paper Fig. 8 (sd estimates of four combination rules, m = 10)", Expect: "under a minute (36 s on a loaded two-core machine)", Full: []string{"-reps", "5000"}, Plain: true},
	{Name: "modips-allocation", Pkg: "./examples/reproduce/modips/allocation", Target: "modips paper Fig. 9 (budget allocation)", Expect: "about 5 min (4.6 min on a loaded two-core machine)", Full: []string{"-reps", "5000"}, Plain: true},
	{Name: "modips-nested", Pkg: "./examples/reproduce/modips/nested", Target: "modips paper App. A (nested modips: coverage of the nested rule, combine.PoolNested, against flat pooling over 2000 data sets in four settings; the sanitization and synthesis components against their true values)", Expect: "seconds (full: 1.2 CPU-s, 4 s wall on a loaded machine; quick: 0.6 CPU-s)"},
	{Name: "modips-sss", Pkg: "./examples/reproduce/modips/sss", Target: "modips paper §3.4 and Thm 7 (model-free modips.SSS, synth.PredictiveSSS: coverage of the W̄ + B/m rule over 2000 data sets in four settings, (1+2/m)W̄ as the failing control)", Expect: "seconds (full: 2.5 CPU-s, 7 s wall on a loaded machine; quick: 0.7 CPU-s)"},
}

type config struct {
	quick  bool
	seed   uint64
	out    string
	report string
	cache  string // directory of cached results; "none" disables the cache
	fresh  bool   // rerun every selected example, replacing its cached result
	// fromReport is a report whose recorded results fill the cache for
	// the runs that have none ("" reads none).
	fromReport string
	list       bool   // print the runs of the mode instead of running them
	commit     string // the repository's HEAD when the run started ("" if unknown)
	only       map[string]bool
	timeout    time.Duration

	// entries is the list of examples (the registry; tests use others).
	entries []entry
	// build builds the example package pkg into the executable exe and
	// returns the path to run (goBuild; tests use others).
	build func(ctx context.Context, root, pkg, exe string) (string, error)
	// fingerprint computes the code fingerprint of the example package
	// pkg (nil: codeFingerprint; tests use others).
	fingerprint func(ctx context.Context, root, pkg string) (string, error)
}

func main() {
	cli.Program("reproduce", parse, func(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
		// An interrupted run stops after the example that was running (whose
		// result is not cached) and writes no report; finished examples are
		// cached, so running the same command again resumes.
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		return run(ctx, cfg, stdout, stderr)
	})
}

func parse(fs *flag.FlagSet, args []string) (config, error) {
	cfg := config{entries: registry, build: goBuild}
	fs.BoolVar(&cfg.quick, "quick", false, "reduced settings (the whole run takes minutes, not hours); writes REPRODUCTION-quick.md")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed passed to every example")
	fs.StringVar(&cfg.out, "out", "", "directory for the examples' plots and CSV files (one subdirectory each); empty writes none")
	fs.StringVar(&cfg.report, "report", "", "path of the report (default REPRODUCTION.md, or REPRODUCTION-quick.md with -quick, at the repository root)")
	fs.StringVar(&cfg.cache, "cache", "", "directory of cached per-example results, so that an interrupted run resumes (default .reproduce-cache at the repository root; \"none\" disables it)")
	fs.BoolVar(&cfg.fresh, "fresh", false, "rerun every selected example even when a cached result exists (the new results replace the cached ones)")
	fs.StringVar(&cfg.fromReport, "from-report", "", "a report this command wrote in the same mode (such as the committed REPRODUCTION.md, or REPRODUCTION-quick.md with -quick) whose recorded results fill the cache for runs that have no cached result and the same command, so that a lost cache does not mean rerunning them")
	fs.BoolVar(&cfg.list, "list", false, "list the mode's runs (the parts of split examples, their commands and expected wall times) and exit")
	only := fs.String("only", "", "comma-separated example or part names to run (default all); the others are reported from the cache when it holds their result, otherwise listed as not run")
	fs.DurationVar(&cfg.timeout, "timeout", 0, "time limit per example or part (default 6m with -quick, 3h otherwise)")
	if err := cli.Parse(fs, args); err != nil {
		return cfg, err
	}
	if cfg.timeout < 0 {
		return cfg, cli.Usagef("-timeout must be >= 0, got %v", cfg.timeout)
	}
	if cfg.timeout == 0 {
		cfg.timeout = 3 * time.Hour
		if cfg.quick {
			cfg.timeout = 6 * time.Minute
		}
	}
	if *only != "" {
		cfg.only = map[string]bool{}
		known := map[string]bool{}
		for _, e := range cfg.entries {
			known[e.Name] = true
			for _, p := range e.Split {
				known[e.Name+"-"+p.Name] = true
			}
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

// job is one run of an example: a whole entry, or one part of a split
// entry at paper scale.
type job struct {
	entry
	Group    string   // the entry's name
	Extra    []string // the mode's arguments (Quick, or Full and the part's)
	Estimate string   // expected wall time of a part
}

// jobs expands the entries into the runs of the mode.
func jobs(cfg config) []job {
	var js []job
	for _, e := range cfg.entries {
		if cfg.quick {
			js = append(js, job{entry: e, Group: e.Name, Extra: e.Quick})
			continue
		}
		if len(e.Split) == 0 {
			js = append(js, job{entry: e, Group: e.Name, Extra: e.Full, Estimate: e.Expect})
			continue
		}
		for _, p := range e.Split {
			j := job{entry: e, Group: e.Name, Extra: append(slices.Clip(e.Full), p.Args...), Estimate: p.Estimate}
			if p.Target != "" {
				j.Target = p.Target
			}
			j.Name = e.Name + "-" + p.Name
			js = append(js, j)
		}
	}
	return js
}

// selected reports whether -only selects the job (by its name or its
// entry's).
func (cfg config) selected(j job) bool {
	return cfg.only == nil || cfg.only[j.Name] || cfg.only[j.Group]
}

// result is the outcome of one job.
type result struct {
	job
	Args     []string
	Ran      bool
	NotRun   string // reason when not run
	Err      string // failure (build, exit status, timeout)
	Stdout   string
	Stderr   string // tail, for failures
	Wall     time.Duration
	Verdicts []cli.Verdict
	// Cached is set when the result was read from the cache instead of
	// being run; Finished and Commit say when and at which commit it ran.
	Cached   bool
	Finished time.Time
	Commit   string
	// Fingerprint is the code fingerprint of the run (empty for old
	// cached results); Stale, set when the report is written, says why the
	// result no longer describes the current code ("" when it does).
	Fingerprint string
	Stale       string
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	root, err := cli.RepoRoot()
	if err != nil {
		return err
	}
	if cfg.entries == nil {
		cfg.entries = registry
	}
	kept := keptDirs(cfg)
	if cfg.build == nil {
		cfg.build = goBuild
	}
	if cfg.report == "" {
		name := "REPRODUCTION.md"
		if cfg.quick {
			name = "REPRODUCTION-quick.md"
		}
		cfg.report = filepath.Join(root, name)
	}
	switch cfg.cache {
	case "":
		cfg.cache = filepath.Join(root, ".reproduce-cache")
	case "none":
		cfg.cache = ""
	}
	if cfg.cache != "" {
		if err := os.MkdirAll(cfg.cache, 0o755); err != nil {
			return fmt.Errorf("-cache: %w", err)
		}
	}
	if cfg.out != "" {
		if cfg.out, err = filepath.Abs(cfg.out); err != nil {
			return err
		}
	}
	var recorded map[string]cached
	if cfg.fromReport != "" {
		if cfg.cache == "" {
			return cli.Usagef("-from-report needs a cache (not -cache none)")
		}
		if recorded, err = readReport(cfg.fromReport, cfg.quick); err != nil {
			return fmt.Errorf("-from-report: %w", err)
		}
	}
	bin, err := os.MkdirTemp("", "privinfer-reproduce-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	if cfg.list {
		listTable(cfg).Markdown(stdout)
		return nil
	}
	cfg.commit = headCommit(ctx, root)
	prog := cli.NewProgress(stderr)
	if n, err := syncSaved(root, kept, false); err != nil {
		return err
	} else if n > 0 {
		prog.Printf("restored %d saved trial files from %s", n, savedRoot)
	}
	fps := newFingerprints(ctx, root)
	if cfg.fingerprint != nil {
		fps.compute = cfg.fingerprint
	}
	start := time.Now()
	var results []result
	for _, j := range jobs(cfg) {
		r := result{job: j, Args: args(cfg, j)}
		switch {
		case j.Pending != "":
			r.NotRun = j.Pending
		default:
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(j.Pkg))); err != nil {
				r.NotRun = j.Pkg + " does not exist"
			}
		}
		if c, ok := recorded[j.Name]; ok && r.NotRun == "" && (!cfg.fresh || !cfg.selected(j)) && c.Pkg == r.Pkg && slices.Equal(c.Args, r.Args) {
			probe := r
			if !loadCached(cfg.cache, &probe, nil) {
				restored := r
				restored.Stdout, restored.Wall, restored.Verdicts, restored.Finished, restored.Commit, restored.Fingerprint = c.Stdout, c.Wall, c.Verdicts, c.Finished, c.Commit, c.Fingerprint
				if err := storeCached(cfg.cache, restored); err != nil {
					return fmt.Errorf("-from-report: caching %s: %w", j.Name, err)
				}
				prog.Printf("%s: cached from %s", j.Name, cfg.fromReport)
			}
		}
		switch {
		case r.NotRun != "":
			prog.Printf("%s: not run (%s)", j.Name, r.NotRun)
		case !cfg.selected(j):
			// Not to be run: reported from the cache when it holds the
			// result.
			if !loadCached(cfg.cache, &r, prog) {
				r.NotRun = "not selected by -only"
				prog.Printf("%s: not run (%s)", j.Name, r.NotRun)
			}
		case !cfg.fresh && loadCached(cfg.cache, &r, prog):
			prog.Printf("%s: cached result of %s (wall time %s, %s)", j.Name, r.Finished.UTC().Format(time.RFC3339), r.Wall.Round(100*time.Millisecond), overall(r))
		default:
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("interrupted before %s (finished examples are cached: run the same command again to resume): %w", j.Name, err)
			}
			// The fingerprint of the code about to be built and run.
			fp, ferr := fps.of(r.Pkg)
			if ferr != nil {
				prog.Printf("%s: code fingerprint: %v", j.Name, ferr)
			}
			runOne(ctx, cfg, root, bin, &r, prog)
			r.Commit, r.Fingerprint = cfg.commit, fp
			if r.Err == "" && cfg.cache != "" {
				if err := storeCached(cfg.cache, r); err != nil {
					prog.Printf("%s: caching the result: %v", j.Name, err)
				}
			}
			// Trials a failed part finished are kept too: they are
			// complete files, and the next run reuses them.
			if n, err := syncSaved(root, kept, true); err != nil {
				prog.Printf("%s: %v", j.Name, err)
			} else if n > 0 {
				prog.Printf("%s: %d trial files kept in %s (commit them with the report)", j.Name, n, savedRoot)
			}
		}
		results = append(results, r)
	}
	for i := range results {
		if results[i].Ran && results[i].Err == "" {
			results[i].Stale = fps.staleness(results[i])
		}
	}
	total := time.Since(start)
	var buf bytes.Buffer
	writeReport(&buf, cfg, results, total)
	if err := os.WriteFile(cfg.report, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (this run's wall time %s; the examples' wall times add up to %s)\n\n", cfg.report, total.Round(time.Second), sumWall(results).Round(time.Second))
	summaryTable(cfg, results).Markdown(stdout)
	return nil
}

// args is the argument list of a job: -seed, -quick in quick mode, the
// mode's arguments and -out.
func args(cfg config, j job) []string {
	a := []string{"-seed", fmt.Sprint(cfg.seed)}
	if cfg.quick {
		a = append(a, "-quick")
	}
	a = append(a, j.Extra...)
	if cfg.out != "" {
		a = append(a, "-out", filepath.Join(cfg.out, j.Name))
	}
	return a
}

// goBuild builds the package pkg into exe with go build.
func goBuild(ctx context.Context, root, pkg, exe string) (string, error) {
	build := exec.CommandContext(ctx, "go", "build", "-o", exe, pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w\n%s", err, tail(string(out), 20))
	}
	return exe, nil
}

// headCommit returns the repository's HEAD commit, or "" when git cannot
// tell; it is recorded beside cached results for the reader, not used as
// part of the cache key.
func headCommit(ctx context.Context, root string) string {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--short=12", "HEAD")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// cached is the file form of a finished job's result.
type cached struct {
	Name     string        `json:"name"`
	Pkg      string        `json:"pkg"`
	Args     []string      `json:"args"`
	Stdout   string        `json:"stdout"`
	Wall     time.Duration `json:"wall_ns"`
	Verdicts []cli.Verdict `json:"verdicts"`
	Finished time.Time     `json:"finished"`
	Commit   string        `json:"commit,omitempty"`
	// Fingerprint is the code fingerprint (codeFingerprint) of the
	// example's package and its dependencies within the module when it
	// ran; empty in results cached before fingerprints were kept.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// cachePath is the file of a job's cached result: the job name and a hash
// of its package and argument list (which hold the seed, the mode and every
// setting), so that a run with other settings never reads it.
func cachePath(dir string, r *result) string {
	h := sha256.New()
	for _, s := range append([]string{r.Name, r.Pkg}, r.Args...) {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%x.json", r.Name, h.Sum(nil)[:8]))
}

// errInvalid is wrapped by the errors about a cache file that exists but
// cannot be a finished run's result.
var errInvalid = errors.New("invalid cache record")

// loadCached fills r from its cached result and reports whether there was
// a valid one; a missing file is no result, and a file that is not a
// finished run's result of this job (checkCached) is no result either,
// reported through prog (which may be nil).
func loadCached(dir string, r *result, prog *cli.Progress) bool {
	c, err := readCached(dir, r)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && prog != nil {
			prog.Printf("%s: %v; running it again", r.Name, err)
		}
		return false
	}
	r.Ran, r.Cached = true, true
	r.Stdout, r.Wall, r.Verdicts, r.Finished, r.Commit, r.Fingerprint = c.Stdout, c.Wall, c.Verdicts, c.Finished, c.Commit, c.Fingerprint
	return true
}

// readCached reads and checks r's cached result: an error wrapping
// fs.ErrNotExist when there is none, one wrapping errInvalid when the
// file is not a finished run's result of r's job.
func readCached(dir string, r *result) (cached, error) {
	if dir == "" {
		return cached{}, fs.ErrNotExist
	}
	path := cachePath(dir, r)
	b, err := os.ReadFile(path)
	if err != nil {
		return cached{}, err
	}
	var c cached
	if err := json.Unmarshal(b, &c); err != nil {
		return cached{}, fmt.Errorf("%w %s: %v", errInvalid, path, err)
	}
	if err := checkCached(&c, r, time.Now()); err != nil {
		return cached{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// checkCached checks every field of a cache record against the job r and
// what a finished run writes: its name, package and arguments; output (a
// finished example prints its results); a wall time ≥ 0 (0 when restored
// from a report that rounded it); valid
// verdicts; a finishing time that is set and not later than now (with a
// minute's allowance for clocks); a commit that is empty or hexadecimal;
// and a code fingerprint that is empty or fingerprintLen hexadecimal
// digits.
func checkCached(c *cached, r *result, now time.Time) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errInvalid, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Name != r.Name:
		return bad("name %q, the job is %q", c.Name, r.Name)
	case c.Pkg != r.Pkg:
		return bad("package %q, the job's is %q", c.Pkg, r.Pkg)
	case !slices.Equal(c.Args, r.Args):
		return bad("arguments %q, the job's are %q", c.Args, r.Args)
	case strings.TrimSpace(c.Stdout) == "":
		return bad("no output")
	case c.Wall < 0:
		return bad("negative wall time %v", c.Wall)
	case c.Finished.IsZero():
		return bad("no finishing time")
	case c.Finished.After(now.Add(time.Minute)):
		return bad("finishing time %v is in the future", c.Finished)
	case c.Commit != "" && (len(c.Commit) < 4 || len(c.Commit) > 64 || strings.Trim(c.Commit, "0123456789abcdef") != ""):
		return bad("commit %q is not a hexadecimal commit name", c.Commit)
	case c.Fingerprint != "" && (len(c.Fingerprint) != fingerprintLen || strings.Trim(c.Fingerprint, "0123456789abcdef") != ""):
		return bad("code fingerprint %q is not %d hexadecimal digits", c.Fingerprint, fingerprintLen)
	}
	for i, v := range c.Verdicts {
		if err := v.Validate(); err != nil {
			return bad("verdict %d: %v", i, err)
		}
	}
	return nil
}

// storeCached writes r's result to the cache (through a temporary file
// renamed into place, so an interrupted write leaves no partial result).
func storeCached(dir string, r result) error {
	b, err := json.MarshalIndent(cached{Name: r.Name, Pkg: r.Pkg, Args: r.Args, Stdout: r.Stdout, Wall: r.Wall,
		Verdicts: r.Verdicts, Finished: r.Finished, Commit: r.Commit, Fingerprint: r.Fingerprint}, "", "  ")
	if err != nil {
		return err
	}
	return cli.WriteAtomic(cachePath(dir, &r), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func runOne(ctx context.Context, cfg config, root, bin string, r *result, prog *cli.Progress) {
	prog.Printf("%s: building %s", r.Name, r.Pkg)
	exe, err := cfg.build(ctx, root, r.Pkg, filepath.Join(bin, r.Name))
	if err != nil {
		msg, out, _ := strings.Cut(err.Error(), "\n")
		r.Err = "build failed: " + msg
		r.Stderr = out
		prog.Printf("%s: %s", r.Name, r.Err)
		return
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, exe, r.Args...)
	cmd.Dir = root
	// The example records its typed verdicts in this file (cli.Report).
	verdicts := filepath.Join(bin, r.Name+".verdicts.jsonl")
	os.Remove(verdicts)
	cmd.Env = append(os.Environ(), cli.VerdictFileEnv+"="+verdicts)
	var clock *wallClock
	if cfg.cache != "" {
		folder := checkpointFolder(cfg.cache, r)
		if clock, err = startWall(folder); err != nil {
			r.Err = fmt.Sprintf("checkpoint folder: %v", err)
			prog.Printf("%s: %s", r.Name, r.Err)
			return
		}
		cmd.Env = append(cmd.Env, cli.CheckpointsEnv+"="+folder)
		if clock.prev > 0 {
			prog.Printf("%s: continuing from the checkpoints in %s (earlier runs: %s)", r.Name, folder, clock.prev.Round(time.Second))
		}
	}
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.MultiWriter(&errb, &prefixWriter{w: prog.W, prefix: "  " + r.Name + ": "})
	prog.Printf("%s: running %s %s", r.Name, r.Pkg, strings.Join(r.Args, " "))
	t0 := time.Now()
	err = cmd.Run()
	r.Wall = time.Since(t0)
	if clock != nil {
		var cerr error
		if r.Wall, cerr = clock.finish(err == nil); cerr != nil {
			prog.Printf("%s: removing its checkpoints: %v", r.Name, cerr)
		}
	}
	r.Finished = time.Now()
	r.Ran = true
	r.Stdout = out.String()
	var verr error
	r.Verdicts, verr = cli.ReadVerdicts(verdicts)
	if err == nil && verr != nil {
		err = fmt.Errorf("reading its verdicts: %w", verr)
	}
	if err != nil {
		r.Err = err.Error()
		switch {
		case errors.Is(rctx.Err(), context.DeadlineExceeded):
			r.Err = fmt.Sprintf("timed out after %s", cfg.timeout)
		case ctx.Err() != nil:
			r.Err = "interrupted"
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

// quickNote qualifies an outcome of the quick mode: its settings are not
// expected to reproduce the papers' numbers.
const quickNote = " (quick settings: not expected to reproduce)"

// shown is an outcome as the report shows it: in quick mode "differs" and
// "partial" carry quickNote.
func shown(cfg config, outcome string) string {
	if cfg.quick && (outcome == cli.Differs || outcome == cli.Partial) {
		return outcome + quickNote
	}
	return outcome
}

// sumWall adds up the wall times of the jobs that ran (or were cached).
func sumWall(results []result) time.Duration {
	var t time.Duration
	for _, r := range results {
		if r.Ran {
			t += r.Wall
		}
	}
	return t
}

func summaryTable(cfg config, results []result) *cli.Table {
	t := &cli.Table{Header: []string{"example", "paper target", "wall time", "outcome"}}
	for _, r := range results {
		wall := "—"
		if r.Ran {
			wall = r.Wall.Round(100 * time.Millisecond).String()
			if r.Cached {
				wall += " (cached)"
			}
		}
		o := shown(cfg, overall(r))
		if r.NotRun != "" {
			o = "not run: " + r.NotRun
		}
		if r.Stale != "" {
			o += " (stale)"
		}
		t.Add("["+r.Name+"](#"+anchor(r.Name)+")", r.Target, wall, o)
	}
	return t
}

// listTable lists the runs of the mode: name, command and expected wall
// time (for the parts of split examples).
func listTable(cfg config) *cli.Table {
	t := &cli.Table{Header: []string{"run", "command", "expected wall time (2 cores)"}}
	for _, j := range jobs(cfg) {
		if !cfg.selected(j) || j.Pending != "" {
			continue
		}
		est := j.Estimate
		if est == "" {
			est = "—"
		}
		if cfg.quick {
			est = "minutes at most"
		}
		t.Add(j.Name, "`go run "+j.Pkg+" "+strings.Join(args(cfg, j), " ")+"`", est)
	}
	return t
}

// anchor is the GitHub heading anchor of a section name (dots dropped).
func anchor(name string) string { return strings.ReplaceAll(name, ".", "") }

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
	ncached := 0
	for _, r := range results {
		if r.Cached {
			ncached++
		}
	}
	fmt.Fprintf(w, "# Reproduction of the papers' results")
	if cfg.quick {
		fmt.Fprintf(w, " (quick settings)")
	}
	at := ""
	if cfg.commit != "" {
		at = " at commit " + cfg.commit
	}
	fmt.Fprintf(w, "\n\nGenerated by `%s`%s on %s (%s, %s/%s, %d CPUs, GOMAXPROCS %d).\n",
		cmd, at, time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "Mode: %s. Seed: %d for every example. Total wall time: %s, the sum of the examples' wall times",
		mode, cfg.seed, sumWall(results).Round(time.Second))
	if ncached > 0 {
		fmt.Fprintf(w, ", %d of them cached results of earlier runs (this run took %s)", ncached, total.Round(time.Second))
	}
	fmt.Fprintf(w, " (each example is built first; build time is not counted).\n\n")
	fmt.Fprintf(w, "Verdicts are printed by the examples themselves (`verdict: reproduced|partial|differs — <target>: <reason>`): *reproduced* means our numbers agree with the paper's within the tolerance the example states, *partial* that some agree and some do not or that the comparison is only indirect, *differs* that they disagree (the reason says why, where known).")
	if cfg.quick {
		fmt.Fprintf(w, " **This report uses quick settings** — fewer repetitions, particles, rounds and simulations than the papers — so its numbers carry larger Monte Carlo and training error and are *not expected to reproduce* the papers': a *differs* or *partial* here says nothing against the paper. It checks that every example runs end to end; the paper-scale report is REPRODUCTION.md (`go run ./examples/reproduce`).")
	} else {
		fmt.Fprintf(w, " Results are cached per example (and per part of a split example) in the -cache directory, keyed by the example's argument list, so an interrupted run resumes where it stopped; a cached section says when and at which commit it ran.")
	}
	fmt.Fprintf(w, "\n\n")
	writePaperSummary(w, cfg, results)
	writeStale(w, results)
	fmt.Fprintf(w, "## Summary\n")
	summaryTable(cfg, results).Markdown(w)
	var verdicts cli.Table
	verdicts.Header = []string{"example", "verdict", "target", "reason", "ours", "paper"}
	for _, r := range results {
		for _, v := range r.Verdicts {
			verdicts.Add(r.Name, shown(cfg, string(v.Outcome)), v.Target, v.Reason, v.Ours, v.Paper)
		}
	}
	if len(verdicts.Rows) > 0 {
		fmt.Fprintf(w, "### All verdicts\n")
		verdicts.Markdown(w)
	}
	for _, r := range results {
		fmt.Fprintf(w, "## %s\n\n", r.Name)
		fmt.Fprintf(w, "- Paper target: %s\n", r.Target)
		if r.Name != r.Group {
			fmt.Fprintf(w, "- Part of the paper-scale run of %s (expected %s)\n", r.Group, r.Estimate)
		}
		if r.NotRun != "" {
			fmt.Fprintf(w, "- **Not run**: %s.\n\n", r.NotRun)
			continue
		}
		fmt.Fprintf(w, "- Command: `go run %s %s`\n", r.Pkg, strings.Join(r.Args, " "))
		fmt.Fprintf(w, "- Seed: %d; mode: %s\n", cfg.seed, mode)
		if r.Ran {
			fmt.Fprintf(w, "- Wall time: %s", r.Wall.Round(100*time.Millisecond))
			if r.Cached {
				fmt.Fprintf(w, " (cached result of a run finished %s", r.Finished.UTC().Format("2006-01-02 15:04 MST"))
				if r.Commit != "" {
					fmt.Fprintf(w, " at commit %s", r.Commit)
				}
				fmt.Fprintf(w, ")")
			}
			fmt.Fprintln(w)
			if r.Fingerprint != "" {
				fmt.Fprintf(w, "- Code fingerprint: `%s`\n", r.Fingerprint)
			}
			if r.Stale != "" {
				fmt.Fprintf(w, "- **Stale**: %s\n", r.Stale)
			}
		}
		fmt.Fprintf(w, "- Outcome: **%s**\n", shown(cfg, overall(r)))
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
