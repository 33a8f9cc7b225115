package ldp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/mechanism"
)

// Reports of a record clipped to Hi have the Laplace law centred at Hi:
// 20,000 releases, mean and mean absolute deviation within 6 standard
// errors of Hi and the noise scale (false-alarm rate ~2e-9 each), for the
// default release (operating-system noise, not reproducible), the
// reproducible opt-out and the simulation path.
func TestClippedLaplaceLaw(t *testing.T) {
	m, err := NewClippedLaplace(ClippedLaplaceConfig{Lo: -1, Hi: 2, Epsilon: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	sc := m.NoiseScale()
	if nominal := 3 / 1.5; math.Abs(sc/nominal-1) > 1e-5 {
		t.Errorf("noise scale %v, nominal %v", sc, nominal)
	}
	const n = 20000
	x := make([]float64, n)
	for i := range x {
		x[i] = 7 // clipped to 2
	}
	for _, path := range []string{"release", "reproducible release", "simulation"} {
		z := make([]float64, n)
		r := rand.New(rand.NewPCG(4, 5))
		var err error
		switch path {
		case "release":
			err = m.Release(r, x, z)
		case "simulation":
			err = mechanism.Simulate(m, r, x, z)
		default:
			err = mechanism.Reproducible(m).Release(r, x, z)
		}
		if err != nil {
			t.Fatal(err)
		}
		mean := stats.Mean(z)
		mad := 0.0
		for _, v := range z {
			mad += math.Abs(v - 2)
		}
		mad /= n
		se := sc * math.Sqrt(2.0/n)
		t.Logf("%s: mean %.4f (want 2), mean |z − 2| %.4f (want %.4f)", path, mean, mad, sc)
		if math.Abs(mean-2) > 6*se {
			t.Errorf("%s: mean %v, want 2 ± %v", path, mean, 6*se)
		}
		if math.Abs(mad-sc) > 6*sc/math.Sqrt(n) {
			t.Errorf("%s: mean absolute deviation %v, want %v", path, mad, sc)
		}
	}
}

// Release ignores the generator it is given (operating-system noise);
// mechanism.Reproducible reproduces from equal seeds.
func TestClippedLaplaceGenerators(t *testing.T) {
	m, _ := NewClippedLaplace(ClippedLaplaceConfig{Lo: 0, Hi: 1, Epsilon: 1})
	x := []float64{0.2, 0.4, 0.9, 3}
	a, b := make([]float64, 4), make([]float64, 4)
	if err := m.Release(rand.New(rand.NewPCG(1, 1)), x, a); err != nil {
		t.Fatal(err)
	}
	if err := m.Release(rand.New(rand.NewPCG(1, 1)), x, b); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a, b) {
		t.Error("Release drew the same noise from two equally seeded generators: it must ignore them")
	}
	rep := mechanism.Reproducible(m)
	if err := rep.Release(rand.New(rand.NewPCG(1, 1)), x, a); err != nil {
		t.Fatal(err)
	}
	if err := rep.Release(rand.New(rand.NewPCG(1, 1)), x, b); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Errorf("Reproducible releases differ: %v vs %v", a, b)
	}
	if err := m.Release(nil, x, x); err != nil { // in place
		t.Fatal(err)
	}
}

// LogDensity is the Laplace density at the clipped record.
func TestClippedLaplaceLogDensity(t *testing.T) {
	m, _ := NewClippedLaplace(ClippedLaplaceConfig{Lo: 0, Hi: 2, Epsilon: 1})
	sc := m.NoiseScale()
	got := m.LogDensity([]float64{1.5, -1}, []float64{5, 0.5})
	want := -2*math.Log(2*sc) - (0.5+1.5)/sc
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("LogDensity %v, want %v", got, want)
	}
	if !math.IsNaN(m.LogDensity([]float64{1}, []float64{1, 2})) {
		t.Error("length mismatch: want NaN")
	}
}

// The noise has the calibrated standard deviation: the sample variance
// of 20000 reproducible releases of a zero vector lies within 5% of σ²
// (about 7 standard errors).
func TestNormClippedNoiseScale(t *testing.T) {
	m, _ := NewNormClippedGaussian(NormClippedGaussianConfig{Epsilon: 2, Delta: 1e-5, Clip: 1, Dim: 1})
	r := rand.New(rand.NewPCG(3, 3))
	rep := mechanism.Reproducible(m)
	xs := make([]float64, 20000)
	dst := make([]float64, 1)
	for i := range xs {
		if err := rep.Release(r, []float64{0}, dst); err != nil {
			t.Fatal(err)
		}
		xs[i] = dst[0]
	}
	if v, s2 := stats.Variance(xs), m.NoiseSigma()*m.NoiseSigma(); math.Abs(v/s2-1) > 0.05 {
		t.Errorf("noise variance %v, want %v", v, s2)
	}
	// The clipped record is the mean: 20000 releases of 3·e1 with C = 1
	// average to 1 within 6 standard errors.
	for i := range xs {
		if err := rep.Release(r, []float64{3}, dst); err != nil {
			t.Fatal(err)
		}
		xs[i] = dst[0]
	}
	if mu, se := stats.Mean(xs), m.NoiseSigma()/math.Sqrt(20000); math.Abs(mu-1) > 6*se {
		t.Errorf("mean of releases of a clipped record %v, want 1 ± %v", mu, 6*se)
	}
}
