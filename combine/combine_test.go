package combine

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func close(a, b, rel float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// q = (1, 2, 3), u = (0.2, 0.3, 0.4): Q̄ = 2, B = 1, W̄ = 0.3, m = 3.
var hq, hu = []float64{1, 2, 3}, []float64{0.2, 0.3, 0.4}

func TestPoolHandComputed(t *testing.T) {
	lam := (4.0 / 3) / (0.3 + 4.0/3) // Rubin's λ = (1+1/m)B/T
	cases := []struct {
		rule    Rule
		opt     Options
		wantT   float64
		wantDF  float64
		comment string
	}{
		{DPSynthesis, Options{}, 0.3 + 1.0/3, 2 * 1.9 * 1.9, "T = W̄ + B/m, ν = 2(1 + 3·0.3/1)²"},
		{Rubin, Options{}, 0.3 + 4.0/3, 2 / (lam * lam), "T = W̄ + (4/3)B, ν = 2/λ²"},
		{Rubin, Options{CompleteDF: 10}, 0.3 + 4.0/3,
			func() float64 {
				old := 2 / (lam * lam)
				obs := 11.0 / 13 * 10 * (1 - lam)
				return old * obs / (old + obs)
			}(), "Barnard–Rubin with ν_com = 10"},
		{FullySynthetic, Options{}, 4.0/3 - 0.3, 2 * 0.775 * 0.775, "T = (4/3)B − W̄, ν = 2(1 − 0.9/4)²"},
		{Raab, Options{}, 5.0 / 3 * 0.3, math.Inf(1), "T = (1 + 2/3)W̄"},
		{DPSynthesis, Options{Normal: true}, 0.3 + 1.0/3, math.Inf(1), "forced normal"},
	}
	for _, c := range cases {
		r, err := Pool(c.rule, hq, hu, c.opt)
		if err != nil {
			t.Fatalf("%v: %v", c.rule, err)
		}
		if r.Mean != 2 || !close(r.Between, 1, 1e-15) || !close(r.Within, 0.3, 1e-15) {
			t.Errorf("%v: moments %v %v %v", c.rule, r.Mean, r.Between, r.Within)
		}
		if !close(r.Var, c.wantT, 1e-14) || !close(r.DF, c.wantDF, 1e-13) {
			t.Errorf("%v (%s): T=%v ν=%v, want %v %v", c.rule, c.comment, r.Var, r.DF, c.wantT, c.wantDF)
		}
	}
	// Numerical values of the df above, computed by hand.
	r, _ := Pool(Rubin, hq, hu, Options{CompleteDF: 10})
	if math.Abs(r.DF-1.02393) > 5e-5 {
		t.Errorf("Barnard–Rubin df %v, hand value 1.02393", r.DF)
	}
	r, _ = Pool(Rubin, hq, hu, Options{})
	if math.Abs(r.DF-3.00125) > 5e-5 {
		t.Errorf("Rubin df %v, hand value 3.00125", r.DF)
	}
}

func TestIntervalMpmath(t *testing.T) {
	b, err := os.ReadFile("testdata/tquant.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref []struct{ P, DF, Q float64 }
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for _, c := range ref {
		got, err := Quantile(c.P, c.DF)
		if err != nil {
			t.Fatal(err)
		}
		e := math.Abs(got-c.Q) / c.Q
		worst = math.Max(worst, e)
		if e > 1e-9 {
			t.Errorf("t quantile p=%v df=%v: %v want %v", c.P, c.DF, got, c.Q)
		}
	}
	t.Logf("max relative error of t quantiles vs mpmath: %.2g", worst)
	// Interval endpoints for the DP-synthesis hand case at 95%: ν = 7.22.
	r, _ := Pool(DPSynthesis, hq, hu, Options{})
	lo, hi, err := r.Interval(0.95)
	if err != nil {
		t.Fatal(err)
	}
	h := 2.3500960645976137 * math.Sqrt(0.3+1.0/3)
	if !close(lo, 2-h, 1e-9) || !close(hi, 2+h, 1e-9) {
		t.Errorf("interval [%v, %v], want [%v, %v]", lo, hi, 2-h, 2+h)
	}
	// Normal reference: z_{0.975}.
	r, _ = Pool(Raab, hq, hu, Options{})
	lo, hi, _ = r.Interval(0.95)
	if h := 1.959963984540054 * math.Sqrt(0.5); !close(hi-lo, 2*h, 1e-12) {
		t.Errorf("Raab interval width %v want %v", hi-lo, 2*h)
	}
}

func TestEdgeCases(t *testing.T) {
	inf := math.Inf(1)
	// B = 0.
	r, err := Pool(DPSynthesis, []float64{1, 1, 1}, []float64{0.1, 0.2, 0.3}, Options{})
	if err != nil || !close(r.Var, 0.2, 1e-15) || !math.IsInf(r.DF, 1) {
		t.Errorf("B=0 DPSynthesis: %+v %v", r, err)
	}
	r, _ = Pool(Rubin, []float64{1, 1, 1}, []float64{0.1, 0.2, 0.3}, Options{})
	if !math.IsInf(r.DF, 1) {
		t.Errorf("B=0 Rubin df %v", r.DF)
	}
	r, _ = Pool(Rubin, []float64{1, 1, 1}, []float64{0.1, 0.2, 0.3}, Options{CompleteDF: 20})
	if want := 21.0 / 23 * 20; !close(r.DF, want, 1e-14) {
		t.Errorf("B=0 Barnard–Rubin df %v want ν_obs=%v", r.DF, want)
	}
	r, _ = Pool(FullySynthetic, []float64{1, 1, 1}, []float64{0.1, 0.2, 0.3}, Options{CompleteDF: 20})
	if !r.Adjusted || !close(r.Var, 0.2, 1e-15) || r.DF != 20 {
		t.Errorf("B=0 fully synthetic adjusted: %+v", r)
	}
	// W̄ = 0.
	r, _ = Pool(DPSynthesis, hq, []float64{0, 0, 0}, Options{})
	if r.DF != 2 || !close(r.Var, 1.0/3, 1e-15) {
		t.Errorf("W=0 DPSynthesis: %+v", r)
	}
	r, _ = Pool(Rubin, hq, []float64{0, 0, 0}, Options{})
	if !close(r.DF, 2, 1e-15) {
		t.Errorf("W=0 Rubin df %v", r.DF)
	}
	r, _ = Pool(Rubin, hq, []float64{0, 0, 0}, Options{CompleteDF: 5})
	if r.DF != 0 {
		t.Errorf("W=0 Barnard–Rubin df %v, want 0", r.DF)
	}
	if _, _, err := r.Interval(0.95); !errors.Is(err, ErrNoDF) {
		t.Errorf("interval with zero df: %v", err)
	}
	// B = W̄ = 0: zero-width interval.
	r, _ = Pool(DPSynthesis, []float64{3, 3}, []float64{0, 0}, Options{})
	lo, hi, err := r.Interval(0.9)
	if err != nil || lo != 3 || hi != 3 || !math.IsInf(r.DF, 1) {
		t.Errorf("B=W=0: [%v,%v] %v %+v", lo, hi, err, r)
	}
	// m = 1.
	if _, err := Pool(DPSynthesis, []float64{1}, []float64{1}, Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("m=1 DPSynthesis: %v", err)
	}
	if r, err := Pool(Raab, []float64{1}, []float64{1}, Options{}); err != nil || r.Var != 3 {
		t.Errorf("m=1 Raab: %+v %v", r, err)
	}
	if _, err := Pool(Rubin, nil, nil, Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("m=0: %v", err)
	}
	// Infinite complete-data df equals the zero-value default.
	a, _ := Pool(Rubin, hq, hu, Options{CompleteDF: inf})
	b, _ := Pool(Rubin, hq, hu, Options{})
	if a != b {
		t.Errorf("CompleteDF=Inf %+v differs from default %+v", a, b)
	}
	// Negative fully-synthetic variance.
	q, u := []float64{1, 1.1, 0.9}, []float64{1, 1, 1}
	r, _ = Pool(FullySynthetic, q, u, Options{NoAdjust: true})
	if want := 4.0/3*0.01 - 1; !close(r.Var, want, 1e-12) || r.Adjusted {
		t.Errorf("unadjusted negative T: %+v", r)
	}
	if _, _, err := r.Interval(0.95); !errors.Is(err, ErrNegativeVariance) {
		t.Errorf("negative variance interval: %v", err)
	}
	if !math.IsNaN(r.SE()) {
		t.Errorf("SE of negative variance %v", r.SE())
	}
	r, _ = Pool(FullySynthetic, q, u, Options{SynthRatio: 2})
	if !r.Adjusted || r.Var != 2 || !math.IsInf(r.DF, 1) {
		t.Errorf("adjusted with ratio 2: %+v", r)
	}
	// NaN and friends.
	bad := []struct{ q, u []float64 }{
		{[]float64{1, math.NaN()}, []float64{1, 1}},
		{[]float64{1, inf}, []float64{1, 1}},
		{[]float64{1, 2}, []float64{1, math.NaN()}},
		{[]float64{1, 2}, []float64{1, -1}},
		{[]float64{1, 2}, []float64{1, inf}},
		{[]float64{1, 2}, []float64{1}},
	}
	for _, c := range bad {
		for rule := DPSynthesis; rule <= Raab; rule++ {
			if _, err := Pool(rule, c.q, c.u, Options{}); !errors.Is(err, ErrInvalid) {
				t.Errorf("%v %v %v: err %v", rule, c.q, c.u, err)
			}
		}
	}
	for _, o := range []Options{{CompleteDF: -1}, {CompleteDF: math.NaN()}, {SynthRatio: -1}} {
		if _, err := Pool(Rubin, hq, hu, o); !errors.Is(err, ErrInvalid) {
			t.Errorf("options %+v: %v", o, err)
		}
	}
	if _, err := Pool(Rule(9), hq, hu, Options{}); err == nil {
		t.Error("unknown rule accepted")
	}
	if _, _, err := (Result{Var: 1, DF: 3}).Interval(1); err == nil {
		t.Error("level 1 accepted")
	}
}

// TestMice compares Pool against mice::pool.scalar (testdata/gen_mice.R).
// mice clamps Rubin's λ below at 1e-4 before computing the df; we use the
// exact formula, so the df is compared only where λ ≥ 1e-4.
func TestMice(t *testing.T) {
	f, err := os.Open("testdata/mice_pool_scalar.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	parse := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	list := func(s string) []float64 {
		var out []float64
		for _, p := range strings.Split(s, ";") {
			out = append(out, parse(p))
		}
		return out
	}
	var maxAbs, maxRelDF float64
	n := 0
	for _, row := range rows[1:] {
		rule := Rubin
		if row[1] == "reiter2003" {
			rule = DPSynthesis
		}
		nobs, k := parse(row[3]), parse(row[4])
		opt := Options{CompleteDF: nobs - k}
		q, u := list(row[5]), list(row[6])
		r, err := Pool(rule, q, u, opt)
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{parse(row[7]), parse(row[8]), parse(row[9]), parse(row[10])}
		got := []float64{r.Mean, r.Within, r.Between, r.Var}
		for i := range want {
			d := math.Abs(got[i] - want[i])
			maxAbs = math.Max(maxAbs, d)
			if d > 1e-12*math.Max(1, math.Abs(want[i])) {
				t.Errorf("case %s %s n=%v: field %d = %v, mice %v", row[0], row[1], nobs, i, got[i], want[i])
			}
		}
		lam := (1 + 1/float64(len(q))) * r.Between / r.Var
		if rule == Rubin && lam < 1e-4 {
			continue
		}
		dfm := parse(row[11])
		e := math.Abs(r.DF-dfm) / dfm
		maxRelDF = math.Max(maxRelDF, e)
		if e > 1e-12 {
			t.Errorf("case %s %s n=%v: df %v, mice %v", row[0], row[1], nobs, r.DF, dfm)
		}
		n++
	}
	if n < 40 {
		t.Fatalf("only %d rows compared", n)
	}
	t.Logf("mice agreement over %d rows: max abs diff (qbar,ubar,b,t) %.3g, max rel diff df %.3g", n, maxAbs, maxRelDF)
}

func TestPoolVector(t *testing.T) {
	q := [][]float64{{1, 10}, {2, 12}, {3, 11}}
	u := [][]float64{{0.2, 0.05, 0.05, 1}, {0.3, 0.02, 0.02, 2}, {0.4, -0.01, -0.01, 3}}
	for rule := DPSynthesis; rule <= Raab; rule++ {
		v, err := PoolVector(rule, q, u, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Between covariance of the columns: var(1,2,3)=1, var(10,12,11)=1,
		// cov = ((−1)(−1) + 0·1 + 1·0)/2 = 0.5.
		if !close(v.Between[0], 1, 1e-15) || !close(v.Between[1], 0.5, 1e-15) || !close(v.Between[3], 1, 1e-15) {
			t.Errorf("between %v", v.Between)
		}
		if !close(v.Within[1], 0.02, 1e-15) || !close(v.Within[3], 2, 1e-15) {
			t.Errorf("within %v", v.Within)
		}
		for i := range 2 {
			c, err := v.Component(i)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := Pool(rule, []float64{q[0][i], q[1][i], q[2][i]}, []float64{u[0][3*i], u[1][3*i], u[2][3*i]}, Options{})
			if !close(c.Var, s.Var, 1e-14) || !close(c.DF, s.DF, 1e-13) || c.Mean != s.Mean {
				t.Errorf("%v component %d: %+v vs scalar %+v", rule, i, c, s)
			}
			if rule != FullySynthetic && !close(v.Var[3*i], c.Var, 1e-14) {
				t.Errorf("%v diag %v vs %v", rule, v.Var[3*i], c.Var)
			}
		}
		if _, err := v.Component(2); err == nil {
			t.Error("component out of range accepted")
		}
	}
	if _, err := PoolVector(DPSynthesis, q, [][]float64{{1, 0, 1, 1}, u[1], u[2]}, Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("asymmetric covariance: %v", err)
	}
	if _, err := PoolVector(DPSynthesis, [][]float64{{1, 2}, {1}}, u[:2], Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("ragged: %v", err)
	}
	if _, err := PoolVector(DPSynthesis, q[:1], u[:1], Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("m=1: %v", err)
	}
}

func TestFromMomentsMatchesPool(t *testing.T) {
	for rule := DPSynthesis; rule <= Raab; rule++ {
		a, _ := Pool(rule, hq, hu, Options{CompleteDF: 7})
		b, err := FromMoments(rule, 3, a.Mean, a.Within, a.Between, Options{CompleteDF: 7})
		if err != nil || a != b {
			t.Errorf("%v: %+v vs %+v (%v)", rule, a, b, err)
		}
	}
	if _, err := FromMoments(DPSynthesis, 3, 0, -1, 1, Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative wbar: %v", err)
	}
}

func TestPValue(t *testing.T) {
	r, _ := Pool(Raab, hq, hu, Options{})
	// z = 2/√0.5 = 2.828427…; two-sided normal p = erfc(z/√2).
	p, err := r.PValue(0)
	if want := math.Erfc(2 / math.Sqrt(0.5) / math.Sqrt2); err != nil || !close(p, want, 1e-9) {
		t.Errorf("p-value %v (%v) want %v", p, err, want)
	}
	// T = 0: a point mass at the mean.
	r0 := Result{M: 2, Mean: 1, Var: 0, DF: math.Inf(1)}
	if p, err := r0.PValue(1); p != 1 || err != nil {
		t.Errorf("p-value at the mean of a point mass: %v, %v", p, err)
	}
	if p, err := r0.PValue(1.5); p != 0 || err != nil {
		t.Errorf("p-value away from a point mass: %v, %v", p, err)
	}
}

// FuzzPool pools arbitrary estimates and variances: rule's low two bits
// select the rule, the next two the number of sets (1 to 3), bit 4 the
// normal reference and bit 5 NoAdjust. Pool must return an error wrapping
// ErrInvalid, or a finite result whose mean lies within the estimates' range,
// whose variance is finite (non-negative unless FullySynthetic with
// NoAdjust) and whose interval, when it exists, is ordered around the mean.
func FuzzPool(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 0.1, 0.2, 0.3, uint8(0), 0.0)
	f.Add(1.0, 1.0, 1.0, 0.0, 0.0, 0.0, uint8(2), 5.0)
	f.Add(math.NaN(), 1.0, 1.0, -1.0, 0.0, 0.0, uint8(1), 5.0)
	f.Add(1e308, -1e308, 1e308, 1e308, 1e308, 5e-324, uint8(0x09), 0.0)
	f.Add(5e-324, -5e-324, 0.0, 5e-324, 0.0, 1e-310, uint8(0x2e), 1e-300)
	f.Add(1.0, 2.0, 3.0, math.Inf(1), 0.2, 0.3, uint8(0x1b), math.Inf(1))
	f.Fuzz(func(t *testing.T, q1, q2, q3, u1, u2, u3 float64, rule uint8, dfcom float64) {
		m := 1 + int(rule>>2&3)%3
		q, u := []float64{q1, q2, q3}[:m], []float64{u1, u2, u3}[:m]
		opt := Options{CompleteDF: dfcom, Normal: rule&0x10 != 0, NoAdjust: rule&0x20 != 0}
		rl := Rule(rule % 4)
		r, err := Pool(rl, q, u, opt)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		lo, hi := slices.Min(q), slices.Max(q)
		if !(r.Mean >= lo && r.Mean <= hi) {
			t.Fatalf("mean %v outside the estimates' range [%v, %v]", r.Mean, lo, hi)
		}
		if math.IsNaN(r.Var) || math.IsInf(r.Var, 0) || math.IsNaN(r.DF) || r.DF < 0 || r.M != m {
			t.Fatalf("bad result %+v", r)
		}
		if r.Var < 0 && !(rl == FullySynthetic && opt.NoAdjust) {
			t.Fatalf("negative variance %+v", r)
		}
		if a, b, err := r.Interval(0.95); err == nil && !(a <= r.Mean && r.Mean <= b) {
			t.Fatalf("interval [%v, %v] for %+v", a, b, r)
		}
	})
}

func BenchmarkFromMoments(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r, _ := FromMoments(DPSynthesis, 10, 1, 0.2, 0.5, Options{})
		_, _, _ = r.Interval(0.95)
	}
}

func BenchmarkPool(b *testing.B) {
	q := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, _ = Pool(Rubin, q, q, Options{CompleteDF: 50})
	}
}
