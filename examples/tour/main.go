// Command tour runs five short programs that show the library to a new
// user, each printing the summary of its posterior draws:
//
//   - histmean: a DP mean and a DP histogram released through the curator's
//     aggregations, with a noise-aware posterior by exact-kernel importance
//     sampling;
//   - poisson: a user's own Poisson simulator through SMC-ABC and SPPE;
//   - da: data-augmentation MCMC with the SOMA and IMwG record kernels on one
//     release;
//   - ldp: the posterior of a Gaussian from locally private clipped reports;
//   - modips: ten DP synthetic data sets analysed and pooled.
//
// Each is checked against an exact reference in the package's tests.
// -only runs a comma-separated subset; -out DIR writes every posterior's
// draws as CSV and its corner plot (SVG and PNG).
//
//	go run ./examples/tour [-quick] [-seed N] [-out DIR] [-only histmean,da]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/privinfer/privinfer"
)

// errUsage marks a bad command line.
var errUsage = errors.New("usage")

func main() {
	c, err := parse(flag.NewFlagSet("tour", flag.ContinueOnError), os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), c, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(1)
	}
}

// programs are the tour's programs in the order they run.
var programs = []string{"histmean", "poisson", "da", "ldp", "modips"}

type config struct {
	seed  uint64
	quick bool
	out   string   // directory for CSV files and plots ("" for none)
	only  []string // programs to run; nil runs all
}

func parse(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	fs.Uint64Var(&c.seed, "seed", 1, "random seed")
	fs.BoolVar(&c.quick, "quick", false, "reduced settings")
	fs.StringVar(&c.out, "out", "", "directory for plots (SVG and PNG) and CSV files; empty writes none")
	only := fs.String("only", "", "comma-separated programs to run ("+strings.Join(programs, ", ")+"); empty runs all")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if *only != "" {
		for _, p := range strings.Split(*only, ",") {
			if !slices.Contains(programs, p) {
				return c, fmt.Errorf("%w: -only: unknown program %q (want %s)", errUsage, p, strings.Join(programs, ", "))
			}
			c.only = append(c.only, p)
		}
	}
	return c, nil
}

// draws names the posterior draws of one program.
type draws = map[string]*privinfer.Draws

// run runs the five programs (or those of -only) in order; with -out it
// writes every posterior's draws as CSV and its corner plot (SVG and PNG).
func run(_ context.Context, c config, w, stderr io.Writer) error {
	if c.out != "" {
		if err := os.MkdirAll(c.out, 0o755); err != nil {
			return err
		}
	}
	steps := []struct {
		name string
		fn   func(io.Writer, uint64, bool) (draws, error)
	}{
		{"histmean", func(w io.Writer, s uint64, q bool) (draws, error) {
			d, _, err := histMean(w, s, q)
			return draws{"kernel IS": d}, err
		}},
		{"poisson", func(w io.Writer, s uint64, q bool) (draws, error) {
			smc, sppe, _, err := poisson(w, s, q)
			return draws{"SMC-ABC": smc, "SPPE": sppe}, err
		}},
		{"da", da},
		{"ldp", func(w io.Writer, s uint64, q bool) (draws, error) {
			d, _, err := ldpGaussian(w, s, q)
			return draws{"NUTS": d}, err
		}},
		{"modips", func(w io.Writer, s uint64, q bool) (draws, error) { _, err := modips(w, s, q); return nil, err }},
	}
	for _, s := range steps {
		if c.only != nil && !slices.Contains(c.only, s.name) {
			continue
		}
		fmt.Fprintf(w, "\n## %s\n\n", s.name)
		fmt.Fprintf(stderr, "%s\n", s.name)
		ds, err := s.fn(w, c.seed, c.quick)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		for method, d := range ds {
			if c.out == "" {
				continue
			}
			base := filepath.Join(c.out, "tour_"+s.name+"_"+strings.ReplaceAll(method, " ", "_"))
			plot := privinfer.CornerConfig{Title: s.name + ": " + method, Label: method}
			for _, f := range []struct {
				path  string
				write func(io.Writer) error
			}{
				{base + ".csv", d.WriteCSV},
				{base + ".svg", func(w io.Writer) error { return d.Corner(w, plot) }},
				{base + ".png", func(w io.Writer) error { return d.CornerPNG(w, plot) }},
			} {
				if err := writeFile(f.path, f.write); err != nil {
					return err
				}
			}
		}
		fmt.Fprintf(stderr, "%s done\n", s.name)
	}
	return nil
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
