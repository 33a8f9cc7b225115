package mechanism

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// This file holds the bit-level entropy source of the exact lattice
// samplers. The samplers compare a lazily generated uniform U ∈ [0, 1)
// with the binary expansion of a probability and stop at the first
// differing bit, so a Bernoulli trial reads two random bits on average
// instead of a whole 64-bit word; drawing from the operating system's
// generator, bits (not words) are what costs time.

// osWords is the number of 64-bit words read from the operating system
// at once (4 KiB).
const osWords = 512

// bitSource hands out independent uniformly random bits, most significant
// first, from the operating system's generator (src == nil) or from a
// *rand.Rand. Every bit is handed out once: the samplers read bits with
// peek and consume exactly those their decision looked at with skip, so
// the unread bits stay independent of every decision made so far.
//
// The unread bits start at bit p of w (bit 0 is the most significant bit
// of w[0]); peek refills w when p reaches lim, keeping the partly read
// word. A bitSource is not safe for concurrent use. Release takes one
// from osBits (operating-system bits; bits left over after a release are
// fresh entropy that no output depends on, so the next release may use
// them); the reproducible path takes one from seededBits and resets it on
// every use, so its results depend on the caller's generator only.
type bitSource struct {
	p, lim uint
	src    *rand.Rand
	w      [osWords]uint64
	raw    *[8 * osWords]byte // operating-system source only
}

// osBits pools bit sources drawing from the operating system's generator.
var osBits = sync.Pool{New: func() any {
	b := &bitSource{lim: (osWords - 1) * 64, raw: new([8 * osWords]byte)}
	b.fillOS(0)
	return b
}}

// seededBits pools bit sources for the reproducible path (src set on use).
var seededBits = sync.Pool{New: func() any { return &bitSource{lim: 64} }}

// withOSBits runs f with a bit source drawing from the operating system.
func withOSBits(f func(b *bitSource) error) error {
	b := osBits.Get().(*bitSource)
	err := f(b)
	osBits.Put(b)
	return err
}

// withSeededBits runs f with a bit source drawing from r only: the source
// starts from two fresh words of r and its unread bits are discarded
// afterwards, so results depend on r alone.
func withSeededBits(r *rand.Rand, f func(b *bitSource) error) error {
	b := seededBits.Get().(*bitSource)
	b.src = r
	b.w[0], b.w[1], b.p = r.Uint64(), r.Uint64(), 0
	err := f(b)
	b.src = nil
	b.w[0], b.w[1] = 0, 0
	seededBits.Put(b)
	return err
}

// fillOS fills w[from:] from the operating system's generator.
func (b *bitSource) fillOS(from int) {
	raw := b.raw[8*from:]
	// crypto/rand.Read never returns an error on supported platforms (it
	// aborts the program if the system generator fails).
	_, _ = crand.Read(raw)
	for i := range b.w[from:] {
		b.w[from+i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
}

// refill moves the partly read word to w[0] and refills the rest (a
// seeded source refills one word). It is kept out of line so that peek
// inlines.
//
//go:noinline
func (b *bitSource) refill() {
	if b.src != nil {
		b.w[0], b.w[1] = b.w[1], b.src.Uint64()
		b.p -= 64
		return
	}
	b.w[0] = b.w[(b.p>>6)&(osWords-1)]
	b.p &= 63
	b.fillOS(1)
}

// peek returns the next 64 unread bits without consuming them.
func (b *bitSource) peek() uint64 {
	if b.p >= b.lim {
		b.refill()
	}
	i, o := b.p>>6, b.p&63
	return b.w[i&(osWords-1)]<<o | b.w[(i+1)&(osWords-1)]>>(64-o)
}

// skip consumes k ∈ [0, 64] bits; it follows a peek.
func (b *bitSource) skip(k uint) { b.p += k }

// take consumes and returns the next k ∈ [1, 64] bits as an integer.
func (b *bitSource) take(k uint) uint64 {
	v := b.peek() >> (64 - k)
	b.p += k
	return v
}

// below reports whether U < p for the uniform U formed by the unread bits
// and a probability p whose binary expansion starts with the 64 bits a
// (a·2^-64 ≤ p ≤ (a+1)·2^-64). It consumes the bits up to and including
// the first one that differs from a and returns decided = true; if the
// first 64 bits equal a it consumes them and returns decided = false: the
// caller then continues with the next 64 bits of p's expansion.
func (b *bitSource) below(a uint64) (less, decided bool) {
	w := b.peek()
	b.p += min(uint(bits.LeadingZeros64(w^a))+1, 64)
	return w < a, w != a
}

// bernRat returns true with probability num/den exactly (num ≤ den,
// den > 0), reading two bits on average.
func (b *bitSource) bernRat(num, den uint64) bool {
	if num >= den {
		return true
	}
	// The expansion of num/den, 64 bits at a time: a = ⌊rem·2^64/den⌋.
	rem := num
	for {
		var a uint64
		a, rem = bits.Div64(rem, 0, den)
		less, ok := b.below(a)
		if ok {
			return less
		}
		if rem == 0 {
			// p's expansion ends here and U's first bits equal it:
			// U ≥ p.
			return false
		}
	}
}

// bernPow2 returns true with probability 2^-k exactly (k ≤ 64): the next
// k bits are all zero. It reads bits up to the first one set.
func (b *bitSource) bernPow2(k uint) bool {
	w := b.peek()
	z := uint(bits.LeadingZeros64(w))
	if z < k {
		b.skip(z + 1)
		return false
	}
	b.skip(k)
	return true
}
