package mechanism

import (
	"errors"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/variate"
)

// bruteBinomTails returns P(X ≤ k) and P(X > k) for k = 0..n by summing
// lgamma-based pmfs from either end.
func bruteBinomTails(n int64, p float64) (cdf, sf []float64) {
	pmf := make([]float64, n+1)
	for k := int64(0); k <= n; k++ {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		c, _ := math.Lgamma(float64(n - k + 1))
		pmf[k] = math.Exp(a - b - c + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
	}
	cdf = make([]float64, n+1)
	sf = make([]float64, n+1)
	s := 0.0
	for k := range pmf {
		s += pmf[k]
		cdf[k] = s
	}
	s = 0
	for k := n; k >= 0; k-- {
		sf[k] = s
		s += pmf[k]
	}
	return cdf, sf
}

func TestBinomLogPmf(t *testing.T) {
	for _, tc := range []struct {
		n int64
		p float64
	}{{1, 0.3}, {10, 0.5}, {37, 0.01}, {1000, 0.0009990}, {1000, 0.6}, {5000, 0.2}} {
		sum := 0.0
		for k := int64(0); k <= tc.n; k++ {
			lp := variate.BinomialLogPmf(k, tc.n, tc.p)
			a, _ := math.Lgamma(float64(tc.n + 1))
			b, _ := math.Lgamma(float64(k + 1))
			c, _ := math.Lgamma(float64(tc.n - k + 1))
			ref := a - b - c + float64(k)*math.Log(tc.p) + float64(tc.n-k)*math.Log1p(-tc.p)
			if math.Abs(lp-ref) > 1e-9*math.Max(1, math.Abs(ref)) {
				t.Fatalf("n=%d p=%v k=%d: logpmf %v want %v", tc.n, tc.p, k, lp, ref)
			}
			sum += math.Exp(lp)
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("n=%d p=%v: pmf sums to %v", tc.n, tc.p, sum)
		}
	}
	// mpmath (dps=40): log C(10^6, 1000) + 1000 log(1e-3) + (10^6-1000) log(1-1e-3).
	const want = -4.3723992559429218075
	if got := variate.BinomialLogPmf(1000, 1000000, 1e-3); math.Abs(got-want) > 1e-12 {
		t.Errorf("logpmf(1000; 1e6, 1e-3) = %.17g, want %.17g", got, want)
	}
}

// TestBinomQuantileExact checks the inverse CDF against brute-force CDFs:
// Q(u) must be the smallest k with F(k) ≥ u except where u lies within
// 1e-12 of a jump of F.
func TestBinomQuantileExact(t *testing.T) {
	r := newRand(1)
	for _, tc := range []struct {
		n int64
		p float64
	}{{1, 0.5}, {7, 0.2}, {50, 0.5}, {200, 0.97}, {1000, 0.001998}, {1000, 0.5005}, {3000, 0.03}, {20000, 0.4}} {
		cdf, sf := bruteBinomTails(tc.n, tc.p)
		us := []float64{1e-300, 0x1p-54, 0x1p-53, 1e-12, 1e-6, 0.5, 1 - 1e-6, 1 - 0x1p-53}
		for i := 0; i < 2000; i++ {
			us = append(us, r.Float64())
		}
		for _, u := range us {
			k := binomQuantile(u, tc.n, tc.p)
			var ok bool
			if u <= 0.5 {
				ok = cdf[k] >= u*(1-1e-12) && (k == 0 || cdf[k-1] < u*(1+1e-12))
			} else {
				v := 1 - u // exact for u ≥ ½
				ok = sf[k] <= v*(1+1e-12) && (k == 0 || sf[k-1] > v*(1-1e-12))
			}
			if !ok {
				prev := 0.0
				if k > 0 {
					prev = cdf[k-1]
				}
				t.Fatalf("n=%d p=%v u=%v: Q=%d with F(Q-1)=%v F(Q)=%v", tc.n, tc.p, u, k, prev, cdf[k])
			}
		}
	}
}

// TestBinomQuantileLargeN checks the large-n path against the normal limit
// of its mean and against monotonicity.
func TestBinomQuantileLargeN(t *testing.T) {
	n, p := int64(1_000_000_000), 0.3
	prev := int64(-1)
	for i := 1; i < 200; i++ {
		u := float64(i) / 200
		k := binomQuantile(u, n, p)
		if k < prev {
			t.Fatalf("quantile not monotone at u=%v", u)
		}
		prev = k
		// Normal approximation error is O(1) counts in the bulk.
		z := normQuantile(u)
		approx := float64(n)*p + math.Sqrt(float64(n)*p*(1-p))*z
		if math.Abs(float64(k)-approx) > 5 {
			t.Fatalf("u=%v: Q=%d, normal approximation %v", u, k, approx)
		}
	}
}

func TestInfectionTrajectoryBasics(t *testing.T) {
	m, err := NewInfectionTrajectory(TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 1000000, Times: 10})
	if err != nil {
		t.Fatal(err)
	}
	if m.Budget().Epsilon != 10 {
		t.Fatalf("epsilon = %v, want 10", m.Budget().Epsilon)
	}
	for _, bad := range []struct {
		n, mm, k int64
		l        int
	}{{0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 0, 1}, {1, 1, 1, 0}} {
		if _, err := NewInfectionTrajectory(TrajectoryConfig{Trials: bad.n, Inflation: bad.mm, Population: bad.k, Times: bad.l}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%v: want ErrInvalid, got %v", bad, err)
		}
	}
	s := make([]float64, 10)
	dst := make([]float64, 10)
	s[3] = 2e6
	if err := m.Release(newRand(1), s, dst); !errors.Is(err, ErrInvalid) {
		t.Errorf("count above K: got %v", err)
	}
	s[3] = math.NaN()
	if err := m.Release(newRand(1), s, dst); !errors.Is(err, ErrInvalid) {
		t.Errorf("NaN count: got %v", err)
	}
	if err := m.Release(newRand(1), s[:9], dst); !errors.Is(err, ErrInvalid) {
		t.Errorf("short statistic: got %v", err)
	}
}

