package gibbsss

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// The tests of this file check the sampler's conditional steps one by one
// against closed forms, Monte Carlo over the model, and a dense
// computation that shares no code with the sampler. Every Monte Carlo
// comparison allows zTol = 4.5 standard errors, a two-sided false-alarm
// rate of 7e-6 per comparison and below 2e-3 over the few hundred
// comparisons of the file (fixed seeds, so a pass is reproducible).
const zTol = 4.5

// TestInvGauss compares the inverse-Gaussian sampler's sample mean and
// variance with μ and μ³/λ, for shapes from near-normal (μ/λ small) to
// very skewed (μ/λ = 10⁴, where the naive root cancels): the standard
// error of the variance uses the fourth central moment σ⁴(3 + 15μ/λ).
func TestInvGauss(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 400000
	for _, tc := range []struct{ mu, lambda float64 }{{1, 1}, {1, 100}, {3, 0.5}, {1e4, 1}, {2e-3, 7}} {
		var s, s2 float64
		for range n {
			x := invGauss(r, tc.mu, tc.lambda)
			if !(x > 0) || math.IsInf(x, 0) {
				t.Fatalf("μ=%v λ=%v: draw %v", tc.mu, tc.lambda, x)
			}
			d := x - tc.mu
			s += d
			s2 += d * d
		}
		mean := s / n
		v := tc.mu * tc.mu * tc.mu / tc.lambda
		if z := mean / math.Sqrt(v/n); math.Abs(z) > zTol {
			t.Errorf("μ=%v λ=%v: mean %v, want %v (z = %.1f)", tc.mu, tc.lambda, tc.mu+mean, tc.mu, z)
		}
		varHat := s2/n - mean*mean
		mu4 := v * v * (3 + 15*tc.mu/tc.lambda)
		if z := (varHat - v) / math.Sqrt((mu4-v*v)/n); math.Abs(z) > zTol {
			t.Errorf("μ=%v λ=%v: variance %v, want %v (z = %.1f)", tc.mu, tc.lambda, varHat, v, z)
		}
	}
}

// testModel returns a model with p = 2 at a fixed, non-trivial parameter
// point, and a chain set to it.
func testChain(t *testing.T, knownV bool) *chain {
	t.Helper()
	cfg := spec{P: 2, N: 50, Observed: []float64{-0.3, -0.05, 0.03, 0.25, 0.09, -0.12, 0.02, -0.01, 0.03},
		LaplaceScale: 0.02, Scale: 2, PredictorMean: []float64{0.9, -1.17}, PredictorCov: []float64{1, 0.3, 0.3, 0.8}}
	if knownV {
		cfg.Sigma2 = 2
	} else {
		cfg.Sigma2Shape, cfg.Sigma2Scale = 3, 2
	}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	m := newModel(cfg)
	c := newChain(m)
	c.init(rand.New(rand.NewPCG(5, 5)))
	copy(c.theta, []float64{-1.79 / 2, -2.89, -0.66})
	c.v = 2.0 / 4
	for j := range c.omega {
		c.omega[j] = 1e-4 * float64(j+1)
	}
	return c
}

// TestStatMoments checks the closed-form mean and covariance of the
// contribution t (Isserlis' theorem) against Monte Carlo over records of
// the Gaussian model, entry by entry.
func TestStatMoments(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	c := testChain(t, true)
	m := c.m
	c.moments()
	k := m.k
	r := rand.New(rand.NewPCG(3, 4))
	const n = 400000
	// Raw records (scaled units): x̃ ~ N(μ̃, Σ̃) via the Cholesky factor of
	// Σ̃ written out for p = 2, ỹ = β̃ᵀ(1, x̃) + N(0, σ̃²).
	s00 := math.Sqrt(c.sigma[0])
	s10 := c.sigma[2] / s00
	s11 := math.Sqrt(c.sigma[3] - s10*s10)
	ts := make([][]float64, n)
	w := make([]float64, m.q1)
	for i := range ts {
		z0, z1 := r.NormFloat64(), r.NormFloat64()
		w[0] = 1
		w[1] = c.mu[0] + s00*z0
		w[2] = c.mu[1] + s10*z0 + s11*z1
		w[3] = c.theta[0] + c.theta[1]*w[1] + c.theta[2]*w[2] + math.Sqrt(c.v)*r.NormFloat64()
		row := make([]float64, k)
		for a := range k {
			row[a] = w[m.pa[a]] * w[m.pb[a]]
		}
		ts[i] = row
	}
	for a := range k {
		var s float64
		for _, row := range ts {
			s += row[a] - c.mt[a]
		}
		se := math.Sqrt(c.at[a*k+a] * m.n / n)
		if z := s / n / se; math.Abs(z) > zTol {
			t.Errorf("E[t_%d]: Monte Carlo %v, closed form %v (z = %.1f)", a, c.mt[a]+s/n, c.mt[a], z)
		}
	}
	for a := range k {
		for b := 0; b <= a; b++ {
			var s, s2 float64
			for _, row := range ts {
				v := (row[a] - c.mt[a]) * (row[b] - c.mt[b])
				s += v
				s2 += v * v
			}
			mean := s / n
			se := math.Sqrt((s2/n - mean*mean) / n)
			want := c.at[a*k+b] * m.n
			if z := (mean - want) / se; math.Abs(z) > zTol {
				t.Errorf("Cov[t_%d, t_%d]: Monte Carlo %v, closed form %v (z = %.1f)", a, b, mean, want, z)
			}
		}
	}
}

