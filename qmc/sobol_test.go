package qmc

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"
)

const goldenN, goldenD = 1024, 50

// loadGolden reads testdata/sobol_golden_1024x50.u32.gz, written by
// testdata/gen_sobol_golden.py from scipy.stats.qmc.Sobol(50,
// scramble=False): 1024×50 coordinates as uint32 multiples of 2^-32.
func loadGolden(t *testing.T) []uint32 {
	t.Helper()
	raw, err := os.ReadFile("testdata/sobol_golden_1024x50.u32.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 4*goldenN*goldenD {
		t.Fatalf("golden file has %d bytes, want %d", len(b), 4*goldenN*goldenD)
	}
	g := make([]uint32, goldenN*goldenD)
	for i := range g {
		g[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return g
}

// TestSobolGoldenScipy checks the first 2^10 points in 50 dimensions for
// exact equality with scipy's unscrambled Sobol, at both resolutions, and
// skip-ahead against the same values.
func TestSobolGoldenScipy(t *testing.T) {
	g := loadGolden(t)
	for _, nb := range []int{32, 64} {
		s, err := NewSobol(SobolConfig{Dim: goldenD, Bits: nb}, nil)
		if err != nil {
			t.Fatal(err)
		}
		pts := make([]float64, goldenN*goldenD)
		if err := s.Fill(pts, goldenN); err != nil {
			t.Fatal(err)
		}
		bad := 0
		for i, v := range pts {
			if want := float64(g[i]) * 0x1p-32; v != want {
				if bad < 5 {
					t.Errorf("bits=%d point %d dim %d: got %v, scipy %v", nb, i/goldenD, i%goldenD, v, want)
				}
				bad++
			}
		}
		if bad > 0 {
			t.Fatalf("bits=%d: %d of %d coordinates differ from scipy", nb, bad, len(pts))
		}
		// Skip-ahead lands on the same points.
		row := make([]float64, goldenD)
		for _, idx := range []uint64{1, 2, 3, 7, 100, 511, 512, 777, 1023} {
			if err := s.Seek(idx); err != nil {
				t.Fatal(err)
			}
			if err := s.Fill(row, 1); err != nil {
				t.Fatal(err)
			}
			for j, v := range row {
				if want := float64(g[int(idx)*goldenD+j]) * 0x1p-32; v != want {
					t.Fatalf("bits=%d Seek(%d) dim %d: got %v, want %v", nb, idx, j, v, want)
				}
			}
		}
		// Fill in pieces equals one Fill.
		s.Reset()
		part := make([]float64, 3*goldenD)
		if err := s.Skip(5); err != nil {
			t.Fatal(err)
		}
		if err := s.Fill(part, 3); err != nil {
			t.Fatal(err)
		}
		for i, v := range part {
			if v != pts[5*goldenD+i] {
				t.Fatalf("bits=%d: Skip(5)+Fill differs at %d", nb, i)
			}
		}
	}
}

// TestSobolLastDimension checks the end of the table: dimension 21201 has a
// degree-18 polynomial, and its first 2^18 points must be a (0,18,1)-net
// (every dyadic interval of length 2^-18 holds exactly one point), which
// fails if any of m_1..m_18 is even or out of range, or the recurrence is
// wrong for k > s.
func TestSobolLastDimension(t *testing.T) {
	recs, err := directionTable()
	if err != nil {
		t.Fatal(err)
	}
	last := recs[len(recs)-1]
	if last.s != 18 {
		t.Fatalf("degree of dimension 21201 = %d, want 18", last.s)
	}
	m := make([]uint64, 64)
	for _, j := range []int{1, 2, 3, 100, 1110, 5000, MaxSobolDim - 1} {
		directionNumbers(recs, j, m)
		// The generator matrix of one coordinate is upper unitriangular:
		// m_k odd and m_k < 2^k for all k ≤ 64.
		for k, mk := range m {
			if mk&1 != 1 || (k < 63 && mk>>uint(k+1) != 0) {
				t.Fatalf("dim %d: m_%d = %d is not odd or ≥ 2^%d", j+1, k+1, mk, k+1)
			}
		}
	}
	s, err := NewSobol(SobolConfig{Dim: MaxSobolDim}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = s
}

func TestSobolErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{0, -1, MaxSobolDim + 1} {
		if _, err := NewSobol(SobolConfig{Dim: d}, nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewSobol(%d): err = %v, want ErrInvalid", d, err)
		}
	}
	if _, err := NewSobol(SobolConfig{Dim: 2, Bits: 16}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Bits 16: err = %v, want ErrInvalid", err)
	}
	if _, err := NewSobol(SobolConfig{Dim: 2, Scramble: Owen}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Owen with nil rand: err = %v, want ErrInvalid", err)
	}
	if _, err := NewSobol(SobolConfig{Dim: 2, Scramble: Scramble(99)}, r); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown scramble: err = %v, want ErrInvalid", err)
	}
	s, err := NewSobol(SobolConfig{Dim: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float64, 6)
	if err := s.Fill(buf, 3); !errors.Is(err, ErrInvalid) {
		t.Errorf("short buffer: err = %v, want ErrInvalid", err)
	}
	if err := s.Fill(buf, -1); !errors.Is(err, ErrInvalid) {
		t.Errorf("n = -1: err = %v, want ErrInvalid", err)
	}
	// 32-bit: 2^32 points in total.
	if err := s.Seek(1<<32 - 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Fill(buf, 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("beyond 2^32: err = %v, want ErrInvalid", err)
	}
	if err := s.Fill(buf, 1); err != nil {
		t.Errorf("last point: %v", err)
	}
	if err := s.Fill(buf, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("after the last point: err = %v, want ErrInvalid", err)
	}
	if err := s.Seek(1<<32 + 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("Seek beyond: err = %v, want ErrInvalid", err)
	}
	s64, _ := NewSobol(SobolConfig{Dim: 3, Bits: 64}, nil)
	if err := s64.Seek(1 << 40); err != nil {
		t.Errorf("64-bit Seek(2^40): %v", err)
	}
	if err := s64.Skip(1 << 53); !errors.Is(err, ErrInvalid) {
		t.Errorf("64-bit Skip past 2^53: err = %v, want ErrInvalid", err)
	}
}

// TestSobol64Extends checks that the 64-bit generator continues the 32-bit
// one: at index 2^32 − 1 both agree, and beyond 2^32 the 64-bit points are
// still a valid Sobol continuation (coordinate 1 is the van der Corput
// sequence in Gray-code order).
func TestSobol64Extends(t *testing.T) {
	a, _ := NewSobol(SobolConfig{Dim: 4, Bits: 32}, nil)
	b, _ := NewSobol(SobolConfig{Dim: 4, Bits: 64}, nil)
	pa, pb := make([]float64, 4), make([]float64, 4)
	for _, idx := range []uint64{12345, 1<<32 - 1} {
		a.Seek(idx)
		b.Seek(idx)
		a.Fill(pa, 1)
		b.Fill(pb, 1)
		for j := range pa {
			if pa[j] != pb[j] {
				t.Fatalf("index %d dim %d: 32-bit %v, 64-bit %v", idx, j, pa[j], pb[j])
			}
		}
	}
	// Index 2^32 + 5: Gray code g = i ^ i>>1, coordinate 1 is the bit
	// reversal of g.
	idx := uint64(1)<<32 + 5
	b.Seek(idx)
	b.Fill(pb, 1)
	g := idx ^ idx>>1
	var want uint64
	for k := 0; k < 64; k++ {
		if g>>uint(k)&1 == 1 {
			want |= 1 << uint(63-k)
		}
	}
	if pb[0] != toUnit(want) {
		t.Fatalf("64-bit coordinate 1 at 2^32+5: got %v, want %v", pb[0], toUnit(want))
	}
}

// TestSobolClone checks that a clone continues identically and
// independently, for every scramble.
func TestSobolClone(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, sc := range []Scramble{NoScramble, DigitalShift, LinearMatrixShift, Owen, OwenTree} {
		s, _ := NewSobol(SobolConfig{Dim: 5, Scramble: sc}, r)
		s.Skip(3)
		c := s.Clone()
		a, b := make([]float64, 40), make([]float64, 40)
		s.Fill(a, 8)
		c.Fill(b, 8)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%v: clone differs at %d", sc, i)
			}
		}
		c.Randomize(r)
		c.Reset()
		s.Reset()
		s.Fill(a, 8)
		c.Fill(b, 8)
		same := true
		for i := range a {
			same = same && a[i] == b[i]
		}
		if same != (sc == NoScramble) {
			t.Fatalf("%v: re-randomizing the clone affected the original or had no effect", sc)
		}
	}
}
