package testutil

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// BadInputCategories lists the labels a BadInput case may carry.
var BadInputCategories = []string{"nan", "inf", "nonpositive", "huge", "subnormal", "empty", "mismatched", "nil", "typednil", "zerovalue"}

// BadInput is one case of a package's bad-input table: a call with an
// invalid argument that must neither panic (unless the panic is
// documented) nor return a silent garbage result.
type BadInput struct {
	// Category is one of BadInputCategories.
	Category string
	// Name describes the call and its bad argument.
	Name string
	// Err, for a function with an error return, makes the call and returns
	// its error, which must wrap the package's invalid-argument sentinel.
	Err func() error
	// Check, for a function without an error return, makes the call and
	// returns a non-nil error if the result is not the documented one (for
	// example NaN where NaN is documented, or a clamped value).
	Check func() error
	// Panics makes a call whose panic is stated in the function's doc
	// comment (a programmer error, such as a nil receiver or mismatched
	// lengths on a hot path): it must panic.
	Panics func()
}

// BadInputTally counts a table's outcomes.
type BadInputTally struct {
	// Tried is the number of cases run.
	Tried int
	// ClearErrors counts Err cases that returned an error wrapping the
	// sentinel; DocumentedValues counts Check cases that returned their
	// documented result; DocumentedPanics counts Panics cases that
	// panicked.
	ClearErrors, DocumentedValues, DocumentedPanics int
	// UndocumentedPanics counts Err and Check cases that panicked.
	UndocumentedPanics int
	// SilentGarbage counts Err cases that returned no error, Check cases
	// with a wrong result and Panics cases that returned.
	SilentGarbage int
	// DataDependent counts cases whose outcome changed when the call was
	// repeated, and Err cases whose error does not wrap the sentinel (a
	// failure found in the data rather than a checked argument).
	DataDependent int
}

// RunBadInput runs every case as a subtest, twice (the two outcomes must
// agree): a panic fails an Err or Check case, as does an Err case whose
// error does not wrap sentinel, a Check case that reports a wrong result
// or a Panics case that returns. It logs the tally and returns it.
func RunBadInput(t *testing.T, sentinel error, cases []BadInput) BadInputTally {
	t.Helper()
	count := map[string]int{}
	var tl BadInputTally
	for _, c := range cases {
		if !slices.Contains(BadInputCategories, c.Category) {
			t.Fatalf("case %q: unknown category %q", c.Name, c.Category)
		}
		n := 0
		for _, set := range []bool{c.Err != nil, c.Check != nil, c.Panics != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("case %q: exactly one of Err, Check and Panics must be set", c.Name)
		}
		count[c.Category]++
		tl.Tried++
		t.Run(c.Category+"/"+c.Name, func(t *testing.T) {
			o1 := runCase(c, sentinel)
			o2 := runCase(c, sentinel)
			switch {
			case o1.kind != o2.kind:
				tl.DataDependent++
				t.Errorf("outcome changed on a repeated call: %v, then %v", o1, o2)
			case o1.kind == outPanic:
				tl.UndocumentedPanics++
				t.Errorf("panicked: %v", o1.msg)
			case o1.kind == outGarbage:
				tl.SilentGarbage++
				t.Error(o1.msg)
			case o1.kind == outForeign:
				tl.DataDependent++
				t.Error(o1.msg)
			case c.Err != nil:
				tl.ClearErrors++
			case c.Check != nil:
				tl.DocumentedValues++
			default:
				tl.DocumentedPanics++
			}
		})
	}
	var line string
	for _, cat := range BadInputCategories {
		if count[cat] > 0 {
			line += fmt.Sprintf(" %s=%d", cat, count[cat])
		}
	}
	t.Logf("bad-input table: tried=%d clear-errors=%d documented-values=%d documented-panics=%d undocumented-panics=%d silent-garbage=%d data-dependent=%d (%s)",
		tl.Tried, tl.ClearErrors, tl.DocumentedValues, tl.DocumentedPanics, tl.UndocumentedPanics, tl.SilentGarbage, tl.DataDependent, strings.TrimSpace(line))
	return tl
}

type outKind int

const (
	outOK outKind = iota
	outPanic
	outGarbage
	outForeign
)

type outcome struct {
	kind outKind
	msg  string
}

func (o outcome) String() string {
	return [...]string{"expected", "panic", "garbage", "foreign error"}[o.kind] + " " + o.msg
}

// runCase makes one call and classifies it.
func runCase(c BadInput, sentinel error) (o outcome) {
	if c.Panics != nil {
		defer func() {
			if recover() == nil {
				o = outcome{outGarbage, "returned instead of the documented panic"}
			}
		}()
		c.Panics()
		return outcome{}
	}
	defer func() {
		if p := recover(); p != nil {
			o = outcome{outPanic, fmt.Sprint(p)}
		}
	}()
	if c.Err != nil {
		err := c.Err()
		switch {
		case err == nil:
			return outcome{outGarbage, "returned no error"}
		case !errors.Is(err, sentinel):
			return outcome{outForeign, fmt.Sprintf("error %q does not wrap %q", err, sentinel)}
		}
		return outcome{}
	}
	if err := c.Check(); err != nil {
		return outcome{outGarbage, err.Error()}
	}
	return outcome{}
}
