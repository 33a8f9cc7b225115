package ldp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGaussianGradientExtreme checks the clipped-Gaussian gradient where σ
// is tiny or huge and μ far from [a, b]: the derivative in log σ of a term
// whose share of the likelihood underflows used to overflow (∂/∂σ of
// log Φ(α) is of order α²/σ) and turn into NaN when multiplied by its zero
// weight, although the log density is finite. The likelihood is a mixture
// of Laplace kernels of rate c, so its exact gradient is bounded:
// |∂μ log p| ≤ c and |∂ log σ log p| ≤ c·max(|a−μ|, |b−μ|) per report. The
// test requires a finite gradient within those bounds, agreeing with central
// differences of the log density (step 1e-6 in μ and log σ; μ is kept away
// from the kinks at z, a and b, where the differences of a nearly
// piecewise-linear function at σ ≪ 1e-6 would average across the kink).
func TestGaussianGradientExtreme(t *testing.T) {
	const a, b, eps = -3.0, 3.0, 2.0
	m, err := NewClippedGaussian(ClippedGaussianConfig{A: a, B: b, Epsilon: eps})
	if err != nil {
		t.Fatal(err)
	}
	c := eps / (b - a)
	prior := GaussianPrior{Mu0: 0, Sd0: 3, Shape: 2, Rate: 1}

	// The reported case: z = {0}, x = (μ, log σ) = (272.54, −233.29). The
	// report lies inside (a, b) and x is clipped to b with probability 1,
	// so the likelihood is flat in both coordinates and the gradient is
	// the prior's: (−μ/Sd0², Shape − Rate·σ).
	post, err := NewGaussianPosterior(m, []float64{0}, prior)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{272.54, -233.29}
	grad := make([]float64, 2)
	post.Gradient(x, grad)
	want := []float64{-272.54 / 9, 2 - math.Exp(-233.29)}
	for j := range grad {
		if math.Abs(grad[j]-want[j]) > 1e-12*math.Abs(want[j]) {
			t.Errorf("reported point: grad[%d] = %v, want %v", j, grad[j], want[j])
		}
	}
	checkGrad(t, "Gaussian reported point", post, x, 1e-6)

	zsets := [][]float64{{0}, {a}, {b}, {-3.3}, {3.3}, {2.5}, {-10, 10}, {-1e3, 0.4, 1e3}}
	mus := []float64{-1e4, -272.54, -5, -1.5, 0.7, 4, 272.54, 1e4}
	// log σ from −744 (σ subnormal, α = ±Inf before the point-mass limit)
	// up; below −700 every point takes the point-mass limit. Around
	// log σ = 10–20 (cσ ~ 1e4–1e8) the log-σ derivative used to be a
	// difference of products of size (cσ)², wrong by 17 at log σ = 15.
	lss := []float64{-744, -740, -700, -690, -600, -500, -360, -340, -233.29, -100, -50, -10, -1, 0, 3, 8, 9, 10, 11, 12, 13, 15, 17, 20, 25, 30, 50, 100, 200}
	const h = 1e-6
	checked := 0
	for _, z := range zsets {
		post, err := NewGaussianPosterior(m, z, prior)
		if err != nil {
			t.Fatal(err)
		}
		n := float64(len(z))
		for _, mu := range mus {
			for _, ls := range lss {
				sigma := math.Exp(ls)
				ll, dmu, dls := m.sumGradLog(z, mu, sigma)
				if math.IsInf(ll, 0) || math.IsNaN(ll) {
					t.Errorf("z=%v μ=%v log σ=%v: log likelihood %v", z, mu, ls, ll)
					continue
				}
				if v := m.LogDensitySum(z, mu, sigma); v != ll {
					t.Errorf("z=%v μ=%v log σ=%v: LogDensitySum %v, sumGradLog %v", z, mu, ls, v, ll)
				}
				bmu := n * c * (1 + 1e-9)
				bls := n * c * math.Max(math.Abs(a-mu), math.Abs(b-mu)) * (1 + 1e-9)
				if !(math.Abs(dmu) <= bmu) || !(math.Abs(dls) <= bls) {
					t.Errorf("z=%v μ=%v log σ=%v: gradient (%v, %v) not finite within the bounds (%v, %v)", z, mu, ls, dmu, dls, bmu, bls)
					continue
				}
				fmu := (m.LogDensitySum(z, mu+h, sigma) - m.LogDensitySum(z, mu-h, sigma)) / (2 * h)
				fls := (m.LogDensitySum(z, mu, math.Exp(ls+h)) - m.LogDensitySum(z, mu, math.Exp(ls-h))) / (2 * h)
				if math.Abs(fmu-dmu) > 1e-6*(1+math.Abs(fmu)) || math.Abs(fls-dls) > 1e-6*(1+math.Abs(fls)) {
					t.Errorf("z=%v μ=%v log σ=%v: gradient (%.10g, %.10g), central differences (%.10g, %.10g)", z, mu, ls, dmu, dls, fmu, fls)
				}
				g := make([]float64, 2)
				lp := post.Gradient([]float64{mu, ls}, g)
				if math.IsNaN(lp) || math.IsNaN(g[0]) || math.IsNaN(g[1]) || math.IsInf(g[0], 0) || math.IsInf(g[1], 0) {
					t.Errorf("z=%v μ=%v log σ=%v: posterior %v, gradient %v", z, mu, ls, lp, g)
				}
				checked++
			}
		}
	}
	if checked < 500 {
		t.Errorf("only %d grid points checked", checked)
	}
}

