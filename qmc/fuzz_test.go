package qmc

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// FuzzSobolArgs feeds arbitrary dimensions, resolutions, scrambles, seek
// positions and point counts to the public API: it must return errors (of
// the documented kinds) or points in [0,1), never panic.
func FuzzSobolArgs(f *testing.F) {
	f.Add(3, 32, 0, uint64(0), 4)
	f.Add(0, 32, 0, uint64(0), 1)
	f.Add(21202, 64, 1, uint64(5), 2)
	f.Add(2, 32, 3, uint64(1<<32-1), 2)
	f.Add(5, 64, 2, uint64(1<<53), 1)
	f.Add(1, 16, 0, uint64(0), -3)
	f.Fuzz(func(t *testing.T, d, nb, sc int, seek uint64, n int) {
		if d > 300 || n > 1000 {
			return // keep allocations small; large values are covered by unit tests
		}
		r := rand.New(rand.NewPCG(uint64(d), seek))
		s, err := NewSobol(SobolConfig{Dim: d, Scramble: Scramble(sc), Bits: nb}, r)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if err := s.Seek(seek); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Seek: %v", err)
			}
			return
		}
		buf := make([]float64, max(n, 0)*d)
		if err := s.Fill(buf, n); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Fill: %v", err)
			}
			return
		}
		for _, u := range buf {
			if !(u >= 0 && u < 1) {
				t.Fatalf("point coordinate %v outside [0,1)", u)
			}
		}
	})
}
