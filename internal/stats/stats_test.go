package stats

import (
	"bufio"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// relErr returns |got−want|/|want|, 0 for exact equality and +Inf when
// either value is NaN, so that a NaN never passes a tolerance check.
func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.Inf(1)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// TestQuantileType7 uses values computed by hand from R's definition
// (quantile(x, p, type = 7)); e.g. quantile(1:10, 0.1) = 1 + 0.9·1 = 1.9.
func TestQuantileType7(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	cases := []struct{ p, want float64 }{
		{0, 1}, {0.1, 1.9}, {0.25, 3.25}, {0.5, 5.5}, {0.9, 9.1}, {1, 10}, {1.0 / 3, 4},
	}
	for _, c := range cases {
		if got := Quantile(x, c.p); !(math.Abs(got-c.want) <= 1e-14) {
			t.Errorf("Quantile(1:10, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	y := []float64{2.5, 3, 7, 11}
	for _, c := range []struct{ p, want float64 }{{0.3, 2.95}, {0.75, 8}, {0.5, 5}, {0.99, 11 - 0.03*4}} {
		if got := Quantile(y, c.p); !(math.Abs(got-c.want) <= 1e-14) {
			t.Errorf("Quantile(y, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	if Quantile([]float64{4}, 0.7) != 4 {
		t.Error("single element")
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if !math.IsNaN(Quantile(x, p)) {
			t.Errorf("p=%v: want NaN", p)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("empty: want NaN")
	}
	u := []float64{10, 1, 5, 3, 2, 4, 9, 8, 6, 7}
	dst := make([]float64, 2)
	if err := Quantiles(u, []float64{0.1, 0.25}, dst); err != nil || dst[0] != 1.9 || dst[1] != 3.25 {
		t.Errorf("Quantiles = %v, %v", dst, err)
	}
	if u[0] != 10 {
		t.Error("Quantiles modified its input")
	}
}

func TestMeanVariance(t *testing.T) {
	x := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	if Mean(x) != 5 || !(math.Abs(Variance(x)-32.0/7) <= 1e-15) {
		t.Fatalf("Mean %v Variance %v", Mean(x), Variance(x))
	}
	// Large offset: the two-pass algorithm keeps full accuracy.
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v + 1e9
	}
	if !(math.Abs(Variance(y)-32.0/7) <= 1e-6) {
		t.Fatalf("Variance with offset = %v", Variance(y))
	}
	if !math.IsNaN(Mean(nil)) || !math.IsNaN(Variance([]float64{1})) {
		t.Fatal("want NaN")
	}
}

// TestWeightedCov: integer weights equal replication of samples, and the
// result matches a direct formula on a hand example.
func TestWeightedCov(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, d = 40, 3
	x := make([]float64, n*d)
	w := make([]float64, n)
	var rep []float64
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x[i*d+j] = r.NormFloat64() + float64(j)
		}
		w[i] = float64(r.IntN(4))
		for k := 0; k < int(w[i]); k++ {
			rep = append(rep, x[i*d:i*d+d]...)
		}
	}
	mw, cw := make([]float64, d), make([]float64, d*d)
	if err := WeightedCov(x, d, w, mw, cw); err != nil {
		t.Fatal(err)
	}
	mr, cr := make([]float64, d), make([]float64, d*d)
	if err := WeightedCov(rep, d, nil, mr, cr); err != nil {
		t.Fatal(err)
	}
	for j := range mw {
		if !(math.Abs(mw[j]-mr[j]) <= 1e-14) {
			t.Fatalf("mean %v vs replicated %v", mw, mr)
		}
	}
	for k := range cw {
		if !(math.Abs(cw[k]-cr[k]) <= 1e-14) {
			t.Fatalf("cov %v vs replicated %v", cw, cr)
		}
	}
	// Unit weights scaled by a constant change nothing; equal weights with
	// the ESS/(ESS−1) factor give the unbiased variance.
	col := make([]float64, len(rep)/d)
	for i := range col {
		col[i] = rep[i*d+1]
	}
	ess := float64(len(col))
	if got := cr[1*d+1] * ess / (ess - 1); !(math.Abs(got-Variance(col)) <= 1e-13) {
		t.Fatalf("unbiased variance %v want %v", got, Variance(col))
	}
	// Hand example: points (0,0),(2,0),(0,4) with weights 1,1,2:
	// μ = (0.5, 2); cov_xx = (0.25+2.25+2·0.25)/4 = 0.75,
	// cov_yy = (4+4+2·4)/4 = 4, cov_xy = (1+(−3)+2·(−1)... )/4.
	hx := []float64{0, 0, 2, 0, 0, 4}
	hw := []float64{1, 1, 2}
	m, c := make([]float64, 2), make([]float64, 4)
	if err := WeightedCov(hx, 2, hw, m, c); err != nil {
		t.Fatal(err)
	}
	// cov_xy = Σ w (x−0.5)(y−2)/4 = [(−0.5)(−2) + (1.5)(−2) + 2(−0.5)(2)]/4 = (1 − 3 − 2)/4 = −1.
	want := []float64{0.75, -1, -1, 4}
	if m[0] != 0.5 || m[1] != 2 {
		t.Fatalf("mean %v", m)
	}
	for k := range want {
		if !(math.Abs(c[k]-want[k]) <= 1e-15) {
			t.Fatalf("cov %v want %v", c, want)
		}
	}
}

func TestWeightedErrors(t *testing.T) {
	m := make([]float64, 2)
	c := make([]float64, 4)
	x := []float64{1, 2, 3, 4}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"odd length", WeightedMean([]float64{1, 2, 3}, 2, nil, m), ErrDimension},
		{"d=0", WeightedMean(x, 0, nil, m), ErrDimension},
		{"short mean", WeightedMean(x, 2, nil, m[:1]), ErrDimension},
		{"weights length", WeightedMean(x, 2, []float64{1}, m), ErrDimension},
		{"negative", WeightedMean(x, 2, []float64{1, -1}, m), ErrWeights},
		{"NaN", WeightedMean(x, 2, []float64{1, math.NaN()}, m), ErrWeights},
		{"Inf", WeightedMean(x, 2, []float64{1, math.Inf(1)}, m), ErrWeights},
		{"zero", WeightedMean(x, 2, []float64{0, 0}, m), ErrWeights},
		{"empty", WeightedMean(nil, 2, nil, m), ErrWeights},
		{"cov length", WeightedCov(x, 2, nil, m, c[:3]), ErrDimension},
	}
	for _, tc := range cases {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, tc.err, tc.want)
		}
	}
}