// TestGaussianGradientAtBound checks the gradient with μ on a clipping
// bound and σ ≪ 1, where the atom's and the integral's derivatives, each
// of order 1/σ, used to be formed and cancelled (dμ was off by 2e-6 at
// σ = 1e-10 and by 1e283 at σ = 1e-299). With μ = a and a report z inside
// (a, b), half the mass sits on a and half just above it, so
// ∂μ log Pr → c/2 and ∂log σ log Pr → 0 as σ → 0, both up to O(cσ).
func TestGaussianGradientAtBound(t *testing.T) {
	m, err := NewClippedGaussian(ClippedGaussianConfig{A: -3, B: 3, Epsilon: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := m.c
	for _, sigma := range []float64{1e-6, 1e-10, 1e-50, 1e-200, 1.2e-299} {
		for _, bound := range []float64{-3, 3} {
			_, dmu, dls := m.sumGradLog([]float64{0.5}, bound, sigma)
			want := -math.Copysign(c/2, bound)
			if math.Abs(dmu-want) > 1e-12+2*c*sigma || math.Abs(dls) > 1e-12+2*c*sigma {
				t.Errorf("μ=%v σ=%v: gradient (%v, %v), want (%v, 0)", bound, sigma, dmu, dls, want)
			}
		}
	}
}

// TestGaussianPointMassLimit checks the switch to the point mass at
// clip(μ) where σ falls below 1e-300 times the distance from μ to the
// farther clipping bound: just above the switch the general formulas give
// the same log density (to 1e-13 absolute, against a neglected cσ ≈ 1e-300)
// and the same gradient, and both sides are finite. Before the switch
// existed, σ ≈ 1e-157 gave a NaN log density (α² overflowing inside
// the tail formulas).
func TestGaussianPointMassLimit(t *testing.T) {
	m, err := NewClippedGaussian(ClippedGaussianConfig{A: -3, B: 3, Epsilon: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := m.c
	for _, mu := range []float64{-1e6, -3.5, -3 - 1e-12, -1.5, 0.7, 3 + 1e-12, 4, 272.54} {
		d := math.Max(math.Abs(-3-mu), math.Abs(3-mu))
		for _, z := range []float64{-50, -3, -2.2, 0, 1.1, 3, 7} {
			clip := math.Max(-3, math.Min(3, mu))
			want := math.Log(c/2) - c*math.Abs(z-clip)
			wmu := 0.0
			if mu > -3 && mu < 3 {
				wmu = math.Copysign(c, z-mu)
			}
			for _, f := range []float64{0.5, 2} { // σ = d·f/1e300: f = 2 general, 0.5 point mass
				sigma := d * f / pointMassRatio
				ll, dmu, dls := m.sumGradLog([]float64{z}, mu, sigma)
				if math.Abs(ll-want) > 1e-13 || math.Abs(dmu-wmu) > 1e-13 || !(math.Abs(dls) < 1e-13) {
					t.Errorf("μ=%v z=%v σ=%v: (%v, %v, %v), want (%v, %v, 0)", mu, z, sigma, ll, dmu, dls, want, wmu)
				}
			}
		}
	}
	for _, sigma := range []float64{1e-157, 1e-250, 1e-300, 1e-310} {
		if v := m.LogDensity(0, 272.54, sigma); math.Abs(v-(math.Log(c/2)-c*3)) > 1e-13 {
			t.Errorf("LogDensity(0, 272.54, %v) = %v, want log(c/2) − 3c", sigma, v)
		}
	}
}

// TestGaussianNearBounds checks value and gradient where σ is small
// against the clipping width and μ within a few σ of a bound. The tail
// shift of the integral terms used to add −1e9 and +1e9 there when the
// mass sat at the other end of the interval from the one the prefactor was
// built for, so log Pr carried noise of 1e-7 and its central differences
// disagreed with the gradient by up to 1% of (1 + |∂|). The points are
// drawn from a fixed-seed generator (a deterministic sweep, not a
// statistical test): σ log-uniform on [e^-9, e^9], μ within 3σ of a bound
// or of 0, reports on the bounds, at 0, or uniform on [−10, 10] or [a, b].
// Central differences use steps 1e-5·σ in μ and 1e-5 in log σ; the
// tolerance 1e-6·(1 + |difference|) is 150 times the worst discrepancy
// seen.
func TestGaussianNearBounds(t *testing.T) {
	m, err := NewClippedGaussian(ClippedGaussianConfig{A: -3, B: 3, Epsilon: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	const z0, mu0, s0 = 8.177065334086995, -3.0000364683764698, 0.00013079139981248393
	want := math.Log(gaussRef(-3, 3, 0.01, z0, mu0, s0))
	if got := m.LogDensity(z0, mu0, s0); math.Abs(got-want) > 1e-12 {
		t.Errorf("LogDensity(%v, %v, %v) = %.17g, quadrature %.17g", z0, mu0, s0, got, want)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, eps := range []float64{0.01, 1, 50} {
		m, err := NewClippedGaussian(ClippedGaussianConfig{A: -3, B: 3, Epsilon: eps})
		if err != nil {
			t.Fatal(err)
		}
		for range 3000 {
			sigma := math.Exp(-9 + 18*r.Float64())
			mu := []float64{-3, 3, 0}[r.IntN(3)] + sigma*(6*r.Float64()-3)
			z := []float64{-3, 3, 0, 20 * (r.Float64() - 0.5), -3 + 6*r.Float64()}[r.IntN(5)]
			zs := []float64{z}
			_, dmu, dls := m.sumGradLog(zs, mu, sigma)
			h := 1e-5 * sigma
			fmu := (m.LogDensitySum(zs, mu+h, sigma) - m.LogDensitySum(zs, mu-h, sigma)) / (2 * h)
			fls := (m.LogDensitySum(zs, mu, sigma*math.Exp(1e-5)) - m.LogDensitySum(zs, mu, sigma*math.Exp(-1e-5))) / 2e-5
			// The μ-difference is scaled by σ/(1+σ): its rounding error
			// grows as 1/h = 1e5/σ.
			if math.Abs(fmu-dmu)/(1+math.Abs(fmu))*sigma/(1+sigma) > 1e-6 || math.Abs(fls-dls) > 1e-6*(1+math.Abs(fls)) {
				t.Errorf("ε=%v μ=%v σ=%v z=%v: gradient (%v, %v), central differences (%v, %v)", eps, mu, sigma, z, dmu, dls, fmu, fls)
			}
		}
	}
}
