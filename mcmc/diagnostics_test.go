package mcmc

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/diag"
)

// The diagnostics are implemented and checked against the independent
// reference values in internal/diag (diag_test.go); the tests here cover
// only what this package's wrappers add: delegation, the error prefix, the
// sentinels and ESSQuantile's argument check.

// ar1Chains returns four AR(1) chains (coefficient 0.7, 200 draws) from a
// fixed seed, the last one shifted so that R̂ differs from 1.
func ar1Chains() [][]float64 {
	r := rand.New(rand.NewPCG(7, 11))
	chains := make([][]float64, 4)
	for c := range chains {
		x := 0.0
		for range 200 {
			x = 0.7*x + r.NormFloat64()
			chains[c] = append(chains[c], x+float64(c/3))
		}
	}
	return chains
}

// TestDiagnosticsDelegate checks that every wrapper returns the internal
// implementation's value to the bit on regular chains.
func TestDiagnosticsDelegate(t *testing.T) {
	chains := ar1Chains()
	fns := []struct {
		name      string
		got, want func([][]float64) (float64, error)
	}{
		{"RHat", RHat, diag.RHat},
		{"RHatBasic", RHatBasic, diag.RHatBasic},
		{"ESSBulk", ESSBulk, diag.ESSBulk},
		{"ESSTail", ESSTail, diag.ESSTail},
		{"ESSMean", ESSMean, diag.ESSMean},
		{"MCSEMean", MCSEMean, diag.MCSEMean},
		{"ESSQuantile(0.3)",
			func(c [][]float64) (float64, error) { return ESSQuantile(c, 0.3) },
			func(c [][]float64) (float64, error) { return diag.ESSQuantile(c, 0.3) }},
	}
	for _, fn := range fns {
		got, err := fn.got(chains)
		if err != nil {
			t.Fatalf("%s: %v", fn.name, err)
		}
		want, _ := fn.want(chains)
		if math.IsNaN(want) || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s = %v, internal implementation %v", fn.name, got, want)
		}
	}
	got, err := Autocorrelation(chains[0], 5)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := diag.Autocorrelation(chains[0], 5)
	if len(got) != len(want) {
		t.Fatalf("Autocorrelation: %d lags, internal implementation %d", len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Errorf("Autocorrelation[%d] = %v, internal implementation %v", i, got[i], want[i])
		}
	}
}

// TestDiagnosticsDegenerate checks that degenerate inputs give NaN and an
// error that wraps ErrDegenerate (the same value as privinfer.ErrDegenerate)
// and names this package.
func TestDiagnosticsDegenerate(t *testing.T) {
	if ErrDegenerate != privinfer.ErrDegenerate || ErrDegenerate != diag.ErrDegenerate {
		t.Fatal("mcmc.ErrDegenerate is not the library's ErrDegenerate")
	}
	cases := map[string][][]float64{
		"no chains":   nil,
		"too few":     {{1, 2, 3, 4, 5}},
		"constant":    {{2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2}},
		"nan":         {{1, 2, math.NaN(), 4, 5, 6}},
		"inf":         {{1, 2, math.Inf(1), 4, 5, 6}},
		"unequal":     {{1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6, 7}},
		"empty chain": {{}},
	}
	ess30 := func(c [][]float64) (float64, error) { return ESSQuantile(c, 0.3) }
	for name, ch := range cases {
		for _, f := range []func([][]float64) (float64, error){RHat, RHatBasic, ESSBulk, ESSTail, ESSMean, MCSEMean, ess30} {
			v, err := f(ch)
			if !math.IsNaN(v) || !errors.Is(err, ErrDegenerate) || !strings.HasPrefix(err.Error(), "mcmc: ") {
				t.Errorf("%s: got %v, %v; want NaN and an mcmc error wrapping ErrDegenerate", name, v, err)
			}
		}
	}
	if _, err := Autocorrelation([]float64{1, 1, 1}, 1); !errors.Is(err, ErrDegenerate) || !strings.HasPrefix(err.Error(), "mcmc: ") {
		t.Errorf("constant autocorrelation: %v", err)
	}
	if ac, err := Autocorrelation([]float64{1, 2, 3}, 3); err == nil || ac != nil || !strings.HasPrefix(err.Error(), "mcmc: ") {
		t.Errorf("maxLag too large: %v, %v", ac, err)
	}
}

// TestESSQuantileLevel checks that a quantile level outside (0, 1) is
// rejected with NaN and an error wrapping ErrInvalid before the chains are
// looked at.
func TestESSQuantileLevel(t *testing.T) {
	chains := ar1Chains()
	for _, p := range []float64{0, 1, -0.5, 2, math.NaN(), math.Inf(1)} {
		v, err := ESSQuantile(chains, p)
		if !math.IsNaN(v) || !errors.Is(err, ErrInvalid) {
			t.Errorf("p=%v: got %v, %v; want NaN and ErrInvalid", p, v, err)
		}
	}
	if _, err := ESSQuantile(nil, 1.5); !errors.Is(err, ErrInvalid) {
		t.Errorf("p=1.5 with no chains: %v, want ErrInvalid", err)
	}
}
