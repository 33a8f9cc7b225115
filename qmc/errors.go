package qmc

import (
	"errors"

	"github.com/privinfer/privinfer/internal/argcheck"
)

// ErrArg is wrapped by every error reporting an invalid argument, including
// ErrDim, ErrBuffer and ErrExhausted.
var ErrArg = errors.New("qmc: invalid argument")

var (
	// ErrDim reports a dimension that is not positive or exceeds what the
	// point set supports (MaxSobolDim for Sobol, MaxHaltonDim for Halton).
	// It wraps ErrArg.
	ErrDim = argcheck.Sentinel("qmc: invalid dimension", ErrArg)
	// ErrExhausted reports a request for points beyond the end of a finite
	// sequence (for example more than 2^32 Sobol points at 32-bit resolution).
	// It wraps ErrArg.
	ErrExhausted = argcheck.Sentinel("qmc: sequence exhausted", ErrArg)
	// ErrBuffer reports a destination buffer shorter than n×d. It wraps
	// ErrArg.
	ErrBuffer = argcheck.Sentinel("qmc: destination buffer too short", ErrArg)
)
