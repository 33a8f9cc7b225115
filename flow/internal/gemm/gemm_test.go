package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// shapes covers 1×1, sizes that are not multiples of the vector width or
// the row block, tails of one column or row, and the flow's layer shapes.
var shapes = [][3]int{
	{1, 1, 1}, {1, 1, 7}, {2, 3, 1}, {3, 5, 2}, {4, 8, 4}, {4, 16, 3}, {5, 17, 9},
	{7, 9, 13}, {8, 24, 33}, {9, 31, 1}, {13, 50, 50}, {50, 50, 13}, {11, 50, 200},
	{50, 29, 64}, {64, 50, 11}, {3, 65, 5}, {200, 50, 50}, {1, 100, 3}, {6, 2, 300},
}

type layout struct {
	m, n, k            int
	a, b, c            []float64
	sai, sap, ldb, ldc int
}

// newLayout draws a random problem; trans selects A stored transposed
// (sai = 1), and padding gives every row of B and C spare columns whose
// values must not change.
func newLayout(r *rand.Rand, m, n, k int, trans bool) layout {
	l := layout{m: m, n: n, k: k, ldb: n + r.IntN(3), ldc: n + r.IntN(3)}
	if trans {
		l.sai, l.sap = 1, m+r.IntN(2)
		l.a = randVec(r, (k-1)*l.sap+m)
	} else {
		l.sai, l.sap = k+r.IntN(2), 1
		l.a = randVec(r, (m-1)*l.sai+k)
	}
	l.b = randVec(r, (k-1)*l.ldb+n)
	l.c = randVec(r, (m-1)*l.ldc+n)
	return l
}

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

// check compares c against C0 + A·B computed in extended precision
// (sums of products accumulated with math.FMA into a two-term sum): the
// tolerance is 2·k·2⁻⁵³·(|C0| + Σ|A||B|), the standard bound for a
// recursive dot product, which every kernel must meet.
func (l layout) check(t *testing.T, name string, c0, c []float64) {
	t.Helper()
	l.checkTol(t, name, c0, c, 2*float64(l.k+1)*0x1p-53)
}

// checkTol compares c against C0 + A·B computed in extended precision with
// tolerance rel·(|C0| + Σ|A||B|) per element; padding columns of C must
// not change.
func (l layout) checkTol(t *testing.T, name string, c0, c []float64, rel float64) {
	t.Helper()
	for i := 0; i < l.m; i++ {
		for j := 0; j < l.ldc; j++ {
			idx := i*l.ldc + j
			if idx >= len(c) {
				break
			}
			if j >= l.n {
				if c[idx] != c0[idx] {
					t.Fatalf("%s %dx%dx%d: padding C(%d,%d) changed", name, l.m, l.n, l.k, i, j)
				}
				continue
			}
			s, e := c0[idx], 0.0
			mag := math.Abs(c0[idx])
			for p := 0; p < l.k; p++ {
				x := l.a[i*l.sai+p*l.sap] * l.b[p*l.ldb+j]
				lo := math.FMA(l.a[i*l.sai+p*l.sap], l.b[p*l.ldb+j], -x)
				t2 := s + x
				bb := t2 - s
				e += (s - (t2 - bb)) + (x - bb) + lo
				s = t2
				mag += math.Abs(x)
			}
			ref := s + e
			if d := math.Abs(c[idx] - ref); !(d <= rel*mag) {
				t.Fatalf("%s %dx%dx%d: C(%d,%d) = %v, want %v (|diff| %.3g > tol %.3g)",
					name, l.m, l.n, l.k, i, j, c[idx], ref, d, rel*mag)
			}
		}
	}
}

func TestMulAddShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, sh := range shapes {
		for _, trans := range []bool{false, true} {
			l := newLayout(r, sh[0], sh[1], sh[2], trans)
			c := append([]float64(nil), l.c...)
			MulAdd(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, c, l.ldc)
			l.check(t, Kernel(), l.c, c)
			g := append([]float64(nil), l.c...)
			mulAddGo(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, g, l.ldc, g, l.ldc)
			l.check(t, "go", l.c, g)
		}
	}
}

func TestMulAddRandomShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 300; it++ {
		m, n, k := 1+r.IntN(40), 1+r.IntN(70), 1+r.IntN(60)
		l := newLayout(r, m, n, k, r.IntN(2) == 0)
		c := append([]float64(nil), l.c...)
		MulAdd(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, c, l.ldc)
		l.check(t, Kernel(), l.c, c)
	}
}