// TestInfectionTrajectoryLaw: Release and Apply both follow the product of
// binomials stated by LogDensity (chi-square per coordinate, false-alarm
// rate 1e-3 each), and the mass sums to one over the grid.
func TestInfectionTrajectoryLaw(t *testing.T) {
	const n = 60
	mech, err := NewInfectionTrajectory(TrajectoryConfig{Trials: n, Inflation: 30, Population: 500, Times: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := []float64{0, 137, 500}
	// Mass sums to one for each coordinate.
	for i := range s {
		sum := 0.0
		one := []float64{0, 0, 0}
		for c := 0; c <= n; c++ {
			one[i] = float64(c) / n
			// Other coordinates fixed at 0: subtract their log mass.
			lp := mech.LogDensity(one, s)
			for j := range s {
				if j != i {
					lp -= variate.BinomialLogPmf(0, n, mech.Prob(s[j]))
				}
			}
			sum += math.Exp(lp)
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("coordinate %d: mass sums to %v", i, sum)
		}
	}
	const draws = 40000
	r := newRand(7)
	counts := [2][3][]int64{}
	for a := range counts {
		for i := range counts[a] {
			counts[a][i] = make([]int64, n+1)
		}
	}
	dst := make([]float64, 3)
	u := make([]float64, 3)
	for d := 0; d < draws; d++ {
		if err := Reproducible(mech).Release(r, s, dst); err != nil {
			t.Fatal(err)
		}
		for i, v := range dst {
			counts[0][i][int(math.Round(v*n))]++
		}
		for i := range u {
			u[i] = r.Float64()
		}
		mech.Apply(u, s, dst)
		for i, v := range dst {
			counts[1][i][int(math.Round(v*n))]++
		}
	}
	for i := range s {
		probs := make([]float64, n+1)
		for c := range probs {
			probs[c] = math.Exp(variate.BinomialLogPmf(int64(c), n, mech.Prob(s[i])))
		}
		for a, name := range []string{"Release", "Apply"} {
			stat, df := chiSquareCounts(counts[a][i], probs, draws)
			if p := chiSquareP(stat, df); p < 1e-3 {
				t.Errorf("%s coordinate %d: chi2=%v df=%d p=%v", name, i, stat, df, p)
			}
		}
	}
}

// TestBinomQuantileLargeNExact checks the large-n inverse CDF against an
// independent CDF, P(X ≤ k) = I_{1−p}(n−k, k+1) from internal/special,
// at uniforms not within 1e-9 of a CDF jump.
func TestBinomQuantileLargeNExact(t *testing.T) {
	r := newRand(5)
	checked := 0
	for _, tc := range []struct {
		n int64
		p float64
	}{{1_000_000_000, 0.3}, {50_000_000, 0.002}, {2_000_000, 0.999}} {
		cdf := func(k int64) float64 {
			if k < 0 {
				return 0
			}
			if k >= tc.n {
				return 1
			}
			return special.BetaInc(float64(tc.n-k), float64(k+1), 1-tc.p)
		}
		for i := 0; i < 20; i++ {
			u := r.Float64()
			if i == 0 {
				u = 1e-7
			}
			k := binomQuantile(u, tc.n, tc.p)
			lo, hi := cdf(k-1), cdf(k)
			if math.Abs(lo-u) < 1e-9 || math.Abs(hi-u) < 1e-9 {
				continue
			}
			checked++
			if !(lo < u && u <= hi) {
				t.Errorf("n=%d p=%v u=%v: Q=%d with F(Q−1)=%v F(Q)=%v", tc.n, tc.p, u, k, lo, hi)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d of 60 quantiles checked", checked)
	}
}

// TestBinomCDFReference compares the tail sums behind the inverse CDF with
// 40-digit mpmath values (testdata/gen_binomial.py) and checks that the
// quantile jumps exactly at them.
func TestBinomCDFReference(t *testing.T) {
	cases := 0
	for _, f := range readTable(t, "testdata/binomial_cdf.txt") {
		n, p, k, want := int64(f[0]), f[1], int64(f[2]), f[3]
		var got float64
		if float64(k) <= float64(n)*p {
			got, _ = binomCDFAt(k, n, p)
		} else {
			sf, _ := binomSFAt(k, n, p)
			got = 1 - sf
		}
		if rel := math.Abs(got-want) / want; rel > 1e-12 {
			t.Errorf("n=%d p=%v k=%d: CDF %.17g, want %.17g (rel %.2g)", n, p, k, got, want, rel)
		}
		if q := binomQuantile(want*(1-1e-9), n, p); q != k {
			t.Errorf("n=%d p=%v: Q(F(%d)·(1−1e-9)) = %d", n, p, k, q)
		}
		if q := binomQuantile(want*(1+1e-9), n, p); q != k+1 {
			t.Errorf("n=%d p=%v: Q(F(%d)·(1+1e-9)) = %d, want %d", n, p, k, q, k+1)
		}
		cases++
	}
	if cases != 7 {
		t.Fatalf("read %d cases", cases)
	}
}
