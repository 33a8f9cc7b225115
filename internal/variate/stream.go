package variate

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Stream is a pseudo-random generator for the innermost loops of
// simulators that draw millions of variates per call (the exact Gillespie
// simulation of an epidemic draws two per event). It is xoshiro256++
// (Blackman and Vigna 2021: 256 bits of state, period 2^256 − 1, no
// multiplications), held by value so that each draw is an inlined call
// rather than a call through rand.Source, and it draws exponentials with
// its own 256-layer ziggurat on 64-bit words (Exp). A Stream is seeded
// from the caller's *rand.Rand (NewStream: two words expanded by
// SplitMix64), so results still depend only on that generator's state. It
// is not safe for concurrent use. The zero value is not a valid stream
// (xoshiro's all-zero state is a fixed point); use NewStream.
type Stream struct {
	s0, s1, s2, s3 uint64
}

// NewStream returns a Stream seeded with two 64-bit words drawn from r.
func NewStream(r *rand.Rand) Stream {
	a, b := r.Uint64(), r.Uint64()
	var s Stream
	s.s0, a = splitMix(a)
	s.s1, a = splitMix(a)
	s.s2, b = splitMix(b)
	s.s3, _ = splitMix(b)
	return s
}

func splitMix(x uint64) (out, next uint64) {
	next = x + 0x9e3779b97f4a7c15
	z := next
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31), next
}

// Uint64 returns a uniform 64-bit word.
func (s *Stream) Uint64() uint64 {
	out := bits.RotateLeft64(s.s0+s.s3, 23) + s.s0
	t := s.s1 << 17
	s.s2 ^= s.s0
	s.s3 ^= s.s1
	s.s1 ^= s.s2
	s.s0 ^= s.s3
	s.s2 ^= t
	s.s3 = bits.RotateLeft64(s.s3, 45)
	return out
}

// Float64 returns a uniform variate on the grid k/2^53, k in [0, 2^53).
func (s *Stream) Float64() float64 {
	return float64(s.Uint64()>>11) * (1.0 / twoPow53)
}

// Exp returns a standard exponential variate (rate 1) by the ziggurat
// method of Marsaglia and Tsang (2000) with 256 layers of equal area and
// the exact tail r + Exp(1) beyond the base layer's edge r. One 64-bit word
// gives both the layer (its low 8 bits) and the position in it (its high
// 53 bits, so the two are independent and the resolution is 2^-53 of a
// layer), and 98.9% of draws need no other word. The tables are float64,
// computed from the layer recursion (expZig), so the wedge tests use the
// density itself.
func (s *Stream) Exp() float64 {
	u := s.Uint64()
	if x, ok := ExpWord(u); ok {
		return x
	}
	return s.ExpFinish(u)
}

// ExpWord returns the exponential variate that Exp returns when its first
// word is u, and true, if u alone decides it (98.9% of words, those inside
// their layer's rectangle); otherwise it returns false and ExpFinish(u)
// completes the draw. It is small enough to be inlined: an inner loop that
// draws u from the stream itself gets Exp's variates, bit for bit, without
// a call in the common case.
func ExpWord(u uint64) (float64, bool) {
	i := u & 255
	j := u >> 11
	return float64(j) * expZig.w[i], j < expZig.k[i]
}

// ExpFinish completes an exponential draw whose first word u ExpWord
// could not decide: the tail or a wedge test, and on rejection new words
// from s, exactly as Exp would draw them.
func (s *Stream) ExpFinish(u uint64) float64 {
	for {
		i := u & 255
		j := u >> 11
		x := float64(j) * expZig.w[i]
		if j < expZig.k[i] {
			return x
		}
		if i == 0 {
			// The base layer beyond r is the tail, which is r plus a
			// standard exponential (memorylessness).
			return expZigR - math.Log((float64(s.Uint64()>>11)+0.5)*(1.0/twoPow53))
		}
		// The wedge between the layer's rectangle and the density: accept
		// x if a uniform height in [f(x_i), f(x_{i+1})] lies below e^{−x}.
		if expZig.f[i]+s.Float64()*(expZig.f[i+1]-expZig.f[i]) < math.Exp(-x) {
			return x
		}
		u = s.Uint64()
	}
}

// The exponential ziggurat: the base layer's right edge r and the common
// area v = (r + 1)·e^{−r} of the 256 layers (Marsaglia and Tsang 2000).
const (
	expZigR = 7.69711747013104972
	expZigV = 3.949659822581572e-3
)

// zigTables are a ziggurat's tables: layer i (0..255) is the rectangle
// [0, x_i] × [f(x_i), f(x_{i+1})] for i ≥ 1 and, for i = 0, the base
// strip of width x_0 = v/f(r) whose part beyond x_1 = r stands for the
// tail. w[i] = x_i·2^-53 scales a 53-bit integer j to the layer; j < k[i]
// puts j·w[i] left of x_{i+1}, under the density whatever the height
// (points between k[i]·w[i] and x_{i+1} go to the wedge test, which
// accepts them); f[i] = f(x_i).
type zigTables struct {
	w [256]float64
	k [256]uint64
	f [257]float64
}

var expZig = newExpZig()

// newExpZig builds the exponential ziggurat from x_1 = r by
// x_{i+1} = f⁻¹(f(x_i) + v/x_i), so that every rectangle has area v;
// the top edge x_256 is 0 (f = 1), to which the recursion comes within
// 1e-12 (TestExpZigTables).
func newExpZig() *zigTables {
	var x [257]float64
	x[0] = expZigV / math.Exp(-expZigR)
	x[1] = expZigR
	for i := 1; i < 255; i++ {
		x[i+1] = -math.Log(math.Exp(-x[i]) + expZigV/x[i])
	}
	x[256] = 0
	t := new(zigTables)
	for i := 0; i < 256; i++ {
		t.w[i] = x[i] / twoPow53
		t.k[i] = uint64(math.Floor(x[i+1] / x[i] * twoPow53))
	}
	t.f[0] = math.Exp(-expZigR) // unused: the base layer has no wedge
	for i := 1; i <= 256; i++ {
		t.f[i] = math.Exp(-x[i])
	}
	return t
}
