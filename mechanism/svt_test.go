package mechanism

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

func TestSVTBudgets(t *testing.T) {
	at, _ := NewAboveThreshold(AboveThresholdConfig{Threshold: 0, Sensitivity: 0.5, Epsilon: 2})
	if math.Abs(at.Budget().Epsilon-2) > 1e-15 {
		t.Errorf("AboveThreshold budget %v", at.Budget())
	}
	sp, _ := NewSparse(SparseConfig{Threshold: 0, Sensitivity: 0.5, Epsilon: 2, C: 5})
	if math.Abs(sp.Budget().Epsilon-2) > 1e-15 || !sp.Config().Resample {
		t.Errorf("Sparse budget %v", sp.Budget())
	}
	// ABCDP Thm. 4.1: ε = 2cΔ/b (RESAMPLE) and (c+1)Δ/b (no RESAMPLE).
	dRho, _ := MMDSensitivity(1, 100) // 2/N
	if dRho != 0.02 {
		t.Fatalf("MMD sensitivity %v", dRho)
	}
	for _, resample := range []bool{true, false} {
		// ABCDP's calibration (abc.NoiseScale) for ε = 1, c = 10.
		b := 2 * 10 * dRho / 1
		if !resample {
			b = 11 * dRho / 1
		}
		v, err := NewSparseVector(SVTConfig{Threshold: 0.1, Sensitivity: dRho, ThresholdScale: b, QueryScale: 2 * b, MaxAbove: 10, Resample: resample, Below: true})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(v.Budget().Epsilon-1) > 1e-12 {
			t.Errorf("resample=%v: session budget %v, want 1", resample, v.Budget())
		}
	}
}

func TestSVTBehaviour(t *testing.T) {
	// Tiny noise: answers follow the exact comparisons.
	v, _ := NewSparseVector(SVTConfig{Threshold: 5, Sensitivity: 1, ThresholdScale: 1e-6, QueryScale: 2e-6, MaxAbove: 2})
	q := []float64{1, 9, 2, 8, 7, 1}
	dst := make([]float64, len(q))
	if err := Reproducible(v).Release(newRand(1), q, dst); err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 1, 0, 1}
	for i, w := range want {
		if dst[i] != w {
			t.Fatalf("answers %v, want prefix %v", dst, want)
		}
	}
	if !math.IsNaN(dst[4]) || !math.IsNaN(dst[5]) {
		t.Errorf("answers after halting must be NaN: %v", dst)
	}
	// Below mode (ABC: accept small distances).
	vb, _ := NewSparseVector(SVTConfig{Threshold: 5, Sensitivity: 1, ThresholdScale: 1e-6, QueryScale: 2e-6, MaxAbove: 1, Below: true})
	sess := vb.StartReproducible(newRand(2))
	for i, x := range []float64{9, 8, 3} {
		above, err := sess.Test(x)
		if err != nil {
			t.Fatal(err)
		}
		if above != (i == 2) {
			t.Errorf("query %v: %v", x, above)
		}
	}
	if _, err := sess.Test(1); !errors.Is(err, ErrSVTHalted) {
		t.Errorf("after c answers: %v", err)
	}
	if sess.Count() != 1 || sess.Tested() != 3 || !sess.Halted() {
		t.Errorf("session counters %d %d %v", sess.Count(), sess.Tested(), sess.Halted())
	}
	s2 := vb.StartReproducible(newRand(3))
	if _, err := s2.Test(math.NaN()); !errors.Is(err, ErrInvalid) {
		t.Errorf("NaN query: %v", err)
	}
}

