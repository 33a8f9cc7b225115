package ldp

import "errors"

// ErrInvalid is wrapped by every error reporting an invalid argument: a
// non-finite or non-positive privacy level or bound, an empty or mismatched
// slice, a nil random source or a value used without its constructor.
var ErrInvalid = errors.New("ldp: invalid argument")
