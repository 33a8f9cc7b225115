package mcmc

import (
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestRHatNonConverged checks that RHat flags the reference chains that
// have not converged (internal/diag/testdata/gen_diagnostics.py: a bimodal
// target with two chains per mode, equal means with different scales, one
// stuck chain, drifting chains) with R̂ above 1.05 and passes independent
// draws with R̂ below 1.01, and that RHatBasic, the unfolded classic split
// R̂, misses the equal-means case.
func TestRHatNonConverged(t *testing.T) {
	cases := testutil.ChainCases(t, "../internal/diag/testdata/diag_nonconverged_chains.csv")
	if len(cases) != 5 {
		t.Fatalf("read %d cases, want 5", len(cases))
	}
	for name, ch := range cases {
		rh, err := RHat(ch)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "mixed" {
			if !(rh < 1.01) {
				t.Errorf("well-mixed chains: R̂ = %v, want < 1.01", rh)
			}
		} else if !(rh > 1.05) {
			t.Errorf("%s: R̂ = %v, want > 1.05", name, rh)
		}
	}
	if b, _ := RHatBasic(cases["scales"]); !(b < 1.01) {
		t.Errorf("RHatBasic on equal means with different scales = %v; the case no longer shows what folding adds", b)
	}
}
