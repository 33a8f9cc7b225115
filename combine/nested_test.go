package combine

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// Two nests of two sets: q = (1, 3 | 4, 6), every u = 0.5. Nest means 2
// and 5, grand mean 3.5; B_M = 1.5² + 1.5² = 4.5; B_W = (1 + 1 + 1 + 1)/2
// = 2; b1 = 4.5 − 2/2 = 3.5, b2 = 2; T = 0.5 + 4.5/2 = 2.75; ν = (1 +
// 2·0.5/4.5)² = (11/9)².
func TestPoolNestedHand(t *testing.T) {
	r, err := PoolNested(2, []float64{1, 3, 4, 6}, []float64{0.5, 0.5, 0.5, 0.5}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{
		"mean": {r.Mean, 3.5}, "W̄": {r.Within, 0.5}, "B_M": {r.Between, 4.5}, "B_W": {r.WithinNest, 2},
		"b1": {r.Sanitization, 3.5}, "b2": {r.Synthesis, 2}, "T": {r.Var, 2.75}, "ν": {r.DF, 121.0 / 81},
		"share": {r.SanitizationShare(), 1.75 / 2.75},
	}
	for k, v := range want {
		if !close(v[0], v[1], 1e-14) {
			t.Errorf("%s = %v, want %v", k, v[0], v[1])
		}
	}
	if r.M != 2 || r.T != 2 || r.Rule != DPSynthesis {
		t.Errorf("M=%d T=%d rule %v", r.M, r.T, r.Rule)
	}
	lo, hi, err := r.Interval(0.95)
	if err != nil {
		t.Fatal(err)
	}
	q975, err := Quantile(0.975, 121.0/81)
	if err != nil {
		t.Fatal(err)
	}
	if h := q975 * math.Sqrt(2.75); !close(hi-3.5, h, 1e-12) || !close(3.5-lo, h, 1e-12) {
		t.Errorf("interval [%v, %v], half-width %v", lo, hi, h)
	}
	// Identical sets within each nest: no synthesis component, the
	// between-nest variance is all sanitization.
	r, _ = PoolNested(3, []float64{1, 1, 1, 2, 2, 2, 6, 6, 6}, make([]float64, 9), Options{Normal: true})
	if r.Synthesis != 0 || !close(r.Sanitization, 7, 1e-14) || !close(r.Var, 7.0/3, 1e-14) || !math.IsInf(r.DF, 1) {
		t.Errorf("no within-nest spread: %+v", r)
	}
	// Equal nest means: B_M = 0, T = W̄, ν = +Inf, and the estimate of b1
	// is −B_W/t < 0, which the share clips to 0.
	r, _ = PoolNested(2, []float64{0, 2, 2, 0}, []float64{1, 1, 1, 1}, Options{})
	if r.Between != 0 || r.Var != 1 || !math.IsInf(r.DF, 1) || r.Sanitization != -1 || r.SanitizationShare() != 0 {
		t.Errorf("equal nest means: %+v share %v", r, r.SanitizationShare())
	}
}

// TestPoolNestedComponents draws q_ik = a_i + e_ik with known
// sanitization and synthesis variances and checks that the two component
// estimates and T are unbiased: over 20 000 replications of m = 4 nests of
// t = 3 their means lie within 4 Monte Carlo standard errors of σ_a²,
// σ_e² and Var(Q̄) = σ_a²/m + σ_e²/(mt).
func TestPoolNestedComponents(t *testing.T) {
	const reps, m, tt = 20000, 4, 3
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ sa, se float64 }{{1, 0.25}, {0.2, 2}, {0, 1}} {
		q, u := make([]float64, m*tt), make([]float64, m*tt)
		var s1, s2, sT, ss1, ss2, ssT float64
		for range reps {
			for i := range m {
				a := c.sa * r.NormFloat64()
				for k := range tt {
					q[i*tt+k] = a + c.se*r.NormFloat64()
				}
			}
			res, err := PoolNested(tt, q, u, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s1, ss1 = s1+res.Sanitization, ss1+res.Sanitization*res.Sanitization
			s2, ss2 = s2+res.Synthesis, ss2+res.Synthesis*res.Synthesis
			sT, ssT = sT+res.Var, ssT+res.Var*res.Var
		}
		check := func(name string, s, ss, want float64) {
			mean := s / reps
			se := math.Sqrt((ss/reps - mean*mean) / reps)
			if math.Abs(mean-want) > 4*se+1e-12 {
				t.Errorf("σa=%v σe=%v: mean %s %v, want %v (se %v)", c.sa, c.se, name, mean, want, se)
			}
		}
		check("b1", s1, ss1, c.sa*c.sa)
		check("b2", s2, ss2, c.se*c.se)
		check("T", sT, ssT, c.sa*c.sa/m+c.se*c.se/(m*tt))
	}
}

func TestPoolNestedBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	q, u := []float64{1, 2, 3, 4}, []float64{1, 1, 1, 1}
	cases := []struct {
		name string
		t    int
		q, u []float64
		opt  Options
		few  bool
	}{
		{"t 1", 1, q, u, Options{}, true},
		{"t 0", 0, q, u, Options{}, true},
		{"t -2", -2, q, u, Options{}, true},
		{"one nest", 4, q, u, Options{}, true},
		{"empty", 2, nil, nil, Options{}, true},
		{"not a multiple of t", 3, q, u, Options{}, false},
		{"mismatched", 2, q, u[:3], Options{}, false},
		{"NaN estimate", 2, []float64{1, nan, 3, 4}, u, Options{}, false},
		{"Inf estimate", 2, []float64{1, 2, 3, -inf}, u, Options{}, false},
		{"negative variance", 2, q, []float64{1, -1, 1, 1}, Options{}, false},
		{"NaN variance", 2, q, []float64{1, 1, nan, 1}, Options{}, false},
		{"CompleteDF", 2, q, u, Options{CompleteDF: 5}, false},
		{"NoAdjust", 2, q, u, Options{NoAdjust: true}, false},
		{"SynthRatio NaN", 2, q, u, Options{SynthRatio: nan}, false},
		{"overflow", 2, []float64{1e308, -1e308, 1e308, -1e308}, u, Options{}, false},
	}
	for _, c := range cases {
		_, err := PoolNested(c.t, c.q, c.u, c.opt)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", c.name, err)
		}
		if c.few && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", c.name, err)
		}
	}
	if s := (NestedResult{}).SanitizationShare(); !math.IsNaN(s) {
		t.Errorf("zero value share %v", s)
	}
}
