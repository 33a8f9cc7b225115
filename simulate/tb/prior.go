package tb

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Prior is the joint prior of Lintusaari et al. (2019) that the ABCDP paper
// uses (§6.3), over θ = (R₁, t₁, R₂, β), as the ABCDP authors' code draws
// it:
//
//	β ~ N(200, 30)                      (variance 30)
//	R₁ ~ U(1.01, 20),  t₁ ~ U(0.01, 30),  R₂ = u·(1 − 0.05R₁)/0.95, u ~ U(0.01, 1)
//
// conditioned, given β, on a mean of fewer than 350 observed cases per
// year at balance (BalanceMeans; 0.8·β/(1 − ρ) < 350 with
// ρ = 0.95R₂ + 0.05R₁) and on a non-compliant transmission rate
// a₁ = t₁R₁/(R₁ − 1) < 40. The paper writes R₂ ~ U(0.01, (1 − 0.05R₁)/0.95);
// the code's u keeps the interval non-empty for every R₁.
//
// LogDensity is exact: the conditioning constant Z(β), the probability of
// the two constraints under the unconstrained draw, is a one-dimensional
// integral over R₁ with a closed form (logarithms and rational terms). β ≤ 0, and β so large that no (R₁, R₂) meets the mean
// constraint (β ≥ 0.99·0.9495·350/0.8 ≈ 411), have density 0. Prior is
// safe for concurrent use; its zero value is usable.
type Prior struct{}

// Prior constants.
const (
	priorBurdenMean = 200.0
	priorBurdenVar  = 30.0
	priorR1Lo       = 1.01
	priorR1Hi       = 20.0
	priorT1Lo       = 0.01
	priorT1Hi       = 30.0
	priorULo        = 0.01
	priorMaxObs     = 350.0
	priorMaxA1      = 40.0
)

// Dim is 4.
func (Prior) Dim() int { return 4 }

// Names returns the parameter names in θ order.
func Names() []string { return []string{"R1", "t1", "R2", "burden"} }

// PaperTheta returns the "true" θ = (R₁, t₁, R₂, β) = (5.88, 6.74, 0.09,
// 192) from which the ABCDP authors simulate the observations of Fig. 5
// (Lintusaari et al. 2019, Table 2).
func PaperTheta() []float64 { return []float64{5.88, 6.74, 0.09, 192} }

// Sample draws θ: β from its normal, then (R₁, t₁, R₂) from the
// unconstrained uniforms until the constraints hold for that β. β is
// redrawn in the (astronomically unlikely) case that no (R₁, R₂) can satisfy
// them. As simulate.Prior states for every prior, it panics if r is nil or
// len(theta) < 4 (a programmer error).
func (Prior) Sample(r *rand.Rand, theta []float64) {
	if r == nil {
		panic("tb: Prior.Sample with a nil *rand.Rand")
	}
	if len(theta) < 4 {
		panic(fmt.Sprintf("tb: Prior.Sample into theta of length %d, need 4", len(theta)))
	}
	sd := math.Sqrt(priorBurdenVar)
	for {
		beta := priorBurdenMean + sd*r.NormFloat64()
		if !(acceptance(beta) > 0) {
			continue
		}
		for {
			r1 := priorR1Lo + (priorR1Hi-priorR1Lo)*r.Float64()
			t1 := priorT1Lo + (priorT1Hi-priorT1Lo)*r.Float64()
			u := priorULo + (1-priorULo)*r.Float64()
			if admissible(beta, r1, t1, u) {
				theta[0], theta[1], theta[2], theta[3] = r1, t1, u*r2Bound(r1), beta
				return
			}
		}
	}
}

// r2Bound is (1 − 0.05R₁)/0.95, the stability bound on R₂.
func r2Bound(r1 float64) float64 {
	p := DefaultPCompliance
	return (1 - (1-p)*r1) / p
}

