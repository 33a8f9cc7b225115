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
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/support/cli"
)

func main() { cli.Program("tour", parse, run) }

// programs are the tour's programs in the order they run.
var programs = []string{"histmean", "poisson", "da", "ldp", "modips"}

type config struct {
	cli.Common
	only []string // programs to run; nil runs all
}

func parse(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	common := cli.Register(fs, 1)
	only := fs.String("only", "", "comma-separated programs to run ("+strings.Join(programs, ", ")+"); empty runs all")
	if err := cli.Parse(fs, args); err != nil {
		return c, err
	}
	c.Common = *common
	if *only != "" {
		for _, p := range strings.Split(*only, ",") {
			if !slices.Contains(programs, p) {
				return c, cli.Usagef("-only: unknown program %q (want %s)", p, strings.Join(programs, ", "))
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
	if err := c.Prepare(); err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
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
		prog.Printf("%s", s.name)
		var ds draws
		err := prog.While(3*time.Second, s.name, func() (err error) {
			ds, err = s.fn(w, c.Seed, c.Quick)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		for method, d := range ds {
			base := "tour_" + s.name + "_" + strings.ReplaceAll(method, " ", "_")
			if _, err := c.WriteFile(base+".csv", d.WriteCSV); err != nil {
				return err
			}
			if _, err := c.WriteCorner(base, d, privinfer.CornerConfig{Title: s.name + ": " + method, Label: method}); err != nil {
				return err
			}
		}
		prog.Printf("%s done", s.name)
	}
	return nil
}
