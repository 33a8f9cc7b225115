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
//	go run ./examples/tour [-quick] [-seed N]
package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/privinfer/privinfer/examples/internal/cli"
)

func main() {
	fs := flag.NewFlagSet("tour", flag.ContinueOnError)
	cli.Main("tour", cli.FlagUsage(fs), func(args []string, stdout, _ io.Writer) error {
		common := cli.Register(fs, 1)
		if err := cli.Parse(fs, args); err != nil {
			return err
		}
		return run(stdout, common.Seed, common.Quick)
	})
}

// run runs the five programs in order.
func run(w io.Writer, seed uint64, quick bool) error {
	steps := []struct {
		name string
		fn   func(io.Writer, uint64, bool) error
	}{
		{"histmean", func(w io.Writer, s uint64, q bool) error { _, _, err := histMean(w, s, q); return err }},
		{"poisson", func(w io.Writer, s uint64, q bool) error { _, _, _, err := poisson(w, s, q); return err }},
		{"da", func(w io.Writer, s uint64, q bool) error { _, err := da(w, s, q); return err }},
		{"ldp", func(w io.Writer, s uint64, q bool) error { _, _, err := ldpGaussian(w, s, q); return err }},
		{"modips", func(w io.Writer, s uint64, q bool) error { _, err := modips(w, s, q); return err }},
	}
	for _, s := range steps {
		fmt.Fprintf(w, "\n## %s\n\n", s.name)
		if err := s.fn(w, seed, quick); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}
