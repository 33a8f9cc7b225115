package mechanism

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

func benchRelease(b *testing.B, m Mechanism, s []float64, out int) {
	b.Helper()
	r := newRand(1)
	dst := make([]float64, out)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.Release(r, s, dst); err != nil {
			b.Fatal(err)
		}
	}
}

func seq(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(i) / float64(n)
	}
	return s
}

func BenchmarkLaplaceReleaseD10(b *testing.B) {
	m, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 10})
	benchRelease(b, m, seq(10), 10)
}

func BenchmarkSecureLaplaceReleaseD10(b *testing.B) {
	m, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 10})
	benchRelease(b, m, seq(10), 10)
}

func BenchmarkSecureLaplaceReleaseD10Crypto(b *testing.B) {
	m, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 10})
	r := NewCryptoRand()
	s := seq(10)
	dst := make([]float64, 10)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.Release(r, s, dst); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLaplaceApplyD10(b *testing.B) {
	m, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 10})
	u := seq(10)
	s := seq(10)
	dst := make([]float64, 10)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m.Apply(u, s, dst)
	}
}

func BenchmarkGaussianReleaseD10(b *testing.B) {
	m, _ := NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 1, Dim: 10})
	benchRelease(b, m, seq(10), 10)
}

func BenchmarkAnalyticGaussianSigma(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := AnalyticGaussianSigma(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOUEReleaseD100(b *testing.B) {
	m, _ := NewOUE(LocalConfig{Epsilon: 1, Dim: 100})
	s := make([]float64, 100)
	s[17] = 1
	benchRelease(b, m, s, 100)
}

func trajectoryInput() []float64 {
	// An epidemic curve of a population of 10^6 at L = 10 points.
	return []float64{1, 3000, 600000, 260000, 120000, 47000, 18000, 9000, 5000, 3000}
}

func BenchmarkTrajectoryReleaseL10(b *testing.B) {
	m, _ := NewInfectionTrajectory(TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 1_000_000, Times: 10})
	benchRelease(b, m, trajectoryInput(), 10)
}

func BenchmarkTrajectoryApplyL10(b *testing.B) {
	m, _ := NewInfectionTrajectory(TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 1_000_000, Times: 10})
	s := trajectoryInput()
	u := make([]float64, 10)
	r := newRand(2)
	dst := make([]float64, 10)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for j := range u {
			u[j] = r.Float64()
		}
		m.Apply(u, s, dst)
	}
}

func BenchmarkTrajectoryApplyLargeN(b *testing.B) {
	m, _ := NewInfectionTrajectory(TrajectoryConfig{Trials: 1_000_000_000, Inflation: 1_000_000_000, Population: 1_000_000, Times: 1})
	s := []float64{300000}
	u := make([]float64, 1)
	r := newRand(2)
	dst := make([]float64, 1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		u[0] = r.Float64()
		m.Apply(u, s, dst)
	}
}

func BenchmarkTrajectoryLogDensityL10(b *testing.B) {
	m, _ := NewInfectionTrajectory(TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 1_000_000, Times: 10})
	s := trajectoryInput()
	sdp := make([]float64, 10)
	_ = m.Release(newRand(3), s, sdp)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = m.LogDensity(sdp, s)
	}
}

func BenchmarkExponentialRelease100(b *testing.B) {
	m, _ := NewExponential(ExponentialConfig{Epsilon: 1, Sensitivity: 1, Candidates: 100})
	benchRelease(b, m, seq(100), 1)
}

