package qmc

import "errors"

// ErrInvalid is wrapped by every error reporting an invalid argument: a
// dimension that is not positive or exceeds what the point set supports
// (MaxSobolDim for Sobol, MaxHaltonDim for Halton), a request for points
// beyond the end of a finite sequence (for example more than 2^32 Sobol
// points at 32-bit resolution), a destination buffer shorter than n×d, a
// nil argument. The message names the argument.
var ErrInvalid = errors.New("qmc: invalid argument")
