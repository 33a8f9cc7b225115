// Package argcheck holds the argument-checking helpers the packages share:
// detection of nil values hidden in interfaces, and sentinel errors that
// carry their own message while matching a package's invalid-argument
// error under errors.Is.
package argcheck

import (
	"errors"
	"fmt"
	"math"
	"reflect"
)

// Nil reports whether v is nil or an interface holding a nil pointer,
// function, map, slice, channel or interface, so that a typed nil passed
// where an interface is expected is refused like an untyped one.
func Nil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Map, reflect.Slice, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// Weights validates a vector of non-negative weights and returns their
// total: the vector must be non-empty, every entry finite and ≥ 0, and
// the total finite and > 0. The error, which wraps nothing, names the
// offending entry; callers wrap it with their own sentinel.
func Weights(w []float64) (float64, error) {
	if len(w) == 0 {
		return 0, errors.New("empty")
	}
	s := 0.0
	for i, x := range w {
		if !(x >= 0) || math.IsInf(x, 1) {
			return 0, fmt.Errorf("entry %d must be finite and >= 0, got %v", i, x)
		}
		s += x
	}
	if !(s > 0) || math.IsInf(s, 1) {
		return 0, fmt.Errorf("total must be finite and > 0, got %v", s)
	}
	return s, nil
}

// Sentinel returns a new sentinel error whose message is msg and which
// also matches kind under errors.Is (it unwraps to kind). Each call
// returns a distinct error: declare it once in a package variable and
// compare with errors.Is.
func Sentinel(msg string, kind error) error { return &sentinel{msg: msg, kind: kind} }

type sentinel struct {
	msg  string
	kind error
}

func (e *sentinel) Error() string { return e.msg }
func (e *sentinel) Unwrap() error { return e.kind }

// Also returns err marked as kind as well: its message is err's alone
// (no second package prefix, no repeated "invalid argument") and
// errors.Is and errors.As see both err's chain and kind. A package that
// passes on another package's argument error uses it to wrap its own
// ErrInvalid without doubling the text. It returns nil for a nil err.
func Also(err, kind error) error {
	if err == nil {
		return nil
	}
	return &also{err: err, kind: kind}
}

type also struct{ err, kind error }

func (e *also) Error() string   { return e.err.Error() }
func (e *also) Unwrap() []error { return []error{e.err, e.kind} }