// TestMulAddExactSlices runs the kernels on slices with no spare capacity
// past the last element (masked tails must not read or write past it)
// and checks that empty shapes are no-ops and short slices panic.
func TestMulAddExactSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		a := randVec(r, m*k)[: m*k : m*k]
		b := randVec(r, k*n)[: k*n : k*n]
		c := make([]float64, m*n)[: m*n : m*n]
		MulAdd(m, n, k, a, k, 1, b, n, c, n)
		l := layout{m: m, n: n, k: k, a: a, b: b, c: make([]float64, m*n), sai: k, sap: 1, ldb: n, ldc: n}
		l.check(t, Kernel(), l.c, c)
	}
	MulAdd(0, 3, 3, nil, 3, 1, nil, 3, nil, 3)
	defer func() {
		if recover() == nil {
			t.Fatal("MulAdd with a short c did not panic")
		}
	}()
	MulAdd(2, 2, 2, make([]float64, 4), 2, 1, make([]float64, 4), 2, make([]float64, 3), 2)
}

// TestMulAddReproducible checks that the result does not depend on which
// loop order drive chooses: a C computed in two halves of its rows equals
// the C computed at once, bit for bit.
func TestMulAddReproducible(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	m, n, k := 37, 50, 200
	l := newLayout(r, m, n, k, true)
	c1 := append([]float64(nil), l.c...)
	MulAdd(m, n, k, l.a, l.sai, l.sap, l.b, l.ldb, c1, l.ldc)
	c2 := append([]float64(nil), l.c...)
	h := 17
	MulAdd(h, n, k, l.a, l.sai, l.sap, l.b, l.ldb, c2, l.ldc)
	MulAdd(m-h, n, k, l.a[h*l.sai:], l.sai, l.sap, l.b, l.ldb, c2[h*l.ldc:], l.ldc)
	for i := range c1 {
		if c1[i] != c2[i] {
			t.Fatalf("element %d: %v vs %v", i, c1[i], c2[i])
		}
	}
}

func BenchmarkMulAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, sh := range [][3]int{{200, 50, 50}, {50, 50, 200}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, bb, c := randVec(r, m*k), randVec(r, k*n), make([]float64, m*n)
		for _, kern := range []string{Kernel(), "go"} {
			b.Run(kern+"/"+itoa(m)+"x"+itoa(n)+"x"+itoa(k), func(b *testing.B) {
				for b.Loop() {
					if kern == "go" {
						mulAddGo(m, n, k, a, k, 1, bb, n, c, n, c, n)
					} else {
						MulAdd(m, n, k, a, k, 1, bb, n, c, n)
					}
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func itoa(v int) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

// biasLayout draws a problem of shape sh (A transposed or not at random)
// and, with withBias, a bias row; c0 is C with every row replaced by the
// bias (or by zeros), what Mul stores before adding A·B.
func biasLayout(r *rand.Rand, sh [3]int, withBias bool) (l layout, bias, c0 []float64) {
	l = newLayout(r, sh[0], sh[1], sh[2], r.IntN(2) == 0)
	if withBias {
		bias = randVec(r, l.n)
	}
	c0 = append([]float64(nil), l.c...)
	for i := 0; i < l.m; i++ {
		row := c0[i*l.ldc : i*l.ldc+l.n]
		if withBias {
			copy(row, bias)
		} else {
			clear(row)
		}
	}
	return l, bias, c0
}

// TestMul checks Mul against MulAdd on a C holding the bias in every row
// (bit for bit: both store the bias plus one accumulator) and, with a nil
// bias, against MulAdd on a zero C, for the machine's kernel and the Go
// kernel, on every test shape and random ones; padding columns of C must
// not change.
func TestMul(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(13, 14))
	all := append([][3]int(nil), shapes...)
	for it := 0; it < 200; it++ {
		all = append(all, [3]int{1 + r.IntN(40), 1 + r.IntN(70), 1 + r.IntN(60)})
	}
	for _, sh := range all {
		for _, withBias := range []bool{true, false} {
			l, bias, want := biasLayout(r, sh, withBias)
			c0 := append([]float64(nil), want...)
			MulAdd(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, want, l.ldc)
			got := append([]float64(nil), l.c...)
			Mul(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, bias, got, l.ldc)
			goGot := append([]float64(nil), l.c...)
			mulAddGo(l.m, l.n, l.k, l.a, l.sai, l.sap, l.b, l.ldb, bias, 0, goGot, l.ldc)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%v bias=%v: element %d: Mul %v, MulAdd %v", sh, withBias, i, got[i], want[i])
				}
			}
			l.check(t, "Mul "+Kernel(), c0, got)
			l.check(t, "Mul go", c0, goGot)
		}
	}
	// k = 0 stores the bias (or zeros) alone.
	c := []float64{9, 9, 9, 9}
	Mul(2, 2, 0, nil, 0, 1, nil, 2, []float64{1, 2}, c, 2)
	if c[0] != 1 || c[1] != 2 || c[2] != 1 || c[3] != 2 {
		t.Fatalf("k = 0 with a bias: %v", c)
	}
	Mul(2, 2, 0, nil, 0, 1, nil, 2, nil, c, 2)
	if c[0] != 0 || c[3] != 0 {
		t.Fatalf("k = 0 without a bias: %v", c)
	}
}
