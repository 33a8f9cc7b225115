package combine

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestOptionsValidate checks that Options.Validate accepts the zero value
// and infinite CompleteDF, and refuses a negative or NaN CompleteDF and a
// negative, NaN or infinite SynthRatio with an ErrInvalid naming the field.
func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{{}, {CompleteDF: math.Inf(1), SynthRatio: 2}, {CompleteDF: 30, Normal: true, NoAdjust: true}} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	for _, c := range []struct {
		o     Options
		field string
	}{
		{Options{CompleteDF: -1}, "CompleteDF"}, {Options{CompleteDF: math.NaN()}, "CompleteDF"},
		{Options{SynthRatio: -0.5}, "SynthRatio"}, {Options{SynthRatio: math.NaN()}, "SynthRatio"}, {Options{SynthRatio: math.Inf(1)}, "SynthRatio"},
	} {
		err := c.o.Validate()
		if !errors.Is(err, ErrInvalid) || err == nil || !strings.Contains(err.Error(), "Options."+c.field) {
			t.Errorf("%+v: %v, want ErrInvalid naming Options.%s", c.o, err, c.field)
		}
	}
}
