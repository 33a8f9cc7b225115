package ldp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/mechanism"
)

// FuzzClippedLaplace checks that the constructor and every release path
// never panic: an error wraps ErrInvalid (the reproducible path may also
// report mechanism's sentinel), and a report of a finite record is finite
// and, on the default path, lies on the mechanism's lattice.
func FuzzClippedLaplace(f *testing.F) {
	f.Add(-1.0, 2.0, 0.5, 0.3)
	f.Add(0.0, 3.0, 2.0, 1e308)
	f.Add(-1e300, 1e300, 1e-9, math.Inf(-1))
	f.Add(0.0, 1e-300, 1e6, math.NaN())
	f.Fuzz(func(t *testing.T, lo, hi, eps, x float64) {
		m, err := NewClippedLaplace(ClippedLaplaceConfig{Lo: lo, Hi: hi, Epsilon: eps})
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		z := make([]float64, 1)
		err = m.Release(nil, []float64{x}, z)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("release error %v does not wrap ErrInvalid", err)
			}
			if finite(x) {
				t.Fatalf("finite record %v refused: %v", x, err)
			}
			return
		}
		if !finite(z[0]) || !onLattice(z[0], m.Grid()) {
			t.Fatalf("report %v of %v is not finite on the lattice %v", z[0], x, m.Grid())
		}
		r := rand.New(rand.NewPCG(1, 2))
		if err := mechanism.Reproducible(m).Release(r, []float64{x}, z); err != nil || !finite(z[0]) {
			t.Fatalf("reproducible release: %v, %v", z[0], err)
		}
		if err := m.SimulateRelease(r, []float64{x}, z); err != nil || !finite(z[0]) {
			t.Fatalf("simulated release: %v, %v", z[0], err)
		}
	})
}
