package mixture

import (
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid settings, parameters, sizes, nil values and
// unconstructed values to the uniform mixture: every call returns an error
// wrapping simulate.ErrInvalid and never panics.
func TestBadInput(t *testing.T) {

	type B = testutil.BadInput
	cases := []B{
		{Category: "nonpositive", Name: "NewUniform k 1", Err: func() error { _, err := NewUniform(1); return err }},
		{Category: "zerovalue", Name: "Uniform{}.CheckParam", Err: func() error { var m Uniform; return m.CheckParam(nil) }},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}