// TestSVTLaw: for one query q, P(⊤) = P(ν − ρ ≥ T − q) with ν ~ Lap(b2),
// ρ ~ Lap(b1); the sum of independent Laplace variables has survival
// function (b2² e^{−z/b2} − b1² e^{−z/b1}) / (2(b2² − b1²)) for z ≥ 0
// (ABCDP Lemma 4.2 form). Checked with a Clopper–Pearson interval at 1e-3.
func TestSVTLaw(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	b1, b2 := 0.7, 1.4
	v, _ := NewSparseVector(SVTConfig{Threshold: 2, Sensitivity: 1, ThresholdScale: b1, QueryScale: b2, MaxAbove: 1})
	for _, q := range []float64{2, 1.2, -1} {
		z := 2 - q
		p := (b2*b2*math.Exp(-z/b2) - b1*b1*math.Exp(-z/b1)) / (2 * (b2*b2 - b1*b1))
		const n = 100000
		r := newRand(uint64(10 + q*10))
		var k int64
		var s SVTSession
		for i := 0; i < n; i++ {
			v.StartReproducibleInto(r, &s)
			if above, _ := s.Test(q); above {
				k++
			}
		}
		lo, hi := clopperPearson(k, n, lawAlpha)
		if p < lo || p > hi {
			t.Errorf("q=%v: P(⊤) = %v outside CP [%v, %v] (k=%d)", q, p, lo, hi, k)
		}
	}
}

// svtCase is one bad-input case of the sparse vector: a category (nan, inf,
// nonpositive, huge, subnormal, empty, mismatched, nil, zerovalue) and a
// call that must return an error wrapping ErrInvalid, without
// panicking.
type svtCase struct {
	cat, name string
	call      func() error
}

