package simulate

import "errors"

// ErrInvalid is wrapped by every error reporting an invalid argument: a
// non-finite, non-positive or out-of-range setting, an empty or mismatched
// slice, a nil model or random source, or a value used without its
// constructor. ErrInvalidTheta wraps it.
var ErrInvalid = errors.New("simulate: invalid argument")

// ErrInvalidTheta is wrapped by the errors simulators return for a
// parameter vector of the wrong length, with NaN or infinite entries, or
// outside the model's parameter space. It wraps ErrInvalid.
var ErrInvalidTheta = error(&kindError{msg: "simulate: invalid parameter vector", kind: ErrInvalid})

// kindError is a sentinel error of its own message that also matches the
// package's invalid-argument sentinel under errors.Is.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }
