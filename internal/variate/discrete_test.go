package variate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
)

// window returns [mean − w·sd − 15, mean + w·sd + 15] clipped to [0, max].
func window(mean, sd float64, max int64) (lo, hi int64) {
	l := math.Max(0, math.Floor(mean-12*sd-15))
	h := math.Ceil(mean + 12*sd + 15)
	lo = int64(l)
	if h >= float64(max) {
		return lo, max
	}
	return lo, int64(h)
}

// The expected cell counts of the chi-square tests come from BinomialLogPmf
// and PoissonLogPmf, which TestLogPmfMpmath checks against 50-digit mpmath
// values to 1e-13, and which TestBinomialPmfMatchesSpecial checks against
// special's incomplete beta and gamma functions.
func TestBinomialChiSquare(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	cases := []struct {
		n int64
		p float64
	}{
		{1, 0.3}, {20, 0.3}, {50, 0.19}, {50, 0.21}, {200, 0.05}, {100, 0.3}, {1000, 0.5},
		{100000, 0.001}, {1000000, 0.9}, {1e9, 1e-9}, {1e9, 0.5}, {1e9, 1 - 1e-9}, {1e9, 0.01},
		{1e18, 1e-17}, {1<<53 + 12345, 1e-12}, {30, 0.999999},
	}
	for i, c := range cases {
		mean := float64(c.n) * c.p
		lo, hi := window(mean, math.Sqrt(mean*(1-c.p)), c.n)
		chiCheck(t, fmt.Sprintf("Binomial(%d, %g)", c.n, c.p), uint64(1000+i), nDisc,
			func(r *rand.Rand) int64 { return Binomial(r, c.n, c.p) },
			func(k int64) float64 { return BinomialLogPmf(k, c.n, c.p) }, lo, hi)
	}
}

// residueCheck tests that X mod m is uniform, which holds to far better than
// double precision when the standard deviation of X is ≥ 1e4 (the Fourier
// coefficients of the lattice are exp(−2π²σ²/m²)). It detects lattice
// artefacts (e.g. float64 granularity) that binned tests cannot see.
func residueCheck(t *testing.T, name string, seed uint64, n int, m int64, gen func(r *rand.Rand) int64) {
	t.Helper()
	r := newRand(seed)
	obs := make([]float64, m)
	exp := make([]float64, m)
	for i := 0; i < n; i++ {
		obs[gen(r)%m]++
	}
	for i := range exp {
		exp[i] = float64(n) / float64(m)
	}
	stat, p, df := stats.ChiSquareGOF(obs, exp, 0)
	t.Logf("chi2 %-38s n=%d X2=%.2f df=%d p=%.4f", name, n, stat, df, p)
	if !(p >= pReject) {
		t.Errorf("%s: residues not uniform: X2=%g p=%g", name, stat, p)
	}
}

// normalBinsCheck tests draws of an integer variable with mean mu and
// standard deviation sd ≥ 1e7 against the normal law in 40 equiprobable
// cells. For Binomial(1e18, 1/2) (zero skewness) the continuity-corrected
// normal CDF errs by O(1/σ²) ~ 1e-17 per cell; for Poisson(λ ≥ 2^53) the
// Edgeworth term is skewness/6 = 1/(6√λ) < 2e-9 — far below what 20000
// draws can resolve, so these tests are exact for practical purposes.
func normalBinsCheck(t *testing.T, name string, seed uint64, n int, mu, sd float64, gen func(r *rand.Rand) int64) {
	t.Helper()
	const cells = 40
	r := newRand(seed)
	obs := make([]float64, cells)
	exp := make([]float64, cells)
	for i := 0; i < n; i++ {
		z := (float64(gen(r)) - mu) / sd
		c := int(special.NormCDF(z) * cells)
		c = min(max(c, 0), cells-1)
		obs[c]++
	}
	for i := range exp {
		exp[i] = float64(n) / cells
	}
	stat, p, df := stats.ChiSquareGOF(obs, exp, 0)
	t.Logf("chi2 %-38s n=%d X2=%.2f df=%d p=%.4f", name, n, stat, df, p)
	if !(p >= pReject) {
		t.Errorf("%s: normal bins reject: X2=%g p=%g", name, stat, p)
	}
}