func svtCases() []svtCase {
	ok := SVTConfig{Threshold: 0.5, Sensitivity: 1, ThresholdScale: 1, QueryScale: 2, MaxAbove: 2}
	with := func(f func(*SVTConfig)) func() error {
		return func() error {
			c := ok
			f(&c)
			_, err := NewSparseVector(c)
			return err
		}
	}
	good, _ := NewSparseVector(ok)
	bounded, _ := NewSparseVector(SVTConfig{Threshold: 0.5, ThresholdScale: 1, QueryScale: 2, MaxAbove: 1, Lower: 0, Upper: 1})
	test := func(v *SparseVector, r *rand.Rand, q float64) func() error {
		return func() error {
			_, err := v.StartReproducible(r).Test(q)
			return err
		}
	}
	release := func(v *SparseVector, r *rand.Rand, s, dst []float64) func() error {
		return func() error { return v.Release(r, s, dst) }
	}
	second := func(_ *SparseVector, err error) error { return err }
	var cases []svtCase
	add := func(cat, name string, f func() error) { cases = append(cases, svtCase{cat, name, f}) }
	nan, inf, sub, huge := math.NaN(), math.Inf(1), 5e-324, 1e308
	for _, f := range []struct {
		name string
		set  func(*SVTConfig, float64)
	}{
		{"threshold", func(c *SVTConfig, v float64) { c.Threshold = v }},
		{"sensitivity", func(c *SVTConfig, v float64) { c.Sensitivity = v }},
		{"threshold scale", func(c *SVTConfig, v float64) { c.ThresholdScale = v }},
		{"query scale", func(c *SVTConfig, v float64) { c.QueryScale = v }},
		{"lower", func(c *SVTConfig, v float64) { c.Lower, c.Upper = v, 1 }},
		{"upper", func(c *SVTConfig, v float64) { c.Lower, c.Upper = -1, v }},
	} {
		set := f.set
		add("nan", f.name+" NaN", with(func(c *SVTConfig) { set(c, nan) }))
		add("inf", f.name+" +Inf", with(func(c *SVTConfig) { set(c, inf) }))
		add("inf", f.name+" -Inf", with(func(c *SVTConfig) { set(c, -inf) }))
		add("huge", f.name+" 1e308", with(func(c *SVTConfig) { set(c, huge) }))
		if f.name != "threshold" && f.name != "lower" && f.name != "upper" {
			add("nonpositive", f.name+" 0", with(func(c *SVTConfig) { set(c, 0) }))
			add("nonpositive", f.name+" -1", with(func(c *SVTConfig) { set(c, -1) }))
			add("subnormal", f.name+" subnormal", with(func(c *SVTConfig) { set(c, sub) }))
		}
	}
	add("nonpositive", "max above 0", with(func(c *SVTConfig) { c.MaxAbove = 0 }))
	add("nonpositive", "max above -5", with(func(c *SVTConfig) { c.MaxAbove = -5 }))
	add("mismatched", "upper < lower", with(func(c *SVTConfig) { c.Lower, c.Upper = 1, -1 }))
	add("mismatched", "upper = lower", with(func(c *SVTConfig) { c.Lower, c.Upper = 1, 1 }))
	add("subnormal", "query range subnormal", with(func(c *SVTConfig) { c.Lower, c.Upper = 0, sub }))
	// Budgets that would overflow or underflow.
	add("huge", "ε overflows (Δ/b1 = 1e300/1e-300)", with(func(c *SVTConfig) { c.Sensitivity, c.ThresholdScale = 1e300, 1e-300 }))
	add("huge", "ε overflows (c = MaxInt)", with(func(c *SVTConfig) {
		c.Sensitivity, c.ThresholdScale, c.QueryScale, c.MaxAbove = 1e300, 1e-10, 1e-10, math.MaxInt
	}))
	add("subnormal", "ε underflows (Δ/b = 1e-300/1e300)", with(func(c *SVTConfig) {
		c.Sensitivity, c.ThresholdScale, c.QueryScale = 1e-300, 1e300, 1e300
	}))
	for _, e := range []float64{nan, inf, 0, -1, sub, huge} {
		add(svtCat(e), fmt.Sprintf("AboveThreshold ε %v", e), func() error {
			return second(NewAboveThreshold(AboveThresholdConfig{Threshold: 0, Sensitivity: 1, Epsilon: e}))
		})
		add(svtCat(e), fmt.Sprintf("AboveThreshold sensitivity %v", e), func() error {
			return second(NewAboveThreshold(AboveThresholdConfig{Threshold: 0, Sensitivity: e, Epsilon: 1}))
		})
		add(svtCat(e), fmt.Sprintf("Sparse ε %v", e), func() error { return second(NewSparse(SparseConfig{Threshold: 0, Sensitivity: 1, Epsilon: e, C: 3})) })
		add(svtCat(e), fmt.Sprintf("Sparse sensitivity %v", e), func() error { return second(NewSparse(SparseConfig{Threshold: 0, Sensitivity: e, Epsilon: 1, C: 3})) })
	}
	add("huge", "AboveThreshold scale overflows (Δ = 1e300, ε = 1e-10)", func() error {
		return second(NewAboveThreshold(AboveThresholdConfig{Threshold: 0, Sensitivity: 1e300, Epsilon: 1e-10}))
	})
	add("huge", "Sparse scale overflows (c = MaxInt/2)", func() error {
		return second(NewSparse(SparseConfig{Threshold: 0, Sensitivity: 1e290, Epsilon: 1, C: math.MaxInt / 2}))
	})
	add("nonpositive", "Sparse c 0", func() error { return second(NewSparse(SparseConfig{Threshold: 0, Sensitivity: 1, Epsilon: 1, C: 0})) })
	add("huge", "AboveThreshold threshold 1e308", func() error {
		return second(NewAboveThreshold(AboveThresholdConfig{Threshold: 1e308, Sensitivity: 1, Epsilon: 1}))
	})
	add("nan", "AboveThreshold threshold NaN", func() error {
		return second(NewAboveThreshold(AboveThresholdConfig{Threshold: nan, Sensitivity: 1, Epsilon: 1}))
	})
	// Sessions and releases.
	add("nil", "StartReproducible(nil rand)", test(good, nil, 0.1))
	add("nil", "StartReproducibleInto(nil rand)", func() error {
		var s SVTSession
		good.StartReproducibleInto(nil, &s)
		_, err := s.Test(0.1)
		return err
	})
	add("nil", "nil SparseVector Start", func() error { var v *SparseVector; _, err := v.Start().Test(1); return err })
	add("nil", "nil SparseVector SimulateRelease", func() error { var v *SparseVector; return v.SimulateRelease(newRand(1), []float64{1}, []float64{0}) })
	add("nil", "SimulateRelease nil rand", func() error { return good.SimulateRelease(nil, []float64{1}, []float64{0}) })
	add("zerovalue", "zero SparseVector Start", func() error { _, err := (&SparseVector{}).Start().Test(1); return err })
	add("huge", "noise scale 2^40 times the sensitivity (grid too coarse)", with(func(c *SVTConfig) { c.Sensitivity, c.ThresholdScale, c.QueryScale = 1, 0x1p40, 0x1p41 }))
	add("huge", "threshold 2^45 times the sensitivity (grid too coarse)", with(func(c *SVTConfig) { c.Threshold = 0x1p45 }))
	add("huge", "threshold 2^80 times the noise scale", with(func(c *SVTConfig) {
		c.Sensitivity, c.ThresholdScale, c.QueryScale, c.Threshold = 1e30, 1e30, 1e30, 1e54
	}))
	add("nil", "nil SparseVector", test(nil, newRand(1), 0.1))
	add("nil", "nil session", func() error { var s *SVTSession; _, err := s.Test(1); return err })
	add("zerovalue", "zero SparseVector Test", test(&SparseVector{}, newRand(1), 0.1))
	add("zerovalue", "zero SparseVector Release", release(&SparseVector{}, newRand(1), []float64{1}, []float64{0}))
	add("zerovalue", "zero SVTSession", func() error { var s SVTSession; _, err := s.Test(1); return err })
	add("zerovalue", "zero SVTConfig", func() error { _, err := NewSparseVector(SVTConfig{}); return err })
	add("nil", "Release nil SparseVector", release(nil, newRand(1), []float64{1}, []float64{0}))
	add("nan", "Test NaN query", test(good, newRand(1), nan))
	add("nan", "Test NaN query (bounded)", test(bounded, newRand(1), nan))
	add("inf", "Test +Inf query (unbounded)", test(good, newRand(1), inf))
	add("inf", "Test -Inf query (unbounded)", test(good, newRand(1), -inf))
	add("nan", "Release NaN query", release(good, newRand(1), []float64{1, nan}, []float64{0, 0}))
	add("inf", "Release Inf query", release(good, newRand(1), []float64{inf}, []float64{0}))
	add("empty", "Release no queries", release(good, newRand(1), nil, nil))
	add("empty", "Release empty dst", release(good, newRand(1), []float64{1}, nil))
	add("mismatched", "Release dst length", release(good, newRand(1), []float64{1, 2}, []float64{0}))
	return cases
}

