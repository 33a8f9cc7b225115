package privinfer

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// TestDrawsMoments checks Mean, Cov, SD and ESS against hand-computed
// values for equal and unequal weights.
func TestDrawsMoments(t *testing.T) {
	d := &Draws{Dim: 2, Theta: []float64{1, 2, 3, 5, 5, 11}}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	// Means (3, 6); deviations x: −2, 0, 2; y: −4, −1, 5 → var 4, 21, cov 9.
	m, c := d.Mean(), d.Cov()
	if !near(m[0], 3, 1e-15) || !near(m[1], 6, 1e-15) {
		t.Errorf("Mean = %v", m)
	}
	for k, want := range []float64{4, 9, 9, 21} {
		if !near(c[k], want, 1e-14) {
			t.Errorf("Cov[%d] = %v, want %v", k, c[k], want)
		}
	}
	if sd := d.SD(); !near(sd[1], math.Sqrt(21), 1e-15) {
		t.Errorf("SD = %v", sd)
	}
	if e := d.ESS(); e != 3 {
		t.Errorf("ESS = %v", e)
	}
	// Weights 1, 1, 2 → 0.25, 0.25, 0.5: mean x 3.5, y 7.25; Σw² = 0.375;
	// biased var x = 0.25·6.25 + 0.25·0.25 + 0.5·2.25 = 2.75 → ×1/(1−0.375).
	d.Weights = []float64{1, 1, 2}
	m, c = d.Mean(), d.Cov()
	if !near(m[0], 3.5, 1e-15) || !near(m[1], 7.25, 1e-15) {
		t.Errorf("weighted Mean = %v", m)
	}
	if !near(c[0], 2.75/0.625, 1e-14) {
		t.Errorf("weighted var = %v, want %v", c[0], 2.75/0.625)
	}
	// cov xy biased: 0.25·(−2.5)(−5.25) + 0.25·(−0.5)(−2.25) + 0.5·(1.5)(3.75).
	if want := (0.25*2.5*5.25 + 0.25*0.5*2.25 + 0.5*1.5*3.75) / 0.625; !near(c[1], want, 1e-14) || c[1] != c[2] {
		t.Errorf("weighted cov = %v, want %v", c[1], want)
	}
	if e := d.ESS(); !near(e, 16.0/6, 1e-15) {
		t.Errorf("Kish ESS = %v, want 8/3", e)
	}
	// A zero weight removes a draw from every statistic.
	d.Weights = []float64{1, 0, 1}
	if m := d.Mean(); !near(m[0], 3, 1e-15) || !near(d.Quantile(0, 0.5), 3, 1e-15) {
		t.Errorf("zero weight: mean %v, median %v", m, d.Quantile(0, 0.5))
	}
}

func TestDrawsQuantiles(t *testing.T) {
	theta := make([]float64, 10)
	for i := range theta {
		theta[i] = float64(10 - i) // 10, 9, …, 1
	}
	d := &Draws{Dim: 1, Theta: theta, Names: []string{"mu"}}
	// Type 7 on 1..10: h = 9p.
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.25, 3.25}, {0.5, 5.5}, {0.95, 9.55}, {1, 10}} {
		if got := d.Quantile(0, c.p); !near(got, c.want, 1e-14) {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	lo, hi := d.Interval(0, 0.9)
	if !near(lo, 1.45, 1e-14) || !near(hi, 9.55, 1e-14) {
		t.Errorf("Interval = [%v, %v], want [1.45, 9.55]", lo, hi)
	}
	// HDI 0.5: ⌊5⌋ = 5 steps; all widths 5 → the leftmost, [1, 6].
	if lo, hi := d.HDI(0, 0.5); lo != 1 || hi != 6 {
		t.Errorf("HDI = [%v, %v]", lo, hi)
	}
	q := d.Quantiles(0, 0.1, 0.9, 2)
	if !near(q[0], 1.9, 1e-14) || !near(q[1], 9.1, 1e-14) || !math.IsNaN(q[2]) {
		t.Errorf("Quantiles = %v", q)
	}
	// Weighted: 1..10 with weight ∝ value; draw k at midpoint
	// (Σ_{i<k} i + k/2)/55. The median lies between 7 (at 24.5/55) and 8
	// (at 32/55): 7 + (27.5 − 24.5)/7.5.
	w := make([]float64, 10)
	for i := range w {
		w[i] = theta[i]
	}
	d.Weights = w
	if got := d.Quantile(0, 0.5); !near(got, 7+3/7.5, 1e-14) {
		t.Errorf("weighted median = %v, want %v", got, 7+3/7.5)
	}
	// Out-of-range arguments give NaN, never a panic.
	for _, v := range []float64{d.Quantile(1, 0.5), d.Quantile(-1, 0.5), d.Quantile(0, 1.5)} {
		if !math.IsNaN(v) {
			t.Errorf("out-of-range quantile = %v", v)
		}
	}
	if lo, hi := d.Interval(0, 1); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Error("Interval(level 1) is not NaN")
	}
	if d.Index("mu") != 0 || d.Index("nu") != -1 {
		t.Error("Index")
	}
}