// admissible reports whether the draw (R₁, t₁, u) satisfies the constraints
// for β: the balance mean of observed cases per year in (0, 350) and
// a₁ < 40. With R₂ = u·r2Bound(R₁), ρ = u(1 − 0.05R₁) + 0.05R₁.
func admissible(beta, r1, t1, u float64) bool {
	rho := u*(1-0.05*r1) + 0.05*r1
	m := DefaultPObserved * beta / (1 - rho)
	a1 := t1 + t1/(r1-1)
	return m > 0 && m < priorMaxObs && a1 < priorMaxA1
}

// acceptance is Z(β): the probability that an unconstrained draw of
// (R₁, t₁, u) is admissible for β. With k = 0.8β/350 and c = k/0.99 the
// mean constraint reads u < 1 − k/(1 − R₁/20), whose probability is
// 1 − c/(1 − R₁/20) for R₁ < R* = 20(1 − c) (0 beyond), and the rate
// constraint t₁ < 40(R₁ − 1)/R₁ has probability
// (min(30, 40 − 40/R₁) − 0.01)/29.99. Integrating their product over R₁
// in closed form gives Z.
func acceptance(beta float64) float64 {
	if !(beta > 0) || math.IsInf(beta, 0) {
		return 0
	}
	k := DefaultPObserved * beta / priorMaxObs
	c := k / (1 - priorULo)
	rStar := priorR1Hi * (1 - c)
	hi := math.Min(priorR1Hi, rStar)
	if !(hi > priorR1Lo) {
		return 0
	}
	// log(1 − R/20) without cancellation for R near 20.
	l := func(r float64) float64 { return math.Log1p(-r / priorR1Hi) }
	const kink = 4.0 // 40 − 40/R = 30
	// Piece R ≤ 4: (1 − c/(1 − R/20))(39.99 − 40/R).
	f1 := func(r float64) float64 {
		return 39.99*r - 40*math.Log(r) + 39.99*c*priorR1Hi*l(r) + 40*c*(math.Log(r)-l(r))
	}
	// Piece R ≥ 4: 29.99(1 − c/(1 − R/20)).
	f2 := func(r float64) float64 { return 29.99 * (r + c*priorR1Hi*l(r)) }
	var integral float64
	if hi <= kink {
		integral = f1(hi) - f1(priorR1Lo)
	} else {
		integral = f1(kink) - f1(priorR1Lo) + f2(hi) - f2(kink)
	}
	return math.Max(0, integral/((priorR1Hi-priorR1Lo)*(priorT1Hi-priorT1Lo)))
}

// LogDensity is log π(θ): the normal log density of β plus the log density
// of the uniform draws of (R₁, t₁, R₂) given R₁ (R₂ uniform on
// [0.01·b, b], b = r2Bound(R₁)) minus log Z(β), on the admissible set;
// −Inf outside it and NaN if len(theta) ≠ 4 or an entry is NaN.
func (Prior) LogDensity(theta []float64) float64 {
	if len(theta) != 4 {
		return math.NaN()
	}
	r1, t1, r2, beta := theta[0], theta[1], theta[2], theta[3]
	if math.IsNaN(r1) || math.IsNaN(t1) || math.IsNaN(r2) || math.IsNaN(beta) {
		return math.NaN()
	}
	if !(r1 >= priorR1Lo && r1 <= priorR1Hi && t1 >= priorT1Lo && t1 <= priorT1Hi) {
		return math.Inf(-1)
	}
	b := r2Bound(r1)
	if !(b > 0) {
		return math.Inf(-1)
	}
	u := r2 / b
	if !(u >= priorULo && u <= 1) || !admissible(beta, r1, t1, u) {
		return math.Inf(-1)
	}
	z := acceptance(beta)
	if !(z > 0) {
		return math.Inf(-1)
	}
	d := beta - priorBurdenMean
	lp := -0.5*d*d/priorBurdenVar - 0.5*math.Log(2*math.Pi*priorBurdenVar)
	lp -= math.Log(priorR1Hi-priorR1Lo) + math.Log(priorT1Hi-priorT1Lo) + math.Log((1-priorULo)*b)
	return lp - math.Log(z)
}
