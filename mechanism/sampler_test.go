package mechanism

import (
	"bufio"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// scriptSource returns the scripted words first, then words of a seeded
// PCG, and counts the words it has returned.
type scriptSource struct {
	words []uint64
	n     int
	rest  *rand.PCG
}

func (s *scriptSource) Uint64() uint64 {
	s.n++
	if s.n <= len(s.words) {
		return s.words[s.n-1]
	}
	return s.rest.Uint64()
}

// withScript runs f on a seeded bit source whose bits are the scripted
// words followed by PCG words, and returns the number of bits f consumed.
func withScript(seed uint64, words []uint64, f func(b *bitSource)) int {
	src := &scriptSource{words: words, rest: rand.NewPCG(seed, 7)}
	used := 0
	_ = withSeededBits(rand.New(src), func(b *bitSource) error {
		f(b)
		used = 64*(src.n-2) + int(b.p)
		return nil
	})
	return used
}

// TestExpNegBitsReference compares the exact expansion of exp(−a/b)·cn/cd
// (four 64-bit words) with 500-bit mpmath references
// (testdata/exp_neg_bits.txt, gen_exp_neg_bits.py), covering the
// constants of the tables, the tail of the Gaussian sampler, exponents
// whose first words are zero and rational results.
func TestExpNegBitsReference(t *testing.T) {
	f, err := os.Open("testdata/exp_neg_bits.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	cases := 0
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 8 {
			t.Fatalf("bad line %q", sc.Text())
		}
		var u [8]uint64
		for i, s := range fs {
			base := 10
			if i >= 4 {
				base = 16
			}
			if u[i], err = strconv.ParseUint(s, base, 64); err != nil {
				t.Fatal(err)
			}
		}
		x := expArg{mul: u[0], den: 1, num: u[1]}
		for k := 0; k < 4; k++ {
			got := expNegScaledWord(x, u[2], u[3], k)
			if u[2] == 1 && u[3] == 1 && u[0] != 0 {
				if w := expNegWord(x, k); w != got {
					t.Errorf("exp(−%d/%d) word %d: expNegWord %016x, scaled %016x", u[0], u[1], k, w, got)
				}
			}
			if got != u[4+k] {
				t.Errorf("exp(−%d/%d)·%d/%d word %d = %016x, want %016x", u[0], u[1], u[2], u[3], k, got, u[4+k])
			}
		}
		cases++
	}
	if cases < 15 {
		t.Fatalf("only %d reference cases", cases)
	}
}

// TestExpNegTablesExact checks every entry of the fixed-point power tables
// (the universal table, the chunk tables of the Gaussian acceptance, the
// per-scale tables of a Laplace law) against the exact expansion.
func TestExpNegTablesExact(t *testing.T) {
	u := universalExp()
	for i := 1; i < len(u.w); i += 1 + i/64 {
		if w := expNegWord(expArg{mul: uint64(i), den: 1, num: 256}, 0); w != u.w[i] {
			t.Fatalf("exp(−%d/256): table %016x, exact %016x", i, u.w[i], w)
		}
	}
	if w := expNegWord(expArg{mul: 8, den: 1, num: 1}, 0); w != u.e8 {
		t.Errorf("exp(−8): table %016x, exact %016x", u.e8, w)
	}
	for k := 0; k < 5; k++ {
		n := 256
		if k == 4 {
			n = 64
		}
		for c := 1; c < n; c += 3 {
			w := expNegWord(expArg{mul: uint64(c), den: 1, num: 1 << (32 - 8*k)}, 0)
			if got := u.sq[k<<8|c]; got != w {
				t.Fatalf("chunk %d entry %d: %016x, exact %016x", k, c, got, w)
			}
		}
	}
	for _, sc := range [][2]uint64{{1<<24 + 10, 1}, {1374389534721, 1 << 20}, {37, 10}, {3, 10}} {
		g := newGeoLaw(sc[0], sc[1], true)
		if !g.tables() {
			t.Fatalf("%v not tabled", sc)
		}
		for j := 0; j < g.levels; j++ {
			for d := 1; d < 1<<g.width[j]; d += 5 {
				w := expNegWord(expArg{mul: uint64(d), den: g.den, num: g.num, sh: uint(8 * j)}, 0)
				if got := g.tab[j<<8|d]; got != w {
					t.Fatalf("scale %v level %d digit %d: %016x, exact %016x", sc, j, d, got, w)
				}
			}
		}
		for h := 1; h <= int(g.hK); h++ {
			if w := expNegWord(g.rho(uint64(h)), 0); w != g.hTab[h-1] {
				t.Fatalf("scale %v: ρ^%d %016x, exact %016x", sc, h, g.hTab[h-1], w)
			}
		}
	}
}

// TestFix128Mul compares the truncated 128-bit product with big integers.
func TestFix128Mul(t *testing.T) {
	r := newRand(3)
	for i := 0; i < 2000; i++ {
		x := fix128{r.Uint64(), r.Uint64()}
		y := fix128{r.Uint64(), r.Uint64()}
		if i%7 == 0 {
			x.hi, y.hi = ^uint64(0), ^uint64(0)
		}
		bx := new(big.Int).Lsh(new(big.Int).SetUint64(x.hi), 64)
		bx.Add(bx, new(big.Int).SetUint64(x.lo))
		by := new(big.Int).Lsh(new(big.Int).SetUint64(y.hi), 64)
		by.Add(by, new(big.Int).SetUint64(y.lo))
		p := new(big.Int).Mul(bx, by)
		p.Rsh(p, 128)
		z := x.mul(y)
		want := fix128{low64(new(big.Int).Rsh(p, 64)), low64(p)}
		if z != want {
			t.Fatalf("%v·%v = %v, want %v", x, y, z, want)
		}
	}
}

// refCompare compares the uniform U made of the words us with the number
// whose expansion is ps (same length), bit by bit: it returns U < p and
// the number of bits up to and including the first differing one (or all
// of them if none differs).
func refCompare(us, ps []uint64) (bool, int) {
	for i := range us {
		if us[i] != ps[i] {
			return us[i] < ps[i], 64*i + bits.LeadingZeros64(us[i]^ps[i]) + 1
		}
	}
	return false, 64 * len(us)
}

// TestLazyComparisons checks below, belowApprox, bernRat and bernPow2
// against bit-by-bit comparisons, including the bits they consume: below
// and bernPow2 consume exactly the deciding bits, belowApprox at least
// those and at most 64.
func TestLazyComparisons(t *testing.T) {
	r := newRand(11)
	for i := 0; i < 20000; i++ {
		a := r.Uint64() >> (r.Uint64() % 64)
		u := []uint64{r.Uint64() >> (r.Uint64() % 8), r.Uint64()}
		switch i % 5 {
		case 0:
			u[0] = a // a tie on the first word
		case 1:
			u[0] = a ^ 1<<(r.Uint64()%64)
		}
		a2 := r.Uint64()
		wantLess, wantUsed := refCompare(u, []uint64{a, a2})
		var less bool
		used := withScript(1, u, func(b *bitSource) {
			var ok bool
			less, ok = b.below(a)
			if !ok {
				less, _ = b.below(a2)
			}
		})
		if less != wantLess || used != wantUsed {
			t.Fatalf("below: U=%x p=%x,%x: got %v after %d bits, want %v after %d", u, a, a2, less, used, wantLess, wantUsed)
		}
		// belowApprox with a window containing a.
		e := r.Uint64() % 40
		lo := a - min(a, r.Uint64()%(e+1))
		if lo+e < lo {
			continue
		}
		var ok bool
		used = withScript(1, u, func(b *bitSource) { less, ok = b.belowApprox(lo, e) })
		if ok {
			_, exactUsed := refCompare(u[:1], []uint64{a})
			if less != wantLess || used < exactUsed || used > 64 {
				t.Fatalf("belowApprox [%x,+%d] U=%x p=%x: got %v after %d bits, exact %v after %d", lo, e, u[0], a, less, used, wantLess, exactUsed)
			}
		} else if used != 0 || u[0] < lo || u[0]-lo > e {
			t.Fatalf("belowApprox [%x,+%d] U=%x: undecided after %d bits", lo, e, u[0], used)
		}
		// bernRat: p = num/den.
		den := r.Uint64()>>(r.Uint64()%60) | 1
		num := r.Uint64() % den
		if i%9 == 0 {
			den, num = 1<<(r.Uint64()%64), 1 // dyadic: expansion ends
			num = min(num, den)
		}
		q, rem := bits.Div64(num%den, 0, den)
		q2, _ := bits.Div64(rem, 0, den)
		if i%3 == 0 {
			u[0] = q
		}
		wantLess, _ = refCompare(u, []uint64{q, q2})
		if num >= den {
			wantLess = true
		}
		used = withScript(1, u, func(b *bitSource) { less = b.bernRat(num, den) })
		if less != wantLess {
			t.Fatalf("bernRat(%d/%d) U=%x: %v", num, den, u, less)
		}
		// bernPow2(k): the first k bits are zero.
		k := uint(r.Uint64()%64 + 1)
		z := bits.LeadingZeros64(u[0])
		want, wantN := z >= int(k), min(z+1, int(k))
		used = withScript(1, u, func(b *bitSource) { less = b.bernPow2(k) })
		if less != want || used != wantN {
			t.Fatalf("bernPow2(%d) U=%x: %v after %d bits", k, u[0], less, used)
		}
	}
}

// binnedLaw compares integer draws with a closed-form CDF on bins
// [edges[j], edges[j+1]) (plus the two unbounded end bins): chi-square,
// returning the p-value.
func binnedLaw(draws []int64, edges []int64, cdf func(z int64) float64) (p float64, df int) {
	counts := make([]int64, len(edges)+1)
	for _, z := range draws {
		j := 0
		for lo, hi := 0, len(edges); lo < hi; {
			mid := (lo + hi) / 2
			if z >= edges[mid] {
				lo = mid + 1
				j = lo
			} else {
				hi = mid
			}
		}
		counts[j]++
	}
	probs := make([]float64, len(edges)+1)
	prev := 0.0
	for j, e := range edges {
		c := cdf(e - 1)
		probs[j] = c - prev
		prev = c
	}
	probs[len(edges)] = 1 - prev
	stat, df := chiSquareCounts(counts, probs, int64(len(draws)))
	return chiSquareP(stat, df), df
}

// quantileEdges returns the distinct integers round(q(j/b)), 0 < j < b.
func quantileEdges(b int, q func(p float64) float64) []int64 {
	var e []int64
	for j := 1; j < b; j++ {
		z := int64(math.Round(q(float64(j) / float64(b))))
		if len(e) == 0 || z > e[len(e)-1] {
			e = append(e, z)
		}
	}
	return e
}

// TestGeometricLawsExact compares the discrete Laplace samplers, with
// per-scale tables and with the universal table, with the closed-form
// CDF of P(Z = z) ∝ exp(−|z|·den/num) on about 40 bins, for scales from
// 0.3 to 2^41 (rational, integer, below and above one, with power-of-two
// denominators as the mechanisms build them): chi-square on 60,000 draws
// per sampler with fixed seeds, false-alarm rate lawAlpha per comparison
// (14 comparisons).
func TestGeometricLawsExact(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	for ci, sc := range [][2]uint64{{3, 10}, {1, 1}, {10, 1}, {37, 10}, {1<<24 + 10, 1}, {1374389534721, 1 << 20}, {1<<41 - 1, 1}} {
		num, den := sc[0], sc[1]
		lam := float64(den) / float64(num)
		l1q := math.Log1p(math.Exp(-lam))
		cdf := func(z int64) float64 {
			if z < 0 {
				return math.Exp(lam*float64(z) - l1q)
			}
			return -math.Expm1(-lam*float64(z+1) - l1q)
		}
		tt := 1 / lam
		edges := quantileEdges(40, func(p float64) float64 { return laplaceNoise(p, tt) })
		for _, tab := range []bool{true, false} {
			const n = 60000
			draws := make([]int64, n)
			g := newGeoLaw(num, den, tab)
			_ = withSeededBits(newRand(uint64(500+ci)), func(b *bitSource) error {
				for i := range draws {
					draws[i] = g.laplace(b)
				}
				return nil
			})
			if p, df := binnedLaw(draws, edges, cdf); p < lawAlpha || df < 2 {
				t.Errorf("scale %d/%d tables %v: chi-square p = %v (df %d)", num, den, tab, p, df)
			}
		}
	}
}

// TestGaussStripsLaw compares the strip sampler of the discrete Gaussian
// with its CDF on about 40 bins: exact sums of the pmf for S ≈ 2^20, with
// the default cover (13σ), a cover of 1.5σ and of 0.3σ (so that the tail
// strip, drawn with probability about 0.13 and 0.76, is tested), and the
// continuity-corrected normal CDF (exact to far below the test's
// resolution) at the release scale S ≈ 2^58.2: chi-square on 60,000
// draws per case with fixed seeds, false-alarm rate lawAlpha per case.
func TestGaussStripsLaw(t *testing.T) {
	small := uint64(1<<20 + 12345)
	sd := math.Sqrt(float64(small))
	lim := int64(14 * sd)
	pmf := make([]float64, 2*lim+1)
	tot := 0.0
	for z := -lim; z <= lim; z++ {
		pmf[z+lim] = math.Exp(-float64(z*z) / (2 * float64(small)))
		tot += pmf[z+lim]
	}
	cum := make([]float64, 2*lim+1)
	acc := 0.0
	for i, p := range pmf {
		acc += p / tot
		cum[i] = acc
	}
	smallCDF := func(z int64) float64 {
		switch {
		case z < -lim:
			return 0
		case z >= lim:
			return 1
		}
		return cum[z+lim]
	}
	big := uint64(321519409496071040)
	bigCDF := func(z int64) float64 {
		return 0.5 * math.Erfc(-(float64(z)+0.5)/math.Sqrt(2*float64(big)))
	}
	for ci, c := range []struct {
		s     uint64
		cover float64
		cdf   func(int64) float64
	}{{small, 0, smallCDF}, {small, 1.5, smallCDF}, {small, 0.3, smallCDF}, {big, 0, bigCDF}} {
		st := newGaussStrips(c.s, c.cover)
		sg := math.Sqrt(float64(c.s))
		edges := quantileEdges(40, func(p float64) float64 { return sg * normQuantile(p) })
		const n = 60000
		draws := make([]int64, n)
		tail := 0
		_ = withSeededBits(newRand(uint64(600+ci)), func(b *bitSource) error {
			for i := range draws {
				draws[i] = st.sample(b, universalExp())
				if uint64(max(draws[i], -draws[i])) >= uint64(st.n)<<st.k {
					tail++
				}
			}
			return nil
		})
		if p, df := binnedLaw(draws, edges, c.cdf); p < lawAlpha || df < 20 {
			t.Errorf("S = %d cover %v: chi-square p = %v (df %d)", c.s, c.cover, p, df)
		}
		if c.cover > 0 && c.cover < 2 && tail < n/20 {
			t.Errorf("cover %v: only %d draws from the tail strip", c.cover, tail)
		}
	}
}

// TestGaussStripsLayout checks the invariants the strip sampler's
// exactness rests on: the weights sum to 2^62, W_i ≥ c·e_i (checked
// against exact bounds of e_i), the tail weight bounds the tail envelope,
// r_i < 1 is the first word of c·e_i/W_i, and the guide table and bounds
// locate every strip.
func TestGaussStripsLayout(t *testing.T) {
	for _, s := range []uint64{1<<20 + 12345, 321519409496071040, 1 << 61} {
		st := newGaussStrips(s, 0)
		sum := new(big.Int)
		for _, w := range st.w {
			sum.Add(sum, new(big.Int).SetUint64(w))
		}
		if sum.Cmp(new(big.Int).Lsh(big.NewInt(1), stripBits)) != 0 {
			t.Fatalf("S=%d: weights sum to %v", s, sum)
		}
		if st.w[0] <= st.c {
			t.Errorf("S=%d: W_0 = %d ≤ c = %d", s, st.w[0], st.c)
		}
		for i := 1; i < st.n; i += 1 + st.n/16 {
			v := uint64(i) << st.k
			a, b := st.stripArg(v).rat()
			_, hi := expNegBounds(a, b, 192)
			need := new(big.Int).Mul(hi, new(big.Int).SetUint64(st.c))
			need.Rsh(need, 192)
			if need.Cmp(new(big.Int).SetUint64(st.w[i])) > 0 {
				t.Errorf("S=%d strip %d: W = %d < c·e_i ≈ %v", s, i, st.w[i], need)
			}
			if r := expNegScaledWord(st.stripArg(v), st.c, st.w[i], 0); r != st.r[i] {
				t.Errorf("S=%d strip %d: r = %016x, exact %016x", s, i, st.r[i], r)
			}
		}
		if r := expNegScaledWord(expArg{den: 1, num: 1}, st.c, st.w[0], 0); r != st.r[0] {
			t.Errorf("S=%d strip 0: r = %016x, exact %016x", s, st.r[0], r)
		}
		for u := uint64(0); u < 1<<12; u++ {
			x := u<<52 | u*0x9e3779b97f4a7c15>>12
			i := int(st.guide[x>>56])
			for i < st.n && x >= st.bound[i+1] {
				i++
			}
			if x < st.bound[i] || i < st.n && x >= st.bound[i+1] {
				t.Fatalf("S=%d: %x located in strip %d", s, x, i)
			}
		}
	}
}

// TestBernoulliExpLaws checks the exact Bernoulli trials against their
// probabilities: exp(−n/den) with fractional, whole, peeled (≥ 8) and
// 128-bit exponents, exp(−d²/den), and num/den, by two-sided
// Clopper–Pearson intervals on 100,000 fixed-seed trials each
// (false-alarm rate lawAlpha per case).
func TestBernoulliExpLaws(t *testing.T) {
	type tc struct {
		name string
		p    float64
		f    func(b *bitSource) bool
	}
	ut := universalExp()
	exp := func(hi, lo, den uint64, x float64) tc {
		return tc{"exp(-" + strconv.FormatFloat(x, 'g', 6, 64) + ")", math.Exp(-x), func(b *bitSource) bool { return b.bernExpNeg(hi, lo, den, ut) }}
	}
	sq := func(d, den uint64) tc {
		x := float64(d) * float64(d) / float64(den)
		return tc{"sq " + strconv.FormatFloat(x, 'g', 6, 64), math.Exp(-x), func(b *bitSource) bool { return b.bernExpNegSq(d, den, ut) }}
	}
	cases := []tc{
		exp(0, 3, 10, 0.3), exp(0, 17, 10, 1.7), exp(0, 799, 100, 7.99), exp(0, 17, 2, 8.5),
		exp(0, 41, 4, 10.25), exp(0, 1, 1<<40, 0x1p-40), exp(0, 0, 5, 0),
		exp(1, 0, ^uint64(0), 1), exp(0, 1<<63, 3<<62, 2.0/3),
		sq(3, 20), sq(1<<20, 1<<41), sq(0, 7), sq(12345, 12345*12345/3), sq(7, 1),
		{"rat 1/3", 1.0 / 3, func(b *bitSource) bool { return b.bernRat(1, 3) }},
		{"rat 7/2^40", 7 * 0x1p-40, func(b *bitSource) bool { return b.bernRat(7, 1<<40) }},
		{"rat 999999/1000000", 0.999999, func(b *bitSource) bool { return b.bernRat(999999, 1000000) }},
	}
	const n = 100000
	for ci, c := range cases {
		var k int64
		_ = withSeededBits(newRand(uint64(700+ci)), func(b *bitSource) error {
			for i := 0; i < n; i++ {
				if c.f(b) {
					k++
				}
			}
			return nil
		})
		lo, hi := clopperPearson(k, n, lawAlpha)
		if c.p < lo || c.p > hi {
			t.Errorf("%s: %d of %d, interval [%v, %v] misses %v", c.name, k, n, lo, hi, c.p)
		}
	}
}

// nearWords returns first words around a (a ± small offsets, a ± 2^40,
// one random word), to place the random bits inside and just outside the
// windows of the approximate comparisons.
func nearWords(r *rand.Rand, a uint64) []uint64 {
	var ws []uint64
	for _, d := range []int64{-1 << 40, -40, -7, -1, 0, 1, 2, 9, 40, 1 << 40} {
		w := a + uint64(d)
		if (d < 0) == (w < a) || d == 0 { // no wrap-around
			ws = append(ws, w)
		}
	}
	return append(ws, r.Uint64())
}

// TestExactTrialsAgainstReference drives the table-based trials with
// scripted random bits around the first 64 bits of their probability, so
// that both the one-comparison path and the exact fallback inside the
// approximation window run, and checks every decision against the bit-by-
// bit comparison with the exact expansion (two words), and that at least
// the deciding bits are consumed.
func TestExactTrialsAgainstReference(t *testing.T) {
	r := newRand(21)
	ut := universalExp()
	check := func(name string, x expArg, cn, cd uint64, trial func(b *bitSource) bool) {
		t.Helper()
		ps := []uint64{expNegScaledWord(x, cn, cd, 0), expNegScaledWord(x, cn, cd, 1)}
		for _, w := range nearWords(r, ps[0]) {
			u := []uint64{w, r.Uint64()}
			if w == ps[0] && r.Uint64()%2 == 0 {
				u[1] = ps[1] ^ 1<<(r.Uint64()%64)
			}
			want, need := refCompare(u, ps)
			var got bool
			used := withScript(5, u, func(b *bitSource) { got = trial(b) })
			if got != want || used < need {
				t.Fatalf("%s: U = %x, p = %x: got %v after %d bits, want %v after at least %d", name, u, ps, got, used, want, need)
			}
		}
	}
	// The acceptance of the low part L of the tabled geometric law.
	for _, sc := range [][2]uint64{{1<<24 + 10, 1}, {1374389534721, 1 << 20}, {1<<41 - 1, 1}} {
		g := newGeoLaw(sc[0], sc[1], true)
		g.tables()
		for i := 0; i < 40; i++ {
			l := r.Uint64()&(1<<g.m-1) | 1
			check("acceptL", expArg{mul: l, den: g.den, num: g.num}, 1, 1, func(b *bitSource) bool { return g.acceptL(b, l) })
		}
	}
	// The acceptance of the Gaussian strips (v in strip i) and the
	// exp(−d²/den) trial.
	for _, s := range []uint64{1<<20 + 12345, 321519409496071040} {
		st := newGaussStrips(s, 0)
		for i := 0; i < 60; i++ {
			si := int(r.Uint64() % uint64(st.n))
			if i < 3 {
				si = i
			}
			v := uint64(si)<<st.k | r.Uint64()&(1<<st.k-1)
			if i%5 == 0 {
				v = uint64(si) << st.k
			}
			check("strip", st.stripArg(v), st.c, st.w[si], func(b *bitSource) bool { return st.accept(b, si, v, ut) })
			d := v>>(r.Uint64()%4) | 1 // d = 0: exp(0) = 1, not a fraction
			check("sq", expArg{mul: d, den: d, num: st.s2}, 1, 1, func(b *bitSource) bool { return b.bernExpNegSq(d, st.s2, ut) })
		}
	}
}

// TestDrawHAgainstReference drives the inversion of H with scripted bits
// at and around every tabled power ρ^h: H is the number of powers above
// U (beyond the table, continued with the next draw), checked with the
// exact expansions.
func TestDrawHAgainstReference(t *testing.T) {
	r := newRand(23)
	checked := 0
	for _, sc := range [][2]uint64{{1<<24 + 10, 1}, {3, 10}, {1, 1}, {1, 1 << 10}} {
		g := newGeoLaw(sc[0], sc[1], true)
		g.tables()
		for h := uint64(1); h <= g.hK; h++ {
			p0 := g.hTab[h-1]
			p1 := expNegWord(g.rho(h), 1)
			for _, w := range nearWords(r, p0) {
				u := []uint64{w, r.Uint64(), 0} // a third word ends any continuation: U ≥ ρ^1
				// H ≥ h iff U < ρ^h; with U above ρ^(h−1)'s first word
				// (or h = 1) and below ρ^(h+1)'s, H is h − 1 or h.
				if h > 1 && w >= g.hTab[h-2] || h < g.hK && w < g.hTab[h] {
					continue
				}
				below, _ := refCompare(u[:2], []uint64{p0, p1})
				want := h - 1
				if below {
					want = h
				}
				var got uint64
				withScript(9, u, func(b *bitSource) {
					got = g.drawH(b)
				})
				if below && h == g.hK {
					if got < h {
						t.Fatalf("scale %v: U=%x below ρ^%d (table end) gave H = %d", sc, u[:2], h, got)
					}
					continue
				}
				if got != want {
					t.Fatalf("scale %v: U=%x near ρ^%d (%x %x): H = %d, want %d", sc, u[:2], h, p0, p1, got, want)
				}
				checked++
			}
		}
	}
	if checked < 300 {
		t.Errorf("only %d cases checked", checked)
	}
}

// TestGaussTailConstant checks the tail constant r_K of a strip layout
// with a narrow cover (where it is not negligible) against its formula
// evaluated in floating point, and that it is a probability.
func TestGaussTailConstant(t *testing.T) {
	s := uint64(1<<20 + 12345)
	st := newGaussStrips(s, 1.5)
	a := float64(uint64(st.n) << st.k)
	w := math.Ldexp(1, int(st.k))
	rk := float64(st.c) * math.Exp(-a*a/(2*float64(s))) / (w * float64(st.w[st.n]) * -math.Expm1(-a/float64(s)))
	withScript(1, nil, func(b *bitSource) { b.belowTail(st) }) // computes tailR
	if st.tailR != st.tailWord(0) {
		t.Errorf("tail word 0 %016x, stored %016x", st.tailWord(0), st.tailR)
	}
	if got := math.Ldexp(float64(st.tailR), -64); !(rk <= 1) || math.Abs(got-rk) > 1e-12 {
		t.Errorf("r_K = %v, formula %v", got, rk)
	}
	if w1, w1again := st.tailWord(1), st.tailWord(1); w1 != w1again {
		t.Errorf("tail word 1 not reproducible")
	}
}

// TestSamplerBitsPerDraw counts the random bits the lattice samplers read
// per coordinate at the default release scales (d = 10, ε = 1, δ = 1e-6),
// 20,000 fixed-seed draws each: the documented costs (about 46 for the
// discrete Laplace noise, about 37 for the discrete Gaussian noise,
// against 64 for one float64 noise draw) must hold within a few bits.
func TestSamplerBitsPerDraw(t *testing.T) {
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 10})
	gau, _ := NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-6, Sensitivity: 1, Dim: 10})
	const n = 20000
	for _, c := range []struct {
		name   string
		lo, hi float64
		draw   func(b *bitSource)
	}{
		{"discrete Laplace", 43, 49, func(b *bitSource) { lap.laws[0].laplace(b) }},
		{"discrete Gaussian", 34, 40, func(b *bitSource) { gau.dg.sampleBits(b) }},
	} {
		used := withScript(3, nil, func(b *bitSource) {
			for i := 0; i < n; i++ {
				c.draw(b)
			}
		})
		per := float64(used) / n
		t.Logf("%s: %.1f random bits per draw", c.name, per)
		if per < c.lo || per > c.hi {
			t.Errorf("%s reads %.1f bits per draw, documented range [%v, %v]", c.name, per, c.lo, c.hi)
		}
	}
}

