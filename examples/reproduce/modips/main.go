// Command modips reruns Table 1 of the modips paper: the
// coverage of 95% intervals under five variance combination rules for
// differentially private synthetic binary and Gaussian data (m = 10), and
// prints our coverage next to the paper's for every cell.
//
//	go run ./examples/reproduce/modips              # 5000 repetitions, as in the paper
//	go run ./examples/reproduce/modips -quick       # 1000 repetitions
//	go run ./examples/reproduce/modips -reps 500    # quicker still
//
// The binary rows printed in the paper as n = 10 and n = 100 are simulated
// at n = 100 and n = 1000 (the paper's own "original" column, a Wald
// interval, is only attainable at those sizes).
//
// With -out DIR it writes table1.csv (ours and the paper's coverage per
// cell) and table1_z.svg/.png (the standardized differences per cell).
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

	"github.com/privinfer/privinfer/examples/reproduce/modips/study"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
)

// paperReps is the number of repetitions behind the paper's coverages.
const paperReps = 5000

// zCrit is the per-cell critical value of the verdict: two-sided
// Bonferroni over the 144 cells at a family-wise false-alarm rate of 1%
// (Φ⁻¹(1 − 0.01/288) ≈ 3.39), rounded up.
const zCrit = 3.4

type config struct {
	cli.Common
	reps int
	tol  float64
}

func main() { cli.Program("modips", parse, run) }

func parse(fs *flag.FlagSet, args []string) (config, error) {
	var cfg config
	c := cli.Register(fs, 1)
	fs.IntVar(&cfg.reps, "reps", paperReps, "repetitions per scenario (-quick: 1000)")
	fs.Float64Var(&cfg.tol, "tol", 0.015, "cells with |ours − paper| beyond this are marked *")
	if err := cli.Parse(fs, args); err != nil {
		return cfg, err
	}
	cfg.Common = *c
	if err := cli.QuickDefaults(fs, cfg.Quick, map[string]string{"reps": "1000"}); err != nil {
		return cfg, err
	}
	if err := cli.AtLeast("reps", cfg.reps, 10); err != nil {
		return cfg, err
	}
	return cfg, cli.Positive("tol", cfg.tol)
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	if err := cfg.Prepare(); err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	prog.Printf("Table 1: %d scenarios × %d repetitions", len(study.Table1Scenarios()), cfg.reps)
	rows, err := cli.WhileValue(prog, 3*time.Second, "Table 1", func() ([]study.Row, error) {
		return study.Table1(ctx, study.Config{Seed: cfg.Seed, Reps: cfg.reps, Progress: prog.Func()})
	})
	if err != nil {
		return err
	}
	prog.Printf("Table 1 done")
	worst, bad := 0.0, 0
	maxZ, maxZAt := 0.0, ""
	var csvRows [][]string
	zs := make([]plot.Series, study.NumColumns)
	fmt.Fprintf(stdout, "Table 1 (m = %d, %d repetitions, seed %d): ours / paper\n", study.Table1M, cfg.reps, cfg.Seed)
	fmt.Fprintf(stdout, "%-8s %5s %5s %4s", "data", "eps", "n", "p")
	for _, c := range study.ColumnNames {
		fmt.Fprintf(stdout, " %15s", c)
	}
	fmt.Fprintln(stdout)
	for _, r := range rows {
		kind, p := "gauss", "-"
		if r.Binary {
			kind, p = "binary", fmt.Sprint(r.P)
		}
		fmt.Fprintf(stdout, "%-8s %5g %5d %4s", kind, r.Eps, r.N, p)
		for c := range r.Ours {
			d := math.Abs(r.Ours[c] - r.Paper[c])
			worst = math.Max(worst, d)
			mark := " "
			if d > cfg.tol {
				mark = "*"
				bad++
			}
			fmt.Fprintf(stdout, "   %.3f/%.3f%s", r.Ours[c], r.Paper[c], mark)
			// Both coverages are binomial proportions: ours over cfg.reps
			// repetitions, the paper's over 5000.
			q := min(max(r.Paper[c], 0.005), 0.995)
			z := (r.Ours[c] - r.Paper[c]) / math.Sqrt(q*(1-q)*(1/float64(cfg.reps)+1.0/paperReps))
			if math.Abs(z) > maxZ {
				maxZ = math.Abs(z)
				maxZAt = fmt.Sprintf("%s ε=%g n=%d p=%s, %s", kind, r.Eps, r.N, p, study.ColumnNames[c])
			}
			zs[c].Name = study.ColumnNames[c]
			zs[c].X, zs[c].Y = append(zs[c].X, float64(len(zs[c].X)+1)), append(zs[c].Y, z)
			csvRows = append(csvRows, []string{kind, strconv.FormatFloat(r.Eps, 'g', -1, 64), strconv.Itoa(r.N), strconv.Itoa(r.SimN), p,
				study.ColumnNames[c], strconv.FormatFloat(r.Ours[c], 'g', -1, 64), strconv.FormatFloat(r.Paper[c], 'g', -1, 64)})
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "max |ours − paper| = %.4f; %d cells beyond ±%.3f (marked *)\n", worst, bad, cfg.tol)
	fmt.Fprintf(stdout, "largest standardized difference z = %.2f (%s); Monte Carlo sd from %d (ours) and %d (paper) repetitions\n", maxZ, maxZAt, cfg.reps, paperReps)
	if maxZ <= zCrit {
		cli.PrintVerdict(stdout, cli.Reproduced, "modips Table 1", fmt.Sprintf("all %d coverage cells agree with the paper within Monte Carlo error (max z = %.2f ≤ %.1f, family-wise false-alarm rate 1%%; max |Δ| = %.3f)", len(rows)*int(study.NumColumns), maxZ, zCrit, worst))
	} else {
		cli.PrintVerdict(stdout, cli.Differs, "modips Table 1", fmt.Sprintf("the largest difference, at %s, is z = %.2f > %.1f Monte Carlo standard deviations (max |Δ| = %.3f)", maxZAt, maxZ, zCrit, worst))
	}
	f, err := cfg.WriteCSV("table1.csv", []string{"data", "eps", "n_paper", "n_simulated", "p", "column", "coverage_ours", "coverage_paper"}, csvRows)
	if err != nil || f == "" {
		return err
	}
	cv, err := plot.LineChart{Title: "Table 1: our coverage − the paper's, in Monte Carlo sd (dashed: ±verdict threshold)", XLabel: "scenario (row of Table 1)",
		YLabel: "z", Series: zs, HLines: []float64{-zCrit, 0, zCrit}, Width: 900}.Draw()
	if err != nil {
		return err
	}
	plots, err := cfg.WritePlot("table1_z", cv)
	fmt.Fprintf(stdout, "wrote %s, %s\n", f, strings.Join(plots, ", "))
	return err
}
