package tb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/internal/testutil/simcheck"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInputSeams runs the generic simulator and prior rows (simcheck)
// for the outbreak, study and birth-death-mutation simulators and the
// prior, and the helpers without an error return.
func TestBadInputSeams(t *testing.T) {
	o, err := NewOutbreak(Config{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewStudy(o, 2)
	if err != nil {
		t.Fatal(err)
	}
	bdm, err := NewBDM(BDMConfig{Population: 50, Sample: 10})
	if err != nil {
		t.Fatal(err)
	}
	th := PaperTheta()
	cs := simcheck.Simulator("Outbreak", o, th, &Outbreak{}, (*Outbreak)(nil))
	cs = append(cs, simcheck.Simulator("Study", st, th, &Study{}, (*Study)(nil))...)
	bth := make([]float64, 3)
	bth[0], bth[1], bth[2] = 0.5, 0.1, 0.1
	if err := bdm.Simulate(rnd(), bth, make([]float64, bdm.StatDim())); err == nil {
		cs = append(cs, simcheck.Simulator("BDM", bdm, bth, &BDM{}, (*BDM)(nil))...)
	}
	cs = append(cs, simcheck.Prior("Prior", Prior{})...)
	type B = testutil.BadInput
	nan := math.NaN()
	cs = append(cs,
		B{Category: "nil", Name: "NewStudy nil outbreak", Err: func() error { _, err := NewStudy(nil, 2); return err }},
		B{Category: "nonpositive", Name: "NewStudy n 0", Err: func() error { _, err := NewStudy(o, 0); return err }},
		B{Category: "huge", Name: "NewStudy n MaxInt", Err: func() error { _, err := NewStudy(o, math.MaxInt); return err }},
		B{Category: "zerovalue", Name: "NewStudy zero outbreak", Err: func() error { _, err := NewStudy(&Outbreak{}, 2); return err }},
		B{Category: "nan", Name: "Outbreak.Rates NaN θ", Err: func() error { _, err := o.Rates([]float64{nan, 1, 1, 1}); return err }},
		B{Category: "mismatched", Name: "OutbreakDistance lengths is NaN", Check: func() error {
			if v := OutbreakDistance([]float64{1}, []float64{1, 2}); !math.IsNaN(v) {
				return errValue
			}
			return nil
		}},
		B{Category: "nan", Name: "OutbreakDistance NaN is NaN", Check: func() error {
			x := make([]float64, NumStats)
			y := make([]float64, NumStats)
			x[0] = nan
			if v := OutbreakDistance(x, y); !math.IsNaN(v) {
				return errValue
			}
			return nil
		}},
	)
	testutil.RunBadInput(t, simulate.ErrInvalid, cs)
}

var errValue = simulate.ErrInvalid

func rnd() *rand.Rand { return rand.New(rand.NewPCG(41, 42)) }