// TestScaleCache: tables are shared by scale, built once per key, and the
// cache stays bounded.
func TestScaleCache(t *testing.T) {
	c := newScaleCache[int, *int]()
	builds := 0
	mk := func(v int) func() *int { return func() *int { builds++; return &v } }
	p := c.get(1, mk(1))
	if q := c.get(1, mk(1)); q != p || builds != 1 {
		t.Fatalf("second get rebuilt (%d builds)", builds)
	}
	for i := 2; i < 3*maxCached; i++ {
		c.get(i, mk(i))
	}
	if len(c.m) != maxCached || len(c.order) != maxCached {
		t.Fatalf("cache holds %d/%d entries, bound %d", len(c.m), len(c.order), maxCached)
	}
	if v := c.get(3*maxCached-1, mk(0)); *v != 3*maxCached-1 {
		t.Fatalf("recent entry lost")
	}
}

// TestConcurrentReleases releases from one Laplace and one Gaussian
// mechanism in several goroutines at once, building the tables
// concurrently on first use (run with -race to check the lazy
// initialisation and the pooled bit sources).
func TestConcurrentReleases(t *testing.T) {
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 0.7, Dim: 3})
	gau, _ := NewAnalyticGaussian(GaussianConfig{Epsilon: 0.7, Delta: 1e-7, Sensitivity: 1, Dim: 3})
	done := make(chan error)
	for w := 0; w < 4; w++ {
		go func(w int) {
			dst := make([]float64, 3)
			var err error
			for i := 0; i < 200 && err == nil; i++ {
				if err = lap.Release(nil, []float64{1, 2, 3}, dst); err == nil {
					err = Reproducible(gau).Release(newRand(uint64(w)), []float64{1, 2, 3}, dst)
				}
			}
			done <- err
		}(w)
	}
	for w := 0; w < 4; w++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestWindowsContainExact: the approximation windows of exp(−n/den)·2^64
// (by division, and by the strip sampler's reciprocal of 2S) contain the
// exact first 64 bits, and are narrow (relative width below 2^-30).
func TestWindowsContainExact(t *testing.T) {
	r := newRand(31)
	ut := universalExp()
	for _, s := range []uint64{1<<20 + 12345, 321519409496071040, 1<<61 - 1, 1 << 40} {
		st := newGaussStrips(s, 0)
		for i := 0; i < 300; i++ {
			n := r.Uint64() % st.n64
			if i%3 == 0 {
				n = r.Uint64() % (st.s2 / 4)
			}
			if n == 0 {
				continue
			}
			a := expNegWord(expArg{mul: n, den: 1, num: st.s2}, 0)
			for k, f := range []func() (uint64, uint64){
				func() (uint64, uint64) { return expNegWindow(0, n, st.s2, ut) },
				func() (uint64, uint64) { return st.window(n, ut) },
			} {
				pl, pu := f()
				if a < pl || a > pu || float64(pu-pl) > 0x1p-30*float64(a)+16 {
					t.Fatalf("S=%d n=%d window %d: [%x, %x] vs exact %x", s, n, k, pl, pu, a)
				}
			}
		}
	}
}