func svtCat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 0):
		return "inf"
	case v <= 0:
		return "nonpositive"
	case v < minNormal:
		return "subnormal"
	}
	return "huge"
}

// TestSVTBudgetAlwaysFinite sweeps every constructor over extreme
// sensitivities, scales, budgets and c: each either returns an error or a
// session budget that is a positive normal finite number, and never a noise
// scale above SVTMaxMagnitude.
func TestSVTBudgetAlwaysFinite(t *testing.T) {
	vals := []float64{math.NaN(), math.Inf(-1), -1, 0, 5e-324, 1e-310, 0x1p-1022, 1e-300, 1e-10, 1, 1e10, 1e300, 1e308, math.Inf(1)}
	cs := []int{-1, 0, 1, 7, 1 << 40, math.MaxInt}
	check := func(name string, v *SparseVector, err error) {
		t.Helper()
		if err != nil {
			return
		}
		e := v.Budget().Epsilon
		cfg := v.Config()
		if !(e >= minNormal) || math.IsInf(e, 0) || !(cfg.ThresholdScale <= SVTMaxMagnitude) || !(cfg.QueryScale <= SVTMaxMagnitude) {
			t.Fatalf("%s: accepted with budget %v, scales %v %v", name, e, cfg.ThresholdScale, cfg.QueryScale)
		}
	}
	accepted := 0
	for _, d := range vals {
		for _, b1 := range vals {
			for _, b2 := range []float64{1e-300, 1, 1e300} {
				for _, c := range cs {
					for _, rs := range []bool{false, true} {
						v, err := NewSparseVector(SVTConfig{Sensitivity: d, ThresholdScale: b1, QueryScale: b2, MaxAbove: c, Resample: rs})
						check(fmt.Sprintf("config Δ=%v b1=%v b2=%v c=%d", d, b1, b2, c), v, err)
						if err == nil {
							accepted++
						}
					}
				}
			}
			v, err := NewAboveThreshold(AboveThresholdConfig{Threshold: 0, Sensitivity: d, Epsilon: b1})
			check(fmt.Sprintf("AboveThreshold Δ=%v ε=%v", d, b1), v, err)
			for _, c := range cs {
				v, err := NewSparse(SparseConfig{Threshold: 0, Sensitivity: d, Epsilon: b1, C: c})
				check(fmt.Sprintf("Sparse Δ=%v ε=%v c=%d", d, b1, c), v, err)
			}
		}
	}
	if accepted == 0 {
		t.Fatal("sweep accepted nothing")
	}
	t.Logf("%d valid configurations accepted, all with finite budgets", accepted)
}

