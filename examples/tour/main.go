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
//
//	go run ./examples/tour [-quick] [-seed N] [-out DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/internal/cli"
)

func main() { cli.Program("tour", parse, run) }

func parse(fs *flag.FlagSet, args []string) (cli.Common, error) {
	c := cli.Register(fs, 1)
	err := cli.Parse(fs, args)
	return *c, err
}

// draws names the posterior draws of one program.
type draws = map[string]*privinfer.Draws

// run runs the five programs in order; with -out it writes every
// posterior's draws as CSV and its corner plot (SVG and PNG).
func run(_ context.Context, c cli.Common, w, stderr io.Writer) error {
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
		fmt.Fprintf(w, "\n## %s\n\n", s.name)
		ds, err := s.fn(w, c.Seed, c.Quick)
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
