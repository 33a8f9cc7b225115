package abc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzABCDPSelect checks the release path on arbitrary distances and
// configurations: Select never panics, returns an error for unusable input,
// and otherwise releases at most C acceptances, stopping exactly at the C-th.
func FuzzABCDPSelect(f *testing.F) {
	f.Add(1.0, 0.1, 3, false, 0.01, 0.0, 0.05, 0.2, 0.0)
	f.Add(0.5, 150.0, 1, true, 0.0, 200.0, math.Inf(1), 10.0, 300.0)
	f.Add(-1.0, math.NaN(), 0, true, -1.0, -1.0, math.NaN(), 0.0, 0.0)
	f.Fuzz(func(t *testing.T, eps, epsABC float64, c int, resample bool, sens, clip, d1, d2, d3 float64) {
		if c > 1000 {
			c = 1000
		}
		a, err := NewABCDPSelector(ABCDPConfig{EpsTotal: eps, EpsABC: epsABC, C: c, Resample: resample, Sensitivity: sens, Clip: clip})
		if err != nil {
			return
		}
		if !(a.Scale() > 0) {
			t.Fatalf("scale %v", a.Scale())
		}
		res, err := a.Select(rand.New(rand.NewPCG(1, 2)), []float64{d1, d2, d3})
		if err != nil {
			return
		}
		if len(res.Accepted) > c || len(res.Indicators) > 3 {
			t.Fatalf("accepted %d > c = %d", len(res.Accepted), c)
		}
		if len(res.Indicators) < 3 && len(res.Accepted) != c {
			t.Fatalf("stopped early with %d < c acceptances", len(res.Accepted))
		}
	})
}

// FuzzDistances checks that the distances never panic and are NaN or ≥ 0.
func FuzzDistances(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 4.0, 0.5)
	f.Add(math.Inf(1), math.NaN(), 0.0, -1.0, 0.0)
	f.Fuzz(func(t *testing.T, a, b, c, d, bw float64) {
		x, y := []float64{a, b}, []float64{c, d}
		for _, dist := range []Distance{Euclidean{}, L1{}} {
			if v := dist.Distance(x, y); v < 0 {
				t.Fatalf("negative distance %v", v)
			}
		}
		m, err := NewMMD(MMDConfig{Dim: 1, Bandwidth: bw, Unbiased: false})
		if err != nil {
			return
		}
		if v := m.Distance(x, y); v < 0 || v > 2+1e-12 {
			t.Fatalf("MMD %v outside [0, 2]", v)
		}
	})
}
