package metrics

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/testutil"
)

func normals(r *rand.Rand, n, d int, shift float64) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = r.NormFloat64()
		if i%d == 0 {
			x[i] += shift
		}
	}
	return x
}

// TestMMDPopulation checks the unbiased MMD² against its population value for
// N(0,1) vs N(μ,1) in one dimension with a fixed bandwidth h:
// MMD² = 2h/√(h²+2)·(1 − exp(−μ²/(2(h²+2)))). The estimate's standard
// deviation at n = m = 1000, measured over 20 replications, is about 0.0004,
// 0.008 and 0.019 for μ = 0, 0.5, 1.5; the tolerances are 4 sd
// (false-alarm rate below 1e-4 per case).
func TestMMDPopulation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	h := 1.3
	tol := map[float64]float64{0: 0.002, 0.5: 0.032, 1.5: 0.076}
	for _, mu := range []float64{0, 0.5, 1.5} {
		x := normals(r, 1000, 1, mu)
		y := normals(r, 1000, 1, 0)
		got, err := MMD(x, y, 1, MMDOptions{Bandwidth: h})
		if err != nil {
			t.Fatal(err)
		}
		want := 2 * h / math.Sqrt(h*h+2) * (1 - math.Exp(-mu*mu/(2*(h*h+2))))
		if math.Abs(got-want) > tol[mu] {
			t.Errorf("mu=%v: MMD² = %.4f, want %.4f", mu, got, want)
		}
		b, _ := MMD(x, y, 1, MMDOptions{Bandwidth: h, Biased: true})
		if b < got {
			t.Errorf("biased MMD² %v below unbiased %v", b, got)
		}
	}
}

// TestMMDDefaultBandwidth checks that the default bandwidth is the median
// heuristic on the reference sample: for the reference points 0, 1, 3
// (distances 1, 2, 3, median 2) MMD with Bandwidth 0 equals MMD with
// Bandwidth 2, and a reference whose distances are all zero is refused.
func TestMMDDefaultBandwidth(t *testing.T) {
	x, ref := []float64{0.5, 2, -1, 4}, []float64{0, 1, 3}
	def, err := MMD(x, ref, 1, MMDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	two, err := MMD(x, ref, 1, MMDOptions{Bandwidth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if def != two {
		t.Errorf("MMD with the default bandwidth %v, with bandwidth 2 %v", def, two)
	}
	if _, err := MMD(x, []float64{1, 1}, 1, MMDOptions{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero distances: err = %v", err)
	}
}

// TestC2STBayesAccuracy checks C2ST against the Bayes-optimal accuracy of
// separating N(0,1) from N(δ,1) with equal priors, Φ(δ/2): a well-trained
// classifier reaches it and cannot exceed it. With 2000 test points in total
// the accuracy's standard error is about 0.01; tolerance 0.04.
func TestC2STBayesAccuracy(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, delta := range []float64{0, 1, 4} {
		x := normals(r, 1000, 2, delta)
		y := normals(r, 1000, 2, 0)
		acc, err := C2ST(x, y, 2, C2STOptions{Seed: 7, MaxEpochs: 300})
		if err != nil {
			t.Fatal(err)
		}
		want := special.NormCDF(delta / 2)
		if math.Abs(acc-want) > 0.04 {
			t.Errorf("delta=%v: C2ST = %.3f, Bayes accuracy %.3f", delta, acc, want)
		}
	}
}

// TestKDE compares the KDE of N(0, I₂) samples at the origin with the density
// the estimator targets, N(0, (1+h²)I) with Scott's h (the KDE's expectation
// is the true density convolved with the kernel).
func TestKDE(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 4000
	x := normals(r, n, 2, 0)
	nlog, err := NLOGSamples(x, 2, []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	h2 := math.Pow(float64(n), -2.0/6)
	want := math.Log(2 * math.Pi * (1 + h2)) // −log N(0; 0, (1+h²)I₂)
	if math.Abs(nlog-want) > 0.05 {
		t.Errorf("NLOG = %.4f, want %.4f", nlog, want)
	}
}

func TestLMDAndKS(t *testing.T) {
	pred := []float64{0, 0, 3, 4, 6, 8} // distances to origin 0, 5, 10
	l, err := LMD(pred, 2, []float64{0, 0})
	if err != nil || math.Abs(l-math.Log(5)) > 1e-15 {
		t.Fatalf("LMD = %v, %v; want log 5", l, err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	x := normals(r, 500, 2, 1)
	y := normals(r, 500, 2, 0)
	st, p, err := MarginalKS(x, y, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Shifted first coordinate: D ≈ 2Φ(1/2) − 1 = 0.38; second equal.
	if st[0] < 0.3 || p[0] > 1e-6 || st[1] > 0.12 {
		t.Errorf("KS stats %v p-values %v", st, p)
	}
}

func TestInputErrors(t *testing.T) {
	good := []float64{0, 1, 2, 3}
	cases := []error{
		func() error { _, err := MMD(good, []float64{1, math.NaN()}, 1, MMDOptions{}); return err }(),
		func() error { _, err := MMD(good, good[:3], 2, MMDOptions{}); return err }(),
		func() error { _, err := C2ST(good, good, 0, C2STOptions{}); return err }(),
		func() error { _, err := C2ST(good, good, 1, C2STOptions{Folds: 1}); return err }(),
		func() error { _, err := C2ST(good, good[:2], 1, C2STOptions{}); return err }(),
		func() error { _, err := LMD(good, 2, []float64{0}); return err }(),
		func() error { _, err := NLOGSamples(good, 1, []float64{0, 0}); return err }(),
		func() error { _, _, _, err := Moments(good, 1, 1.5); return err }(),
	}
	for i, err := range cases {
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("case %d: err = %v, want ErrInvalid", i, err)
		}
	}
}

func BenchmarkC2ST(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x := normals(r, 500, 2, 0.5)
	y := normals(r, 500, 2, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := C2ST(x, y, 2, C2STOptions{Seed: 1, MaxEpochs: 50}); err != nil {
			b.Fatal(err)
		}
	}
}
