package synth

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/combine"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// TestPredictiveUrnMoments checks Synthesize against the closed-form
// Dirichlet–multinomial moments of the Pólya urn: with A = Σ(α + c_k) and
// p_k = (α + c_k)/A, the count of cell k in n synthetic records has mean
// n·p_k and variance n·p_k(1 − p_k)(n + A)/(1 + A). Over 20 000 sets the
// sample mean must lie within 4.5 standard errors and the sample variance
// within 6% (its relative standard error is about 1.1%); false-alarm rate
// below 1e-4 per check.
func TestPredictiveUrnMoments(t *testing.T) {
	const sets, n = 20000, 50
	g, _ := NewGrid([]float64{0}, []float64{4}, []int{4})
	ps := &PredictiveSSS{Grid: g, Alpha: 0.5}
	theta := []float64{0, 3.25, 10, 1.5}
	A := 0.0
	for _, c := range theta {
		A += 0.5 + c
	}
	r := rand.New(rand.NewPCG(21, 22))
	dst := make([]float64, n)
	var s, ss [4]float64
	for range sets {
		if err := ps.Synthesize(r, theta, dst); err != nil {
			t.Fatal(err)
		}
		var cnt [4]float64
		for _, v := range dst {
			if v < 0 || v > 4 {
				t.Fatalf("record %v outside the grid", v)
			}
			cnt[g.Locate([]float64{v})]++
		}
		for k := range cnt {
			s[k] += cnt[k]
			ss[k] += cnt[k] * cnt[k]
		}
	}
	for k, c := range theta {
		p := (0.5 + c) / A
		mean, v := n*p, n*p*(1-p)*(n+A)/(1+A)
		gm := s[k] / sets
		gv := (ss[k] - sets*gm*gm) / (sets - 1)
		if math.Abs(gm-mean) > 4.5*math.Sqrt(v/sets) {
			t.Errorf("cell %d: mean count %v, urn %v", k, gm, mean)
		}
		if math.Abs(gv/v-1) > 0.06 {
			t.Errorf("cell %d: count variance %v, urn %v", k, gv, v)
		}
	}
}

// TestPredictiveCoverage pools the sample means of m = 5 predictive
// (Pólya urn) synthetic sets over 1000 data sets of n = 400 N(0, 1)
// records (grid 16 bins on [−4, 4], ε = 1; the grid's symmetry makes the
// truth 0). The Theorem-7 rule (combine.DPSynthesis) must cover within
// [0.92, 0.975] (Monte Carlo sd 0.007, so the band is about ±4 sd). As a
// control that the check can fail, the (1 + 2/m)W̄ rule (combine.Raab),
// which ignores the between-set variance, must cover at least 0.05 less on
// the same sets (the observed gap is about 0.1, the Monte Carlo sd of the
// gap about 0.01).
func TestPredictiveCoverage(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const reps, n, m = 1000, 400, 5
	g, _ := NewGrid([]float64{-4}, []float64{4}, []int{16})
	r := rand.New(rand.NewPCG(31, 1))
	x := make([]float64, n)
	q, u := make([]float64, m), make([]float64, m)
	var cover, raab int
	covers := func(rule combine.Rule) bool {
		res, err := combine.Pool(rule, q, u, combine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi, err := res.Interval(0.95)
		return err == nil && lo <= 0 && 0 <= hi
	}
	for range reps {
		for i := range x {
			x[i] = r.NormFloat64()
		}
		rel, err := Modips(context.Background(), r, Single(&PredictiveSSS{Grid: g}), x, Config{M: m, Epsilon: 1, Reproducible: true})
		if err != nil {
			t.Fatal(err)
		}
		for j, d := range rel.Sets {
			mu, ss := 0.0, 0.0
			for _, v := range d {
				mu += v
			}
			mu /= n
			for _, v := range d {
				ss += (v - mu) * (v - mu)
			}
			q[j], u[j] = mu, ss/(n-1)/n
		}
		if covers(combine.DPSynthesis) {
			cover++
		}
		if covers(combine.Raab) {
			raab++
		}
	}
	cp, cpRaab := float64(cover)/reps, float64(raab)/reps
	t.Logf("coverage: Theorem 7 %.3f, (1+2/m)W̄ %.3f", cp, cpRaab)
	if cp < 0.92 || cp > 0.975 {
		t.Errorf("Theorem-7 coverage %.3f outside [0.92, 0.975]", cp)
	}
	if cpRaab > cp-0.05 {
		t.Errorf("control: (1+2/m)W̄ covers %.3f", cpRaab)
	}
}

func TestPredictiveBadInput(t *testing.T) {
	g, _ := NewGrid([]float64{0}, []float64{1}, []int{2})
	r := rand.New(rand.NewPCG(1, 1))
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 10})
	rl := Releaser{Accountant: acct, Reproducible: true}
	ok := &PredictiveSSS{Grid: g}
	x := []float64{0.2, 0.7}
	cases := map[string]func() error{
		"nil model":      func() error { _, err := (*PredictiveSSS)(nil).Sanitize(r, x, 1, rl); return err },
		"nil grid":       func() error { _, err := (&PredictiveSSS{}).Sanitize(r, x, 1, rl); return err },
		"zero grid":      func() error { _, err := (&PredictiveSSS{Grid: &Grid{}}).Counts(x); return err },
		"alpha NaN":      func() error { _, err := (&PredictiveSSS{Grid: g, Alpha: math.NaN()}).Sanitize(r, x, 1, rl); return err },
		"alpha -1":       func() error { _, err := (&PredictiveSSS{Grid: g, Alpha: -1}).Sanitize(r, x, 1, rl); return err },
		"alpha +Inf":     func() error { _, err := (&PredictiveSSS{Grid: g, Alpha: math.Inf(1)}).Mechanism(1); return err },
		"eps 0":          func() error { _, err := ok.Sanitize(r, x, 0, rl); return err },
		"eps NaN":        func() error { _, err := ok.Sanitize(r, x, math.NaN(), rl); return err },
		"empty data":     func() error { _, err := ok.Sanitize(r, nil, 1, rl); return err },
		"NaN record":     func() error { _, err := ok.Sanitize(r, []float64{math.NaN()}, 1, rl); return err },
		"Inf record":     func() error { _, err := ok.Counts([]float64{0, math.Inf(-1)}); return err },
		"no accountant":  func() error { _, err := ok.Sanitize(r, x, 1, Releaser{}); return err },
		"theta length":   func() error { return ok.Synthesize(r, []float64{1}, make([]float64, 3)) },
		"theta negative": func() error { return ok.Synthesize(r, []float64{1, -1}, make([]float64, 3)) },
		"theta NaN":      func() error { return ok.Synthesize(r, []float64{1, math.NaN()}, make([]float64, 3)) },
		"theta Inf":      func() error { return ok.Synthesize(r, []float64{1, math.Inf(1)}, make([]float64, 3)) },
		"nil synthesize": func() error { return (*PredictiveSSS)(nil).Synthesize(r, []float64{1, 1}, make([]float64, 3)) },
	}
	for name, f := range cases {
		if err := f(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", name, err)
		}
	}
	if (*PredictiveSSS)(nil).RecordDim() != 0 || (&PredictiveSSS{}).RecordDim() != 0 {
		t.Error("record dimension of an empty model")
	}
	// The zero statistic (everything sanitized away) still synthesizes
	// from the prior.
	if err := ok.Synthesize(r, []float64{0, 0}, make([]float64, 3)); err != nil {
		t.Error(err)
	}
}
