package histogram

import (
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid settings, parameters, sizes, nil values and
// unconstructed values to the histogram model: every call returns an error
// wrapping simulate.ErrInvalid and never panics.
func TestBadInput(t *testing.T) {

	type B = testutil.BadInput
	cases := []B{
		{Category: "nonpositive", Name: "New d 1", Err: func() error { _, err := New(1); return err }},
		{Category: "zerovalue", Name: "Model{}.CheckParam", Err: func() error { var m Model; return m.CheckParam(nil) }},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
