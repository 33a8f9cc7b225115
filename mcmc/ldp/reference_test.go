package ldp

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"
)

// TestExtremeVsMpmath checks the clipped-Gaussian (eq. 28),
// clipped-exponential (eq. 30) and Lemma 3.2 log-likelihoods against mpmath
// quadrature
// of η(z|x) f(x|θ) at 60 digits (testdata/gen_ldp.py) in the extreme
// cases where float64 quadrature underflows: reports up to 1000 clipping
// widths outside [a, b], ε from 1e-3 to 1e4, σ from 1e-3 to 50 widths; for
// Lemma 3.2, reports from −50 to 1000 with noise σ from 1e-3 to 30.
func TestExtremeVsMpmath(t *testing.T) {
	f, err := os.Open("testdata/ldp_reference.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	worst := map[string]float64{}    // |Δ log p| where |log p| ≤ 1e5
	worstRel := map[string]float64{} // |Δ log p|/|log p| beyond
	for _, row := range rows[1:] {
		var p [7]float64
		for i := range p {
			p[i], err = strconv.ParseFloat(row[i+1], 64)
			if err != nil {
				t.Fatal(err)
			}
		}
		var got float64
		switch row[0] {
		case "gauss":
			m, err := NewClippedGaussian(ClippedGaussianConfig{A: p[0], B: p[1], Epsilon: p[2]})
			if err != nil {
				t.Fatal(err)
			}
			got = m.LogDensity(p[3], p[4], p[5])
		case "exp":
			m, err := NewClippedExponential(ClippedExponentialConfig{B: p[0], Epsilon: p[1]})
			if err != nil {
				t.Fatal(err)
			}
			got = m.LogDensity(p[2], p[3])
		case "polyexp":
			f := refFamilies[int(p[0])]
			m, err := NewPolyExpQuad(PolyExpQuadConfig{G: f.g, H0: f.h0, H1: f.h1, H2: f.h2, A: f.a, B: f.b})
			if err != nil {
				t.Fatal(err)
			}
			got = m.LogMarginal(p[1], p[2])
		}
		want := p[6]
		// |Δ log p| is the relative error of the density to first order. For
		// |log p| beyond 1e5 (densities below 1e-43000, not representable)
		// float64 cannot hold the log to 1e-8 absolute; there the log itself
		// must be right to 1e-13 relative.
		e := math.Abs(got - want)
		tol := 1e-8
		if math.Abs(want) > 1e5 {
			e /= math.Abs(want)
			tol = 1e-13
			worstRel[row[0]] = math.Max(worstRel[row[0]], e)
		} else {
			worst[row[0]] = math.Max(worst[row[0]], e)
		}
		if !(e <= tol) {
			t.Errorf("%v: log p = %.16g, mpmath %.16g (diff %.2g)", row, got, want, e)
		}
	}
	for _, k := range []string{"gauss", "exp", "polyexp"} {
		t.Logf("%-8s vs mpmath: worst |Δ log p| %.2g for |log p| ≤ 1e5 (= relative density error), worst relative log error %.2g beyond", k, worst[k], worstRel[k])
	}
	t.Logf("%d reference cases", len(rows)-1)
}

// refFamilies mirrors FAMILIES in testdata/gen_ldp.py.
var refFamilies = []struct {
	g          []float64
	h0, h1, h2 float64
	a, b       float64
}{
	{[]float64{0, 0, 1}, 0, 0, -0.5, 0, math.Inf(1)},
	{[]float64{1, 2, 0, 1}, 1, -1, -2, 0, 3},
	{[]float64{2, -1, 0.5, 0, 0.1}, -3, 0, -0.1, -2, 5},
}
