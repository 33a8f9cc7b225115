// Package argcheck holds the argument-checking helpers the packages share:
// detection of nil values hidden in interfaces, and sentinel errors that
// carry their own message while matching a package's invalid-argument
// error under errors.Is.
package argcheck

import "reflect"

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
