package ldp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// onLattice reports whether v is an integer multiple of gamma.
func onLattice(v, gamma float64) bool {
	k := v / gamma
	return !math.IsNaN(v) && !math.IsInf(v, 0) && k == math.Trunc(k) && math.Abs(k) < 1<<53 && k*gamma == v
}

// TestClippedLaplaceFloatingPointDistinguishability: the default reports
// (secure lattice Laplace, operating-system generator) lie on the lattice
// of the mechanism, which every other person's clipped value reaches with
// positive probability, so no report is impossible under a neighbouring
// input. 400,000 reports per mechanism (40,000 with -short); a textbook
// floating-point report is the control.
func TestClippedLaplaceFloatingPointDistinguishability(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	n := 400000
	if testing.Short() {
		n = 40000
	}
	g, _ := NewClippedLaplace(ClippedLaplaceConfig{Lo: -1, Hi: 2, Epsilon: 0.5})
	e, _ := NewClippedLaplace(ClippedLaplaceConfig{Lo: 0, Hi: 3, Epsilon: 2})
	gg, ge := g.Grid(), e.Grid()
	var off [2]int
	x := make([]float64, 1000)
	zg, ze := make([]float64, len(x)), make([]float64, len(x))
	for b := 0; b < n; b += len(x) {
		for i := range x {
			x[i] = 0.37 + float64((b+i)%7)*0.3
		}
		if err := g.Release(nil, x, zg); err != nil {
			t.Fatal(err)
		}
		if err := e.Release(nil, x, ze); err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if !onLattice(zg[i], gg) {
				off[0]++
			}
			if !onLattice(ze[i], ge) {
				off[1]++
			}
		}
	}
	t.Logf("clipped Laplace [-1, 2]: %d, [0, 3]: %d of %d reports distinguishable", off[0], off[1], n)
	if off != [2]int{} {
		t.Errorf("distinguishable reports: %v", off)
	}
	ctl := 0
	for i := range 10000 {
		u := (float64(i) + 0.5) / 10000
		v := 0.37 - 6*math.Copysign(math.Log1p(-2*math.Abs(u-0.5)), u-0.5)
		if !onLattice(v, gg) {
			ctl++
		}
	}
	if ctl < 9000 {
		t.Errorf("control: only %d of 10000 textbook reports flagged", ctl)
	}
}

// TestNormClippedFloatingPointDistinguishability: every coordinate of a
// default release (secure lattice Gaussian, operating-system generator)
// lies on the mechanism's lattice, which every other person's clipped
// vector reaches with positive probability. 100,000 releases (10,000 with
// -short); a textbook floating-point release is the control.
func TestNormClippedFloatingPointDistinguishability(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	m, err := NewNormClippedGaussian(NormClippedGaussianConfig{Epsilon: 1, Delta: 1e-5, Clip: 1, Dim: 3})
	if err != nil {
		t.Fatal(err)
	}
	gamma := m.g.Grid()
	dst := make([]float64, 3)
	off := 0
	for i := range n {
		g := []float64{0.37 + float64(i%7)*0.3, -0.11 * float64(i%5), 2.5}
		if err := m.Release(nil, g, dst); err != nil {
			t.Fatal(err)
		}
		for _, v := range dst {
			if !onLattice(v, gamma) {
				off++
			}
		}
	}
	if off != 0 {
		t.Errorf("%d of %d released coordinates off the lattice", off, 3*n)
	}
	r := rand.New(rand.NewPCG(1, 1))
	ctl := 0
	for range 10000 {
		if !onLattice(0.37/math.Sqrt(1.37)+m.NoiseSigma()*r.NormFloat64(), gamma) {
			ctl++
		}
	}
	if ctl < 9000 {
		t.Errorf("control: only %d of 10000 textbook releases flagged", ctl)
	}
}
