package aggregate

import (
	"math"
	"math/big"
	"testing"
)

// TestWide checks the 128-bit accumulator against math/big over random
// sums of large signed terms, a subtraction of n·c and the clamp to
// ±2^52, and saturating counts.
func TestWide(t *testing.T) {
	r := newRand(91)
	two128 := new(big.Int).Lsh(big.NewInt(1), 128)
	toBig := func(w wide) *big.Int {
		v := new(big.Int).Lsh(big.NewInt(w.hi), 64)
		return v.Add(v, new(big.Int).SetUint64(w.lo))
	}
	for trial := range 2000 {
		var w wide
		ref := new(big.Int)
		terms := 1 + r.IntN(50)
		for range terms {
			v := int64(r.Uint64())
			if trial%3 == 0 {
				v >>= r.IntN(63)
			}
			w.add(v)
			ref.Add(ref, big.NewInt(v))
		}
		n, c := r.Uint64()>>1, int64(r.Uint64())>>uint(r.IntN(63))
		w.mulSub(n, c)
		ref.Sub(ref, new(big.Int).Mul(new(big.Int).SetUint64(n), big.NewInt(c)))
		// Reduce ref to the 128-bit two's complement range.
		ref.Mod(ref, two128)
		if ref.Cmp(new(big.Int).Lsh(big.NewInt(1), 127)) >= 0 {
			ref.Sub(ref, two128)
		}
		if toBig(w).Cmp(ref) != 0 {
			t.Fatalf("trial %d: wide %v, big %v", trial, toBig(w), ref)
		}
		want := ref.Int64()
		switch {
		case ref.Cmp(big.NewInt(maxStat)) > 0:
			want = maxStat
		case ref.Cmp(big.NewInt(-maxStat)) < 0:
			want = -maxStat
		}
		if got := w.clamp(maxStat); got != want {
			t.Fatalf("trial %d: clamp %d, want %d (value %v)", trial, got, want, ref)
		}
	}
	for _, c := range [][3]int64{{1, 2, 3}, {math.MaxInt64, 1, math.MaxInt64}, {math.MaxInt64 - 1, 1, math.MaxInt64}, {1 << 62, 1 << 62, math.MaxInt64}} {
		if got := satAdd(c[0], c[1]); got != c[2] {
			t.Errorf("satAdd(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}
