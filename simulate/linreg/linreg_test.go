package linreg

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/simulate"
)

// TestLinRegRecordBatchAgree draws n records with SampleRecord from one
// stream and checks that MeanContribution of those records equals, bit
// for bit, MeanStat.Simulate run on an identically seeded stream.
func TestLinRegRecordBatchAgree(t *testing.T) {
	m := Paper()
	sim, err := simulate.NewMeanStat(m, PaperN)
	if err != nil {
		t.Fatal(err)
	}
	theta := PaperTheta()
	for seed := uint64(0); seed < 5; seed++ {
		r1 := rand.New(rand.NewPCG(seed, 1))
		batch := make([]float64, sim.StatDim())
		if err := sim.Simulate(r1, theta, batch); err != nil {
			t.Fatal(err)
		}
		r2 := rand.New(rand.NewPCG(seed, 1))
		rd := m.RecordDim()
		recs := make([]float64, PaperN*rd)
		for i := range PaperN {
			m.SampleRecord(r2, theta, recs[i*rd:(i+1)*rd])
		}
		s := make([]float64, m.ContribDim())
		if err := simulate.MeanContribution(m, recs, s); err != nil {
			t.Fatal(err)
		}
		for k := range s {
			if s[k] != batch[k] {
				t.Fatalf("seed %d coordinate %d: record-level %v != batch %v", seed, k, s[k], batch[k])
			}
		}
		// The contribution is the paper's statistic computed directly from
		// the clamped design: check x̃ᵀỹ/n, ỹᵀỹ/n and x̃ᵀx̃/n entries.
		var xy [3]float64
		var yy float64
		var xx [3][3]float64
		for i := range PaperN {
			rec := recs[i*rd : (i+1)*rd]
			x := [3]float64{1, clamp10(rec[0]), clamp10(rec[1])}
			y := clamp10(rec[2])
			for a := range 3 {
				xy[a] += x[a] * y
				for b := range 3 {
					xx[a][b] += x[a] * x[b]
				}
			}
			yy += y * y
		}
		want := []float64{xy[0], xy[1], xy[2], yy, xx[0][1], xx[0][2], xx[1][1], xx[1][2], xx[2][2]}
		for k := range want {
			want[k] /= PaperN
			if math.Abs(want[k]-s[k]) > 1e-14 {
				t.Errorf("seed %d coordinate %d: direct statistic %v vs %v", seed, k, want[k], s[k])
			}
		}
	}
	if got, err := Sensitivity(m.P(), PaperN); err != nil || math.Abs(got-0.13) > 1e-15 {
		t.Errorf("sensitivity %v, want 13/100", got)
	}
}

func clamp10(v float64) float64 { return math.Max(-10, math.Min(10, v)) / 10 }

// TestLinRegPaperMagnitudes simulates 400 data sets of n = 100 at the
// paper's β* and checks that each coordinate of the paper's confidential
// statistic s̃_vec (one draw from this law) lies within 4 standard
// deviations of the simulated mean (per-coordinate false alarm ≈ 6e-5 for a
// near-normal mean of 100 records, ≈ 6e-4 for the 9 coordinates).
func TestLinRegPaperMagnitudes(t *testing.T) {
	sim, _ := simulate.NewMeanStat(Paper(), PaperN)
	const reps = 400
	d := sim.StatDim()
	cols := make([][]float64, d)
	r := rand.New(rand.NewPCG(7, 7))
	dst := make([]float64, d)
	for range reps {
		if err := sim.Simulate(r, PaperTheta(), dst); err != nil {
			t.Fatal(err)
		}
		for k, v := range dst {
			cols[k] = append(cols[k], v)
		}
	}
	paper := ConfidentialStat()
	for k := range d {
		mean, sd := stats.Mean(cols[k]), math.Sqrt(stats.Variance(cols[k]))
		z := (paper[k] - mean) / sd
		t.Logf("coord %d: paper %+.4f  simulated mean %+.4f sd %.4f  z=%+.2f", k, paper[k], mean, sd, z)
		if math.Abs(z) > 4 {
			t.Errorf("coordinate %d: paper value %v is %.1f sd from the simulated mean %v", k, paper[k], z, mean)
		}
	}
	// The eps = 10 release is s̃ plus Laplace(0.013) noise: the difference
	// must be within 10 scales on every coordinate (false alarm 9·e^−10).
	rel, _ := Release(10)
	for k := range rel {
		if math.Abs(rel[k]-paper[k]) > 10*0.013 {
			t.Errorf("release coordinate %d differs from s̃ by %v", k, rel[k]-paper[k])
		}
	}
}

