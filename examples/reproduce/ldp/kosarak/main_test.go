package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

// TestRunSmall runs Fig. 2 at tiny sizes when the shared Kosarak file is
// present, and checks the message when it is not.
func TestRunSmall(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	fs := flag.NewFlagSet("kosarak", flag.ContinueOnError)
	c, err := parse(fs, []string{"-eps", "1,4", "-repeats", "2", "-records", "800", "-warmup", "60", "-draws", "60", "-chains", "2", "-seed", "3"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), c, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, ok := cli.SharedFile("data/kosarak/benson_kosarak-5-25.txt"); !ok {
		if !strings.Contains(out.String(), "Fig. 2 skipped") {
			t.Errorf("without the data the output must say Fig. 2 was skipped:\n%s", out.String())
		}
		return
	}
	if v := cli.ParseVerdicts(out.String()); len(v) != 1 {
		t.Fatalf("want 1 verdict, got %d:\n%s", len(v), out.String())
	}
}

// TestRunSyntheticData runs Fig. 2 at tiny sizes on a synthetic file in
// the Kosarak format (40 items, item i in 80 − i transactions), so that
// it runs without the shared data: the table and the verdict are printed,
// the plot is written as PNG and SVG, and progress reaches stderr.
func TestRunSyntheticData(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	var b strings.Builder
	for i := range 40 {
		for k := range 80 - i {
			fmt.Fprintf(&b, "%d %d\n", i+1, 100+k%7)
		}
	}
	data := filepath.Join(dir, "kosarak.txt")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	c, err := parse(flag.NewFlagSet("kosarak", flag.ContinueOnError), []string{"-data", data, "-eps", "1,4", "-repeats", "2", "-records", "400",
		"-warmup", "40", "-draws", "40", "-chains", "2", "-seed", "3", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), c, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if v := cli.ParseVerdicts(stdout.String()); len(v) != 1 || !strings.Contains(stdout.String(), "| 4.00 ") {
		t.Errorf("want 1 verdict and the ε = 4 row:\n%s", stdout.String())
	}
	plots := clitest.Check(t, out, stderr.String())
	if !slices.Contains(plots, "ldp_fig2_kosarak.png") || !slices.Contains(plots, "ldp_fig2_kosarak.svg") {
		t.Errorf("plots %v", plots)
	}
}

func TestSelectRecordsAndECDF(t *testing.T) {
	// 30 items with counts 1..30: the pool is the top 24% (8 items), 3
	// items drawn from it, all their occurrences kept.
	var occ []int
	for it := 1; it <= 30; it++ {
		for range it {
			occ = append(occ, it)
		}
	}
	cat, ids, pool := selectRecords(occ, config{items: 3, records: 1000, seed: 1})
	if pool != 8 || len(ids) != 3 {
		t.Fatalf("pool %d, ids %v", pool, ids)
	}
	want := 0
	for _, id := range ids {
		if id < 23 {
			t.Errorf("item %d is not among the 8 most frequent", id)
		}
		want += id
	}
	if len(cat) != want {
		t.Errorf("%d records, want %d", len(cat), want)
	}
	// Identical samples differ by 0; disjoint ones by 1/2 on average.
	if v := ecdfMAD([]float64{1, 2, 3}, []float64{1, 2, 3}); v != 0 {
		t.Errorf("identical: %v", v)
	}
	if v := ecdfMAD([]float64{1, 2}, []float64{3, 4}); math.Abs(v-0.5) > 1e-15 {
		t.Errorf("disjoint: %v, want 0.5", v)
	}
}

func TestParseRejectsBadValues(t *testing.T) {
	for _, args := range [][]string{{"-eps", "0"}, {"-repeats", "0"}, {"-items", "1"}, {"-items", "65"}, {"-records", "5"}, {"-chains", "0"}} {
		fs := flag.NewFlagSet("kosarak", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		if _, err := parse(fs, args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}
