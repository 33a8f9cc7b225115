package jsonfloat

import (
	"errors"
	"math"
	"testing"
)

func TestAppendParse(t *testing.T) {
	cases := []struct {
		v    float64
		wire string
	}{
		{0, "0"}, {1.5, "1.5"}, {-2e-300, "-2e-300"}, {0.1, "0.1"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{math.NaN(), `"NaN"`}, {math.Inf(1), `"+Inf"`}, {math.Inf(-1), `"-Inf"`},
	}
	for _, c := range cases {
		got := string(Append([]byte("x"), c.v))
		if got != "x"+c.wire {
			t.Errorf("Append(%v) = %s, want x%s", c.v, got, c.wire)
		}
		v, err := Parse([]byte(" "+c.wire+" "), nil)
		if err != nil {
			t.Fatalf("Parse(%s): %v", c.wire, err)
		}
		if !(v == c.v || math.IsNaN(v) && math.IsNaN(c.v)) || math.Signbit(v) != math.Signbit(c.v) {
			t.Errorf("Parse(%s) = %v, want %v", c.wire, v, c.v)
		}
	}
	for _, s := range []string{`"Inf"`, `"inf"`, `"nan"`} {
		if v, err := Parse([]byte(s), nil); err != nil || !(math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Errorf("Parse(%s) = %v, %v", s, v, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	sentinel := errors.New("bad")
	for _, s := range []string{`"1.5"`, `"x"`, `true`, `null`, `{}`, ``} {
		if _, err := Parse([]byte(s), sentinel); !errors.Is(err, sentinel) {
			t.Errorf("Parse(%q, sentinel) = %v, want an error wrapping the sentinel", s, err)
		}
		_, err := Parse([]byte(s), nil)
		if err == nil || errors.Unwrap(err) != nil {
			t.Errorf("Parse(%q, nil) = %v, want an unwrapped error", s, err)
		}
	}
	_, err := Parse([]byte(`"1.5"`), nil)
	if want := `"1.5" is not NaN, +Inf or -Inf`; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}
