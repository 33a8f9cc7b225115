package mechanism

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// Privacy audits. For a mechanism M, neighbouring statistics s, s' at
// sensitivity distance and an output event E, DP requires
//
//	P(M(s) ∈ E) ≤ e^ε P(M(s') ∈ E) + δ   (and with s, s' swapped).
//
// From n draws on each side, Clopper–Pearson intervals at level 1e-6 each
// give the empirical lower bound
//
//	ε_lb = log((lo(P(M(s)∈E)) − δ) / hi(P(M(s')∈E)))
//
// maximised over E, its complement and both orders. If the mechanism is
// correct, ε_lb > ε happens with probability below ~4e-6 per audit. Each
// audit is paired with a deliberately mis-calibrated version (noise too
// small for the claimed ε) that the same audit must catch.

const auditAlpha = 1e-6

// auditEpsilon runs n draws per side of event(r, side) and returns ε_lb.
func auditEpsilon(n int, seed uint64, delta float64, event func(r *rand.Rand, side int) bool) (lb float64, p0, p1 float64) {
	var k [2]int64
	for side := 0; side < 2; side++ {
		r := newRand(seed + uint64(side)*7919)
		for i := 0; i < n; i++ {
			if event(r, side) {
				k[side]++
			}
		}
	}
	nn := int64(n)
	lb = math.Inf(-1)
	for _, kk := range [][2]int64{{k[0], k[1]}, {nn - k[0], nn - k[1]}} {
		lo0, hi0 := clopperPearson(kk[0], nn, auditAlpha)
		lo1, hi1 := clopperPearson(kk[1], nn, auditAlpha)
		if v := math.Log((lo0 - delta) / hi1); v > lb {
			lb = v
		}
		if v := math.Log((lo1 - delta) / hi0); v > lb {
			lb = v
		}
	}
	return lb, float64(k[0]) / float64(n), float64(k[1]) / float64(n)
}

type auditCase struct {
	name    string
	claimed Budget
	// event draws one release on side 0 (s) or 1 (s') and reports whether
	// it falls in the audited event.
	event func(r *rand.Rand, side int) bool
	// miscalibrated: the audit must detect it (ε_lb > claimed ε).
	miscalibrated bool
	// heavy cases (several noise draws per release) run a quarter of the
	// draws in the default test; TestPrivacyAuditLong runs them in full.
	heavy bool
}

// releaseEvent audits the secure release law of m; draws come from the
// audit's seeded generator through Reproducible (the same law as Release,
// whose operating-system draws would make the audit irreproducible).
func releaseEvent(m Mechanism, s0, s1 []float64, in func(x []float64) bool) func(r *rand.Rand, side int) bool {
	dst := make([]float64, lenOut(m, len(s0)))
	m = Reproducible(m)
	return func(r *rand.Rand, side int) bool {
		s := s0
		if side == 1 {
			s = s1
		}
		if err := m.Release(r, s, dst); err != nil {
			panic(err)
		}
		return in(dst)
	}
}

func lenOut(m Mechanism, n int) int {
	if _, ok := m.(*Exponential); ok {
		return 1
	}
	return n
}