func TestBinomialHuge(t *testing.T) {
	residueCheck(t, "Binomial(1e9, 0.5) mod 7", 1100, nDisc, 7, func(r *rand.Rand) int64 { return Binomial(r, 1e9, 0.5) })
	residueCheck(t, "Binomial(1e9, 0.5) mod 2", 1101, nDisc, 2, func(r *rand.Rand) int64 { return Binomial(r, 1e9, 0.5) })
	n := int64(1e18)
	normalBinsCheck(t, "Binomial(1e18, 0.5) normal bins", 1102, 4000, 5e17, math.Sqrt(2.5e17),
		func(r *rand.Rand) int64 { return Binomial(r, n, 0.5) })
	residueCheck(t, "Binomial(1e18, 0.5) mod 7", 1103, 4000, 7, func(r *rand.Rand) int64 { return Binomial(r, n, 0.5) })
	residueCheck(t, "Binomial(1e18, 0.5) mod 128", 1104, 4000, 128, func(r *rand.Rand) int64 { return Binomial(r, n, 0.5) })
	// The largest n handled by a single BTPE call in float64 arithmetic.
	n52 := int64(1) << 52
	residueCheck(t, "Binomial(2^52, 0.5) mod 128", 1106, 4000, 128, func(r *rand.Rand) int64 { return Binomial(r, n52, 0.5) })
	normalBinsCheck(t, "Binomial(2^52, 0.3) normal bins", 1107, 4000, float64(n52)*0.3, math.Sqrt(float64(n52)*0.21),
		func(r *rand.Rand) int64 { return Binomial(r, n52, 0.3) })
	// Large counts stay in range.
	r := newRand(1105)
	for i := 0; i < 200; i++ {
		if k := Binomial(r, math.MaxInt64, 0.999); k < 0 || k > math.MaxInt64 {
			t.Fatalf("Binomial(MaxInt64, 0.999) = %d", k)
		}
	}
}

func TestPoissonChiSquare(t *testing.T) {
	for i, lam := range []float64{1e-6, 0.1, 1, 3, 9.99, 10, 15, 30, 100, 1234.5, 1e6, 1e9} {
		lo, hi := window(lam, math.Sqrt(lam), math.MaxInt64)
		chiCheck(t, fmt.Sprintf("Poisson(%g)", lam), uint64(1200+i), nDisc,
			func(r *rand.Rand) int64 { return Poisson(r, lam) },
			func(k int64) float64 { return PoissonLogPmf(k, lam) }, lo, hi)
	}
	residueCheck(t, "Poisson(1e9) mod 7", 1250, nDisc, 7, func(r *rand.Rand) int64 { return Poisson(r, 1e9) })
	lam := math.Ldexp(1, 53) + 12345 // split into parts
	normalBinsCheck(t, "Poisson(2^53+12345) normal bins", 1251, nDisc, lam, math.Sqrt(lam),
		func(r *rand.Rand) int64 { return Poisson(r, lam) })
	residueCheck(t, "Poisson(2^53+12345) mod 128", 1252, nDisc, 128, func(r *rand.Rand) int64 { return Poisson(r, lam) })
}

// multinomialPmf is the textbook multinomial mass n!/Π k_i! · Π p_i^k_i.
func multinomialPmf(k []int64, p []float64) float64 {
	var n int64
	l := 0.0
	for i, ki := range k {
		n += ki
		lg, _ := math.Lgamma(float64(ki) + 1)
		l -= lg
		if ki > 0 {
			l += float64(ki) * math.Log(p[i])
		}
	}
	lg, _ := math.Lgamma(float64(n) + 1)
	return math.Exp(l + lg)
}

// compositions calls f with every k ≥ 0 of length m summing to n.
func compositions(n int64, m int, k []int64, f func([]int64)) {
	if m == 1 {
		k[len(k)-1] = n
		f(k)
		return
	}
	for i := int64(0); i <= n; i++ {
		k[len(k)-m] = i
		compositions(n-i, m-1, k, f)
	}
}

