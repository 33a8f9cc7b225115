package privinfer

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// readNonConverged reads the non-converged reference cases of
// internal/diag/testdata (gen_diagnostics.py): each case's chains as
// chain-major Draws of dimension 1, and its reference values (classic,
// basic split, bulk, folded and final R̂, bulk and tail ESS).
func readNonConverged(t *testing.T) (map[string]*Draws, map[string][]float64) {
	t.Helper()
	draws := map[string]*Draws{}
	for name, chains := range testutil.ChainCases(t, "internal/diag/testdata/diag_nonconverged_chains.csv") {
		d := &Draws{Dim: 1, Chains: len(chains)}
		for _, ch := range chains {
			d.Theta = append(d.Theta, ch...) // chain-major
		}
		draws[name] = d
	}
	ref := testutil.ReferenceValues(t, "internal/diag/testdata/diag_nonconverged_reference.csv")
	return draws, ref
}

// TestRHatFlagsNonConvergedChains checks the public R̂, bulk and tail ESS
// (Draws and its Summary) on chains that have not converged: two chains in
// each mode of a bimodal target, equal means with different scales, one
// stuck chain and drifting chains give R̂ above 1.05 (and the reference
// values of the independent Python implementation), while independent
// draws give R̂ below 1.01.
func TestRHatFlagsNonConvergedChains(t *testing.T) {
	draws, ref := readNonConverged(t)
	if len(draws) != 5 {
		t.Fatalf("read %d cases, want 5", len(draws))
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }
	for name, d := range draws {
		rh, err := d.RHat(0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		bulk, _ := d.ESSBulk(0)
		tail, _ := d.ESSTail(0)
		if !near(rh, ref[name][4]) || !near(bulk, ref[name][5]) || !near(tail, ref[name][6]) {
			t.Errorf("%s: R̂ %v, bulk ESS %v, tail ESS %v; reference %v, %v, %v", name, rh, bulk, tail,
				ref[name][4], ref[name][5], ref[name][6])
		}
		row := d.Summary().Rows[0]
		if row.RHat != rh || row.ESSBulk != bulk || row.ESSTail != tail {
			t.Errorf("%s: Summary reports R̂ %v, ESS %v/%v; Draws %v, %v/%v", name, row.RHat, row.ESSBulk, row.ESSTail, rh, bulk, tail)
		}
		if name == "mixed" {
			if !(rh < 1.01) {
				t.Errorf("well-mixed chains: R̂ = %v, want < 1.01", rh)
			}
		} else if !(rh > 1.05) {
			t.Errorf("%s: R̂ = %v, want > 1.05", name, rh)
		}
	}
}