// TestSVTClampedQueries checks the query bounds: a bounded configuration's
// sensitivity is the range width (or a smaller declared one), queries
// outside the range behave like the range ends, and ±Inf is clamped.
func TestSVTClampedQueries(t *testing.T) {
	v, err := NewSparseVector(SVTConfig{Threshold: 0.5, ThresholdScale: 1e-9, QueryScale: 2e-9, MaxAbove: 1, Lower: 0, Upper: 1, Below: true})
	if err != nil {
		t.Fatal(err)
	}
	if v.Config().Sensitivity != 1 || math.Abs(v.Budget().Epsilon-(1/1e-9+2/2e-9)) > 1e-6*v.Budget().Epsilon {
		t.Fatalf("sensitivity %v budget %v", v.Config().Sensitivity, v.Budget())
	}
	small, _ := NewSparseVector(SVTConfig{Sensitivity: 0.25, ThresholdScale: 1, QueryScale: 2, MaxAbove: 1, Lower: 0, Upper: 1})
	big, _ := NewSparseVector(SVTConfig{Sensitivity: 7, ThresholdScale: 1, QueryScale: 2, MaxAbove: 1, Lower: 0, Upper: 1})
	if small.Config().Sensitivity != 0.25 || big.Config().Sensitivity != 1 {
		t.Fatalf("declared sensitivity handling: %v %v", small.Config().Sensitivity, big.Config().Sensitivity)
	}
	for _, q := range []struct {
		q    float64
		want bool
	}{{-1e6, true}, {math.Inf(-1), true}, {0.2, true}, {0.8, false}, {1e6, false}, {math.Inf(1), false}} {
		got, err := v.StartReproducible(newRand(4)).Test(q.q)
		if err != nil || got != q.want {
			t.Errorf("query %v: %v, %v; want %v", q.q, got, err, q.want)
		}
	}
}

// TestSVTClampAudit is a privacy audit of the query bounds at extreme
// queries. With bounds [0, 1] (so Δ = 1) and ε = 1, every pair of single
// queries is a neighbouring pair; the probability of ⊤ at q = −1e6 and at
// q = 1e6 (and at 1 vs 0) must stay within a factor e^ε. The unbounded
// configuration declaring the same Δ = 1 is the deliberately mis-calibrated
// control and must be caught. Each probability is estimated from 40000
// sessions; an outcome fails when the lower 1−1e-6 Clopper–Pearson bound of
// one probability exceeds e^ε times the upper bound of the other (8
// comparisons for the sound configuration: family-wise false alarm < 1e-5).
func TestSVTClampAudit(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const n = 40000
	eps := 1.0
	mk := func(bounded bool) *SparseVector {
		cfg := SVTConfig{Threshold: 0.5, Sensitivity: 1, ThresholdScale: 2 / eps, QueryScale: 4 / eps, MaxAbove: 1, Below: true}
		if bounded {
			cfg.Lower, cfg.Upper = 0, 1
		}
		v, err := NewSparseVector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(v.Budget().Epsilon-eps) > 1e-12 {
			t.Fatalf("budget %v", v.Budget())
		}
		return v
	}
	count := func(v *SparseVector, q float64, seed uint64) int64 {
		r := newRand(seed)
		var s SVTSession
		var k int64
		for i := 0; i < n; i++ {
			v.StartReproducibleInto(r, &s)
			if ok, err := s.Test(q); err != nil {
				t.Fatal(err)
			} else if ok {
				k++
			}
		}
		return k
	}
	violated := func(v *SparseVector, qa, qb float64) (bool, float64) {
		ka, kb := count(v, qa, 71), count(v, qb, 72)
		bad := false
		worst := 0.0
		for _, pair := range [][2]int64{{ka, kb}, {kb, ka}, {n - ka, n - kb}, {n - kb, n - ka}} {
			lo, _ := clopperPearson(pair[0], n, 1e-6)
			_, hi := clopperPearson(pair[1], n, 1e-6)
			if lo > math.Exp(eps)*hi {
				bad = true
			}
			if pair[0] > 0 && pair[1] > 0 {
				worst = math.Max(worst, math.Log(float64(pair[0])/float64(pair[1])))
			}
		}
		return bad, worst
	}
	for _, pair := range [][2]float64{{-1e6, 1e6}, {0, 1}} {
		bad, worst := violated(mk(true), pair[0], pair[1])
		t.Logf("bounded [0, 1], queries %v vs %v: largest empirical log ratio %.3f (ε = %v)", pair[0], pair[1], worst, eps)
		if bad {
			t.Errorf("bounded SVT: queries %v and %v distinguishable beyond e^ε", pair[0], pair[1])
		}
	}
	bad, worst := violated(mk(false), -1e6, 1e6)
	t.Logf("unbounded control, queries -1e6 vs 1e6: largest finite empirical log ratio %.3f, violation detected %v", worst, bad)
	if !bad {
		t.Error("the audit did not catch the unbounded configuration")
	}
}