func TestMultinomialChiSquare(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	for ci, c := range []struct {
		n int64
		w []float64
	}{
		{6, []float64{0.2, 0.5, 0.3}},
		{8, []float64{0, 2, 0, 1, 1}}, // unnormalised, with zeros
		{4, []float64{1e-3, 1, 1, 1}},
	} {
		tot := 0.0
		for _, x := range c.w {
			tot += x
		}
		p := make([]float64, len(c.w))
		for i, x := range c.w {
			p[i] = x / tot
		}
		index := map[string]int{}
		var exp []float64
		k := make([]int64, len(p))
		compositions(c.n, len(p), k, func(k []int64) {
			index[fmt.Sprint(k)] = len(exp)
			e := multinomialPmf(k, p) * nDisc
			exp = append(exp, e)
			// MultinomialLogPmf agrees with the textbook formula.
			if got, want := MultinomialLogPmf(k, c.w), math.Log(e/nDisc); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) && !(math.IsInf(got, -1) && math.IsInf(want, -1)) {
				t.Errorf("MultinomialLogPmf(%v, %v) = %v, want %v", k, c.w, got, want)
			}
		})
		obs := make([]float64, len(exp))
		r := newRand(uint64(1300 + ci))
		dst := make([]int64, len(p))
		for i := 0; i < nDisc; i++ {
			if err := Multinomial(r, c.n, c.w, dst); err != nil {
				t.Fatal(err)
			}
			j, ok := index[fmt.Sprint(dst)]
			if !ok {
				t.Fatalf("Multinomial(%d, %v) = %v: not a composition", c.n, c.w, dst)
			}
			obs[j]++
		}
		// Merge cells with small expectation into one.
		var o2, e2 []float64
		ro, re := 0.0, 0.0
		for j := range exp {
			if exp[j] < 10 {
				ro += obs[j]
				re += exp[j]
				continue
			}
			o2 = append(o2, obs[j])
			e2 = append(e2, exp[j])
		}
		o2 = append(o2, ro)
		e2 = append(e2, re)
		stat, pv, df := stats.ChiSquareGOF(o2, e2, 0)
		t.Logf("chi2 Multinomial(%d, %v) joint n=%d X2=%.2f df=%d p=%.4f", c.n, c.w, nDisc, stat, df, pv)
		if !(pv >= pReject) {
			t.Errorf("Multinomial(%d, %v): chi-square rejects, p=%g", c.n, c.w, pv)
		}
	}
	// Huge n: each marginal is Binomial(n, p_i).
	n := int64(1e9)
	w := []float64{3e-9, 0.5, 0.25 - 3e-9, 0, 0.25}
	for i, pi := range w {
		if pi == 0 {
			continue
		}
		mean := float64(n) * pi
		lo, hi := window(mean, math.Sqrt(mean*(1-pi)), n)
		dst := make([]int64, len(w))
		chiCheck(t, fmt.Sprintf("Multinomial(1e9) marginal %d (p=%g)", i, pi), uint64(1310+i), nDisc/2,
			func(r *rand.Rand) int64 {
				if err := Multinomial(r, n, w, dst); err != nil {
					t.Fatal(err)
				}
				s := int64(0)
				for _, x := range dst {
					s += x
				}
				if s != n || dst[3] != 0 {
					t.Fatalf("Multinomial draw %v: sum %d", dst, s)
				}
				return dst[i]
			}, func(k int64) float64 { return BinomialLogPmf(k, n, pi) }, lo, hi)
	}
}

func TestAliasChiSquare(t *testing.T) {
	r := newRand(1400)
	big := make([]float64, 1000)
	for i := range big {
		big[i] = r.Float64() * float64(i%7)
	}
	for ci, w := range [][]float64{
		{1, 2, 3, 4},
		{0, 1e-3, 5, 0, 2.5},
		{7},
		big,
	} {
		a, err := NewAlias(w)
		if err != nil {
			t.Fatal(err)
		}
		n := nDisc
		if len(w) > 100 {
			n = 200000
		}
		chiCheck(t, fmt.Sprintf("Alias(len %d)", len(w)), uint64(1410+ci), n,
			func(r *rand.Rand) int64 { return int64(a.Sample(r)) },
			func(k int64) float64 { return a.LogPmf(int(k)) }, 0, int64(len(w)-1))
		tot := 0.0
		for _, x := range w {
			tot += x
		}
		for i, x := range w {
			if got, want := a.LogPmf(i), math.Log(x/tot); math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(want)) && got != want {
				t.Errorf("LogPmf(%d) = %v, want %v", i, got, want)
			}
		}
	}
}

// TestChiSquarePower checks that the chi-square harness detects small
// departures: a binomial with p 1% off and a Poisson with λ 0.5% off.
func TestChiSquarePower(t *testing.T) {
	r := newRand(1500)
	starts, exp := discreteCells(func(k int64) float64 { return BinomialLogPmf(k, 1e9, 0.5) }, 5e8-200000, 5e8+200000, nDisc, 20)
	obs := make([]float64, len(exp))
	for i := 0; i < nDisc; i++ {
		k := Binomial(r, 1e9, 0.50001) // mean shifted by 0.6 sd
		j := 0
		for j+1 < len(starts) && starts[j+1] <= k {
			j++
		}
		obs[j]++
	}
	if _, p, _ := stats.ChiSquareGOF(obs, exp, 0); p >= pReject {
		t.Errorf("chi-square missed Binomial p = 0.50001 vs 0.5: p=%g", p)
	}
}
