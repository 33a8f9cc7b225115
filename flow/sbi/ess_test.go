package sbi

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// ar1Draws returns C chains of perChain draws of dimension d, chain-major,
// each coordinate an independent stationary Gaussian AR(1) process
// x_t = φ x_{t−1} + √(1−φ²) ε_t started in its stationary law N(0, 1).
func ar1Draws(r *rand.Rand, C, perChain, d int, phi float64) []float64 {
	out := make([]float64, C*perChain*d)
	s := math.Sqrt(1 - phi*phi)
	for c := range C {
		for k := range d {
			x := r.NormFloat64()
			for i := range perChain {
				if i > 0 {
					x = phi*x + s*r.NormFloat64()
				}
				out[((c*perChain)+i)*d+k] = x
			}
		}
	}
	return out
}

// TestMultiChainESSClosedForm checks Diagnostics.ESS's estimator against
// the closed form of stationary AR(1) chains, ESS = N(1−φ)/(1+φ) for N
// draws in all (iid draws at φ = 0: ESS = N). Over 300 seeds with 4 chains
// of 5000 draws the ratio estimate/closed form had mean 0.990 and sd 0.022
// at φ = 0, mean 0.996 and sd 0.038 at φ = 0.5, so the bands below (±12%
// and ±25%, more than five standard deviations) have a false-alarm rate
// below 1e-6 per case under a normal approximation.
func TestMultiChainESSClosedForm(t *testing.T) {
	const C, per = 4, 5000
	for _, c := range []struct {
		phi, tol float64
		seed     uint64
	}{{0, 0.12, 1}, {0, 0.12, 2}, {0.5, 0.25, 3}, {0.5, 0.25, 4}} {
		r := rand.New(rand.NewPCG(c.seed, 7))
		want := float64(C*per) * (1 - c.phi) / (1 + c.phi)
		got := multiChainESS(ar1Draws(r, C, per, 1, c.phi), C, per, 1)
		t.Logf("φ = %v, seed %d: ESS %.0f, closed form %.0f", c.phi, c.seed, got, want)
		if !(math.Abs(got/want-1) <= c.tol) {
			t.Errorf("φ = %v, seed %d: ESS %v, want %v within %v%%", c.phi, c.seed, got, want, 100*c.tol)
		}
	}
}

// TestMultiChainESSDisagreeingChains checks that chains sampling different
// locations lower the reported ESS, as the multi-chain bulk ESS must and a
// sum of the chains' own ESS does not: two of four iid chains shifted by
// three standard deviations leave a pooled sample far from N effective
// draws (below N/10), while each chain alone is iid (chainESS about N).
func TestMultiChainESSDisagreeingChains(t *testing.T) {
	const C, per = 4, 2000
	r := rand.New(rand.NewPCG(5, 7))
	x := ar1Draws(r, C, per, 1, 0)
	for i := 2 * per; i < C*per; i++ {
		x[i] += 3
	}
	n := float64(C * per)
	within, bulk := chainESS(x, C, per, 1), multiChainESS(x, C, per, 1)
	t.Logf("sum of per-chain ESS %.0f, multi-chain bulk ESS %.0f, N = %v", within, bulk, n)
	if !(bulk < n/10) {
		t.Errorf("multi-chain ESS %v of %v draws from disagreeing chains, want < N/10", bulk, n)
	}
	if !(within > 0.8*n) {
		t.Errorf("sum of per-chain ESS %v, want about %v", within, n)
	}
}

// TestMultiChainESSDegenerate checks the NaN cases: constant draws and
// inconsistent shapes.
func TestMultiChainESSDegenerate(t *testing.T) {
	if e := multiChainESS(make([]float64, 40), 2, 20, 1); !math.IsNaN(e) {
		t.Errorf("constant draws: ESS %v, want NaN", e)
	}
	if e := multiChainESS(make([]float64, 39), 2, 20, 1); !math.IsNaN(e) {
		t.Errorf("short draws: ESS %v, want NaN", e)
	}
	if e := multiChainESS(nil, 0, 0, 1); !math.IsNaN(e) {
		t.Errorf("no chains: ESS %v, want NaN", e)
	}
}

// TestRunAMReportsMultiChainESS checks that the diagnostics of a run
// report the multi-chain bulk ESS of its draws.
func TestRunAMReportsMultiChainESS(t *testing.T) {
	init := [][]float64{{1, -2, 50}, {1.1, -1, 40}}
	run, err := runAM(context.Background(), gauss3, 3, init, []float64{0.1, 1, 10}, 200, 100, 2, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := run.diagnostics().ESS, multiChainESS(run.draws, 2, 100, 3); math.Float64bits(got) != math.Float64bits(want) || !(want > 0) {
		t.Errorf("Diagnostics.ESS %v, want the multi-chain bulk ESS %v", got, want)
	}
}
