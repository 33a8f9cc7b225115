package privinfer

import (
	"errors"
	"math"
	"testing"
)

// binomTail returns P(X ≥ k) for X ~ Binomial(n, p).
func binomTail(n, k int, p float64) float64 {
	s := 0.0
	for i := k; i <= n; i++ {
		lc, _ := math.Lgamma(float64(n + 1))
		l1, _ := math.Lgamma(float64(i + 1))
		l2, _ := math.Lgamma(float64(n - i + 1))
		s += math.Exp(lc - l1 - l2 + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return s
}

// TestGridConjugate checks Grid against the Beta(2, 3) prior updated by 7
// successes in 10 trials: the Beta(9, 6) posterior's mean 0.6, sd √0.015
// and CDF (I_x(9, 6) = P(Binomial(14, x) ≥ 9)).
func TestGridConjugate(t *testing.T) {
	const a, b = 9.0, 6.0
	logp := func(x []float64) float64 {
		// Beta(2,3) prior × Binomial(10, x) likelihood of 7 successes.
		return math.Log(x[0]) + 2*math.Log1p(-x[0]) + 7*math.Log(x[0]) + 3*math.Log1p(-x[0])
	}
	d, err := Grid(logp, GridConfig{Lo: []float64{0}, Hi: []float64{1}, Points: []int{2000}, Names: []string{"p"}})
	if err != nil {
		t.Fatal(err)
	}
	mean, sd := a/(a+b), math.Sqrt(a*b/((a+b)*(a+b)*(a+b+1)))
	if m := d.Mean()[0]; math.Abs(m-mean) > 1e-6 {
		t.Errorf("mean %v, exact %v", m, mean)
	}
	// SD applies the reliability-weights factor ESS/(ESS − 1); the
	// midpoint-rule integral is SD without it.
	ess := d.ESS()
	if f := ess / (ess - 1); ess < 883 || ess > 884 || f < 1.0011 || f > 1.0012 {
		t.Errorf("ESS %v, factor ESS/(ESS − 1) = %v; Grid's documentation states ESS ≈ 884, a factor 1.0011", ess, f)
	}
	if s := d.SD()[0] * math.Sqrt((ess-1)/ess); math.Abs(s-sd) > 1e-6 {
		t.Errorf("sd %v, exact %v", s, sd)
	}
	// The grid CDF is a step function of cell width 5e-4: its error is at
	// most one cell's mass, < 5e-4 · max density (≈ 3.3).
	for _, q := range []float64{0.3, 0.5, 0.6, 0.8} {
		if got, want := d.CDF(0, q), binomTail(14, 9, q); math.Abs(got-want) > 2e-3 {
			t.Errorf("CDF(%v) = %v, exact %v", q, got, want)
		}
	}
	if d.Names[0] != "p" || d.Len() != 2000 || !d.Weighted() {
		t.Errorf("names %v, %d draws, weighted %v", d.Names, d.Len(), d.Weighted())
	}
	sum := 0.0
	for _, w := range d.Weights {
		sum += w
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("weights sum to %v", sum)
	}
}

// TestGridGaussian2D checks a 2-D correlated Gaussian: mean and covariance.
func TestGridGaussian2D(t *testing.T) {
	mu := []float64{1, -2}
	s11, s12, s22 := 1.0, 0.6, 2.0
	det := s11*s22 - s12*s12
	logp := func(x []float64) float64 {
		u, v := x[0]-mu[0], x[1]-mu[1]
		return -0.5 * (s22*u*u - 2*s12*u*v + s11*v*v) / det
	}
	d, err := Grid(logp, GridConfig{Lo: []float64{mu[0] - 9, mu[1] - 13}, Hi: []float64{mu[0] + 9, mu[1] + 13}, Points: []int{300, 400}})
	if err != nil {
		t.Fatal(err)
	}
	m, c := d.Mean(), d.Cov()
	ess := d.ESS()
	for k := range c {
		c[k] *= (ess - 1) / ess // the midpoint-rule integral (see Grid)
	}
	for j := range 2 {
		if math.Abs(m[j]-mu[j]) > 1e-9 {
			t.Errorf("mean[%d] = %v, exact %v", j, m[j], mu[j])
		}
	}
	for k, want := range []float64{s11, s12, s12, s22} {
		if math.Abs(c[k]-want) > 1e-6 {
			t.Errorf("cov[%d] = %v, exact %v", k, c[k], want)
		}
	}
	if got := d.CDF(0, mu[0]); math.Abs(got-0.5) > 1e-9 {
		t.Errorf("P(θ0 ≤ mean) = %v, want 0.5", got)
	}
}

func TestGridSupportAndErrors(t *testing.T) {
	// A half-normal: cells below 0 are left out.
	half := func(x []float64) float64 {
		if x[0] < 0 {
			return math.Inf(-1)
		}
		return -x[0] * x[0] / 2
	}
	d, err := Grid(half, GridConfig{Lo: []float64{-1}, Hi: []float64{9}, Points: []int{1000}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 900 || math.Abs(d.Mean()[0]-math.Sqrt(2/math.Pi)) > 1e-4 {
		t.Errorf("half-normal: %d cells kept (want 900), mean %v (exact %v)", d.Len(), d.Mean()[0], math.Sqrt(2/math.Pi))
	}
	if def, err := Grid(func([]float64) float64 { return 0 }, GridConfig{Lo: []float64{0, 0}, Hi: []float64{1, 1}}); err != nil || def.Len() != 200*200 {
		t.Errorf("default points in 2-D: %v", err)
	}
	ok := GridConfig{Lo: []float64{0}, Hi: []float64{1}}
	flat := func([]float64) float64 { return 0 }
	for name, c := range map[string]struct {
		f   func([]float64) float64
		cfg GridConfig
	}{
		"nil density":   {nil, ok},
		"NaN":           {func([]float64) float64 { return math.NaN() }, ok},
		"+Inf":          {func([]float64) float64 { return math.Inf(1) }, ok},
		"all −Inf":      {func([]float64) float64 { return math.Inf(-1) }, ok},
		"no dims":       {flat, GridConfig{}},
		"3 dims":        {flat, GridConfig{Lo: []float64{0, 0, 0}, Hi: []float64{1, 1, 1}}},
		"Hi length":     {flat, GridConfig{Lo: []float64{0}, Hi: []float64{1, 2}}},
		"Lo = Hi":       {flat, GridConfig{Lo: []float64{1}, Hi: []float64{1}}},
		"Inf bound":     {flat, GridConfig{Lo: []float64{0}, Hi: []float64{math.Inf(1)}}},
		"NaN bound":     {flat, GridConfig{Lo: []float64{math.NaN()}, Hi: []float64{1}}},
		"1 point":       {flat, GridConfig{Lo: []float64{0}, Hi: []float64{1}, Points: []int{1}}},
		"points length": {flat, GridConfig{Lo: []float64{0}, Hi: []float64{1}, Points: []int{5, 5}}},
		"too many":      {flat, GridConfig{Lo: []float64{0, 0}, Hi: []float64{1, 1}, Points: []int{1 << 13, 1 << 13}}},
		"names":         {flat, GridConfig{Lo: []float64{0}, Hi: []float64{1}, Names: []string{""}}},
	} {
		if _, err := Grid(c.f, c.cfg); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v, want ErrInvalid", name, err)
		}
	}
}

func TestDrawsCDF(t *testing.T) {
	d := &Draws{Dim: 2, Theta: []float64{1, 0, 2, 0, 2, 0, 3, 0}}
	for q, want := range map[float64]float64{0.9: 0, 1: 0.25, 1.5: 0.25, 2: 0.75, 2.9: 0.75, 3: 1, math.Inf(1): 1, math.Inf(-1): 0} {
		if got := d.CDF(0, q); got != want {
			t.Errorf("unweighted CDF(0, %v) = %v, want %v", q, got, want)
		}
	}
	d.Weights = []float64{1, 1, 2, 4}
	for q, want := range map[float64]float64{1: 0.125, 2: 0.5, 3: 1} {
		if got := d.CDF(0, q); got != want {
			t.Errorf("weighted CDF(0, %v) = %v, want %v", q, got, want)
		}
	}
	// A NaN draw is left out of both sums.
	n := &Draws{Dim: 1, Theta: []float64{1, math.NaN(), 2, 3}, Weights: []float64{1, 5, 1, 2}}
	if got := n.CDF(0, 2); got != 0.5 {
		t.Errorf("CDF with a NaN draw = %v, want 0.5", got)
	}
	for _, v := range []float64{d.CDF(2, 1), d.CDF(-1, 1), d.CDF(0, math.NaN()), (&Draws{Dim: 1}).CDF(0, 1), (*Draws)(nil).CDF(0, 1),
		(&Draws{Dim: 1, Theta: []float64{math.NaN()}}).CDF(0, 1)} {
		if !math.IsNaN(v) {
			t.Errorf("CDF of an invalid case = %v, want NaN", v)
		}
	}
}
