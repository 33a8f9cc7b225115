// Package trials holds what the examples' -trials modes share: the
// -trial-range flag, the seeds of the trials and the summaries over them.
package trials

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// ParseRange reads -trial-range "a-b" (or "a") for n trials; "" is every
// trial. lo and hi are 1-based and inclusive; a malformed range is a usage
// error.
func ParseRange(s string, n int) (lo, hi int, err error) {
	if s == "" {
		return 1, n, nil
	}
	a, b, found := strings.Cut(s, "-")
	if !found {
		b = a
	}
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || lo < 1 || hi < lo || hi > n {
		return 0, 0, cli.Usagef("-trial-range: %q is not a range a-b with 1 ≤ a ≤ b ≤ -trials (%d)", s, n)
	}
	return lo, hi, nil
}

// Seed is the seed of trial k (1-based): trial 1 uses seed itself, so it
// repeats the plain run with the same settings; the others are spread by
// the golden-ratio increment.
func Seed(seed uint64, k int) uint64 { return seed + uint64(k-1)*0x9E3779B97F4A7C15 }

// Quartiles returns the mean and the lower and upper quartiles (linear
// interpolation between order statistics) of the finite values of v; NaN
// when there are none.
func Quartiles(v []float64) (mean, q1, q3 float64) {
	var f []float64
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			f = append(f, x)
		}
	}
	if len(f) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	slices.Sort(f)
	q := func(p float64) float64 {
		h := p * float64(len(f)-1)
		i := int(h)
		if i+1 >= len(f) {
			return f[len(f)-1]
		}
		return f[i] + (h-float64(i))*(f[i+1]-f[i])
	}
	for _, x := range f {
		mean += x
	}
	return mean / float64(len(f)), q(0.25), q(0.75)
}

// MeanSD returns the mean and sample standard deviation of v (sd 0 for a
// single value, NaN for none).
func MeanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) == 1 {
		return mean, 0
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

// WriteCSV writes a header and rows to path through a temporary file in
// the same folder renamed into place, so an interrupted run never leaves
// a partial file; the folder is created if needed.
func WriteCSV(path string, header []string, rows [][]string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return cli.WriteAtomic(path, func(f io.Writer) error {
		w := csv.NewWriter(f)
		w.Write(header)
		w.WriteAll(rows)
		return w.Error()
	})
}

// ReadCSV reads a file written by WriteCSV whose fields are all numbers:
// it returns the rows after the header as float64 values. A missing or
// unreadable file, a header other than header, no row after it, rows of
// another width or a field that is not a number is an error.
func ReadCSV(path string, header []string) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = len(header)
	recs, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) < 2 || !slices.Equal(recs[0], header) {
		return nil, fmt.Errorf("%s: want the header %q and at least one row", path, strings.Join(header, ","))
	}
	rows := make([][]float64, len(recs)-1)
	for i, rec := range recs[1:] {
		rows[i] = make([]float64, len(rec))
		for j, s := range rec {
			if rows[i][j], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return rows, nil
}

// Curve returns the per-round mean and lower and upper quartiles (as
// Quartiles computes them) of one metric over trials: v[k][i] is trial k's
// value at round i. Rounds past the end of a shorter trial take the trials
// that reached them; the result has as many rounds as the longest trial.
func Curve(v [][]float64) (mean, q1, q3 []float64) {
	rounds := 0
	for _, t := range v {
		rounds = max(rounds, len(t))
	}
	for i := range rounds {
		var col []float64
		for _, t := range v {
			if i < len(t) {
				col = append(col, t[i])
			}
		}
		m, a, b := Quartiles(col)
		mean, q1, q3 = append(mean, m), append(q1, a), append(q3, b)
	}
	return mean, q1, q3
}