func TestESS(t *testing.T) {
	cases := []struct {
		w    []float64
		want float64
	}{
		{[]float64{1, 1, 1, 1}, 4},
		{[]float64{5, 0, 0}, 1},
		{[]float64{1, 2, 3}, 36.0 / 14},
		{[]float64{1e-300, 2e-300, 3e-300}, 36.0 / 14},
		{[]float64{1e300, 2e300, 3e300}, 36.0 / 14},
	}
	for _, c := range cases {
		if got := ESS(c.w); relErr(got, c.want) > 1e-15 {
			t.Errorf("ESS(%v) = %v, want %v", c.w, got, c.want)
		}
		lw := make([]float64, len(c.w))
		for i, v := range c.w {
			lw[i] = math.Log(v)
		}
		if got := ESSLog(lw); relErr(got, c.want) > 1e-13 {
			t.Errorf("ESSLog(log %v) = %v, want %v", c.w, got, c.want)
		}
	}
	for _, w := range [][]float64{nil, {0, 0}, {1, -1}, {math.NaN()}, {math.Inf(1)}} {
		if !math.IsNaN(ESS(w)) {
			t.Errorf("ESS(%v) should be NaN", w)
		}
	}
	if !math.IsNaN(ESSLog([]float64{math.Inf(-1)})) || !math.IsNaN(ESSLog([]float64{math.NaN()})) {
		t.Error("ESSLog invalid should be NaN")
	}
}

