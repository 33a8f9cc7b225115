package linreg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
)

// testRecords draws n linear-regression records (x1, x2, y).
func testRecords(r *rand.Rand, n int) []float64 {
	rec := make([]float64, 3*n)
	for i := range n {
		x1, x2 := 0.9+r.NormFloat64(), -1.17+r.NormFloat64()
		rec[3*i], rec[3*i+1], rec[3*i+2] = x1, x2, -1.8-2.9*x1-0.7*x2+1.4*r.NormFloat64()
	}
	return rec
}

// normalEq returns XᵀX and Xᵀy, yᵀy by plain loops (independent of gram).
func normalEq(rec []float64, n int) (xtx [9]float64, xty [3]float64, yty float64) {
	for i := range n {
		row := [3]float64{1, rec[3*i], rec[3*i+1]}
		y := rec[3*i+2]
		for a := range 3 {
			xty[a] += row[a] * y
			for b := range 3 {
				xtx[3*a+b] += row[a] * row[b]
			}
		}
		yty += y * y
	}
	return
}

// TestLinRegConjugateExact checks the θ-step of the known-σ² model: the
// posterior mean solves the normal equations, and 20,000 draws match
// N(mean, cov) marginally (KS, false-alarm rate 0.1% per coordinate) with
// sample covariances within 5 standard errors.
func TestLinRegConjugateExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 30
	rec := testRecords(r, n)
	sigma2 := 2.0
	pm, pv := []float64{0.5, -1, 0}, []float64{1, 4, 0.25}
	lc, err := NewConjugate(ConjugateConfig{P: 2, Sigma2: sigma2, PriorMean: pm, PriorVar: pv})
	if err != nil {
		t.Fatal(err)
	}
	mu, cov := make([]float64, 3), make([]float64, 9)
	if err := lc.PosteriorMoments(rec, n, mu, cov); err != nil {
		t.Fatal(err)
	}
	xtx, xty, _ := normalEq(rec, n)
	for a := range 3 { // gradient of the log posterior vanishes at μ
		g := xty[a]/sigma2 - (mu[a]-pm[a])/pv[a]
		for b := range 3 {
			g -= xtx[3*a+b] * mu[b] / sigma2
		}
		if math.Abs(g) > 1e-9 {
			t.Errorf("normal equation %d residual %v", a, g)
		}
	}
	for a := range 3 { // cov · P = I
		for b := range 3 {
			s := 0.0
			for c := range 3 {
				p := xtx[3*c+b] / sigma2
				if c == b {
					p += 1 / pv[b]
				}
				s += cov[3*a+c] * p
			}
			want := 0.0
			if a == b {
				want = 1
			}
			if math.Abs(s-want) > 1e-10 {
				t.Errorf("(cov·P)[%d][%d] = %v", a, b, s)
			}
		}
	}
	const N = 20000
	draws := make([][]float64, 3)
	th := make([]float64, 3)
	for range N {
		if err := lc.SampleTheta(r, rec, n, th); err != nil {
			t.Fatal(err)
		}
		for j := range 3 {
			draws[j] = append(draws[j], th[j])
		}
	}
	for j := range 3 {
		sd := math.Sqrt(cov[4*j])
		_, p := stats.KSOneSample(draws[j], func(v float64) float64 { return special.NormCDF((v - mu[j]) / sd) })
		if !(p > 1e-3) {
			t.Errorf("β%d: KS p = %v", j, p)
		}
		for k := range j {
			c := 0.0
			for i := range N {
				c += (draws[j][i] - mu[j]) * (draws[k][i] - mu[k])
			}
			c /= N
			se := math.Sqrt((cov[4*j]*cov[4*k] + cov[3*j+k]*cov[3*j+k]) / N)
			if math.Abs(c-cov[3*j+k]) > 5*se {
				t.Errorf("cov[%d][%d] = %v, want %v ± %v", j, k, c, cov[3*j+k], se)
			}
		}
	}
}

