// Package jsonfloat holds the JSON form of a float64 shared by the
// project's JSON encoders: a finite value is a JSON number, and NaN, +Inf
// and -Inf, which JSON cannot represent as numbers, are the strings "NaN",
// "+Inf" and "-Inf".
package jsonfloat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Append appends the JSON form of v to dst: the shortest decimal form that
// reads back as v, or one of the strings "NaN", "+Inf", "-Inf" (quotes
// included).
func Append(dst []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(dst, `"+Inf"`...)
	case math.IsInf(v, -1):
		return append(dst, `"-Inf"`...)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64)
}

// Parse reads the JSON value b written by Append: a number, or one of the
// strings "NaN", "Inf", "+Inf", "-Inf" (any case). A string naming a
// finite number, or a value that is neither a number nor a string, is an
// error; when invalid is non-nil that error wraps it.
func Parse(b []byte, invalid error) (float64, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(math.IsNaN(v) || math.IsInf(v, 0)) {
			return 0, wrap(invalid, fmt.Sprintf("%q is not NaN, +Inf or -Inf", s))
		}
		return v, nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, wrap(invalid, fmt.Sprintf("%s is not a number", b))
	}
	return v, nil
}

// wrap returns an error with message msg, wrapping invalid when it is not
// nil.
func wrap(invalid error, msg string) error {
	if invalid == nil {
		return fmt.Errorf("%s", msg)
	}
	return fmt.Errorf("%w: %s", invalid, msg)
}

// Float is a float64 whose JSON form is the one Append writes and Parse
// reads, for the fields of the project's JSON encodings.
type Float float64

// MarshalJSON writes a number, or "NaN", "+Inf", "-Inf" as strings.
func (f Float) MarshalJSON() ([]byte, error) {
	return Append(nil, float64(f)), nil
}

// UnmarshalJSON reads a number or one of the strings NaN, Inf, +Inf, -Inf.
// Its errors wrap no sentinel: the encoding that holds the field marks
// them as its own.
func (f *Float) UnmarshalJSON(b []byte) error {
	v, err := Parse(b, nil)
	if err != nil {
		return err
	}
	*f = Float(v)
	return nil
}