func TestHistogram(t *testing.T) {
	if _, err := NewHistogram(1, 1, 3); err == nil {
		t.Error("lo == hi accepted")
	}
	if _, err := NewHistogram(0, 1, 0); err == nil {
		t.Error("0 bins accepted")
	}
	if _, err := NewHistogram(math.NaN(), 1, 2); err == nil {
		t.Error("NaN accepted")
	}
	h, err := NewHistogram(0, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{-0.1, 0, 0.1, 0.25, 0.5, 0.99, 1, 1.5, math.NaN()} {
		h.Add(x)
	}
	h.AddWeighted(0.3, 2.5)
	want := []float64{2, 3.5, 1, 2}
	for k, c := range want {
		if h.Counts[k] != c {
			t.Fatalf("counts %v, want %v", h.Counts, want)
		}
	}
	if h.Under != 1 || h.Over != 1 || h.NaN != 1 || h.Total() != 8.5 {
		t.Fatalf("under %v over %v nan %v total %v", h.Under, h.Over, h.NaN, h.Total())
	}
	if h.Edge(1) != 0.25 || h.Edge(4) != 1 {
		t.Fatal("edges")
	}
	dens := make([]float64, 4)
	if err := h.Density(dens); err != nil {
		t.Fatal(err)
	}
	integral := 0.0
	for _, v := range dens {
		integral += v * 0.25
	}
	if !(math.Abs(integral-1) <= 1e-15) {
		t.Fatalf("density integrates to %v", integral)
	}
	if err := h.Density(dens[:3]); err == nil {
		t.Fatal("short dst accepted")
	}
}

type refLine struct {
	kind string
	f    []string
}

func readRef(t *testing.T) []refLine {
	t.Helper()
	f, err := os.Open("testdata/ref.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []refLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		out = append(out, refLine{fs[0], fs[1:]})
	}
	if len(out) == 0 {
		t.Fatal("no reference values")
	}
	return out
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestKSReference compares the Kolmogorov–Smirnov p-values with exact
// rational / 60-digit references from testdata/gen_ks.py. The one-sample
// cases include Miller's (1956) 5% critical values (n = 5, 10, 20), whose
// p-value must be 0.05 to the table's five digits.
func TestKSReference(t *testing.T) {
	worst := map[string]float64{}
	for _, r := range readRef(t) {
		switch r.kind {
		case "ks1":
			n, d, want := atoi(t, r.f[0]), atof(t, r.f[1]), atof(t, r.f[2])
			ex := 1 - durbinCDF(n, d)
			e := relErr(ex, want)
			worst["durbin"] = math.Max(worst["durbin"], e)
			if !(e <= 1e-10) {
				t.Errorf("1 − durbinCDF(%d, %v) = %.17g, want %.17g (rel %.2g)", n, d, ex, want, e)
			}
			// The public function switches to Pelz–Good for large n·d.
			got := KolmogorovSF(n, d)
			e = relErr(got, want)
			worst["KolmogorovSF"] = math.Max(worst["KolmogorovSF"], e)
			if e > 1e-10 && !(n > kolmSmallN && math.Abs(got-want) < 1e-6) {
				t.Errorf("KolmogorovSF(%d, %v) = %.17g, want %.17g (rel %.2g)", n, d, got, want, e)
			}
			if n > kolmSmallN {
				pg := pelzGoodSF(n, d)
				e := math.Abs(pg - want)
				worst["pelz-good abs"] = math.Max(worst["pelz-good abs"], e)
				if !(e <= 1e-6) {
					t.Errorf("pelzGoodSF(%d, %v) = %.10g, want %.10g", n, d, pg, want)
				}
			}
		case "smir":
			n, d, want := atoi(t, r.f[0]), atof(t, r.f[1]), atof(t, r.f[2])
			got := smirnovSF(n, d)
			e := relErr(got, want)
			worst["smirnov"] = math.Max(worst["smirnov"], e)
			if !(e <= 1e-10) {
				t.Errorf("smirnovSF(%d, %v) = %.17g, want %.17g (rel %.2g)", n, d, got, want, e)
			}
		case "ks2":
			n, m, dnum, want := atoi(t, r.f[0]), atoi(t, r.f[1]), atoi(t, r.f[2]), atof(t, r.f[3])
			got := ks2Exact(n, m, int64(dnum))
			e := relErr(got, want)
			worst["ks2"] = math.Max(worst["ks2"], e)
			if !(e <= 1e-12) {
				t.Errorf("ks2Exact(%d, %d, %d) = %.17g, want %.17g (rel %.2g)", n, m, dnum, got, want, e)
			}
		}
	}
	for k, v := range worst {
		t.Logf("worst relative error %-14s %.3g", k, v)
	}
}

// TestKSTwoSampleStatistic checks D on hand examples, including ties.
func TestKSTwoSampleStatistic(t *testing.T) {
	// x = {1,2,3}, y = {4,5,6,7}: complete separation, D = 1 and
	// p = 2/C(7,3) = 2/35 (paths that leave the band are only the two extremes).
	d, p := KSTwoSample([]float64{3, 1, 2}, []float64{7, 4, 6, 5})
	if d != 1 || !(math.Abs(p-2.0/35) <= 1e-15) {
		t.Fatalf("separated: D=%v p=%v want 1, %v", d, p, 2.0/35)
	}
	// Ties across samples: x = {1,1,2}, y = {1,2,2}; after value 1:
	// F_x = 2/3, F_y = 1/3 → D = 1/3; after 2 both are 1.
	d, _ = KSTwoSample([]float64{1, 1, 2}, []float64{1, 2, 2})
	if !(math.Abs(d-1.0/3) <= 1e-15) {
		t.Fatalf("ties: D=%v want 1/3", d)
	}
	// Identical samples: D = 0 and p = 1.
	d, p = KSTwoSample([]float64{1, 2, 3}, []float64{1, 2, 3})
	if d != 0 || p != 1 {
		t.Fatalf("identical: D=%v p=%v", d, p)
	}
	if d, p := KSTwoSample(nil, []float64{1}); !math.IsNaN(d) || !math.IsNaN(p) {
		t.Fatal("empty sample should give NaN")
	}
	if d, p := KSTwoSample([]float64{math.NaN()}, []float64{1}); !math.IsNaN(d) || !math.IsNaN(p) {
		t.Fatal("NaN sample should give NaN")
	}
}

// TestKSOneSampleStatistic checks D by brute force over the sample points.
func TestKSOneSampleStatistic(t *testing.T) {
	x := []float64{0.9, 0.1, 0.35, 0.6}
	orig := append([]float64(nil), x...)
	d, p := KSOneSample(x, func(v float64) float64 { return v })
	// Sorted: 0.1 0.35 0.6 0.9; i/n − u: .15 .15 .15 .1; u − (i−1)/n: .1 .1 .1 .15.
	if !(math.Abs(d-0.15) <= 1e-15) {
		t.Fatalf("D = %v, want 0.15", d)
	}
	if math.Abs(p-KolmogorovSF(4, d)) > 0 || !(p > 0.9) {
		t.Fatalf("p = %v", p)
	}
	for i := range x {
		if x[i] != orig[i] {
			t.Fatal("input modified")
		}
	}
	bad := func(v float64) float64 { return 2 }
	if d, p := KSOneSample(x, bad); !math.IsNaN(d) || !math.IsNaN(p) {
		t.Fatal("cdf out of range accepted")
	}
	if d, p := KSOneSample(nil, func(float64) float64 { return 0 }); !math.IsNaN(d) || !math.IsNaN(p) {
		t.Fatal("empty accepted")
	}
}

// TestKolmogorovSFClosedForms checks the regimes with closed forms and the
// continuity of the switch between methods.
func TestKolmogorovSFClosedForms(t *testing.T) {
	// n = 1: P(D_1 ≥ d) = 2(1 − d) for d ∈ [1/2, 1].
	for _, d := range []float64{0.5, 0.6, 0.99} {
		if got := KolmogorovSF(1, d); !(math.Abs(got-2*(1-d)) <= 1e-15) {
			t.Errorf("n=1 d=%v: %v", d, got)
		}
	}
	// d ≤ 1/(2n): p = 1; d ≥ 1: p = 0; Ruben–Gambino upper end: for
	// d ≥ 1 − 1/n, P = 2(1−d)^n.
	if KolmogorovSF(10, 0.05) != 1 || KolmogorovSF(10, 1) != 0 {
		t.Error("end points")
	}
	if got, want := KolmogorovSF(10, 0.95), 2*math.Pow(0.05, 10); relErr(got, want) > 1e-12 {
		t.Errorf("n=10 d=.95: %v want %v", got, want)
	}
	// Lower end: for 1/(2n) ≤ d ≤ 1/n, P(D_n < d) = n!/nⁿ (2nd − 1)ⁿ.
	n, d := 6, 0.125
	want := 1.0
	for i := 1; i <= n; i++ {
		want *= float64(i) / float64(n) * (2*float64(n)*d - 1)
	}
	if got := 1 - KolmogorovSF(n, d); relErr(got, want) > 1e-10 {
		t.Errorf("lower end: cdf %v want %v", got, want)
	}
	// Across the exact/Pelz–Good switch for n = 8000 the p-value is
	// continuous to 1e-5 and monotone.
	nn := 8000
	prev := 1.0
	for d := 0.005; d < 0.03; d += 0.0005 {
		p := KolmogorovSF(nn, d)
		if p > prev+1e-12 {
			t.Fatalf("not monotone at d=%v", d)
		}
		prev = p
	}
	if !math.IsNaN(KolmogorovSF(0, 0.3)) || !math.IsNaN(KolmogorovSF(3, math.NaN())) {
		t.Error("invalid args should be NaN")
	}
}

// TestKSNullUniform: under the null the one- and two-sample p-values are
// uniform (the one-sample ones exactly; the two-sample exact ones are
// discrete and conservative). n = 3000 exercises the Pelz–Good branch. 2000 replicates with a fixed seed; the
// uniformity of the p-values is checked with a chi-square test on 10 equal
// bins at level 1e-4, and the false-alarm frequency at α = 0.05 must lie in
// the binomial 99.99% band [0.035, 0.067]. Both checks together fail with
// probability below 1e-3 for a correct implementation.
func TestKSNullUniform(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const reps = 2000
	uni := func(v float64) float64 { return math.Max(0, math.Min(1, v)) }
	for _, n := range []int{5, 30, 200, 3000} {
		r := rand.New(rand.NewPCG(2026, uint64(n)))
		ps := make([]float64, reps)
		x := make([]float64, n)
		for k := range ps {
			for i := range x {
				x[i] = r.Float64()
			}
			_, ps[k] = KSOneSample(x, uni)
		}
		checkUniform(t, "one-sample", n, ps, false)
	}
	for _, nm := range [][2]int{{20, 30}, {100, 80}} {
		r := rand.New(rand.NewPCG(2027, uint64(nm[0])))
		ps := make([]float64, reps)
		x, y := make([]float64, nm[0]), make([]float64, nm[1])
		for k := range ps {
			for i := range x {
				x[i] = r.NormFloat64()
			}
			for i := range y {
				y[i] = r.NormFloat64()
			}
			_, ps[k] = KSTwoSample(x, y)
		}
		checkUniform(t, "two-sample", nm[0], ps, true)
	}
}

func checkUniform(t *testing.T, name string, n int, ps []float64, discrete bool) {
	t.Helper()
	reject := 0
	for _, p := range ps {
		if p <= 0.05 {
			reject++
		}
	}
	rate := float64(reject) / float64(len(ps))
	t.Logf("%s n=%d: false-alarm rate at 0.05 = %.4f", name, n, rate)
	if rate > 0.067 || (!discrete && rate < 0.035) {
		t.Errorf("%s n=%d: false-alarm rate %.4f outside [0.035, 0.067]", name, n, rate)
	}
	if discrete {
		return
	}
	obs := make([]float64, 10)
	exp := make([]float64, 10)
	for _, p := range ps {
		obs[min(int(p*10), 9)]++
	}
	for i := range exp {
		exp[i] = float64(len(ps)) / 10
	}
	stat, pv, _ := ChiSquareGOF(obs, exp, 0)
	t.Logf("%s n=%d: chi-square uniformity of p-values: stat %.2f, p %.3f", name, n, stat, pv)
	if pv < 1e-4 {
		t.Errorf("%s n=%d: p-values not uniform (chi-square p = %.2g)", name, n, pv)
	}
	_, ksp := KSOneSample(ps, func(v float64) float64 { return v })
	if ksp < 1e-4 {
		t.Errorf("%s n=%d: p-values not uniform (KS p = %.2g)", name, n, ksp)
	}
}

// TestKSPower: against a shifted alternative the tests reject at 0.01 in
// most replicates (power > 0.9 is expected; the assertion uses 0.8).
func TestKSPower(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	uni := func(v float64) float64 { return math.Max(0, math.Min(1, v)) }
	rej1, rej2 := 0, 0
	const reps = 200
	for k := 0; k < reps; k++ {
		x := make([]float64, 200)
		y := make([]float64, 200)
		for i := range x {
			x[i] = math.Pow(r.Float64(), 1.5) // Beta(2/3, 1)-like: F(u) = u^{2/3}
			y[i] = r.Float64()
		}
		if _, p := KSOneSample(x, uni); p < 0.01 {
			rej1++
		}
		if _, p := KSTwoSample(x, y); p < 0.01 {
			rej2++
		}
	}
	t.Logf("power at 0.01: one-sample %.2f, two-sample %.2f", float64(rej1)/reps, float64(rej2)/reps)
	if rej1 < 0.8*reps || rej2 < 0.5*reps {
		t.Errorf("power too low: one-sample %d/%d, two-sample %d/%d", rej1, reps, rej2, reps)
	}
}

func TestChiSquareAndClopperPearsonReference(t *testing.T) {
	worst := map[string]float64{}
	for _, r := range readRef(t) {
		switch r.kind {
		case "chisq":
			k, x, want := atoi(t, r.f[0]), atof(t, r.f[1]), atof(t, r.f[2])
			// Build a GOF problem with df = k and statistic x: k+1 cells.
			obs := make([]float64, k+1)
			exp := make([]float64, k+1)
			for i := range exp {
				exp[i] = 1
				obs[i] = 1
			}
			// (O−E)²/E on the first two cells: put a, −a with 2a² = x.
			a := math.Sqrt(x / 2)
			obs[0], obs[1] = 1+a, 1-a
			if obs[1] < 0 {
				exp[0], exp[1] = 1e6, 1e6
				obs[0], obs[1] = 1e6+a*1e3, 1e6-a*1e3
			}
			stat, p, df := ChiSquareGOF(obs, exp, 0)
			if df != k || !(math.Abs(stat-x) <= 1e-9*x) {
				t.Fatalf("df %d stat %v, want %d %v", df, stat, k, x)
			}
			e := relErr(p, want)
			worst["chisq"] = math.Max(worst["chisq"], e)
			if !(e <= 1e-8) {
				t.Errorf("chi-square p(k=%d, x=%v) = %.15g, want %.15g (rel %.2g)", k, x, p, want, e)
			}
		case "cp":
			k, n := atoi(t, r.f[0]), atoi(t, r.f[1])
			alpha, wlo, whi := atof(t, r.f[2]), atof(t, r.f[3]), atof(t, r.f[4])
			lo, hi := ClopperPearson(int64(k), int64(n), alpha)
			e := math.Max(relErr(lo, wlo), relErr(hi, whi))
			worst["clopper-pearson rel"] = math.Max(worst["clopper-pearson rel"], e)
			if e > 1e-10 || (k == 0 && lo != 0) || (k == n && hi != 1) {
				t.Errorf("ClopperPearson(%d, %d, %v) = [%.15g, %.15g], want [%.15g, %.15g]", k, n, alpha, lo, hi, wlo, whi)
			}
		}
	}
	for k, v := range worst {
		t.Logf("worst error %-20s %.3g", k, v)
	}
}

func TestChiSquareGOFEdgeCases(t *testing.T) {
	// Hand example: O = (10, 20, 30), E = (20, 20, 20): stat = 5+0+5 = 10,
	// df = 2, p = exp(−5).
	stat, p, df := ChiSquareGOF([]float64{10, 20, 30}, []float64{20, 20, 20}, 0)
	if stat != 10 || df != 2 || relErr(p, math.Exp(-5)) > 1e-13 {
		t.Fatalf("stat %v p %v df %d", stat, p, df)
	}
	// ddof reduces df.
	if _, _, df := ChiSquareGOF([]float64{10, 20, 30, 40}, []float64{25, 25, 25, 25}, 1); df != 2 {
		t.Fatalf("df with ddof = %d", df)
	}
	// Empty expected cells are skipped; an observation in one gives p = 0.
	if _, _, df := ChiSquareGOF([]float64{10, 0, 30}, []float64{20, 0, 20}, 0); df != 1 {
		t.Fatalf("df with empty cell = %d", df)
	}
	if s, p, _ := ChiSquareGOF([]float64{10, 1, 30}, []float64{20, 0, 21}, 0); !math.IsInf(s, 1) || p != 0 {
		t.Fatalf("impossible cell: stat %v p %v", s, p)
	}
	for _, c := range [][2][]float64{
		{{1, 2}, {1, 2, 3}},
		{{1, -2}, {1, 2}},
		{{1, 2}, {1, math.NaN()}},
		{{1}, {1}},
	} {
		if s, p, _ := ChiSquareGOF(c[0], c[1], 0); !math.IsNaN(s) || !math.IsNaN(p) {
			t.Errorf("ChiSquareGOF(%v, %v) = %v, %v; want NaN", c[0], c[1], s, p)
		}
	}
}

func TestClopperPearsonInvalidAndCoverage(t *testing.T) {
	for _, c := range []struct {
		k, n int64
		a    float64
	}{{-1, 5, 0.05}, {6, 5, 0.05}, {1, 0, 0.05}, {1, 5, 0}, {1, 5, 1}, {1, 5, math.NaN()}} {
		if lo, hi := ClopperPearson(c.k, c.n, c.a); !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("ClopperPearson(%d,%d,%v) = %v,%v want NaN", c.k, c.n, c.a, lo, hi)
		}
	}
	// Exact coverage ≥ 1−α for every p on a grid (n = 30): sum the binomial
	// probabilities of the k whose interval covers p.
	n := int64(30)
	los, his := make([]float64, n+1), make([]float64, n+1)
	for k := int64(0); k <= n; k++ {
		los[k], his[k] = ClopperPearson(k, n, 0.05)
	}
	for _, p := range []float64{0.01, 0.05, 0.1, 0.3, 0.5, 0.77, 0.95} {
		cov := 0.0
		for k := int64(0); k <= n; k++ {
			if los[k] <= p && p <= his[k] {
				lb, _ := math.Lgamma(float64(n + 1))
				lk, _ := math.Lgamma(float64(k + 1))
				lnk, _ := math.Lgamma(float64(n - k + 1))
				cov += math.Exp(lb - lk - lnk + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
			}
		}
		if cov < 0.95-1e-12 {
			t.Errorf("coverage at p=%v is %v < 0.95", p, cov)
		}
	}
}

func TestQuantileMatchesSortedDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	x := make([]float64, 37)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	sort.Float64s(x)
	// At p = k/(n−1) the type-7 quantile is exactly the k-th order statistic.
	for k := range x {
		if got := Quantile(x, float64(k)/float64(len(x)-1)); !(math.Abs(got-x[k]) <= 1e-15) {
			t.Fatalf("k=%d: %v want %v", k, got, x[k])
		}
	}
}

// TestKSTwoSampleAsymptotic: beyond the exact range the two-sample p-value is
// Kolmogorov's limit with Stephens' correction. Against the exact lattice
// probability for n = 2000, m = 1500 it is within 0.006 absolutely and 3%
// relatively for λ = √nₑ·D from 0.6 to 1.8.
func TestKSTwoSampleAsymptotic(t *testing.T) {
	n, m := 2000, 1500
	ne := float64(n*m) / float64(n+m)
	sn := math.Sqrt(ne)
	for _, lam := range []float64{0.6, 1.2, 1.8} {
		dnum := int64(lam / sn * float64(n*m))
		d := float64(dnum) / float64(n*m)
		ex := ks2Exact(n, m, dnum)
		as := KolmogorovQ(d * (sn + 0.12 + 0.11/sn))
		t.Logf("λ=%.1f exact %.6f asymptotic %.6f", lam, ex, as)
		if !(math.Abs(as-ex) <= 0.006) || relErr(as, ex) > 0.03 {
			t.Errorf("λ=%.1f: asymptotic %.6f vs exact %.6f", lam, as, ex)
		}
	}
	// The public function takes the asymptotic path beyond ks2ExactMaxCells:
	// n = m = 20000 with D = 301/20000 (λ ≈ 1.5) needs about 1.2e7 cells.
	const big = 20000
	x := make([]float64, big)
	y := make([]float64, big)
	for i := range x {
		x[i] = float64(i)
		y[i] = float64(i) + 300.5
	}
	d, p := KSTwoSample(x, y)
	sq := math.Sqrt(big / 2)
	if want := KolmogorovQ(d * (sq + 0.12 + 0.11/sq)); d != 301.0/big || p != want {
		t.Fatalf("D=%v p=%v, want %v %v", d, p, 301.0/big, want)
	}
	if c := ks2Cells(big, big, 301*big); c <= ks2ExactMaxCells {
		t.Fatalf("test case needs %d cells, not beyond the exact range", c)
	}
}

// ks2ExactFull is the unbanded O(n·m) lattice computation, a reference for
// the banded ks2Exact.
func ks2ExactFull(n, m int, dnum int64) float64 {
	u := make([]float64, m+1)
	u[0] = 1
	exit := 0.0
	out := func(i, j int) bool {
		v := int64(i)*int64(m) - int64(j)*int64(n)
		return v >= dnum || -v >= dnum
	}
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			if i == 0 && j == 0 {
				continue
			}
			p := 0.0
			if i > 0 {
				p += u[j] * float64(n-i+1) / float64(n+m-(i-1)-j)
			}
			if j > 0 {
				p += u[j-1] * float64(m-j+1) / float64(n+m-i-(j-1))
			}
			if out(i, j) {
				exit += p
				p = 0
			}
			u[j] = p
		}
	}
	return math.Min(1, exit)
}

