package abc

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// naiveMMD2 is the textbook double loop.
func naiveMMD2(x, y []float64, d int, bw float64, unbiased bool) float64 {
	k := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			e := a[i] - b[i]
			s += e * e
		}
		return math.Exp(-s / (2 * bw * bw))
	}
	nx, ny := len(x)/d, len(y)/d
	var sxx, syy, sxy float64
	for i := 0; i < nx; i++ {
		for j := 0; j < nx; j++ {
			if unbiased && i == j {
				continue
			}
			sxx += k(x[i*d:(i+1)*d], x[j*d:(j+1)*d])
		}
	}
	for i := 0; i < ny; i++ {
		for j := 0; j < ny; j++ {
			if unbiased && i == j {
				continue
			}
			syy += k(y[i*d:(i+1)*d], y[j*d:(j+1)*d])
		}
	}
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			sxy += k(x[i*d:(i+1)*d], y[j*d:(j+1)*d])
		}
	}
	fx, fy := float64(nx), float64(ny)
	if unbiased {
		return sxx/(fx*(fx-1)) + syy/(fy*(fy-1)) - 2*sxy/(fx*fy)
	}
	return sxx/(fx*fx) + syy/(fy*fy) - 2*sxy/(fx*fy)
}

func randPoints(r *rand.Rand, n, d int, shift float64) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = r.NormFloat64() + shift
	}
	return x
}

func TestMMDMatchesNaive(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(1, 2))
	// Sizes straddle the 256-point tile so that partial and diagonal tiles
	// are exercised.
	for _, tc := range []struct{ nx, ny, d int }{{3, 5, 1}, {300, 520, 1}, {257, 100, 2}, {600, 600, 3}} {
		x := randPoints(r, tc.nx, tc.d, 0)
		y := randPoints(r, tc.ny, tc.d, 0.3)
		for _, ub := range []bool{false, true} {
			m, err := NewMMD(MMDConfig{Dim: tc.d, Bandwidth: 0.8, Unbiased: ub})
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.MMD2(context.Background(), x, y)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveMMD2(x, y, tc.d, 0.8, ub)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("%+v unbiased=%v: MMD² %v, naive %v", tc, ub, got, want)
			}
			dist := m.Distance(x, y)
			if !ub && math.Abs(dist-math.Sqrt(want)) > 1e-12 {
				t.Fatalf("distance %v, want √%v", dist, want)
			}
		}
	}
}

// TestMMDUnbiasedMean checks the U-statistic against the population MMD²
// of N(0,1) vs N(μ,1) in one dimension with bandwidth ℓ:
// 2ℓ/√(ℓ²+2)·(1 − exp(−μ²/(2(ℓ²+2)))). The mean of 300 estimates with
// n = 120 has a standard error of about 1.5e-3 (estimated from the replicates);
// the limit is 4 standard errors (false alarm ~6e-5).
func TestMMDUnbiasedMean(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const l, mu, reps = 1.0, 0.5, 300
	want := 2 * l / math.Sqrt(l*l+2) * (1 - math.Exp(-mu*mu/(2*(l*l+2))))
	m, _ := NewMMD(MMDConfig{Dim: 1, Bandwidth: l, Unbiased: true})
	var s, s2 float64
	for k := 0; k < reps; k++ {
		v := m.Distance(randPoints(r, 120, 1, 0), randPoints(r, 120, 1, mu))
		s += v
		s2 += v * v
	}
	mean := s / reps
	se := math.Sqrt((s2/reps - mean*mean) / reps)
	t.Logf("unbiased MMD² mean %.5f ± %.5f, population %.5f", mean, se, want)
	if math.Abs(mean-want) > 4*se {
		t.Fatalf("unbiased MMD² mean %v, want %v (se %v)", mean, want, se)
	}
}

// TestMMDSensitivity checks ABCDP Lemma 4.1 empirically: replacing one of N
// observations moves the biased MMD to any pseudo data set by at most
// 2/N = mechanism.MMDSensitivity(1, N), and the distance never exceeds 2.
func TestMMDSensitivity(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 50
	sens, err := mechanism.MMDSensitivity(1, n)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for k := 0; k < 300; k++ {
		bw := 0.1 + 2*r.Float64()
		m, _ := NewMMD(MMDConfig{Dim: 1, Bandwidth: bw, Unbiased: false})
		x := randPoints(r, n, 1, 0)
		y := randPoints(r, n, 1, 3*r.Float64())
		x2 := append([]float64(nil), x...)
		x2[r.IntN(n)] = 10 * r.NormFloat64()
		dd := math.Abs(m.Distance(x, y) - m.Distance(x2, y))
		worst = math.Max(worst, dd)
		if dd > sens+1e-12 || m.Distance(x, y) > 2 {
			t.Fatalf("|Δρ| = %v > 2/N = %v", dd, sens)
		}
	}
	t.Logf("largest change %.4g of bound %.4g", worst, sens)
}

