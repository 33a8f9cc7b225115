package mechanism

import (
	crand "crypto/rand"
	"math/rand/v2"
)

// CryptoSource is a rand.Source whose output comes from the operating
// system's cryptographically secure generator (crypto/rand). It reads in
// blocks that start at 64 bytes and double up to 4096 bytes, so that a
// source made for one release reads little more than that release uses,
// and a long-lived one reads 4 KiB at a time. Use it for releases to
// untrusted parties: a seeded pseudo-random generator lets anyone who
// learns the seed subtract the noise. A CryptoSource is not safe for
// concurrent use; give each goroutine its own.
type CryptoSource struct {
	buf    []byte // grows with the blocks, so a new source costs 64 bytes
	pos, n int    // buf[pos:n] is unread
}

// cryptoBlock is the largest block a CryptoSource reads at a time.
const cryptoBlock = 4096

// NewCryptoSource returns a CryptoSource.
func NewCryptoSource() *CryptoSource { return &CryptoSource{} }

// NewCryptoRand returns a *rand.Rand drawing from a new CryptoSource.
func NewCryptoRand() *rand.Rand { return rand.New(NewCryptoSource()) }

// Uint64 returns 64 uniformly random bits. A nil *CryptoSource reads
// them from the operating system's generator without buffering.
func (c *CryptoSource) Uint64() uint64 {
	if c == nil {
		var b [8]byte
		_, _ = crand.Read(b[:])
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	}
	if c.pos+8 > c.n {
		c.n = min(max(2*c.n, 64), cryptoBlock)
		if len(c.buf) < c.n {
			c.buf = make([]byte, c.n)
		}
		// crypto/rand.Read never returns an error on supported platforms
		// (it aborts the program if the system generator fails).
		_, _ = crand.Read(c.buf[:c.n])
		c.pos = 0
	}
	b := c.buf[c.pos : c.pos+8]
	c.pos += 8
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
