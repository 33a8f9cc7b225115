package polynomial

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/internal/testutil/simcheck"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInputSeams runs the generic simulator and prior rows (simcheck)
// and the constructor's arguments.
func TestBadInputSeams(t *testing.T) {
	m, err := NewCubic([]float64{0, 0.5, 1}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	th := make([]float64, Prior().Dim())
	cs := simcheck.Simulator("Cubic", m, th, &Cubic{}, (*Cubic)(nil))
	cs = append(cs, simcheck.Prior("Prior", Prior())...)
	type B = testutil.BadInput
	for _, c := range []struct {
		cat   string
		times []float64
		sd    float64
	}{
		{"nan", []float64{0, math.NaN()}, 0.1}, {"inf", []float64{math.Inf(1)}, 0.1}, {"empty", nil, 0.1},
		{"nan", []float64{0}, math.NaN()}, {"inf", []float64{0}, math.Inf(1)}, {"nonpositive", []float64{0}, -1},
	} {
		cs = append(cs, B{Category: c.cat, Name: "NewCubic bad times or noise", Err: func() error { _, err := NewCubic(c.times, c.sd); return err }})
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cs)
}
