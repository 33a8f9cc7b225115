package linreg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/simulate"
)

func TestStats(t *testing.T) {
	// Two records, p = 2.
	x := []float64{0.5, -1, 1, 0.25}
	y := []float64{0.2, -0.6}
	dst := make([]float64, StatDim(2))
	if len(dst) != 9 {
		t.Fatalf("stat dim %d, want 9", len(dst))
	}
	if err := Stats(x, y, 2, dst); err != nil {
		t.Fatal(err)
	}
	want := []float64{
		(0.2 - 0.6) / 2, (0.5*0.2 + 1*-0.6) / 2, (-1*0.2 + 0.25*-0.6) / 2, // x'y/n
		(0.04 + 0.36) / 2,              // y'y/n
		(0.5 + 1) / 2, (-1 + 0.25) / 2, // (0,1), (0,2)
		(0.25 + 1) / 2, (0.5*-1 + 1*0.25) / 2, (1 + 0.0625) / 2, // (1,1), (1,2), (2,2)
	}
	for i := range want {
		if math.Abs(dst[i]-want[i]) > 1e-15 {
			t.Errorf("stat %d = %v, want %v", i, dst[i], want[i])
		}
	}
	if s, _ := Sensitivity(2, 100); s != 0.13 {
		t.Errorf("(p²+3p+3)/n = %v, want 0.13", s)
	}
	if err := Stats([]float64{2, 0}, []float64{0}, 2, dst); err == nil {
		t.Error("unnormalised x accepted")
	}
}

// TestStatsMatchesContribution checks that Stats of records clamped and
// divided by the model's bound equals the mean of the model's
// contributions of the raw records (the same statistic, two views).
func TestStatsMatchesContribution(t *testing.T) {
	m, err := New(Config{PredictorMean: []float64{0.9, -1.17}, Sigma2: 2, Clamp: 2})
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	p, rd := m.P(), m.RecordDim()
	if StatDim(p) != m.ContribDim() {
		t.Fatalf("StatDim(%d) = %d, ContribDim = %d", p, StatDim(p), m.ContribDim())
	}
	r := rand.New(rand.NewPCG(4, 5))
	recs := make([]float64, n*rd)
	for i := range n {
		m.SampleRecord(r, PaperTheta(), recs[i*rd:(i+1)*rd])
	}
	x := make([]float64, n*p)
	y := make([]float64, n)
	for i := range n {
		for j := range p {
			x[i*p+j] = m.clampScale(recs[i*rd+j])
		}
		y[i] = m.clampScale(recs[i*rd+p])
	}
	got := make([]float64, StatDim(p))
	if err := Stats(x, y, p, got); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, m.ContribDim())
	if err := simulate.MeanContribution(m, recs, want); err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-14 {
			t.Errorf("statistic %d: Stats %v, mean contribution %v", k, got[k], want[k])
		}
	}
}

// TestSensitivityBound searches neighbouring records over a grid of
// values in [-1, 1] for the largest ℓ1 change of n·Stats and checks it
// against the stated sensitivity for p = 1, 2 (the paper's p).
func TestSensitivityBound(t *testing.T) {
	grid := []float64{-1, -0.5, 0, 0.5, 1}
	for _, p := range []int{1, 2} {
		bound, _ := Sensitivity(p, 1)
		cons, _ := SensitivityConservative(p, 1)
		if cons < bound {
			t.Errorf("conservative bound %v below paper bound %v", cons, bound)
		}
		d := StatDim(p)
		a := make([]float64, d)
		b := make([]float64, d)
		nv := p + 1
		total := 1
		for i := 0; i < 2*nv; i++ {
			total *= len(grid)
		}
		worst := 0.0
		rec := make([]float64, 2*nv)
		for idx := range total {
			k := idx
			for j := range rec {
				rec[j] = grid[k%len(grid)]
				k /= len(grid)
			}
			_ = Stats(rec[:p], rec[p:p+1], p, a)
			_ = Stats(rec[nv:nv+p], rec[nv+p:nv+p+1], p, b)
			l1 := 0.0
			for j := range a {
				l1 += math.Abs(a[j] - b[j])
			}
			worst = math.Max(worst, l1)
		}
		t.Logf("p=%d: worst grid ℓ1 change %v, stated sensitivity %v", p, worst, bound)
		if worst > bound+1e-12 {
			t.Errorf("p=%d: ℓ1 change %v exceeds (p²+3p+3) = %v", p, worst, bound)
		}
	}
}

// TestConfigAccessors checks that Model.Config and NIG.Config give back
// the settings they were built with (defaults resolved) and the zero
// value for unconstructed models.
func TestConfigAccessors(t *testing.T) {
	m, err := New(Config{PredictorMean: []float64{0.9, -1.17}, PredictorCov: []float64{2, 0.5, 0.5, 1}, Sigma2: 3})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Config()
	want := []float64{2, 0.5, 0.5, 1}
	if c.Sigma2 != 3 || c.Clamp != 10 || c.PredictorMean[0] != 0.9 || c.PredictorMean[1] != -1.17 {
		t.Errorf("Config() = %+v", c)
	}
	for i, v := range c.PredictorCov {
		if math.Abs(v-want[i]) > 1e-14 {
			t.Errorf("PredictorCov[%d] = %v, want %v", i, v, want[i])
		}
	}
	nig, err := NewNIG(NIGConfig{PredictorMean: []float64{1}, A0: 2, B0: 3, G: 4, Clamp: 5})
	if err != nil {
		t.Fatal(err)
	}
	if nc := nig.Config(); nc.A0 != 2 || nc.B0 != 3 || nc.G != 4 || nc.Clamp != 5 || len(nc.PredictorMean) != 1 || nc.PredictorMean[0] != 1 {
		t.Errorf("NIG.Config() = %+v", nc)
	}
	var zm Model
	var zn NIG
	if zm.Config().PredictorMean != nil || zn.Config().PredictorMean != nil {
		t.Error("unconstructed models report settings")
	}
}
