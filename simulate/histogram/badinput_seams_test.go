package histogram

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/internal/testutil/simcheck"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInputSeams runs the generic record-model rows (simcheck) and the
// constructor's limits.
func TestBadInputSeams(t *testing.T) {
	m, err := New(3)
	if err != nil {
		t.Fatal(err)
	}
	cs := simcheck.RecordModel("Model", m, []float64{0.2, 0.3, 0.5}, &Model{}, (*Model)(nil))
	type B = testutil.BadInput
	cs = append(cs,
		B{Category: "nonpositive", Name: "New d 0", Err: func() error { _, err := New(0); return err }},
		B{Category: "nonpositive", Name: "New d -1", Err: func() error { _, err := New(-1); return err }},
		B{Category: "huge", Name: "New d MaxInt", Err: func() error { _, err := New(math.MaxInt); return err }},
		B{Category: "huge", Name: "New d 2^31", Err: func() error { _, err := New(1 << 31); return err }},
		B{Category: "nonpositive", Name: "CheckParam negative probability", Err: func() error { return m.CheckParam([]float64{-0.2, 0.7, 0.5}) }},
		B{Category: "huge", Name: "CheckParam probabilities sum to 2", Err: func() error { return m.CheckParam([]float64{1, 0.5, 0.5}) }},
	)
	testutil.RunBadInput(t, simulate.ErrInvalid, cs)
}
