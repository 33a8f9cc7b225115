package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSynth checks the pooled result against the rule's closed form
// (T = W̄ + B/m, ν = (m−1)(1 + mW̄/B)²) and the validity of its interval:
// over independent releases the pooled 95% interval must cover the true
// proportion at least at the nominal rate, less the one-sided 99.9%
// binomial margin (a false alarm once in a thousand runs). The rule is
// conservative here (the intervals cover in nearly every release), so only
// under-coverage is an error.
func TestSynth(t *testing.T) {
	skipShort(t)
	res, err := pooledProportion(rand.New(rand.NewPCG(1, 5)), 1000, 0.4)
	if err != nil {
		t.Fatal(err)
	}
	m := float64(res.M)
	if math.Abs(res.Var-(res.Within+res.Between/m)) > 1e-15 || math.Abs(res.DF-(m-1)*math.Pow(1+m*res.Within/res.Between, 2)) > 1e-9*res.DF {
		t.Errorf("pooled result %+v does not follow the DP-synthesis rule", res)
	}
	reps := 100
	covered := 0
	r := newTestRand()
	for range reps {
		res, err := pooledProportion(r, 1000, 0.4)
		if err != nil {
			t.Fatal(err)
		}
		if lo, hi, _ := res.Interval(0.95); lo <= 0.4 && 0.4 <= hi {
			covered++
		}
	}
	// Normal approximation of the binomial margin, z = 3.09 for 99.9%.
	margin := 3.09 * math.Sqrt(0.95*0.05/float64(reps))
	if f := float64(covered) / float64(reps); f < 0.95-margin {
		t.Errorf("coverage %.3f over %d releases, below 0.95 − %.3f", f, reps, margin)
	}
}

func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(11, 12)) }

// skipShort skips a test that takes seconds in the short (race) run.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds: skipped with -short")
	}
}
