package combine_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/combine"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/synth"
)

// nestedSetting is one nested-modips simulation setting: binary data
// (Beta(1, 1)–Bernoulli, truth p) or N(0, 1) data bounded to [−4, 4]
// (known-σ Gaussian mean), n records, budget eps, m nests of t sets.
type nestedSetting struct {
	name   string
	binary bool
	p      float64
	n      int
	eps    float64
	m, t   int
	// b1 is the sanitization variance of the nest means' estimand: the
	// variance 2(Δ·m/ε)² of the Laplace noise on the mean (bounding is
	// negligible in these settings).
	b1 float64
}

// TestNestedCoverage runs nested modips (synth.Config.Nested) on fresh
// data 2000 times in each of four settings and pools each release with
// PoolNested. The nominal 95% interval must cover the truth with
// frequency in [0.93, 0.97] (the Monte Carlo sd at 2000 repetitions is
// 0.0049, so the band is ±4 sd: false-alarm rate about 6e-5 per setting).
// The mean sanitization estimate must match the Laplace noise variance
// 2(Δm/ε)² within 5 Monte Carlo standard errors. As a control, pooling the
// same m·t sets as if they were independent (Pool, DPSynthesis) must
// under-cover by at least 0.05 where sanitization dominates, which shows
// the check can fail.
func TestNestedCoverage(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const reps = 2000
	settings := []nestedSetting{
		{name: "binary p=0.5 n=200 ε=1", binary: true, p: 0.5, n: 200, eps: 1, m: 5, t: 4},
		{name: "binary p=0.3 n=500 ε=0.5", binary: true, p: 0.3, n: 500, eps: 0.5, m: 4, t: 3},
		{name: "gaussian n=100 ε=1", n: 100, eps: 1, m: 5, t: 4},
		{name: "gaussian n=400 ε=5", n: 400, eps: 5, m: 3, t: 5},
	}
	for k, s := range settings {
		var model synth.Model
		var delta float64
		if s.binary {
			bb, _ := synth.NewBetaBernoulli(synth.BetaBernoulliConfig{Alpha: 1, Beta: 1})
			model, _ = synth.NewSSS(bb, nil, synth.BIT)
			delta = 1 / float64(s.n)
		} else {
			gm, _ := synth.NewGaussianMean(synth.GaussianMeanConfig{Sigma: 1, Lo: -4, Hi: 4, RecordBounding: synth.BIT})
			model, _ = synth.NewSSS(gm, nil, synth.BIT)
			delta = 8 / float64(s.n)
		}
		b1 := 2 * math.Pow(delta*float64(s.m)/s.eps, 2)
		r := rand.New(rand.NewPCG(uint64(100+k), 3))
		x := make([]float64, s.n)
		q := make([]float64, s.m*s.t)
		u := make([]float64, s.m*s.t)
		var cover, naive int
		var sb, ssb float64
		for range reps {
			for i := range x {
				if s.binary {
					x[i] = 0
					if r.Float64() < s.p {
						x[i] = 1
					}
				} else {
					x[i] = math.Max(-4, math.Min(4, r.NormFloat64()))
				}
			}
			rel, err := synth.Modips(context.Background(), r, synth.Single(model), x,
				synth.Config{M: s.m, Nested: s.t, Epsilon: s.eps, Reproducible: true})
			if err != nil {
				t.Fatal(err)
			}
			for j, d := range rel.Sets {
				q[j], u[j] = meanAndVar(d, s.binary)
			}
			res, err := combine.PoolNested(s.t, q, u, combine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			truth := 0.0
			if s.binary {
				truth = s.p
			}
			if lo, hi, err := res.Interval(0.95); err == nil && lo <= truth && truth <= hi {
				cover++
			}
			flat, err := combine.Pool(combine.DPSynthesis, q, u, combine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if lo, hi, err := flat.Interval(0.95); err == nil && lo <= truth && truth <= hi {
				naive++
			}
			sb += res.Sanitization
			ssb += res.Sanitization * res.Sanitization
		}
		cp, cpNaive := float64(cover)/reps, float64(naive)/reps
		mb := sb / reps
		seb := math.Sqrt((ssb/reps - mb*mb) / reps)
		t.Logf("%-26s m=%d t=%d: coverage %.4f (flat pooling %.4f); sanitization variance %.3g ± %.2g (Laplace %.3g)", s.name, s.m, s.t, cp, cpNaive, mb, seb, b1)
		if cp < 0.93 || cp > 0.97 {
			t.Errorf("%s: nested coverage %.4f outside [0.93, 0.97]", s.name, cp)
		}
		if math.Abs(mb-b1) > 5*seb {
			t.Errorf("%s: mean sanitization estimate %v, Laplace variance %v (se %v)", s.name, mb, b1, seb)
		}
		if k == 2 && cpNaive > cp-0.05 {
			t.Errorf("%s: flat pooling covers %.4f, not clearly below the nested %.4f", s.name, cpNaive, cp)
		}
	}
}

// meanAndVar returns the sample mean of d and its variance estimate:
// p̂(1−p̂)/n for binary data, s²/n otherwise.
func meanAndVar(d []float64, binary bool) (q, u float64) {
	n := float64(len(d))
	for _, v := range d {
		q += v
	}
	q /= n
	if binary {
		return q, q * (1 - q) / n
	}
	for _, v := range d {
		u += (v - q) * (v - q)
	}
	return q, u / (n - 1) / n
}
