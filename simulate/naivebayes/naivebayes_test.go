package naivebayes

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/simulate"
)

// TestNaiveBayesSimulateLaw checks the multinomial simulator against the
// record-level model: the mean of each released proportion over 4000
// simulations equals the cell probability p_i·p^k_{ij} (5-se bounds, family
// false alarm ≈ 5e-6), and the law of one cell count agrees between the
// two routes (chi-square, level 1e-3).
func TestNaiveBayesSimulateLaw(t *testing.T) {
	m := Paper()
	theta := PaperTheta()
	const reps = 4000
	r := rand.New(rand.NewPCG(31, 32))
	dst := make([]float64, m.StatDim())
	sum := make([]float64, m.StatDim())
	cell0 := make([]float64, m.N()+1)
	for range reps {
		if err := m.Simulate(r, theta, dst); err != nil {
			t.Fatal(err)
		}
		tot := 0.0
		for k, v := range dst {
			sum[k] += v
			tot += v
		}
		// Each record falls in one cell per feature: Σ r = K.
		if math.Abs(tot-2) > 1e-12 {
			t.Fatalf("proportions sum to %v, want K = 2", tot)
		}
		cell0[int(math.Round(dst[0]*float64(m.N())))]++
	}
	pc := theta[8:]
	for k := range sum {
		i := k / 4
		p := pc[i] * theta[k]
		se := math.Sqrt(p * (1 - p) / float64(m.N()) / reps)
		if got := sum[k] / reps; math.Abs(got-p) > 5*se {
			t.Errorf("cell %d: mean proportion %v, want %v ± %v", k, got, p, 5*se)
		}
	}
	// Record route: count of cell 0 ~ Binomial(n, p_1 p^1_11).
	ms, _ := simulate.NewMeanStat(m, m.N())
	viaRec := make([]float64, m.N()+1)
	for range reps {
		if err := ms.Simulate(r, theta, dst); err != nil {
			t.Fatal(err)
		}
		viaRec[int(math.Round(dst[0]*float64(m.N())))]++
	}
	// Two-sample homogeneity test: with equal sample sizes the
	// chi-square statistic against the pooled average is half the
	// two-sample statistic, which is χ²(cells − 1) under the null.
	var obs, exp []float64
	var o1, e1 float64
	for c := range cell0 {
		o1 += cell0[c]
		e1 += (cell0[c] + viaRec[c]) / 2
		if e1 >= 10 {
			obs, exp = append(obs, o1), append(exp, e1)
			o1, e1 = 0, 0
		}
	}
	obs[len(obs)-1] += o1
	exp[len(exp)-1] += e1
	stat, _, df := stats.ChiSquareGOF(obs, exp, 0)
	if p := special.ChiSquareSF(2*stat, float64(df)); !(p > 1e-3) {
		t.Errorf("multinomial and record routes differ: chi2=%v df=%d p=%v", 2*stat, df, p)
	}
}

func TestNaiveBayesRecordModel(t *testing.T) {
	m := Paper()
	theta := PaperTheta()
	rec := []float64{1, 0, 1} // class 2, x1 = 1, x2 = 2
	want := math.Log(0.1511) + math.Log(0.6534) + math.Log(0.4166)
	if got := m.RecordLogLik(theta, rec); math.Abs(got-want) > 1e-12 {
		t.Errorf("RecordLogLik %v, want %v", got, want)
	}
	c := make([]float64, 8)
	m.Contribution(rec, c)
	wantC := []float64{0, 0, 0, 0, 1, 0, 0, 1}
	for k := range c {
		if c[k] != wantC[k] {
			t.Fatalf("contribution %v, want %v", c, wantC)
		}
	}
	if v := m.RecordLogLik(theta, []float64{2, 0, 0}); !math.IsInf(v, -1) {
		t.Errorf("invalid class gave %v", v)
	}
	if v, err := LaplaceScale(2, 100, 10); err != nil || v != 0.004 {
		t.Errorf("LaplaceScale(2, 100, 10) = %v, %v, want 2K/(nε) = 0.004", v, err)
	}
	if math.Abs(m.Sensitivity()-0.04) > 1e-15 {
		t.Errorf("sensitivity %v, want 2K/n = 0.04", m.Sensitivity())
	}
	bad := [][]float64{theta[:9], append([]float64{0.5, 0.6}, theta[2:]...), append([]float64{-0.1, 1.1}, theta[2:]...)}
	for _, th := range bad {
		if err := m.Simulate(rand.New(rand.NewPCG(1, 1)), th, c); !errors.Is(err, simulate.ErrInvalidTheta) {
			t.Errorf("θ=%v: got %v", th, err)
		}
	}
	pr, err := m.Prior(2)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Dim() != 10 || math.IsInf(pr.LogDensity(theta), 0) {
		t.Errorf("prior dim %d, log density at θ* %v", pr.Dim(), pr.LogDensity(theta))
	}
}

// TestALRJacobian checks InvALR against ALR (round trip) and its log
// Jacobian against a central finite-difference determinant, for the
// paper's 5 blocks.
func TestALRJacobian(t *testing.T) {
	m := Paper()
	theta := PaperTheta()
	d := m.UnconstrainedDim()
	if d != 5 {
		t.Fatalf("UnconstrainedDim %d, want 5", d)
	}
	phi := make([]float64, d)
	m.ToUnconstrained(theta, phi)
	back := make([]float64, 10)
	lj := m.FromUnconstrained(phi, back)
	for k := range theta {
		if math.Abs(back[k]-theta[k]) > 1e-14 {
			t.Fatalf("round trip %v -> %v", theta, back)
		}
	}
	// Blocks of size 2: dp_1/dφ = p_1 p_2, so log J = Σ log(p_1 p_2).
	want := 0.0
	for b := range 5 {
		want += math.Log(theta[2*b] * theta[2*b+1])
	}
	if math.Abs(lj-want) > 1e-12 {
		t.Errorf("log Jacobian %v, want %v", lj, want)
	}
	// A 4-category block against a finite-difference determinant.
	phi4 := []float64{0.3, -1.2, 0.8}
	p := make([]float64, 4)
	lj4 := InvALR(phi4, p)
	const h = 1e-6
	var jac [3][3]float64
	pp, pm := make([]float64, 4), make([]float64, 4)
	for j := range 3 {
		x := append([]float64(nil), phi4...)
		x[j] += h
		InvALR(x, pp)
		x[j] -= 2 * h
		InvALR(x, pm)
		for i := range 3 {
			jac[i][j] = (pp[i] - pm[i]) / (2 * h)
		}
	}
	det := jac[0][0]*(jac[1][1]*jac[2][2]-jac[1][2]*jac[2][1]) -
		jac[0][1]*(jac[1][0]*jac[2][2]-jac[1][2]*jac[2][0]) +
		jac[0][2]*(jac[1][0]*jac[2][1]-jac[1][1]*jac[2][0])
	if math.Abs(math.Log(math.Abs(det))-lj4) > 1e-7 {
		t.Errorf("ALR log Jacobian %v, finite differences %v", lj4, math.Log(math.Abs(det)))
	}
}

// TestPaperRelease checks the length of the paper's release table.
func TestPaperRelease(t *testing.T) {
	if len(Release()) != 8 {
		t.Error("table lengths")
	}
}