func TestLinRegInvalid(t *testing.T) {
	sim, _ := simulate.NewMeanStat(Paper(), 10)
	r := rand.New(rand.NewPCG(1, 1))
	dst := make([]float64, 9)
	for _, th := range [][]float64{{1, 2}, {1, 2, 3, 4}, {math.NaN(), 0, 0}, {0, math.Inf(-1), 0}} {
		if err := sim.Simulate(r, th, dst); !errors.Is(err, simulate.ErrInvalidTheta) {
			t.Errorf("θ=%v: got %v", th, err)
		}
	}
	if err := sim.Simulate(r, PaperTheta(), make([]float64, 8)); err == nil {
		t.Error("wrong dst length accepted")
	}
	if _, err := simulate.NewMeanStat(Paper(), 0); err == nil {
		t.Error("n = 0 accepted")
	}
	bad := []Config{
		{Sigma2: 1},
		{PredictorMean: []float64{0}, Sigma2: 0},
		{PredictorMean: []float64{0}, Sigma2: 1, Clamp: -1},
		{PredictorMean: []float64{0, 0}, PredictorCov: []float64{1, 2, 2, 1}, Sigma2: 1},
		{PredictorMean: []float64{0, 0}, PredictorCov: []float64{1, 0, 0.5, 1}, Sigma2: 1},
	}
	for i, c := range bad {
		if _, err := New(c); err == nil {
			t.Errorf("config %d accepted", i)
		}
	}
}

// TestLinRegLogLik checks RecordLogLik against a direct evaluation with a
// correlated predictor covariance.
func TestLinRegLogLik(t *testing.T) {
	m, err := New(Config{PredictorMean: []float64{1, -1}, PredictorCov: []float64{2, 0.6, 0.6, 1}, Sigma2: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.3, -1, 2}
	rec := []float64{0.4, 0.2, 1.1}
	// Direct: Σ⁻¹ = [1, −0.6; −0.6, 2]/(2 − 0.36).
	dx, dy := rec[0]-1, rec[1]+1
	det := 2 - 0.36
	q := (1*dx*dx - 2*0.6*dx*dy + 2*dy*dy) / det
	lx := -0.5*q - 0.5*math.Log(det) - math.Log(2*math.Pi)
	mu := 0.3 - 0.4 + 2*0.2
	ly := -0.5*(1.1-mu)*(1.1-mu)/0.5 - 0.5*math.Log(2*math.Pi*0.5)
	if got := m.RecordLogLik(theta, rec); math.Abs(got-(lx+ly)) > 1e-12 {
		t.Errorf("RecordLogLik %v, want %v", got, lx+ly)
	}
}

// TestLinRegSampleMoments checks SampleRecord's first two moments for a
// correlated design: mean of x, Cov(x), and the residual variance.
func TestLinRegSampleMoments(t *testing.T) {
	m, _ := New(Config{PredictorMean: []float64{1, -1}, PredictorCov: []float64{2, 0.6, 0.6, 1}, Sigma2: 0.5})
	theta := []float64{0.3, -1, 2}
	r := rand.New(rand.NewPCG(9, 9))
	const n = 200000
	var sx0, sx1, s00, s01, s11, sres, sres2 float64
	rec := make([]float64, 3)
	for range n {
		m.SampleRecord(r, theta, rec)
		sx0 += rec[0]
		sx1 += rec[1]
		a, b := rec[0]-1, rec[1]+1
		s00 += a * a
		s01 += a * b
		s11 += b * b
		e := rec[2] - (0.3 - rec[0] + 2*rec[1])
		sres += e
		sres2 += e * e
	}
	check := func(name string, got, want, se float64) {
		if math.Abs(got-want) > 5*se {
			t.Errorf("%s = %v, want %v ± %v", name, got, want, 5*se)
		}
	}
	// 5-se bounds: family false alarm ≈ 6·6e-7.
	check("mean x0", sx0/n, 1, math.Sqrt(2.0/n))
	check("mean x1", sx1/n, -1, math.Sqrt(1.0/n))
	check("var x0", s00/n, 2, 2*math.Sqrt(2.0/n))
	check("cov", s01/n, 0.6, math.Sqrt((2+0.36)/n))
	check("var x1", s11/n, 1, math.Sqrt(2.0/n))
	check("resid var", sres2/n, 0.5, 0.5*math.Sqrt(2.0/n))
}

// TestPaperReleases checks the paper's release tables: one for each of
// ε = 10, 1, 0.1, and a confidential statistic of length 9.
func TestPaperReleases(t *testing.T) {
	for _, eps := range []float64{10, 1, 0.1} {
		if _, err := Release(eps); err != nil {
			t.Error(err)
		}
	}
	if len(ConfidentialStat()) != 9 {
		t.Error("table lengths")
	}
}
