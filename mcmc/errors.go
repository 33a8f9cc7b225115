package mcmc

import "errors"

// ErrInvalid is wrapped by every error reporting an invalid argument: a nil
// target, model, method or random source, a non-finite or non-positive
// setting, an empty or mismatched slice, an index out of range, or a value
// used without its constructor.
var ErrInvalid = errors.New("mcmc: invalid argument")