// TestSVTSessionOutputsOnlyAnswers checks that Release reports nothing but
// the answers: a fixed seed gives the same dst for queries that differ but
// fall on the same side of the noisy comparisons, so no unnoised query value
// leaks through the output.
func TestSVTSessionOutputsOnlyAnswers(t *testing.T) {
	v, _ := NewSparseVector(SVTConfig{Threshold: 0, Sensitivity: 1, ThresholdScale: 1e-9, QueryScale: 2e-9, MaxAbove: 2})
	a := make([]float64, 4)
	b := make([]float64, 4)
	rv := Reproducible(v)
	if err := rv.Release(newRand(5), []float64{-3, 2, -7, 9}, a); err != nil {
		t.Fatal(err)
	}
	if err := rv.Release(newRand(5), []float64{-30, 20, -70, 90}, b); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) || !slices.Equal(a, []float64{0, 1, 0, 1}) {
		t.Fatalf("outputs %v and %v", a, b)
	}
}

// FuzzSparseVector checks the sparse vector on arbitrary configurations and
// queries: construction either fails with ErrInvalid or yields a
// positive normal finite budget; a session never panics, answers at most
// MaxAbove ⊤ and refuses NaN queries.
func FuzzSparseVector(f *testing.F) {
	f.Add(0.5, 1.0, 1.0, 2.0, 2, false, true, 0.0, 0.0, 0.1, 0.9, math.Inf(1))
	f.Add(1e308, 5e-324, 1e-300, 1e300, 1<<40, true, false, -1.0, 1.0, math.NaN(), -1e308, 0.0)
	f.Fuzz(func(t *testing.T, thr, sens, b1, b2 float64, c int, rs, below bool, lo, hi, q1, q2, q3 float64) {
		v, err := NewSparseVector(SVTConfig{Threshold: thr, Sensitivity: sens, ThresholdScale: b1, QueryScale: b2,
			MaxAbove: c, Resample: rs, Below: below, Lower: lo, Upper: hi})
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error without the sentinel: %v", err)
			}
			return
		}
		if e := v.Budget().Epsilon; !(e >= minNormal) || math.IsInf(e, 0) {
			t.Fatalf("budget %v", e)
		}
		s := v.StartReproducible(newRand(1))
		for _, q := range []float64{q1, q2, q3} {
			_, err := s.Test(q)
			if math.IsNaN(q) && err == nil {
				t.Fatal("NaN query answered")
			}
		}
		if s.Count() > c {
			t.Fatalf("%d ⊤ answers > %d", s.Count(), c)
		}
	})
}
