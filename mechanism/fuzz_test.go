package mechanism

import (
	"math"
	"testing"
)

// FuzzRelease drives the release paths with arbitrary statistics and
// parameters: a constructor either fails or yields a mechanism whose
// Release returns finite output for finite in-domain input and an error
// (leaving dst untouched) otherwise. It never panics.
func FuzzRelease(f *testing.F) {
	f.Add(uint8(0), 0.5, -3.0, 1.0, uint64(1))
	f.Add(uint8(1), math.NaN(), 2.0, 0.3, uint64(2))
	f.Add(uint8(2), 1e300, -1e300, 5.0, uint64(3))
	f.Add(uint8(3), 17.0, 999.0, 10.0, uint64(4))
	f.Add(uint8(4), 1.0, 0.0, 0.1, uint64(5))
	f.Add(uint8(5), 2.0, 1.0, 2.0, uint64(6))
	f.Add(uint8(6), math.Inf(1), 0.0, 1.0, uint64(7))
	f.Add(uint8(7), 0.3, 0.9, 1e-9, uint64(8))
	f.Fuzz(func(t *testing.T, kind uint8, s0, s1, eps float64, seed uint64) {
		var m Mechanism
		var err error
		switch kind % 8 {
		case 0:
			m, err = NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: eps, Dim: 2})
		case 1:
			m, err = NewAnalyticGaussian(GaussianConfig{Epsilon: eps, Delta: 1e-6, Sensitivity: 1, Dim: 2})
		case 2:
			m, err = NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: eps, Dim: 2})
		case 3:
			m, err = NewInfectionTrajectory(TrajectoryConfig{Trials: 100, Inflation: 50, Population: 1000, Times: 2})
		case 4:
			m, err = NewRandomizedResponse(LocalConfig{Epsilon: eps, Dim: 2})
		case 5:
			m, err = NewKaryRandomizedResponse(KaryConfig{Epsilon: eps, K: 3, Dim: 2})
		case 6:
			m, err = NewAboveThreshold(AboveThresholdConfig{Threshold: 0.5, Sensitivity: 1, Epsilon: eps})
		case 7:
			lap, e := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: eps, Dim: 2})
			if e != nil {
				return
			}
			m, err = NewBounded(lap, []float64{0, 0}, []float64{1, 1}, BoundMode(seed%2))
		}
		if err != nil {
			return
		}
		s := []float64{s0, s1}
		dst := []float64{-7, -7}
		err = m.Release(newRand(seed), s, dst)
		finite := !math.IsNaN(s0) && !math.IsNaN(s1) && !math.IsInf(s0, 0) && !math.IsInf(s1, 0)
		if !finite && err == nil {
			t.Fatalf("%T released non-finite statistic %v", m, s)
		}
		if err != nil {
			if dst[0] != -7 || dst[1] != -7 {
				t.Fatalf("%T wrote into dst after error %v", m, err)
			}
			return
		}
		for _, v := range dst {
			if math.IsInf(v, 0) || (math.IsNaN(v) && kind%8 != 6) {
				t.Fatalf("%T released %v for %v", m, dst, s)
			}
		}
		// The density of a successful release is finite (not for SVT).
		if d, ok := m.(Density); ok {
			if ld := d.LogDensity(dst, s); math.IsNaN(ld) || math.IsInf(ld, 1) {
				t.Fatalf("%T: log density %v of its own release", m, ld)
			}
		}
	})
}

// FuzzApply drives the uniform-to-release maps with arbitrary uniforms,
// including 0, values just below 1 and out-of-range inputs clamped by
// Apply.
func FuzzApply(f *testing.F) {
	f.Add(0.0, 0.5, 3.0)
	f.Add(0.9999999999999999, 1e-300, -2.0)
	f.Add(0.25, 0.75, 500.0)
	f.Fuzz(func(t *testing.T, u0, u1, s0 float64) {
		if math.IsNaN(s0) || math.IsInf(s0, 0) || math.Abs(s0) > 1e12 {
			return
		}
		u := []float64{u0, u1}
		lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 2})
		gau, _ := NewGaussian(ScaleConfig{Sigma: 1, Dim: 2})
		sec, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 2})
		tr, _ := NewInfectionTrajectory(TrajectoryConfig{Trials: 1000, Inflation: 100, Population: 1000, Times: 2})
		dst := make([]float64, 2)
		for _, m := range []Transform{lap, gau, sec} {
			m.Apply(u, []float64{s0, -s0}, dst)
			if math.IsNaN(dst[0]) || math.IsInf(dst[0], 0) || math.IsNaN(dst[1]) || math.IsInf(dst[1], 0) {
				t.Fatalf("%T.Apply(%v) = %v", m, u, dst)
			}
		}
		tr.Apply(u, []float64{math.Abs(s0), 3}, dst)
		for _, v := range dst {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("trajectory Apply(%v) = %v", u, dst)
			}
		}
	})
}
