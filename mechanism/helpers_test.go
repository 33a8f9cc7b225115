package mechanism

import (
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Test helpers shared by the mechanism tests.

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// readTable returns the rows of the whitespace-separated table of numbers
// in the file at path, passing over blank lines and lines that start with
// '#'. It fails t when the file cannot be read or a field is not a number.
func readTable(t *testing.T, path string) [][]float64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		var row []float64
		for _, s := range strings.Fields(line) {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s line %d: %v", path, i+1, err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows
}

// ksStat returns the Kolmogorov–Smirnov statistic of x against cdf and its
// asymptotic p-value (Kolmogorov distribution with the Stephens
// small-sample correction). x is sorted in place.
func ksStat(x []float64, cdf func(float64) float64) (d, p float64) {
	sort.Float64s(x)
	n := float64(len(x))
	for i, v := range x {
		f := cdf(v)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	sq := math.Sqrt(n)
	lam := (sq + 0.12 + 0.11/sq) * d
	return d, kolmogorovQ(lam)
}

// kolmogorovQ is P(K > λ) for the Kolmogorov distribution.
func kolmogorovQ(lam float64) float64 {
	if lam < 0.2 {
		return 1
	}
	s := 0.0
	for j := 1; j <= 100; j++ {
		t := 2 * math.Exp(-2*float64(j*j)*lam*lam)
		if j%2 == 0 {
			s -= t
		} else {
			s += t
		}
		if t < 1e-17 {
			break
		}
	}
	return math.Min(1, math.Max(0, s))
}

// ks2 returns the two-sample KS statistic and asymptotic p-value; x and y
// are sorted in place.
func ks2(x, y []float64) (d, p float64) {
	sort.Float64s(x)
	sort.Float64s(y)
	i, j := 0, 0
	n, m := float64(len(x)), float64(len(y))
	for i < len(x) && j < len(y) {
		v := math.Min(x[i], y[j])
		for i < len(x) && x[i] <= v {
			i++
		}
		for j < len(y) && y[j] <= v {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/n-float64(j)/m))
	}
	ne := math.Sqrt(n * m / (n + m))
	return d, kolmogorovQ((ne + 0.12 + 0.11/ne) * d)
}

// chiSquareP returns the upper-tail p-value of a chi-square statistic with
// df degrees of freedom by the Wilson–Hilferty cube-root normal
// approximation (accurate to a few percent of p for df ≥ 3, ample for
// rejection at 1e-3).
func chiSquareP(stat float64, df int) float64 {
	k := float64(df)
	z := (math.Cbrt(stat/k) - (1 - 2/(9*k))) / math.Sqrt(2/(9*k))
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// chiSquareCounts computes the chi-square statistic of observed counts
// against expected probabilities, pooling cells with expectation < 5 into
// one cell; it returns the statistic and degrees of freedom.
func chiSquareCounts(obs []int64, probs []float64, total int64) (stat float64, df int) {
	var poolO, poolE float64
	cells := 0
	for i, p := range probs {
		e := p * float64(total)
		if e < 5 {
			poolO += float64(obs[i])
			poolE += e
			continue
		}
		d := float64(obs[i]) - e
		stat += d * d / e
		cells++
	}
	if poolE > 0 {
		d := poolO - poolE
		stat += d * d / math.Max(poolE, 1e-300)
		cells++
	}
	return stat, cells - 1
}

// clopperPearson returns the two-sided (1−alpha) Clopper–Pearson interval
// for a binomial proportion k/n, by bisection on the exact binomial tails.
func clopperPearson(k, n int64, alpha float64) (lo, hi float64) {
	if k > 0 {
		// lo: P(X ≥ k | p) = alpha/2.
		a, b := 0.0, 1.0
		for it := 0; it < 100; it++ {
			mid := 0.5 * (a + b)
			sf, _ := binomSFAtOrAll(k-1, n, mid)
			if sf > alpha/2 {
				b = mid
			} else {
				a = mid
			}
		}
		lo = a
	}
	hi = 1
	if k < n {
		a, b := 0.0, 1.0
		for it := 0; it < 100; it++ {
			mid := 0.5 * (a + b)
			cdf := binomCDFOrAll(k, n, mid)
			if cdf > alpha/2 {
				a = mid
			} else {
				b = mid
			}
		}
		hi = b
	}
	return lo, hi
}

// binomSFAtOrAll returns P(X > k), summing whichever tail does not
// start beyond the mode (where the pmf may underflow).
func binomSFAtOrAll(k, n int64, p float64) (float64, float64) {
	if p <= 0 {
		return 0, 0
	}
	if p >= 1 {
		return 1, 0
	}
	if float64(k) >= float64(n)*p {
		return binomSFAt(k, n, p)
	}
	c, _ := binomCDFAt(k, n, p)
	return 1 - c, 0
}

func binomCDFOrAll(k, n int64, p float64) float64 {
	if p <= 0 {
		return 1
	}
	if p >= 1 {
		if k >= n {
			return 1
		}
		return 0
	}
	if float64(k) <= float64(n)*p {
		c, _ := binomCDFAt(k, n, p)
		return c
	}
	s, _ := binomSFAt(k, n, p)
	return 1 - s
}

func TestHelpersClopperPearson(t *testing.T) {
	// Textbook value: k = 5, n = 20, 95%: (0.0866, 0.4910).
	lo, hi := clopperPearson(5, 20, 0.05)
	if math.Abs(lo-0.08657) > 1e-4 || math.Abs(hi-0.49105) > 1e-4 {
		t.Fatalf("CP(5,20) = (%v, %v)", lo, hi)
	}
}

// TestCryptoSource: the crypto-backed generator yields uniform doubles
// (KS at 1e-3) and independent streams.
func TestCryptoSource(t *testing.T) {
	r := NewCryptoRand()
	xs := make([]float64, 20000)
	for i := range xs {
		xs[i] = r.Float64()
	}
	// The draws come from the operating system and cannot be seeded, so
	// the threshold is a false-alarm rate of 1e-9 per run; a broken source
	// (constant, truncated or biased bits) gives p far below it at 20,000
	// draws.
	if _, p := ksStat(xs, func(x float64) float64 { return math.Min(1, math.Max(0, x)) }); p < 1e-9 {
		t.Errorf("CryptoSource doubles fail KS: p = %v", p)
	}
	a, b := NewCryptoSource(), NewCryptoSource()
	same := 0
	for i := 0; i < 100; i++ {
		if a.Uint64() == b.Uint64() {
			same++
		}
	}
	if same > 0 {
		t.Errorf("two crypto sources agree on %d of 100 outputs", same)
	}
}
