package aggregate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// TestGaussianLaw: with Rho the noise is the discrete Gaussian of standard
// deviation σ' ≥ Δ2/√(2ρ) (mean 0, variance σ'² up to e^{-2π²σ'²}), on a
// lattice that contains the integer statistic.
func TestGaussianLaw(t *testing.T) {
	r := newRand(21)
	const n, draws = 37, 100000
	var s, ss, s4 float64
	var res Result
	var err error
	for range draws {
		res, err = Count(r, n, Config{Rho: 0.02, Reproducible: true})
		if err != nil {
			t.Fatal(err)
		}
		z := res.Value - n
		s += z
		ss += z * z
		s4 += z * z * z * z
	}
	sigma := res.Scale
	if want := 1 / math.Sqrt(2*0.02); sigma < want || sigma > want*(1+1e-5) {
		t.Errorf("noise σ' = %v, want just above Δ/√(2ρ) = %v", sigma, want)
	}
	v := sigma * sigma
	if m := s / draws; math.Abs(m) > 5*math.Sqrt(v/draws) {
		t.Errorf("mean noise %v, want 0 ± %v", m, 5*math.Sqrt(v/draws))
	}
	// Var of the sample variance: (μ4 − σ⁴)/n with μ4 = 3σ⁴.
	if vr := ss / draws; math.Abs(vr-v) > 5*math.Sqrt(2*v*v/draws) {
		t.Errorf("noise variance %v, want %v", vr, v)
	}
	if res.Rho != 0.02 || res.Budget != (mechanism.Budget{}) {
		t.Errorf("charged %v, ρ = %v", res.Budget, res.Rho)
	}
	// Sum and histogram: sensitivity-scaled σ'.
	sum, err := BoundedSum(r, testData, within(Config{Rho: 0.5, Neighbour: Substitute, Reproducible: true}, testLo, testHi))
	if err != nil {
		t.Fatal(err)
	}
	if want := sum.Sensitivity; math.Abs(sum.Scale-want) > 1e-5*want {
		t.Errorf("sum σ' = %v, want Δ/√(2ρ) = %v", sum.Scale, want)
	}
	h, err := Histogram(r, []int{0, 1, 1}, 3, Config{Rho: 1, Neighbour: Substitute, Reproducible: true})
	if err != nil || h.Sensitivity != math.Sqrt2 || math.Abs(h.Scale-1) > 1e-5 {
		t.Errorf("histogram: ℓ2 sensitivity %v, σ' = %v (%v)", h.Sensitivity, h.Scale, err)
	}
	if _, err := Quantile(r, testData, 0.5, withK(Config{Rho: 1, Reproducible: true}, 0, 1, 4)); !errors.Is(err, ErrInvalid) {
		t.Errorf("quantile with rho: %v", err)
	}
	if _, err := Count(r, 3, Config{Rho: 1, Epsilon: 1, Reproducible: true}); !errors.Is(err, ErrInvalid) {
		t.Errorf("both epsilon and rho: %v", err)
	}
}

