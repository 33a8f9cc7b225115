package tb

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPriorAcceptance checks the closed-form Z(β) against the acceptance
// rate of the unconstrained draws: 200,000 draws per β (binomial z-test,
// |z| < 4, false-alarm rate 6e-5 per β; fixed seed), over β from the bulk
// of the prior to near the point where no draw is admissible, and Z = 0
// beyond it.
func TestPriorAcceptance(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, beta := range []float64{50, 150, 200, 260, 380, 405} {
		z := acceptance(beta)
		const n = 200_000
		hits := 0
		for range n {
			r1 := priorR1Lo + (priorR1Hi-priorR1Lo)*r.Float64()
			t1 := priorT1Lo + (priorT1Hi-priorT1Lo)*r.Float64()
			u := priorULo + (1-priorULo)*r.Float64()
			if admissible(beta, r1, t1, u) {
				hits++
			}
		}
		rate := float64(hits) / n
		se := math.Sqrt(z * (1 - z) / n)
		t.Logf("β = %v: Z = %.5f, acceptance rate %.5f (z = %.2f)", beta, z, rate, (rate-z)/se)
		if math.Abs(rate-z) > 4*se {
			t.Errorf("β = %v: Z = %v, acceptance rate %v", beta, z, rate)
		}
	}
	for _, beta := range []float64{-1, 0, 412, 1e9, math.Inf(1), math.NaN()} {
		if z := acceptance(beta); z != 0 {
			t.Errorf("β = %v: Z = %v, want 0", beta, z)
		}
	}
}

// TestPriorNormalised checks that the conditional density of (R₁, t₁, R₂)
// given β integrates to one: a Monte Carlo integral over the box
// [1.01, 20] × [0.01, 30] × [0, 1], which holds the support, with 400,000
// uniform points (fixed seed; |z| < 4). It also checks the normal factor
// of β.
func TestPriorNormalised(t *testing.T) {
	var p Prior
	r := rand.New(rand.NewPCG(43, 44))
	for _, beta := range []float64{170, 200, 230} {
		d := beta - priorBurdenMean
		logPhi := -0.5*d*d/priorBurdenVar - 0.5*math.Log(2*math.Pi*priorBurdenVar)
		vol := (priorR1Hi - priorR1Lo) * (priorT1Hi - priorT1Lo) * 1
		const n = 400_000
		var s, s2 float64
		th := make([]float64, 4)
		for range n {
			th[0] = priorR1Lo + (priorR1Hi-priorR1Lo)*r.Float64()
			th[1] = priorT1Lo + (priorT1Hi-priorT1Lo)*r.Float64()
			th[2] = r.Float64()
			th[3] = beta
			v := math.Exp(p.LogDensity(th)-logPhi) * vol
			s += v
			s2 += v * v
		}
		mean := s / n
		se := math.Sqrt((s2/n - mean*mean) / n)
		t.Logf("β = %v: ∫ π(R₁, t₁, R₂ | β) = %.4f ± %.4f", beta, mean, se)
		if math.Abs(mean-1) > 4*se {
			t.Errorf("β = %v: conditional density integrates to %v ± %v", beta, mean, se)
		}
	}
}

// TestPriorSample checks that draws satisfy the constraints and have finite
// log density, and that β has its N(200, 30) mean and variance (20,000
// draws; z-tests |z| < 4).
func TestPriorSample(t *testing.T) {
	var p Prior
	r := rand.New(rand.NewPCG(45, 46))
	th := make([]float64, 4)
	o, _ := NewOutbreak(Config{})
	const n = 20_000
	var s, s2 float64
	for range n {
		p.Sample(r, th)
		if lp := p.LogDensity(th); math.IsInf(lp, 0) || math.IsNaN(lp) {
			t.Fatalf("draw %v has log density %v", th, lp)
		}
		rt, err := o.Rates(th)
		if err != nil {
			t.Fatalf("draw %v: %v", th, err)
		}
		if _, _, m := BalanceMeans(rt, DefaultPCompliance, DefaultPObserved); !(m > 0 && m < priorMaxObs) || !(rt.TransNC < priorMaxA1) {
			t.Fatalf("draw %v violates the constraints: %v observed per year, a₁ = %v", th, m, rt.TransNC)
		}
		s += th[3]
		s2 += th[3] * th[3]
	}
	mean := s / n
	v := s2/n - mean*mean
	zm := (mean - 200) / math.Sqrt(30.0/n)
	zv := (v - 30) / (30 * math.Sqrt(2.0/n))
	if math.Abs(zm) > 4 || math.Abs(zv) > 4 {
		t.Errorf("β mean %v (z = %.2f), variance %v (z = %.2f)", mean, zm, v, zv)
	}
}

// TestPriorLogDensityEdges checks the log density off the support and on
// malformed input.
func TestPriorLogDensityEdges(t *testing.T) {
	var p Prior
	for _, th := range [][]float64{
		{1, 5, 0.1, 200},    // R₁ below 1.01
		{5, 40, 0.1, 200},   // t₁ above 30
		{5, 5, 0.9, 200},    // R₂ above its bound
		{5, 5, 0.001, 200},  // R₂ below 0.01·bound
		{5, 5, 0.1, -3},     // β ≤ 0
		{5, 29.9, 0.1, 200}, // a₁ = 37.4 fine, but …
		{1.5, 20, 0.1, 200}, // a₁ = 60 > 40
		{19, 1, 0.005, 200}, // mean observed > 350
		{5, 5, 0.1, 1000},   // Z(β) = 0
		{20, 5, 0.0, 200},   // bound 0
		{5, 5, 0.1, math.Inf(1)},
	} {
		lp := p.LogDensity(th)
		if th[1] == 29.9 {
			if math.IsInf(lp, 0) || math.IsNaN(lp) {
				t.Errorf("%v: log density %v, want finite", th, lp)
			}
			continue
		}
		if !math.IsInf(lp, -1) {
			t.Errorf("%v: log density %v, want -Inf", th, lp)
		}
	}
	for _, th := range [][]float64{nil, {1, 2, 3}, {math.NaN(), 5, 0.1, 200}, {5, 5, 0.1, math.NaN()}} {
		if lp := p.LogDensity(th); !math.IsNaN(lp) {
			t.Errorf("%v: log density %v, want NaN", th, lp)
		}
	}
	if p.Dim() != 4 || len(Names()) != 4 || len(PaperTheta()) != 4 {
		t.Error("dimensions")
	}
	if lp := p.LogDensity(PaperTheta()); math.IsInf(lp, 0) || math.IsNaN(lp) {
		t.Errorf("the paper's θ has log density %v", lp)
	}
}
