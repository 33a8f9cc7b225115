package ldp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// Privacy audits of the local mechanisms. For neighbouring records x, x'
// and an output event E, (ε, δ)-LDP requires
//
//	P(M(x) ∈ E) ≤ e^ε P(M(x') ∈ E) + δ   (and with x, x' swapped).
//
// From n releases on each side, Clopper–Pearson intervals at level 1e-6
// give the empirical lower bound ε_lb = log((lo(P(M(x)∈E)) − δ)/hi(P(M(x')∈E))),
// maximised over the events E_k = {M_1 ≥ t_k}, their complements and both
// orders (4 comparisons per threshold): for a correct mechanism ε_lb > ε
// has probability below ~4e-6 per comparison. Each audit is paired with a
// mis-calibrated mechanism that the same audit must catch. Draws come
// from seeded generators through mechanism.Reproducible: the same secure
// lattice law as Release, reproducibly.
const auditAlpha = 1e-6

// auditEpsilon draws n releases per side (release(r, side) returns the
// audited coordinate) and returns ε_lb over the events {x ≥ t_k}.
func auditEpsilon(n int, seed uint64, delta float64, thresholds []float64, release func(r *rand.Rand, side int) float64) float64 {
	k := make([][2]int64, len(thresholds))
	for side := range 2 {
		r := rand.New(rand.NewPCG(seed, uint64(side)+1))
		for range n {
			v := release(r, side)
			for i, t := range thresholds {
				if v >= t {
					k[i][side]++
				}
			}
		}
	}
	nn := int64(n)
	lb := math.Inf(-1)
	for _, ki := range k {
		for _, kk := range [][2]int64{{ki[0], ki[1]}, {nn - ki[0], nn - ki[1]}} {
			lo0, hi0 := stats.ClopperPearson(kk[0], nn, auditAlpha)
			lo1, hi1 := stats.ClopperPearson(kk[1], nn, auditAlpha)
			lb = math.Max(lb, math.Log((lo0-delta)/hi1))
			lb = math.Max(lb, math.Log((lo1-delta)/hi0))
		}
	}
	return lb
}

// runClippedLaplaceAudit audits ClippedLaplace at the worst neighbours:
// records clipped to opposite ends of [Lo, Hi] (x = Lo − 3, x' = Hi + 3).
// The event z ≥ Hi has likelihood ratio e^ε exactly, so the audit is
// tight; the thresholds Hi + k·scale add tail events. The mis-calibrated
// mechanism claims ε with the noise of 2ε (an inner Laplace built for
// half the interval width).
func runClippedLaplaceAudit(t *testing.T, n int, seed uint64) {
	for i, c := range []struct {
		lo, hi, eps float64
		bad         bool
	}{
		{-1, 2, 1, false},
		{0, 3, 0.5, false},
		{-1, 2, 1, true},
	} {
		m, err := NewClippedLaplace(ClippedLaplaceConfig{Lo: c.lo, Hi: c.hi, Epsilon: c.eps})
		if err != nil {
			t.Fatal(err)
		}
		claimed := m.Budget()
		if c.bad {
			half, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: (c.hi - c.lo) / 2, Epsilon: c.eps, Dim: 1})
			if err != nil {
				t.Fatal(err)
			}
			m.lap = half
		}
		sc := m.NoiseScale()
		thr := []float64{c.hi, c.hi + sc, c.hi + 2*sc, (c.lo + c.hi) / 2}
		rep := mechanism.Reproducible(m)
		x := [2][]float64{{c.lo - 3}, {c.hi + 3}}
		dst := make([]float64, 1)
		release := func(r *rand.Rand, side int) float64 {
			if err := rep.Release(r, x[side], dst); err != nil {
				panic(err)
			}
			return dst[0]
		}
		lb := auditEpsilon(n, seed+uint64(i)*7919, 0, thr, release)
		t.Logf("clipped Laplace [%g, %g], ε = %g, mis-calibrated %v: empirical ε_lb = %.4f (n = %d per side)", c.lo, c.hi, c.eps, c.bad, lb, n)
		if c.bad {
			if !(lb > claimed.Epsilon) {
				t.Errorf("the audit failed to detect the mis-calibration (ε_lb = %v ≤ %v)", lb, claimed.Epsilon)
			}
			continue
		}
		if lb > claimed.Epsilon {
			t.Errorf("ε = %v: empirical lower bound %v exceeds the claimed ε", c.eps, lb)
		}
	}
}

