package main

import (
	"errors"
	"io"
	"math"
	"os"
	"testing"

	"github.com/privinfer/privinfer"
)

// TestDA checks that the example's chains have converged (split R̂ ≤ 1.01
// and bulk and tail ESS ≥ 400 for every coefficient) and compares the
// posterior with the long DA-MCMC reference run of the same release
// (mcmc/testdata, 4 × 250,000 sweeps), read with privinfer.ReadCSV: each
// mean and standard deviation may differ from the reference's by 4 times
// the two runs' Monte Carlo standard errors combined (a false-alarm rate
// below 1e-4 per comparison for normal errors).
func TestDA(t *testing.T) {
	if testing.Short() {
		t.Skip("takes seconds: skipped with -short")
	}
	f, err := os.Open("../../mcmc/testdata/linreg_eps1_damcmc.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, err := privinfer.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	d, err := run(io.Discard, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", d.Summary())
	for j := range 3 {
		rhat, err1 := d.RHat(j)
		bulk, err2 := d.ESSBulk(j)
		tail, err3 := d.ESSTail(j)
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatal(err)
		}
		if !(rhat <= 1.01) || !(bulk >= 400) || !(tail >= 400) {
			t.Errorf("β%d: R̂ %.3f, bulk ESS %.0f, tail ESS %.0f: not converged", j, rhat, bulk, tail)
		}
		for _, c := range []struct {
			what      string
			got, want float64
			mcse      func(*privinfer.Draws, int) (float64, error)
		}{
			{"mean", d.Mean()[j], ref.Mean()[j], (*privinfer.Draws).MCSEMean},
			{"sd", d.SD()[j], ref.SD()[j], (*privinfer.Draws).MCSESD},
		} {
			md, err1 := c.mcse(d, j)
			mr, err2 := c.mcse(ref, j)
			if err := errors.Join(err1, err2); err != nil {
				t.Fatal(err)
			}
			if tol := 4 * math.Hypot(md, mr); math.Abs(c.got-c.want) > tol {
				t.Errorf("β%d: %s %.3f, reference %.3f (tolerance %.3f)", j, c.what, c.got, c.want, tol)
			}
		}
	}
}
