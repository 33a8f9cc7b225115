package main

import (
	"io"
	"math"
	"os"
	"testing"

	"github.com/privinfer/privinfer"
)

func checkSD(t *testing.T, what string, d *privinfer.Draws, j int, ref, frac float64) {
	t.Helper()
	if got := d.SD()[j]; math.Abs(got-ref) > frac*ref {
		t.Errorf("%s: posterior sd %.4f, reference %.4f (tolerance %.0f%%)", what, got, ref, 100*frac)
	}
}

// TestDA compares both record kernels with the long DA-MCMC reference run
// of the same release (mcmc/testdata), read with privinfer.ReadCSV; the
// tolerance combines both runs' Monte Carlo standard errors.
func TestDA(t *testing.T) {
	skipShort(t)
	f, err := os.Open("../../mcmc/testdata/linreg_eps1_damcmc.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, err := privinfer.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := run(io.Discard, 1, 500)
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range runs {
		for j := range 3 {
			mr, _ := ref.MCSEMean(j)
			md, err := d.MCSEMean(j)
			if err != nil {
				t.Fatal(err)
			}
			tol := 4 * math.Hypot(mr, md)
			if got, want := d.Mean()[j], ref.Mean()[j]; math.Abs(got-want) > tol {
				t.Errorf("%s β%d: mean %.3f, reference %.3f (tolerance %.3f)", name, j, got, want, tol)
			}
			checkSD(t, name, d, j, ref.SD()[j], 0.3)
		}
	}
}

// skipShort skips a test that takes seconds in the short (race) run.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds: skipped with -short")
	}
}