// TestKS2BandedMatchesFull compares the banded lattice computation with the
// plain one over random sizes and thresholds, including thresholds so small
// that rows have empty bands and so large that nothing exits.
func TestKS2BandedMatchesFull(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	for it := 0; it < 300; it++ {
		n, m := 1+r.IntN(60), 1+r.IntN(60)
		dnum := int64(1 + r.IntN(n*m+2))
		got, want := ks2Exact(n, m, dnum), ks2ExactFull(n, m, dnum)
		if relErr(got, want) > 1e-13 && math.Abs(got-want) > 1e-300 {
			t.Fatalf("n=%d m=%d dnum=%d: banded %.17g, full %.17g", n, m, dnum, got, want)
		}
	}
}

// TestKolmogorovQ checks the limiting distribution against the "kq" lines
// of testdata/ref.txt (the alternating series summed with mpmath), on both
// sides of the switch between its two series at λ = 1, where they must also
// agree with each other.
func TestKolmogorovQ(t *testing.T) {
	worst := 0.0
	for _, r := range readRef(t) {
		if r.kind != "kq" {
			continue
		}
		lam, want := atof(t, r.f[0]), atof(t, r.f[1])
		got := KolmogorovQ(lam)
		e := relErr(got, want)
		worst = math.Max(worst, e)
		if !(e <= 1e-13) {
			t.Errorf("KolmogorovQ(%v) = %.17g, want %.17g", lam, got, want)
		}
	}
	t.Logf("worst relative error KolmogorovQ %.3g", worst)
	if a, b := KolmogorovQ(math.Nextafter(1, 0)), KolmogorovQ(1); !(math.Abs(a-b) <= 1e-14) {
		t.Errorf("series disagree at λ=1: %v vs %v", a, b)
	}
}