func TestDrawsValidate(t *testing.T) {
	bad := map[string]*Draws{
		"nil":            nil,
		"zero value":     {},
		"ragged":         {Dim: 2, Theta: []float64{1, 2, 3}},
		"names length":   {Dim: 2, Theta: []float64{1, 2}, Names: []string{"a"}},
		"repeated names": {Dim: 2, Theta: []float64{1, 2}, Names: []string{"a", "a"}},
		"weights length": {Dim: 1, Theta: []float64{1, 2}, Weights: []float64{1}},
		"negative":       {Dim: 1, Theta: []float64{1, 2}, Weights: []float64{1, -1}},
		"NaN weight":     {Dim: 1, Theta: []float64{1, 2}, Weights: []float64{1, math.NaN()}},
		"Inf weight":     {Dim: 1, Theta: []float64{1, 2}, Weights: []float64{1, math.Inf(1)}},
		"zero weights":   {Dim: 1, Theta: []float64{1, 2}, Weights: []float64{0, 0}},
		"huge weights":   {Dim: 1, Theta: []float64{1, 2}, Weights: []float64{1e308, 1e308}},
		"chains split":   {Dim: 1, Theta: []float64{1, 2, 3}, Chains: 2},
		"chains weights": {Dim: 1, Theta: []float64{1, 2}, Chains: 1, Weights: []float64{1, 1}},
		"negative chain": {Dim: 1, Theta: []float64{1, 2}, Chains: -1},
	}
	for name, d := range bad {
		if err := d.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
		// Statistics of invalid draws are NaN or nil, never a panic.
		if d.Mean() != nil || d.Cov() != nil || !math.IsNaN(d.ESS()) || !math.IsNaN(d.Quantile(0, 0.5)) {
			t.Errorf("%s: statistics of invalid draws", name)
		}
		if _, err := d.RHat(0); err == nil {
			t.Errorf("%s: RHat accepted", name)
		}
		if _, err := d.Resample(rand.New(rand.NewPCG(1, 1)), 3); err == nil {
			t.Errorf("%s: Resample accepted", name)
		}
	}
	// NaN and Inf draws are data: they validate.
	ok := &Draws{Dim: 1, Theta: []float64{math.NaN(), math.Inf(1), 1}}
	if err := ok.Validate(); err != nil {
		t.Error(err)
	}
	if got := ok.Quantile(0, 0); got != 1 {
		t.Errorf("NaN draws are ignored by quantiles: got %v", got)
	}
}

// readDiagCase loads one case of the diagnostics' reference chains and
// its reference values (rhat, rhat_basic, ess_bulk, ess_tail, ess_mean,
// mcse_mean) as Draws with Chains set.
func readDiagCase(t *testing.T, name string) (*Draws, []float64) {
	t.Helper()
	chains := testutil.ChainCases(t, "internal/diag/testdata/diag_chains.csv")[name]
	d := &Draws{Dim: 2, Chains: len(chains)}
	for _, ch := range chains {
		for _, v := range ch {
			// Coordinate 1 is an affine image: R̂ and ESS are invariant.
			d.Theta = append(d.Theta, v, 3-2*v)
		}
	}
	ref := testutil.ReferenceValues(t, "internal/diag/testdata/diag_reference.csv")[name]
	return d, ref
}

