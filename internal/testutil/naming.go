package testutil

import (
	"fmt"
	"strings"
)

// Naming wraps a BadInput Err function so that the case also checks the
// error's text: the error is returned unchanged when its message
// contains every one of words (the argument, field or file it is about),
// and replaced by an error that wraps no sentinel otherwise, which
// RunBadInput reports as a failure. A nil error passes through (and fails
// the case as silent garbage).
func Naming(f func() error, words ...string) func() error {
	return func() error {
		err := f()
		if err == nil {
			return nil
		}
		for _, w := range words {
			if !strings.Contains(err.Error(), w) {
				return fmt.Errorf("the message %q does not name %q", err.Error(), w)
			}
		}
		return err
	}
}
