package testutil

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// BadInputCategories lists the labels a BadInput case may carry.
var BadInputCategories = []string{"nan", "inf", "nonpositive", "huge", "subnormal", "empty", "mismatched", "nil", "zerovalue"}

// BadInput is one case of a package's bad-input table: a call with an
// invalid argument that must neither panic nor return a silent garbage
// result.
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
	// example NaN where NaN is documented).
	Check func() error
}

// RunBadInput runs every case as a subtest: a panic fails it, as does an
// Err case whose error does not wrap sentinel or a Check case that reports
// a wrong result. It logs the number of cases per category and the number
// that panicked or failed.
func RunBadInput(t *testing.T, sentinel error, cases []BadInput) {
	t.Helper()
	count := map[string]int{}
	var panicked, wrong int
	for _, c := range cases {
		if !slices.Contains(BadInputCategories, c.Category) {
			t.Fatalf("case %q: unknown category %q", c.Name, c.Category)
		}
		if (c.Err == nil) == (c.Check == nil) {
			t.Fatalf("case %q: exactly one of Err and Check must be set", c.Name)
		}
		count[c.Category]++
		t.Run(c.Category+"/"+c.Name, func(t *testing.T) {
			p, err := runCase(c, sentinel)
			if p != nil {
				panicked++
				t.Errorf("panicked: %v", p)
				return
			}
			if err != nil {
				wrong++
				t.Error(err)
			}
		})
	}
	var line string
	for _, cat := range BadInputCategories {
		if count[cat] > 0 {
			line += fmt.Sprintf(" %s=%d", cat, count[cat])
		}
	}
	t.Logf("bad-input cases: %d (%s); panicked %d, wrong result %d", len(cases), strings.TrimSpace(line), panicked, wrong)
}

// runCase makes one call, returning the recovered panic value or an error
// describing a wrong result.
func runCase(c BadInput, sentinel error) (p any, bad error) {
	defer func() { p = recover() }()
	if c.Err != nil {
		err := c.Err()
		switch {
		case err == nil:
			return nil, errors.New("returned no error")
		case !errors.Is(err, sentinel):
			return nil, fmt.Errorf("error %q does not wrap %q", err, sentinel)
		}
		return nil, nil
	}
	return nil, c.Check()
}