// TestDrawsDiagnosticsReference checks RHat, ESSBulk, ESSTail and
// MCSEMean of chained Draws against the independent Python reference
// values of Vehtari et al. (2021) (internal/diag/testdata).
func TestDrawsDiagnosticsReference(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	for _, name := range []string{"ar1", "heavy", "stuck", "onechain"} {
		d, ref := readDiagCase(t, name)
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		rh, err1 := d.RHat(0)
		eb, err2 := d.ESSBulk(0)
		et, err3 := d.ESSTail(0)
		mc, err4 := d.MCSEMean(0)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			t.Fatal(err)
		}
		for k, c := range []struct{ got, want float64 }{{rh, ref[0]}, {eb, ref[2]}, {et, ref[3]}, {mc, ref[5]}} {
			if !near(c.got, c.want, 1e-9) {
				t.Errorf("%s diagnostic %d = %.15g, reference %.15g", name, k, c.got, c.want)
			}
		}
		// Invariance under θ ↦ 3 − 2θ (the tail R̂ folds about the median;
		// ranks reverse, so bulk quantities agree to rounding).
		rh1, _ := d.RHat(1)
		eb1, _ := d.ESSBulk(1)
		mc1, _ := d.MCSEMean(1)
		if !near(rh1, rh, 1e-9) || !near(eb1, eb, 1e-9) || !near(mc1, 2*mc, 1e-9) {
			t.Errorf("%s: affine image gives R̂ %v, ESS %v, MCSE %v", name, rh1, eb1, mc1)
		}
	}
	d := &Draws{Dim: 1, Theta: []float64{1, 2, 3, 4, 5, 6, 7}, Weights: []float64{1, 1, 1, 1, 1, 1, 2}}
	if _, err := d.RHat(0); !errors.Is(err, ErrInvalid) {
		t.Errorf("weighted RHat: %v", err)
	}
	d = &Draws{Dim: 1, Theta: []float64{2, 2, 2, 2, 2, 2}}
	if v, err := d.ESSBulk(0); !math.IsNaN(v) || !errors.Is(err, ErrDegenerate) {
		t.Errorf("constant draws: %v, %v", v, err)
	}
}

// TestResampleSystematic checks the systematic scheme's defining
// property: draw i appears ⌊n·w_i⌋ or ⌈n·w_i⌉ times, on random weights
// (including zeros) and sizes.
func TestResampleSystematic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		m := 1 + r.IntN(12)
		n := 1 + r.IntN(50)
		d := &Draws{Dim: 1, Theta: make([]float64, m), Weights: make([]float64, m)}
		total := 0.0
		for i := range m {
			d.Theta[i] = float64(i)
			if r.IntN(4) > 0 || i == m-1 && total == 0 {
				d.Weights[i] = r.ExpFloat64()
			}
			total += d.Weights[i]
		}
		if trial%3 == 0 {
			d.Weights = nil
			total = float64(m)
		}
		out, err := d.Resample(r, n)
		if err != nil {
			t.Fatal(err)
		}
		if out.Len() != n || out.Weights != nil || out.Chains != 0 {
			t.Fatalf("resampled shape %d, %v, %d", out.Len(), out.Weights, out.Chains)
		}
		count := make([]int, m)
		for _, v := range out.Theta {
			count[int(v)]++
		}
		for i := range m {
			w := 1.0
			if d.Weights != nil {
				w = d.Weights[i]
			}
			e := float64(n) * w / total
			if float64(count[i]) < math.Floor(e)-1e-9 || float64(count[i]) > math.Ceil(e)+1e-9 {
				t.Fatalf("trial %d: draw %d (n·w = %v) appears %d times", trial, i, e, count[i])
			}
			if w == 0 && count[i] > 0 {
				t.Fatalf("zero-weight draw %d resampled", i)
			}
		}
	}
	d := &Draws{Dim: 1, Theta: []float64{1, 2}}
	if _, err := d.Resample(nil, 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil rand: %v", err)
	}
	if _, err := d.Resample(r, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("n = 0: %v", err)
	}
}

func TestDrawsMap(t *testing.T) {
	d := &Draws{Dim: 2, Names: []string{"beta", "gamma"}, Theta: []float64{1, 2, 3, 4, 6, 2}, Weights: []float64{1, 1, 2}}
	r0, err := d.Map([]string{"R0"}, func(th, dst []float64) { dst[0] = th[0] / th[1]; th[0] = -1 })
	if err != nil {
		t.Fatal(err)
	}
	// R0 = 0.5, 0.75, 3 with weights 0.25, 0.25, 0.5: mean 1.8125.
	if r0.Dim != 1 || r0.Len() != 3 || !near(r0.Mean()[0], 1.8125, 1e-15) || r0.Names[0] != "R0" {
		t.Errorf("Map = %+v, mean %v", r0, r0.Mean())
	}
	if d.Theta[0] != 1 {
		t.Error("Map let f modify the draws")
	}
	for _, names := range [][]string{nil, {""}, {"a", "a"}} {
		if _, err := d.Map(names, func(th, dst []float64) {}); !errors.Is(err, ErrInvalid) {
			t.Errorf("names %q: %v", names, err)
		}
	}
	if _, err := d.Map([]string{"x"}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil f: %v", err)
	}
}
