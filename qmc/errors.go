package qmc

import "errors"

// ErrArg is wrapped by every error reporting an invalid argument, including
// ErrDim and ErrBuffer.
var ErrArg = errors.New("qmc: invalid argument")

var (
	// ErrDim reports a dimension that is not positive or exceeds what the
	// point set supports (MaxSobolDim for Sobol, MaxHaltonDim for Halton).
	// It wraps ErrArg.
	ErrDim = error(&kindError{msg: "qmc: invalid dimension", kind: ErrArg})
	// ErrExhausted reports a request for points beyond the end of a finite
	// sequence (for example more than 2^32 Sobol points at 32-bit resolution).
	ErrExhausted = errors.New("qmc: sequence exhausted")
	// ErrBuffer reports a destination buffer shorter than n×d. It wraps
	// ErrArg.
	ErrBuffer = error(&kindError{msg: "qmc: destination buffer too short", kind: ErrArg})
)

// kindError is a sentinel error of its own message that also matches the
// package's invalid-argument sentinel under errors.Is.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }
