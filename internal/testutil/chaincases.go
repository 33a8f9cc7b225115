package testutil

import (
	"encoding/csv"
	"os"
	"strconv"
	"testing"
)

// readCSV returns the rows of the CSV file at path after its header,
// failing t when the file cannot be read.
func readCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[1:]
}

// ChainCases reads a file of reference chains (a header, then rows
// case,chain,iter,value, as internal/diag/testdata/gen_diagnostics.py
// writes them) into each case's chains, indexed by chain, each in the
// file's row order.
func ChainCases(t testing.TB, path string) map[string][][]float64 {
	t.Helper()
	cases := map[string][][]float64{}
	for _, r := range readCSV(t, path) {
		c, _ := strconv.Atoi(r[1])
		v, _ := strconv.ParseFloat(r[3], 64)
		for len(cases[r[0]]) <= c {
			cases[r[0]] = append(cases[r[0]], nil)
		}
		cases[r[0]][c] = append(cases[r[0]][c], v)
	}
	return cases
}

// ReferenceValues reads a file of reference values (a header, then rows
// of a case name followed by one column per value) into each case's
// values.
func ReferenceValues(t testing.TB, path string) map[string][]float64 {
	t.Helper()
	ref := map[string][]float64{}
	for _, r := range readCSV(t, path) {
		for _, s := range r[1:] {
			v, _ := strconv.ParseFloat(s, 64)
			ref[r[0]] = append(ref[r[0]], v)
		}
	}
	return ref
}