// TestLinRegNIGExact checks the normal-inverse-gamma θ-step against its
// closed-form marginals computed independently: σ² ~ InvGamma(a_n, b_n)
// and (β_j − μ_j)/√(b_n/a_n·(Λ⁻¹)_jj) ~ t_{2a_n} (KS, 0.1% per marginal).
func TestLinRegNIGExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 10
	rec := testRecords(r, n)
	nig, err := NewNIG(NIGConfig{PredictorMean: []float64{0.9, -1.17}, A0: 10, B0: 10, G: 2, Clamp: 6})
	if err != nil {
		t.Fatal(err)
	}
	xtx, xty, yty := normalEq(rec, n)
	lam := xtx
	for a := range 3 {
		lam[4*a] += 0.5 // V0⁻¹ = I/g, g = 2
	}
	var inv [9]float64
	if err := linalg.InvSPD(lam[:], 3, inv[:]); err != nil {
		t.Fatal(err)
	}
	var mu [3]float64
	quad := 0.0
	for a := range 3 {
		for b := range 3 {
			mu[a] += inv[3*a+b] * xty[b]
		}
		quad += mu[a] * xty[a]
	}
	an, bn := 10+float64(n)/2, 10+0.5*(yty-quad)
	const N = 20000
	th := make([]float64, 4)
	d := make([][]float64, 4)
	for range N {
		if err := nig.SampleTheta(r, rec, n, th); err != nil {
			t.Fatal(err)
		}
		for j := range 4 {
			d[j] = append(d[j], th[j])
		}
	}
	_, p := stats.KSOneSample(d[3], func(s float64) float64 { return special.GammaQ(an, bn/s) })
	if !(p > 1e-3) {
		t.Errorf("σ²: KS p = %v", p)
	}
	for j := range 3 {
		sc := math.Sqrt(bn / an * inv[4*j])
		_, p := stats.KSOneSample(d[j], func(v float64) float64 { return special.StudentTCDF((v-mu[j])/sc, 2*an) })
		if !(p > 1e-3) {
			t.Errorf("β%d: KS p = %v", j, p)
		}
	}
}

// TestMaximalCoupleNormals checks the rejection maximal coupling of
// N(0, 1) and N(1, 1.5²): KS of both marginals (0.1% each) and P(X = Y)
// = 1 − TV within 4 standard errors, TV computed from the two crossing
// points of the densities.
func TestMaximalCoupleNormals(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	m2, s2 := 1.0, 1.5
	lp := func(v float64) float64 { return -0.5 * v * v }
	lq := func(v float64) float64 { z := (v - m2) / s2; return -0.5*z*z - math.Log(s2) }
	const N = 50000
	xs, ys := make([]float64, N), make([]float64, N)
	same := 0
	for i := range N {
		xs[i], ys[i] = maximalCouple(r, func() float64 { return r.NormFloat64() }, func() float64 { return m2 + s2*r.NormFloat64() }, lp, lq)
		if xs[i] == ys[i] {
			same++
		}
	}
	if _, p := stats.KSOneSample(xs, special.NormCDF); !(p > 1e-3) {
		t.Errorf("X marginal KS p = %v", p)
	}
	if _, p := stats.KSOneSample(ys, func(v float64) float64 { return special.NormCDF((v - m2) / s2) }); !(p > 1e-3) {
		t.Errorf("Y marginal KS p = %v", p)
	}
	// Densities cross where ½x² = ½((x−m)/s)² + log s: a quadratic.
	a := 0.5 - 0.5/(s2*s2)
	b := m2 / (s2 * s2)
	c := -0.5*m2*m2/(s2*s2) - math.Log(s2)
	disc := math.Sqrt(b*b - 4*a*c)
	x1, x2 := (-b-disc)/(2*a), (-b+disc)/(2*a)
	if x1 > x2 {
		x1, x2 = x2, x1
	}
	// p > q on (x1, x2): overlap = ∫ min = P_q(x1<Y<x2) + 1 − P_p(x1<X<x2).
	pin := special.NormCDF(x2) - special.NormCDF(x1)
	qin := special.NormCDF((x2-m2)/s2) - special.NormCDF((x1-m2)/s2)
	over := qin + 1 - pin
	se := math.Sqrt(over * (1 - over) / N)
	if got := float64(same) / N; math.Abs(got-over) > 4*se {
		t.Errorf("P(X = Y) = %v, want %v", got, over)
	}
}
