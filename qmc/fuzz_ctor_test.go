package qmc

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// FuzzConstructors feeds arbitrary dimensions, scrambles, resolutions and
// generators (nil included) to every constructor — NewSobol, NewHalton,
// NewMonteCarlo and NewRotation over each — and fills the sequences that
// were built: a constructor either returns an error wrapping ErrInvalid and no
// sequence, or a sequence of the requested dimension whose points lie in
// [0, 1); nothing panics.
func FuzzConstructors(f *testing.F) {
	f.Add(uint8(0), 3, uint8(0), 32, true, false, 5)
	f.Add(uint8(1), 2, uint8(1), 0, true, true, 3)
	f.Add(uint8(2), 0, uint8(0), 0, false, false, 1)
	f.Add(uint8(3), -1, uint8(2), 64, true, true, 2)
	f.Add(uint8(4), 1, uint8(3), 16, false, true, 0)
	f.Add(uint8(5), 21202, uint8(1), 53, true, false, 1)
	f.Add(uint8(1), 1<<20, uint8(1), 0, true, true, 1)
	f.Add(uint8(0), 4, uint8(200), 99, true, false, 2)
	f.Fuzz(func(t *testing.T, kind uint8, d int, sc uint8, bits int, haveRand, flag bool, n int) {
		if d > 300 || n > 200 || n < -5 {
			return // keep allocations small; large values are covered by unit tests
		}
		var r *rand.Rand
		if haveRand {
			r = rand.New(rand.NewPCG(uint64(d), uint64(bits)))
		}
		var seq Sequence
		var err error
		switch kind % 6 {
		case 0:
			seq, err = nilIfErr(NewSobol(SobolConfig{Dim: d, Scramble: Scramble(sc), Bits: bits}, r))
		case 1:
			seq, err = nilIfErr(NewHalton(HaltonConfig{Dim: d, Scrambled: flag}, r))
		case 2:
			seq, err = nilIfErr(NewMonteCarlo(d, r))
		case 3:
			base, berr := NewSobol(SobolConfig{Dim: d, Scramble: Scramble(sc % 4), Bits: bits}, rand.New(rand.NewPCG(1, 2)))
			if berr != nil {
				base = nil // a typed nil base must be refused too
			}
			seq, err = nilIfErr(NewRotation(base, r))
		case 4:
			base, berr := NewHalton(HaltonConfig{Dim: d, Scrambled: false}, nil)
			if berr != nil {
				_, err = NewRotation(nil, r) // an untyped nil base
				seq = nil
				break
			}
			seq, err = nilIfErr(NewRotation(base, r))
		default:
			mc, merr := NewMonteCarlo(d, rand.New(rand.NewPCG(3, 4)))
			if merr != nil {
				_, err = NewRotation(mc, r)
				break
			}
			seq, err = nilIfErr(NewRotation(mc, r))
		}
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("kind %d: error %v does not wrap ErrInvalid", kind%6, err)
			}
			if seq != nil {
				t.Fatalf("kind %d: a sequence returned with the error %v", kind%6, err)
			}
			return
		}
		if seq == nil {
			t.Fatalf("kind %d: neither a sequence nor an error", kind%6)
		}
		if seq.Dim() != d {
			t.Fatalf("kind %d: dimension %d, asked for %d", kind%6, seq.Dim(), d)
		}
		buf := make([]float64, max(n, 0)*d)
		if err := seq.Fill(buf, n); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Fill: error %v does not wrap ErrInvalid", err)
			}
			if n > 0 && !errors.Is(err, ErrInvalid) {
				t.Fatalf("Fill of %d points into a buffer of that size: %v", n, err)
			}
			return
		}
		for _, u := range buf {
			if !(u >= 0 && u < 1) {
				t.Fatalf("kind %d: coordinate %v outside [0, 1)", kind%6, u)
			}
		}
	})
}

// nilIfErr returns seq as a Sequence, or an untyped nil with the error.
func nilIfErr[S Sequence](seq S, err error) (Sequence, error) {
	if err != nil {
		var zero S
		if any(seq) != any(zero) {
			return seq, err // reported by the caller: a sequence with an error
		}
		return nil, err
	}
	return seq, nil
}