func auditCases(t *testing.T) []auditCase {
	t.Helper()
	must := func(m Mechanism, err error) Mechanism {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var cs []auditCase
	// Laplace, Δ1 = 1, ε = 1: the event x ≥ 1 has likelihood ratio e^ε
	// exactly, so the audit is tight.
	lap := must(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 1}))
	cs = append(cs, auditCase{"Laplace", lap.Budget(), releaseEvent(lap, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] >= 1 }), false, false})
	lapBad := must(NewLaplace(LaplaceConfig{Sensitivity: 0.5, Epsilon: 1, Dim: 1})) // calibrated for Δ = 0.5, used at distance 1: actual ε = 2
	cs = append(cs, auditCase{"Laplace(Δ understated)", lapBad.Budget(), releaseEvent(lapBad, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] >= 1 }), true, false})
	// Vector Laplace d = 10, neighbours differ by Δ1 = 1 in one coordinate.
	lap10 := must(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 0.7, Dim: 10}))
	z10 := make([]float64, 10)
	o10 := make([]float64, 10)
	o10[3] = 1
	cs = append(cs, auditCase{"Laplace d=10", lap10.Budget(), releaseEvent(lap10, z10, o10, func(x []float64) bool { return x[3] >= 1 }), false, true})
	// Secure Laplace on the default grid.
	sec := must(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 1}))
	cs = append(cs, auditCase{"SecureLaplace", sec.Budget(), releaseEvent(sec, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] >= 1 }), false, false})
	secBad := must(NewLaplace(LaplaceConfig{Sensitivity: 0.5, Epsilon: 1, Dim: 1}))
	cs = append(cs, auditCase{"SecureLaplace(Δ understated)", secBad.Budget(), releaseEvent(secBad, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] >= 1 }), true, false})
	// Analytic Gaussian (ε, δ) = (1, 1e-5), Δ2 = 1; event x ≥ 2σ.
	g := must(NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 1, Dim: 1})).(*Gaussian)
	cs = append(cs, auditCase{"AnalyticGaussian", g.Budget(), releaseEvent(g, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] >= 2*g.Sigma() }), false, false})
	gBad := must(NewGaussian(ScaleConfig{Sigma: g.Sigma() / 4, Dim: 1})).(*Gaussian)
	gBad.budget = g.Budget() // claims the calibrated budget with a quarter of the noise
	cs = append(cs, auditCase{"Gaussian(σ/4)", gBad.Budget(), releaseEvent(gBad, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] >= 2*gBad.Sigma() }), true, false})
	// Discrete Gaussian, classical calibration (ε, δ) = (0.5, 1e-5), and
	// a vector analytic Gaussian d = 10 with the shift in one coordinate.
	gc := must(NewClassicalGaussian(GaussianConfig{Epsilon: 0.5, Delta: 1e-5, Sensitivity: 1, Dim: 1})).(*Gaussian)
	cs = append(cs, auditCase{"ClassicalGaussian", gc.Budget(), releaseEvent(gc, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] >= 2*gc.Sigma() }), false, false})
	g10 := must(NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 1, Dim: 10})).(*Gaussian)
	cs = append(cs, auditCase{"AnalyticGaussian d=10", g10.Budget(), releaseEvent(g10, z10, o10, func(x []float64) bool { return x[3] >= 2*g10.Sigma() }), false, true})
	gb := must(NewBounded(must(NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 1, Dim: 1})), []float64{-10}, []float64{10}, BIT))
	cs = append(cs, auditCase{"BIT Gaussian", gb.Budget(), releaseEvent(gb, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] >= 2*g.Sigma() }), false, false})
	// Randomized response: the event "report 1" has ratio e^ε exactly.
	rr := must(NewRandomizedResponse(LocalConfig{Epsilon: 1, Dim: 1}))
	cs = append(cs, auditCase{"RandomizedResponse", rr.Budget(), releaseEvent(rr, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] == 1 }), false, false})
	rrBad := must(NewRandomizedResponse(LocalConfig{Epsilon: 2, Dim: 1})).(*RandomizedResponse)
	rrBad.eps = 1 // claims ε = 1 with the keep probability of ε = 2
	cs = append(cs, auditCase{"RandomizedResponse(p too high)", rrBad.Budget(), releaseEvent(rrBad, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] == 1 }), true, false})
	kr := must(NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 4, Dim: 1}))
	cs = append(cs, auditCase{"KaryRR", kr.Budget(), releaseEvent(kr, []float64{0}, []float64{2}, func(x []float64) bool { return x[0] == 0 }), false, false})
	oue := must(NewOUE(LocalConfig{Epsilon: 1, Dim: 3}))
	cs = append(cs, auditCase{"OUE", oue.Budget(), releaseEvent(oue, []float64{1, 0, 0}, []float64{0, 1, 0}, func(x []float64) bool { return x[0] == 1 && x[1] == 0 }), false, false})
	ex := must(NewExponential(ExponentialConfig{Epsilon: 1, Sensitivity: 1, Candidates: 2}))
	cs = append(cs, auditCase{"Exponential", ex.Budget(), releaseEvent(ex, []float64{0, 0}, []float64{1, -1}, func(x []float64) bool { return x[0] == 0 }), false, true})
	// Infection trajectory with n = m = 20, K = 100, L = 1 (ε = 1): I = 0
	// versus I = 1; event c ≥ 6.
	tr := must(NewInfectionTrajectory(TrajectoryConfig{Trials: 20, Inflation: 20, Population: 100, Times: 1}))
	cs = append(cs, auditCase{"InfectionTrajectory", tr.Budget(), releaseEvent(tr, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] >= 6.0/20 }), false, true})
	// AboveThreshold (ε = 1, Δ = 1): queries (0, 0, 0) versus (1, 1, 1),
	// threshold 2; event "first ⊤ at the first query".
	at := must(NewAboveThreshold(AboveThresholdConfig{Threshold: 2, Sensitivity: 1, Epsilon: 1}))
	cs = append(cs, auditCase{"AboveThreshold", at.Budget(), releaseEvent(at, []float64{0, 0, 0}, []float64{1, 1, 1}, func(x []float64) bool { return x[0] == 1 }), false, true})
	// Truncated Laplace (claimed 2ε) on [0, 1].
	bl := must(NewBounded(must(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 1})), []float64{0}, []float64{1}, Truncate))
	cs = append(cs, auditCase{"TruncatedLaplace", bl.Budget(), releaseEvent(bl, []float64{0}, []float64{1}, func(x []float64) bool { return x[0] >= 0.9 }), false, true})
	return cs
}

func runAudits(t *testing.T, n int, seed uint64, long bool) {
	for i, c := range auditCases(t) {
		nc := n
		if c.heavy && !long {
			nc = n / 4
		}
		lb, p0, p1 := auditEpsilon(nc, seed+uint64(i)*104729, c.claimed.Delta, c.event)
		t.Logf("%-32s claimed ε = %-5g  empirical ε_lb = %.4f  (P0 = %.5f, P1 = %.5f, n = %d)", c.name, c.claimed.Epsilon, lb, p0, p1, nc)
		if c.miscalibrated {
			if !(lb > c.claimed.Epsilon) {
				t.Errorf("%s: audit failed to detect the mis-calibration (ε_lb = %v ≤ %v)", c.name, lb, c.claimed.Epsilon)
			}
			continue
		}
		if lb > c.claimed.Epsilon {
			t.Errorf("%s: empirical ε lower bound %v exceeds claimed %v", c.name, lb, c.claimed.Epsilon)
		}
	}
}

// TestPrivacyAudit runs every audit with 1e6 draws per side (2.5e5 for
// the heavy cases).
func TestPrivacyAudit(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	runAudits(t, 1_000_000, 1, false)
}

// TestPrivacyAuditLong repeats the audits with 1e7 draws per side and
// other seeds.
func TestPrivacyAuditLong(t *testing.T) {
	testutil.Long(t)
	runAudits(t, 10_000_000, 99, true)
}