// TestReleaseAllocs: releases into a caller's buffer allocate nothing.
func TestReleaseAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 10})
	sec, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 10})
	gau, _ := NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 1, Dim: 10})
	tr, _ := NewInfectionTrajectory(TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 1_000_000, Times: 10})
	rr, _ := NewRandomizedResponse(LocalConfig{Epsilon: 1, Dim: 10})
	kr, _ := NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 20, Dim: 10})
	bd, _ := NewBounded(lap, seq(10), make10(2), Truncate)
	sv, _ := NewAboveThreshold(AboveThresholdConfig{Threshold: 0.5, Sensitivity: 1, Epsilon: 1})
	oue, _ := NewOUE(LocalConfig{Epsilon: 1, Dim: 10})
	onehot := make([]float64, 10)
	onehot[3] = 1
	cr := NewCryptoRand()
	for _, c := range []struct {
		m Mechanism
		s []float64
	}{{lap, seq(10)}, {sec, seq(10)}, {gau, seq(10)}, {tr, trajectoryInput()}, {rr, make10(1)}, {kr, make10(3)}, {bd, seq(10)}, {sv, seq(10)}, {oue, onehot}} {
		r := newRand(1)
		dst := make([]float64, 10)
		if a := testing.AllocsPerRun(200, func() { _ = c.m.Release(r, c.s, dst) }); a != 0 {
			t.Errorf("%T.Release allocates %v per call", c.m, a)
		}
		if a := testing.AllocsPerRun(200, func() { _ = c.m.Release(cr, c.s, dst) }); a != 0 {
			t.Errorf("%T.Release with CryptoSource allocates %v per call", c.m, a)
		}
		if tf, ok := c.m.(Transform); ok {
			u := seq(10)
			if a := testing.AllocsPerRun(200, func() { tf.Apply(u, c.s, dst) }); a != 0 {
				t.Errorf("%T.Apply allocates %v per call", c.m, a)
			}
		}
		if d, ok := c.m.(Density); ok {
			_ = c.m.Release(r, c.s, dst)
			if a := testing.AllocsPerRun(200, func() { _ = d.LogDensity(dst, c.s) }); a != 0 {
				t.Errorf("%T.LogDensity allocates %v per call", c.m, a)
			}
		}
	}
}

func make10(v float64) []float64 {
	s := make([]float64, 10)
	for i := range s {
		s[i] = v
	}
	return s
}

// logDensityBench times f on a 9-dimensional release (the SBI paper's
// linear regression: ℓ1 sensitivity 13/100, ε = 10) at 64 statistics
// around it, cycled so that no call repeats the previous one. It reports
// the process CPU time per call beside the wall time, which a loaded
// machine inflates.
func logDensityBench(b *testing.B, m Transform, f func(sdp, s []float64) float64) {
	b.Helper()
	const d, n = 9, 64
	r := newRand(7)
	s0, u := make([]float64, d), make([]float64, d)
	for i := range s0 {
		s0[i] = r.NormFloat64()
		u[i] = r.Float64()
	}
	sdp := make([]float64, d)
	m.Apply(u, s0, sdp)
	stats := make([]float64, n*d)
	for i := range stats {
		stats[i] = s0[i%d] + 0.05*r.NormFloat64()
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ok := testutil.ProcessCPU()
	sum := 0.0
	for i := 0; i < b.N; i++ {
		j := i % n
		sum += f(sdp, stats[j*d:(j+1)*d])
	}
	if cpu1, _ := testutil.ProcessCPU(); ok {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
	if math.IsNaN(sum) {
		b.Fatal("NaN log density")
	}
}

func benchLaplaceD9() *Laplace {
	m, _ := NewLaplace(LaplaceConfig{Sensitivity: 13.0 / 100, Epsilon: 10, Dim: 9})
	return m
}

func benchGaussianD9() *Gaussian {
	m, _ := NewAnalyticGaussian(GaussianConfig{Sensitivity: 13.0 / 100, Epsilon: 1, Delta: 1e-5, Dim: 9})
	return m
}

// BenchmarkLaplaceLogDensityD9 times Laplace.LogDensity.
func BenchmarkLaplaceLogDensityD9(b *testing.B) {
	m := benchLaplaceD9()
	logDensityBench(b, m, m.LogDensity)
}

// BenchmarkLaplaceLogDensityD9Ldexp times the same sum written with
// math.Ldexp and math.Round (laplaceLogDensityRef), for comparison.
func BenchmarkLaplaceLogDensityD9Ldexp(b *testing.B) {
	m := benchLaplaceD9()
	logDensityBench(b, m, func(sdp, s []float64) float64 { return laplaceLogDensityRef(m, sdp, s) })
}

// BenchmarkGaussianLogDensityD9 times Gaussian.LogDensity.
func BenchmarkGaussianLogDensityD9(b *testing.B) {
	m := benchGaussianD9()
	logDensityBench(b, m, m.LogDensity)
}

// BenchmarkGaussianLogDensityD9Ldexp times gaussianLogDensityRef.
func BenchmarkGaussianLogDensityD9Ldexp(b *testing.B) {
	m := benchGaussianD9()
	logDensityBench(b, m, func(sdp, s []float64) float64 { return gaussianLogDensityRef(m, sdp, s) })
}