func TestMedianHeuristic(t *testing.T) {
	bw, err := MedianHeuristic([]float64{0, 1, 3}, 1, 0)
	// pairwise distances 1, 3, 2 → median 2
	if err != nil || bw != 2 {
		t.Fatalf("median %v, %v", bw, err)
	}
	bw, err = MedianHeuristic([]float64{0, 0, 3, 4, 0, 1, 5, 5}, 2, 0)
	// points (0,0),(3,4),(0,1),(5,5): distances 5, 1, √50, √18, √5, √41 → median (√18+5)/2
	if want := (math.Sqrt(18) + 5) / 2; err != nil || math.Abs(bw-want) > 1e-15 {
		t.Fatalf("median %v, want %v (%v)", bw, want, err)
	}
	if _, err := MedianHeuristic([]float64{1, 1}, 1, 0); err == nil {
		t.Fatal("zero median accepted")
	}
	if _, err := MedianHeuristic([]float64{1}, 1, 0); err == nil {
		t.Fatal("single point accepted")
	}
}

func TestVectorDistances(t *testing.T) {
	x, y := []float64{1, 2, 3}, []float64{2, 0, 3}
	if d := (Euclidean{}).Distance(x, y); math.Abs(d-math.Sqrt(5)) > 1e-15 {
		t.Fatal(d)
	}
	if d := (L1{}).Distance(x, y); d != 3 {
		t.Fatal(d)
	}
	w, err := NewWeightedL2([]float64{4, 1, 7})
	if err != nil {
		t.Fatal(err)
	}
	if d := w.Distance(x, y); math.Abs(d-math.Sqrt(8)) > 1e-15 {
		t.Fatal(d)
	}
	if d := (Clipped{D: L1{}, C: 2}).Distance(x, y); d != 2 {
		t.Fatal(d)
	}
	if !math.IsNaN((Euclidean{}).Distance(x, y[:2])) || !math.IsNaN(w.Distance(x[:2], y[:2])) {
		t.Fatal("length mismatch not NaN")
	}
	for _, bad := range [][]float64{nil, {0, 0}, {1, -1}, {math.NaN()}} {
		if _, err := NewWeightedL2(bad); err == nil {
			t.Fatalf("weights %v accepted", bad)
		}
	}
}

// TestFeatureMMD checks the random-feature MMD against the exact MMD of its
// own kernel k̂(x, y) = (1/D) Σ_k cos(ω_k·(x − y)) computed by double loop,
// its sensitivity bound 2/N, and that it approaches the Gaussian-kernel MMD
// as D grows (error O(D^{-1/2}); limit 0.02 at D = 4000, about 4 times the
// typical error).
func TestFeatureMMD(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	x := randPoints(r, 40, 2, 0)
	y := randPoints(r, 30, 2, 0.7)
	f, err := NewFeatureMMD(FeatureMMDConfig{Dim: 2, Bandwidth: 0.9, Features: 50}, r)
	if err != nil {
		t.Fatal(err)
	}
	om := f.Frequencies()
	kh := func(a, b []float64) float64 {
		s := 0.0
		for k := 0; k < 50; k++ {
			s += math.Cos(om[2*k]*(a[0]-b[0]) + om[2*k+1]*(a[1]-b[1]))
		}
		return s / 50
	}
	sum := func(a, b []float64) float64 {
		s := 0.0
		for i := 0; i < len(a)/2; i++ {
			for j := 0; j < len(b)/2; j++ {
				s += kh(a[2*i:2*i+2], b[2*j:2*j+2])
			}
		}
		return s
	}
	want := math.Sqrt(sum(x, x)/1600 + sum(y, y)/900 - 2*sum(x, y)/1200)
	if got := f.Distance(x, y); math.Abs(got-want) > 1e-12 {
		t.Fatalf("feature MMD %v, kernel double loop %v", got, want)
	}
	fo, err := f.WithObserved(y)
	if err != nil {
		t.Fatal(err)
	}
	if got := fo.Distance(x, y); math.Abs(got-want) > 1e-12 {
		t.Fatalf("cached observation: %v, want %v", got, want)
	}
	// Sensitivity.
	x2 := append([]float64(nil), x...)
	x2[0], x2[1] = 50, -50
	if d := math.Abs(f.Distance(x, y) - f.Distance(x2, y)); d > 2.0/40+1e-12 {
		t.Fatalf("change %v > 2/N", d)
	}
	// Convergence to the Gaussian kernel.
	big, _ := NewFeatureMMD(FeatureMMDConfig{Dim: 2, Bandwidth: 0.9, Features: 4000}, r)
	exact, _ := NewMMD(MMDConfig{Dim: 2, Bandwidth: 0.9, Unbiased: false})
	if d := math.Abs(big.Distance(x, y) - exact.Distance(x, y)); d > 0.02 {
		t.Fatalf("D = 4000 feature MMD differs from the exact MMD by %v", d)
	}
	if !math.IsNaN(f.Distance(x[:3], y)) {
		t.Fatal("bad length not NaN")
	}
}