// TestGaussianAccountingAndAudit: zCDP releases charge ρ, the accountant
// converts to (ε, δ), and a Clopper–Pearson audit at that (ε, δ) passes;
// a release with 9× the ρ it claims is caught.
func TestGaussianAccountingAndAudit(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 3, Delta: 1e-6})
	r := newRand(22)
	for range 2 {
		if _, err := Count(r, 10, Config{Rho: 0.05, Accountant: acct, Reproducible: true}); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := mechanism.ZCDPEpsilon(0.1, 1e-6)
	if g := acct.Guarantee(); acct.Rho() != 0.1 || math.Abs(g.Epsilon-want) > 1e-15 {
		t.Errorf("guarantee %v (ρ = %v), want ε = %v", g, acct.Rho(), want)
	}
	const rho, delta = 0.5, 1e-6
	eps, _ := mechanism.ZCDPEpsilon(rho, delta)
	n := 100000
	if testing.Short() {
		n = 30000
	}
	audit := func(actual float64, seed uint64) float64 {
		var k [2]int64
		for side := range 2 {
			rr := newRand(seed + uint64(side))
			for range n {
				res, err := Count(rr, 10+side, Config{Rho: actual, Reproducible: true})
				if err != nil {
					t.Fatal(err)
				}
				if res.Value >= 10.5 {
					k[side]++
				}
			}
		}
		nn := int64(n)
		lb := math.Inf(-1)
		for _, kk := range [][2]int64{{k[0], k[1]}, {nn - k[0], nn - k[1]}} {
			lo0, hi0 := stats.ClopperPearson(kk[0], nn, auditAlpha)
			lo1, hi1 := stats.ClopperPearson(kk[1], nn, auditAlpha)
			lb = math.Max(lb, math.Max(math.Log((lo0-delta)/hi1), math.Log((lo1-delta)/hi0)))
		}
		return lb
	}
	lb := audit(rho, 30)
	mis := audit(9*rho, 40)
	t.Logf("count, ρ = %v ⇒ (ε = %.3f, δ = %g): ε_lb = %.3f; at 9ρ: ε_lb = %.3f", rho, eps, delta, lb, mis)
	if lb > eps {
		t.Errorf("ε_lb = %v exceeds the implied ε = %v", lb, eps)
	}
	// With ρ' = 9ρ the single-threshold event reaches a loss near
	// 1/σ'·(0.5·…); it must exceed what ρ implies for the event of a
	// one-step shift: log-ratio bound of N(0,σ) vs N(1,σ) at the midpoint.
	sigma := 1 / math.Sqrt(2*rho)
	oneStep := math.Log(normSF(-0.5/sigma) / normSF(0.5/sigma))
	if mis <= oneStep {
		t.Errorf("mis-calibrated release not caught: ε_lb = %v ≤ %v (the correct release's event loss)", mis, oneStep)
	}
}

func normSF(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }

// TestGaussianFloatingPointDistinguishability: zCDP releases lie on the
// discrete Gaussian's lattice, which contains every neighbour's
// statistic, so no output is impossible under a neighbour. 400,000 draws
// (40,000 with -short) through the operating-system generator.
func TestGaussianFloatingPointDistinguishability(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	n := 400000
	if testing.Short() {
		n = 40000
	}
	l, _ := newLattice("Config", testLo, testHi, 0)
	var flagged [2]int
	var grid [2]int
	for i := range n {
		c, err := Count(nil, 1234, Config{Rho: 0.3})
		if err != nil {
			t.Fatal(err)
		}
		s, err := BoundedSum(nil, testData, within(Config{Rho: 0.3, Neighbour: Substitute}, testLo, testHi))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			grid[0] = gaussGridExp(t, 1/math.Sqrt(0.6))
			grid[1] = gaussGridExp(t, s.Sensitivity/s.Grid/math.Sqrt(0.6)) + l.k
		}
		if !onLattice(c.Value, grid[0]) {
			flagged[0]++
		}
		if !onLattice(s.Value, grid[1]) {
			flagged[1]++
		}
	}
	t.Logf("count: %d, sum: %d of %d outputs distinguishable", flagged[0], flagged[1], n)
	if flagged != [2]int{} {
		t.Errorf("distinguishable outputs: %v", flagged)
	}
}

// gaussGridExp returns log2 of the grid mechanism.NewGaussian uses for σ.
func gaussGridExp(t *testing.T, sigma float64) int {
	g, err := mechanism.NewGaussian(mechanism.ScaleConfig{Sigma: sigma, Dim: 1})
	if err != nil {
		t.Fatal(err)
	}
	return int(math.Round(math.Log2(g.Grid())))
}

// ExampleCount_zCDP releases two counts as 0.05-zCDP each; the accountant
// reports their (ε, δ) by the tight conversion.
func ExampleCount_zCDP() {
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 3, Delta: 1e-6})
	cfg := Config{Rho: 0.05, Accountant: acct, Reproducible: true}
	r := rand.New(rand.NewPCG(7, 8))
	a, _ := Count(r, 120, cfg)
	b, _ := Count(r, 80, cfg)
	fmt.Printf("noise sd %.2f each; ρ = %.2f, ε = %.3f at δ = 1e-6\n", a.Scale, acct.Rho(), acct.Guarantee().Epsilon)
	_ = b
	// Output:
	// noise sd 3.16 each; ρ = 0.10, ε = 2.142 at δ = 1e-6
}
