package ldp

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalid is wrapped by every error reporting an invalid argument; the
// message names the argument.
var ErrInvalid = errors.New("mechanism/ldp: invalid argument")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("mechanism/ldp: %s: %w", fmt.Sprintf(format, args...), ErrInvalid)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// checkPositive refuses a v that is not finite and > 0.
func checkPositive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return invalidf("%s must be finite and > 0, got %v", name, v)
	}
	return nil
}

// result refuses a non-finite computed value (an overflow of extreme
// arguments).
func result(name string, v float64) (float64, error) {
	if !finite(v) {
		return 0, invalidf("%s overflows to %v for these arguments", name, v)
	}
	return v, nil
}
