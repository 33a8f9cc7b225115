package testutil

import (
	"fmt"
	"math"
	"testing"
)

// recorder is a testing.TB that keeps the messages of Errorf.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestSlicesNear(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want []float64
		errs      int
	}{
		{"equal", []float64{1, 2}, []float64{1, 2}, 0},
		{"within tol", []float64{1, 2 + 1e-13}, []float64{1, 2}, 0},
		{"one off", []float64{1, 2.1}, []float64{1, 2}, 1},
		{"two off", []float64{0, 2.1}, []float64{1, 2}, 2},
		{"nan", []float64{math.NaN(), 2}, []float64{1, 2}, 1},
		{"length", []float64{1, 2, 3}, []float64{1, 2}, 1},
		{"empty", nil, []float64{}, 0},
	} {
		r := &recorder{TB: t}
		SlicesNear(r, c.name, c.got, c.want, 1e-12)
		if len(r.errs) != c.errs {
			t.Errorf("%s: %d errors %q, want %d", c.name, len(r.errs), r.errs, c.errs)
		}
	}
}