// gaussJordanInv inverts a small dense matrix by Gauss–Jordan elimination
// with partial pivoting (the dense reference below shares no code with the
// sampler's Cholesky path).
func gaussJordanInv(a []float64, n int) []float64 {
	m := make([]float64, n*2*n)
	for i := range n {
		copy(m[i*2*n:], a[i*n:(i+1)*n])
		m[i*2*n+n+i] = 1
	}
	for col := range n {
		piv := col
		for i := col + 1; i < n; i++ {
			if math.Abs(m[i*2*n+col]) > math.Abs(m[piv*2*n+col]) {
				piv = i
			}
		}
		for j := range 2 * n {
			m[col*2*n+j], m[piv*2*n+j] = m[piv*2*n+j], m[col*2*n+j]
		}
		d := m[col*2*n+col]
		for j := range 2 * n {
			m[col*2*n+j] /= d
		}
		for i := range n {
			if i == col {
				continue
			}
			f := m[i*2*n+col]
			for j := range 2 * n {
				m[i*2*n+j] -= f * m[col*2*n+j]
			}
		}
	}
	inv := make([]float64, n*n)
	for i := range n {
		copy(inv[i*n:(i+1)*n], m[i*2*n+n:(i+1)*2*n])
	}
	return inv
}

// TestStatConditional checks the draws of s given the release (Matheron's
// rule, unrestricted) against the dense Gaussian posterior in precision
// form, Σ = (A⁻¹ + W⁻¹)⁻¹, mean = Σ(A⁻¹E[t] + W⁻¹s_dp): sample means and
// covariances entry by entry.
func TestStatConditional(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	c := testChain(t, true)
	m := c.m
	k := m.k
	c.moments()
	// Factorise as drawStat does, without drawing.
	if err := c.factorStat(); err != nil {
		t.Fatal(err)
	}
	ainv := gaussJordanInv(c.at, k)
	prec := append([]float64(nil), ainv...)
	for j := range k {
		prec[j*k+j] += 1 / c.omega[j]
	}
	cov := gaussJordanInv(prec, k)
	rhs := make([]float64, k)
	for i := range k {
		for j := range k {
			rhs[i] += ainv[i*k+j] * c.mt[j]
		}
		rhs[i] += m.sdp[i] / c.omega[i]
	}
	mean := make([]float64, k)
	for i := range k {
		for j := range k {
			mean[i] += cov[i*k+j] * rhs[j]
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	const n = 200000
	draws := make([][]float64, n)
	for i := range draws {
		c.proposeStat(r)
		draws[i] = append([]float64(nil), c.s0...)
	}
	for a := range k {
		var s float64
		for _, d := range draws {
			s += d[a] - mean[a]
		}
		if z := s / n / math.Sqrt(cov[a*k+a]/n); math.Abs(z) > zTol {
			t.Errorf("E[s_%d | s_dp]: sampled %v, dense %v (z = %.1f)", a, mean[a]+s/n, mean[a], z)
		}
	}
	for a := range k {
		for b := 0; b <= a; b++ {
			var s float64
			for _, d := range draws {
				s += (d[a] - mean[a]) * (d[b] - mean[b])
			}
			got, want := s/n, cov[a*k+b]
			// Var of a product of two normals: Σ_aa Σ_bb + Σ_ab².
			se := math.Sqrt((cov[a*k+a]*cov[b*k+b] + want*want) / n)
			if z := (got - want) / se; math.Abs(z) > zTol {
				t.Errorf("Cov[s_%d, s_%d | s_dp]: sampled %v, dense %v (z = %.1f)", a, b, got, want, z)
			}
		}
	}
}

// TestStepAllocs checks that an iteration allocates nothing, with known
// and unknown σ² and predictors' law.
func TestStepAllocs(t *testing.T) {
	for _, niw := range []bool{false, true} {
		cfg := spec{P: 2, N: 100, Observed: []float64{-0.38244, -0.066783, 0.031997, 0.271985, 0.098835, -0.138503, 0.021882, -0.022884, 0.034092},
			LaplaceScale: 0.013, Scale: 10, Sigma2Shape: 2, Sigma2Scale: 2, PredictorMean: []float64{0.9, -1.17}}
		if niw {
			cfg.PredictorMean = nil
			cfg.PredictorPrior = &NIW{Kappa: 1, DF: 5}
		}
		if err := cfg.validate(); err != nil {
			t.Fatal(err)
		}
		c := newChain(newModel(cfg))
		r := rand.New(rand.NewPCG(1, 1))
		c.init(r)
		if a := testing.AllocsPerRun(200, func() {
			if err := c.step(r); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("NIW %v: %v allocations per iteration", niw, a)
		}
	}
}
