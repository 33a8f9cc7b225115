package diag

import (
	"errors"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

func readDiagCases(t *testing.T) (map[string][][]float64, map[string][]float64) {
	t.Helper()
	return readCaseFiles(t, "testdata/diag_chains.csv", "testdata/diag_reference.csv")
}

// readCaseFiles reads chains (case,chain,iter,value) and reference values
// (case, then one column per value) written by testdata/gen_diagnostics.py.
func readCaseFiles(t *testing.T, chainsFile, refFile string) (map[string][][]float64, map[string][]float64) {
	t.Helper()
	return testutil.ChainCases(t, chainsFile), testutil.ReferenceValues(t, refFile)
}

// TestDiagnosticsReference compares R̂ (rank-normalised and basic), bulk
// and tail ESS, mean ESS and MCSE with the independent pure-Python
// implementation of Vehtari et al. (2021) in testdata/gen_diagnostics.py
// on its committed reference chains (AR(1), heavy-tailed, tied, stuck,
// antithetic, single chain with odd and even lengths).
func TestDiagnosticsReference(t *testing.T) {
	cases, ref := readDiagCases(t)
	if len(cases) != 6 {
		t.Fatalf("read %d cases", len(cases))
	}
	fns := []struct {
		name string
		f    func([][]float64) (float64, error)
	}{{"rhat", RHat}, {"rhat_basic", RHatBasic}, {"ess_bulk", ESSBulk}, {"ess_tail", ESSTail}, {"ess_mean", ESSMean}, {"mcse_mean", MCSEMean}}
	for name, ch := range cases {
		for k, fn := range fns {
			got, err := fn.f(ch)
			if err != nil {
				t.Fatalf("%s %s: %v", name, fn.name, err)
			}
			want := ref[name][k]
			if math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("%s %s = %.15g, reference %.15g", name, fn.name, got, want)
			}
		}
	}
}

// TestDiagnosticsHandDerived checks cases with closed-form answers: two
// chains with different means give the classic R̂ by hand, and an
// alternating series has autocorrelations ±(n−t)/n. (The τ ≥ 1/log10(S)
// floor is exercised by the reference case "antithetic".)
func TestDiagnosticsHandDerived(t *testing.T) {
	// Chains a = (0,1,0,1,0,1,0,1) and b = a + 1: split halves (0,1,0,1),
	// (0,1,0,1), (1,2,1,2), (1,2,1,2): W = 1/3, B = n·var(means) = 4·(1/3)
	// (means 0.5,0.5,1.5,1.5 have variance 1/3), R̂ = sqrt((B/W + n − 1)/n)
	// = sqrt((4 + 3)/4).
	a := []float64{0, 1, 0, 1, 0, 1, 0, 1}
	b := []float64{1, 2, 1, 2, 1, 2, 1, 2}
	got, err := RHatBasic([][]float64{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Sqrt(7.0 / 4); math.Abs(got-want) > 1e-14 {
		t.Errorf("RHatBasic = %v, want %v", got, want)
	}
	alt := make([]float64, 100)
	for i := range alt {
		alt[i] = float64(i % 2)
	}
	ac, err := Autocorrelation(alt, 2)
	if err != nil {
		t.Fatal(err)
	}
	// For 0,1,0,1,… (mean ½) γ_t = (n−t)/n·(±¼).
	if math.Abs(ac[1]+0.99) > 1e-12 || math.Abs(ac[2]-0.98) > 1e-12 {
		t.Errorf("autocorrelation = %v, want [1 -0.99 0.98]", ac)
	}
}

// TestDiagnosticsDegenerate checks that degenerate inputs give NaN and an
// error wrapping ErrDegenerate.
func TestDiagnosticsDegenerate(t *testing.T) {
	cases := map[string][][]float64{
		"no chains":   nil,
		"too few":     {{1, 2, 3, 4, 5}},
		"constant":    {{2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2}},
		"nan":         {{1, 2, math.NaN(), 4, 5, 6}},
		"inf":         {{1, 2, math.Inf(1), 4, 5, 6}},
		"unequal":     {{1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6, 7}},
		"empty chain": {{}},
	}
	for name, ch := range cases {
		for _, f := range []func([][]float64) (float64, error){RHat, RHatBasic, ESSBulk, ESSTail, ESSMean, MCSEMean} {
			v, err := f(ch)
			if !math.IsNaN(v) || !errors.Is(err, ErrDegenerate) {
				t.Errorf("%s: got %v, %v; want NaN and ErrDegenerate", name, v, err)
			}
		}
	}
	if _, err := Autocorrelation([]float64{1, 1, 1}, 1); !errors.Is(err, ErrDegenerate) {
		t.Errorf("constant autocorrelation: %v", err)
	}
	if _, err := Autocorrelation([]float64{1, 2, 3}, 3); err == nil {
		t.Error("maxLag too large accepted")
	}
	// One chain of enough draws is fine (split R̂ uses its halves).
	if v, err := RHat([][]float64{{1, 3, 2, 5, 4, 6, 8, 7}}); err != nil || math.IsNaN(v) {
		t.Errorf("one chain: %v, %v", v, err)
	}
}

// TestRHatNonConverged checks R̂ and the bulk and tail ESS against the
// pure-Python reference on chains that have not converged
// (testdata/gen_diagnostics.py, nonconverged_cases): two chains in each
// mode of a bimodal target, chains with equal means and different scales
// (which only the folded R̂ sees), one chain stuck at its start and
// drifting chains (which only splitting sees); R̂ must exceed 1.05 on each,
// while independent draws give less than 1.01. The reference file also
// records the classic, basic split, bulk-only and folded-only R̂ of every
// case, which the test checks are below 1.01 where the case says only the
// other ingredient catches it.
func TestRHatNonConverged(t *testing.T) {
	cases, ref := readCaseFiles(t, "testdata/diag_nonconverged_chains.csv", "testdata/diag_nonconverged_reference.csv")
	if len(cases) != 5 {
		t.Fatalf("read %d cases, want 5", len(cases))
	}
	// Columns: rhat_classic, rhat_basic, rhat_bulk, rhat_tail, rhat, ess_bulk, ess_tail.
	fns := []struct {
		col  int
		name string
		f    func([][]float64) (float64, error)
	}{{1, "rhat_basic", RHatBasic}, {4, "rhat", RHat}, {5, "ess_bulk", ESSBulk}, {6, "ess_tail", ESSTail}}
	for name, ch := range cases {
		for _, fn := range fns {
			got, err := fn.f(ch)
			if err != nil {
				t.Fatalf("%s %s: %v", name, fn.name, err)
			}
			if want := ref[name][fn.col]; math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("%s %s = %.15g, reference %.15g", name, fn.name, got, want)
			}
		}
		rh, _ := RHat(ch)
		if name == "mixed" {
			if !(rh < 1.01) {
				t.Errorf("well-mixed chains: R̂ = %v, want < 1.01", rh)
			}
			continue
		}
		if !(rh > 1.05) {
			t.Errorf("%s: R̂ = %v, want > 1.05 for chains that have not converged", name, rh)
		}
	}
	// What each ingredient catches: without folding, equal means with
	// different scales pass; without splitting, a common drift passes.
	if r := ref["scales"]; !(r[2] < 1.01 && r[3] > 1.05) {
		t.Errorf("scales: bulk R̂ %v, folded R̂ %v; the case should need folding", r[2], r[3])
	}
	if r := ref["trending"]; !(r[0] < 1.01 && r[1] > 1.05) {
		t.Errorf("trending: classic R̂ %v, split R̂ %v; the case should need splitting", r[0], r[1])
	}
}