// runNormClippedAudit audits NormClippedGaussian at the worst neighbours:
// vectors clipped to opposite points of the sphere, g = 5·e1 and
// g' = −5·e1 (distance 2C). The thresholds put P(M(g') ∈ E_k) at 10%, 3%,
// 1%, 0.3% and 0.1%. The mis-calibrated mechanisms skip the clipping or
// calibrate the noise for sensitivity C instead of 2C.
func runNormClippedAudit(t *testing.T, n int, seed uint64) {
	const d = 2
	for i, c := range []struct {
		eps, delta, clip float64
		bad              string // "", "noclip" or "halfsens"
	}{
		{1, 1e-5, 1, ""},
		{0.3, 1e-5, 1, ""},
		{4, 1e-6, 0.5, ""},
		{1, 1e-5, 1, "noclip"},
		{1, 1e-5, 1, "halfsens"},
	} {
		m, err := NewNormClippedGaussian(NormClippedGaussianConfig{Epsilon: c.eps, Delta: c.delta, Clip: c.clip, Dim: d})
		if err != nil {
			t.Fatal(err)
		}
		claimed := m.Budget()
		clip := c.clip
		switch c.bad {
		case "noclip":
			m.clip = 5 // releases the raw vector with noise calibrated for clipping at C = 1
			clip = 5
		case "halfsens":
			half, err := NewNormClippedGaussian(NormClippedGaussianConfig{Epsilon: c.eps, Delta: c.delta, Clip: c.clip / 2, Dim: d})
			if err != nil {
				t.Fatal(err)
			}
			m.g = half.g // noise for sensitivity C instead of 2C
		}
		sg := m.NoiseSigma()
		var thr []float64
		for _, z := range []float64{1.2816, 1.8808, 2.3263, 2.7478, 3.0902} { // upper 10%, 3%, 1%, 0.3%, 0.1% points
			thr = append(thr, -clip+z*sg)
		}
		g := [2][]float64{{5, 0}, {-5, 0}}
		dst := make([]float64, d)
		rep := mechanism.Reproducible(m)
		release := func(r *rand.Rand, side int) float64 {
			if err := rep.Release(r, g[side], dst); err != nil {
				panic(err)
			}
			return dst[0]
		}
		lb := auditEpsilon(n, seed+uint64(i)*7919, claimed.Delta, thr, release)
		t.Logf("norm-clipped Gaussian ε = %g, δ = %g, C = %g %-8s: empirical ε_lb = %.4f (n = %d per side)", c.eps, c.delta, c.clip, c.bad, lb, n)
		if c.bad != "" {
			if !(lb > claimed.Epsilon) {
				t.Errorf("%s: the audit failed to detect the mis-calibration (ε_lb = %v ≤ %v)", c.bad, lb, claimed.Epsilon)
			}
			continue
		}
		if lb > claimed.Epsilon {
			t.Errorf("ε = %v: empirical lower bound %v exceeds the claimed ε", c.eps, lb)
		}
	}
}

// TestPrivacyAudit runs each audit with 2e5 releases per side.
func TestPrivacyAudit(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	runClippedLaplaceAudit(t, 200_000, 1)
	runNormClippedAudit(t, 200_000, 1)
}

// TestPrivacyAuditLong repeats the audits with 4e6 releases per side.
func TestPrivacyAuditLong(t *testing.T) {
	testutil.Long(t)
	runClippedLaplaceAudit(t, 4_000_000, 77)
	runNormClippedAudit(t, 4_000_000, 77)
}