// TestSmirnovTailApproximation: in the far tail KolmogorovSF uses
// 2·P(D⁺ ≥ d), whose error P(D⁺ ≥ d, D⁻ ≥ d) is about p³/8 relatively.
// Against the exact Durbin value it agrees to p³ (plus 1e-12 for rounding).
func TestSmirnovTailApproximation(t *testing.T) {
	for _, n := range []int{20, 60, 130} {
		for _, lam := range []float64{1.6, 1.8, 2.0} {
			d := lam / math.Sqrt(float64(n))
			ex := 1 - durbinCDF(n, d)
			sm := 2 * smirnovSF(n, d)
			if e := relErr(sm, ex); e > ex*ex*ex+1e-12 {
				t.Errorf("n=%d d=%.4f: 2·smirnov %.15g vs exact %.15g (rel %.2g)", n, d, sm, ex, e)
			}
		}
	}
}

// TestKSNullUniformLong repeats the null-uniformity check at a larger scale
// (PRIVINFER_LONG=1): 20000 one-sample p-values for n = 1000 and n = 10000
// (Durbin and Pelz–Good branches) and 4000 two-sample p-values for
// n = m = 2500 (asymptotic branch). Same thresholds as TestKSNullUniform.
func TestKSNullUniformLong(t *testing.T) {
	testutil.Long(t)
	uni := func(v float64) float64 { return math.Max(0, math.Min(1, v)) }
	for _, n := range []int{1000, 10000} {
		r := rand.New(rand.NewPCG(31, uint64(n)))
		ps := make([]float64, 20000)
		x := make([]float64, n)
		for k := range ps {
			for i := range x {
				x[i] = r.Float64()
			}
			_, ps[k] = KSOneSample(x, uni)
		}
		checkUniform(t, "one-sample", n, ps, false)
	}
	r := rand.New(rand.NewPCG(32, 2500))
	ps := make([]float64, 4000)
	x, y := make([]float64, 2500), make([]float64, 2500)
	for k := range ps {
		for i := range x {
			x[i], y[i] = r.NormFloat64(), r.NormFloat64()
		}
		_, ps[k] = KSTwoSample(x, y)
	}
	checkUniform(t, "two-sample asymptotic", 2500, ps, true)
}

func TestESSSubnormal(t *testing.T) {
	w := []float64{5e-324, 1e-323, 1.5e-323}
	if got := ESS(w); relErr(got, 36.0/14) > 1e-15 {
		t.Fatalf("ESS of subnormal weights = %v", got)
	}
}
