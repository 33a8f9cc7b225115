package modelutil

import (
	"fmt"

	"github.com/privinfer/privinfer/simulate"
)

// Result returns v when it is a positive normal finite number (a noise
// scale or a sensitivity), and otherwise an error wrapping
// simulate.ErrInvalid naming the quantity, so that no overflow to +Inf and
// no underflow to 0 or a subnormal is returned as a usable value.
func Result(what string, v float64) (float64, error) {
	if !(v >= 0x1p-1022) || !Finite(v) {
		return 0, fmt.Errorf("%w: %s evaluates to %v, not a positive normal finite number; the arguments are outside the range where it is representable", simulate.ErrInvalid, what, v)
	}
	return v, nil
}
