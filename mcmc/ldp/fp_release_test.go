package ldp

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestReportFloatingPointDistinguishability: the default reports (secure
// lattice Laplace, operating-system generator) lie on the lattice of the
// mechanism, which every other person's clipped value reaches with
// positive probability, so no report is impossible under a neighbouring
// input. 400,000 reports per model (40,000 with -short); a textbook
// floating-point report is the control.
func TestReportFloatingPointDistinguishability(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	n := 400000
	if testing.Short() {
		n = 40000
	}
	g, _ := NewClippedGaussian(ClippedGaussianConfig{A: -1, B: 2, Eps: 0.5})
	e, _ := NewClippedExponential(ClippedExponentialConfig{B: 3, Eps: 2})
	on := func(v, gamma float64) bool {
		k := v / gamma
		return !math.IsNaN(v) && !math.IsInf(v, 0) && k == math.Trunc(k) && math.Abs(k) < 1<<53 && k*gamma == v
	}
	gg, ge := g.lap.Grid(0), e.lap.Grid(0)
	var off [2]int
	for i := range n {
		x := 0.37 + float64(i%7)*0.3
		zg, err := g.Release(nil, x)
		if err != nil {
			t.Fatal(err)
		}
		ze, err := e.Release(nil, x)
		if err != nil {
			t.Fatal(err)
		}
		if !on(zg, gg) {
			off[0]++
		}
		if !on(ze, ge) {
			off[1]++
		}
	}
	t.Logf("clipped Gaussian: %d, clipped exponential: %d of %d reports distinguishable", off[0], off[1], n)
	if off != [2]int{} {
		t.Errorf("distinguishable reports: %v", off)
	}
	ctl := 0
	for i := range 10000 {
		u := (float64(i) + 0.5) / 10000
		v := 0.37 - 6*math.Copysign(math.Log1p(-2*math.Abs(u-0.5)), u-0.5)
		if !on(v, gg) {
			ctl++
		}
	}
	if ctl < 9000 {
		t.Errorf("control: only %d of 10000 textbook reports flagged", ctl)
	}
}
