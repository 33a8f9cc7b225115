package mechanism

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/privinfer/privinfer/internal/testutil"
)

// releasePath is one release path of the package with neighbouring
// statistics s0, s1 and a predicate "x is a possible output under s".
type releasePath struct {
	name     string
	m        Mechanism
	s0, s1   []float64
	possible func(x, s []float64) bool
}

// onLattice reports whether every x_i is an exact multiple of 2^ge(i)
// within the representable range.
func onLattice(ge func(i int) int) func(x, s []float64) bool {
	return func(x, _ []float64) bool {
		for i, v := range x {
			k := math.Ldexp(v, -ge(i))
			if k != math.Trunc(k) || math.Abs(k) >= 1<<53 {
				return false
			}
		}
		return true
	}
}

func releasePaths(t *testing.T) []releasePath {
	t.Helper()
	must := func(m Mechanism, err error) Mechanism {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// Statistics with many low-order bits, neighbours at the sensitivity.
	a := []float64{0.1234567890123, -3.3333333333333}
	b := []float64{a[0] + 0.5, a[1] + 0.25}
	var ps []releasePath
	for _, eps := range []float64{0.1, 2} {
		lap := must(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: eps, Dim: 2})).(*Laplace)
		ps = append(ps, releasePath{"Laplace ε=" + ftoa(eps), lap, a, b, onLattice(lap.gridExp)})
	}
	gau := must(NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-6, Sensitivity: 1, Dim: 2})).(*Gaussian)
	ps = append(ps, releasePath{"AnalyticGaussian", gau, a, b, onLattice(gau.gridExp)})
	gcl := must(NewClassicalGaussian(GaussianConfig{Epsilon: 0.5, Delta: 1e-6, Sensitivity: 1, Dim: 2})).(*Gaussian)
	ps = append(ps, releasePath{"ClassicalGaussian", gcl, a, b, onLattice(gcl.gridExp)})
	gpr := must(NewProbabilisticGaussian(GaussianConfig{Epsilon: 0.5, Delta: 1e-6, Sensitivity: 1, Dim: 2})).(*Gaussian)
	ps = append(ps, releasePath{"ProbabilisticGaussian", gpr, a, b, onLattice(gpr.gridExp)})
	for _, mode := range []BoundMode{BIT, Truncate} {
		bl := must(NewBounded(must(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 2})), []float64{-0.7, -4}, []float64{1.3, -2}, mode)).(*Bounded)
		lat := onLattice(bl.gridExp)
		ps = append(ps, releasePath{"Bounded Laplace " + mode.String(), bl, a, b, func(x, s []float64) bool {
			for i, v := range x {
				if v == bl.lo[i] || v == bl.hi[i] {
					continue
				}
				if !lat(x[i:i+1], nil) || v < bl.lo[i] || v > bl.hi[i] {
					return false
				}
			}
			return true
		}})
	}
	bits := func(x, _ []float64) bool {
		for _, v := range x {
			if v != 0 && v != 1 {
				return false
			}
		}
		return true
	}
	ps = append(ps, releasePath{"RandomizedResponse", must(NewRandomizedResponse(LocalConfig{Epsilon: 1, Dim: 2})), []float64{0, 1}, []float64{1, 1}, bits})
	ps = append(ps, releasePath{"OUE", must(NewOUE(LocalConfig{Epsilon: 1, Dim: 3})), []float64{1, 0, 0}, []float64{0, 1, 0}, bits})
	ps = append(ps, releasePath{"KaryRR", must(NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 4, Dim: 2})), []float64{0, 3}, []float64{2, 3}, func(x, _ []float64) bool {
		for _, v := range x {
			if v != math.Trunc(v) || v < 0 || v > 3 {
				return false
			}
		}
		return true
	}})
	tr := must(NewInfectionTrajectory(TrajectoryConfig{Trials: 37, Inflation: 20, Population: 100, Times: 2})).(*InfectionTrajectory)
	ps = append(ps, releasePath{"InfectionTrajectory", tr, []float64{3, 50}, []float64{4, 51}, func(x, _ []float64) bool {
		for _, v := range x {
			c := math.Round(v * 37)
			if c < 0 || c > 37 || c/37 != v {
				return false
			}
		}
		return true
	}})
	return ps
}

func ftoa(v float64) string {
	if v == 0.1 {
		return "0.1"
	}
	return "2"
}

// TestFloatingPointDistinguishability releases from s through the secure
// path (operating system's generator) and counts outputs impossible under
// the neighbour s' (not on its support): every path must give 0. 20,000
// draws per path by default, 400,000 without -short.
func TestFloatingPointDistinguishability(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	n := 20_000
	if !testing.Short() {
		n = 400_000
	}
	for _, p := range releasePaths(t) {
		dst := make([]float64, lenOut(p.m, len(p.s0)))
		bad := 0
		for i := 0; i < n; i++ {
			if err := p.m.Release(nil, p.s0, dst); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			if !p.possible(dst, p.s1) {
				bad++
			}
		}
		t.Logf("%-28s distinguishable outputs: %d of %d", p.name, bad, n)
		if bad != 0 {
			t.Errorf("%s: %d of %d releases are impossible under the neighbouring statistic", p.name, bad, n)
		}
	}
}

// TestTextbookFloatIsDistinguishable shows the probe has power: the
// continuous inverse-CDF Laplace sampler in floating point (the previous
// default) produces outputs off the neighbour's lattice, and the
// low-order bits of s + noise reconstruct nothing for the lattice release
// (release − γ·round(release/γ) is exactly 0) while they carry the
// statistic's sub-grid offset for the float sampler.
func TestTextbookFloatIsDistinguishable(t *testing.T) {
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 1})
	r := newRand(5)
	s := 0.1234567890123
	g := lap.Grid(0)
	off, offLattice := 0, 0
	dst := make([]float64, 1)
	for i := 0; i < 2000; i++ {
		x := s + laplaceNoise(uniformOpen(r), 1)
		if k := x / g; k != math.Trunc(k) {
			off++
		}
		_ = lap.Release(nil, []float64{s}, dst)
		if res := dst[0] - g*math.Round(dst[0]/g); res != 0 {
			offLattice++
		}
	}
	if off < 1900 || offLattice != 0 {
		t.Errorf("float sampler off-lattice %d/2000 (want nearly all), lattice release residuals %d (want 0)", off, offLattice)
	}
}

// TestReleaseMatchesSimulation checks that the secure release (exact
// integer sampler, seeded through Reproducible) and the floating-point
// simulation path have the same law: two-sample Kolmogorov–Smirnov on
// 20,000 draws each per path, fixed seeds, false-alarm rate 1e-6 per
// comparison (critical value of the two-sample statistic at α = 1e-6).
func TestReleaseMatchesSimulation(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const n = 20000
	crit := math.Sqrt(-0.5*math.Log(1e-6/2)) * math.Sqrt(2.0/n)
	for pi, p := range releasePaths(t) {
		rm := Reproducible(p.m)
		out := lenOut(p.m, len(p.s0))
		dst := make([]float64, out)
		r1, r2 := newRand(uint64(100+pi)), newRand(uint64(200+pi))
		for j := 0; j < out; j++ {
			xs, ys := make([]float64, n), make([]float64, n)
			for i := 0; i < n; i++ {
				if err := rm.Release(r1, p.s0, dst); err != nil {
					t.Fatal(err)
				}
				xs[i] = dst[j]
				if err := Simulate(p.m, r2, p.s0, dst); err != nil {
					t.Fatal(err)
				}
				ys[i] = dst[j]
			}
			if d, _ := ks2(xs, ys); d > crit {
				t.Errorf("%s coordinate %d: two-sample KS D = %.4g > %.4g", p.name, j, d, crit)
			}
		}
	}
}

// TestDiscreteGaussianLaw compares the exact discrete Gaussian sampler
// with its pmf on a small variance (S = m·t ≈ 1100 ≥ the sampler's
// minimum): chi-square, fixed seed, false-alarm rate lawAlpha.
func TestDiscreteGaussianLaw(t *testing.T) {
	g, err := newDGauss(0x1p10 + 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if g.s%g.t != 0 || float64(g.s) < (0x1p10+0.5)*(0x1p10+0.5) {
		t.Fatalf("S = %d is not a multiple of t = %d at least σ²", g.s, g.t)
	}
	const n = 200000
	const bins = 64
	sd := math.Sqrt(float64(g.s))
	counts := make([]int64, bins)
	probs := make([]float64, bins)
	r := newRand(77)
	bin := func(z int64) int {
		b := int(math.Floor((float64(z)/sd + 4) / 8 * bins))
		return max(0, min(bins-1, b))
	}
	for i := 0; i < n; i++ {
		counts[bin(g.sample(r))]++
	}
	lim := int64(12 * sd)
	tot := 0.0
	for z := -lim; z <= lim; z++ {
		p := math.Exp(-float64(z*z) / (2 * float64(g.s)))
		probs[bin(z)] += p
		tot += p
	}
	for i := range probs {
		probs[i] /= tot
	}
	stat, df := chiSquareCounts(counts, probs, n)
	if p := chiSquareP(stat, df); p < lawAlpha {
		t.Errorf("discrete Gaussian chi2 = %v, df = %d, p = %v", stat, df, p)
	}
}

// TestLatticeRangeChecks refuses statistics whose grid index reaches 2^52,
// NaN and ±Inf, naming the entry; the textbook behaviour (returning 1e16
// unchanged) is gone.
func TestLatticeRangeChecks(t *testing.T) {
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 2})
	gau, _ := NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-6, Sensitivity: 1, Dim: 2})
	dst := make([]float64, 2)
	for _, m := range []Mechanism{lap, gau} {
		for _, bad := range []float64{1e16, -1e300, math.NaN(), math.Inf(1)} {
			err := m.Release(nil, []float64{0, bad}, dst)
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%T: statistic %v: error %v", m, bad, err)
			}
			if err := Simulate(m, newRand(1), []float64{0, bad}, dst); err == nil {
				t.Errorf("%T: simulation accepted %v", m, bad)
			}
		}
	}
}

// TestRandomizedResponseAccounting checks that the reported ε is the one
// the integer probabilities realise: log(p/(1−p)) ≤ ε_reported within
// rounding, for ε up to the supported maximum, and that larger ε is
// refused instead of silently becoming deterministic.
func TestRandomizedResponseAccounting(t *testing.T) {
	for _, eps := range []float64{1e-6, 0.1, 1, 10, 37.5, 50, 60} {
		m, err := NewRandomizedResponse(LocalConfig{Epsilon: eps, Dim: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, q, real, _ := rrMasses("rr", eps, 2)
		got := m.Budget().Epsilon
		if got > eps || got < real || math.Abs(got-eps) > 1e-11 {
			t.Errorf("eps=%v: reported %v, realised %v", eps, got, real)
		}
		// The flip mass Q/2^128 is positive (KeepProb rounds to 1 in
		// float64 beyond ε ≈ 37, the integer threshold does not).
		if q.hi == 0 && q.lo == 0 {
			t.Errorf("eps=%v: randomized response became deterministic", eps)
		}
	}
	for _, eps := range []float64{61, 1000} {
		if _, err := NewRandomizedResponse(LocalConfig{Epsilon: eps, Dim: 1}); !errors.Is(err, ErrInvalid) {
			t.Errorf("eps=%v accepted", eps)
		}
	}
}

// FuzzConstructors feeds arbitrary floats to every constructor's config:
// none may panic, and every mechanism it accepts must release a zero
// statistic without error or panic.
func FuzzConstructors(f *testing.F) {
	f.Add(1.0, 1.0, 1e-5, 2, 0.0)
	f.Add(0.0, math.NaN(), 2.0, 0, 3.0)
	f.Add(1e308, 1e-308, 0.5, 1<<20, 0.125)
	f.Add(5e-324, math.Inf(1), 1e-300, -1, -1.0)
	f.Add(1.0, 8e300, 1e-6, 1<<31, 0.0)
	f.Add(1.0, 1e4, 0.999999, MaxDim, 0.0)
	f.Add(1.0, 1.0, 1e-6, math.MaxInt, 0.0)
	f.Fuzz(func(t *testing.T, a, b, c float64, d int, grid float64) {
		// Dimensions above 64 are tried on the constructors that refuse
		// them without allocating (above MaxDim; above 2^20 for Laplace)
		// and otherwise clamped, to keep the fuzz target fast.
		if d > 64 && d <= MaxDim {
			d = 64
		}
		var ms []Mechanism
		usesD := true
		add := func(m Mechanism, err error) {
			if err == nil {
				if usesD && d > MaxDim {
					t.Fatalf("%T accepted dimension %d > MaxDim", m, d)
				}
				ms = append(ms, m)
			} else if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
		}
		add(NewLaplace(LaplaceConfig{Sensitivity: a, Epsilon: b, Dim: d, Grid: grid}))
		usesD = false
		add(NewLaplaceScales([]float64{a, b}, Budget{Epsilon: c}))
		usesD = true
		add(NewAnalyticGaussian(GaussianConfig{Epsilon: a, Delta: c, Sensitivity: b, Dim: d}))
		add(NewClassicalGaussian(GaussianConfig{Epsilon: a, Delta: c, Sensitivity: b, Dim: d}))
		add(NewProbabilisticGaussian(GaussianConfig{Epsilon: a, Delta: c, Sensitivity: b, Dim: d}))
		add(NewGaussian(ScaleConfig{Sigma: a, Dim: d}))
		add(NewExponential(ExponentialConfig{Epsilon: a, Sensitivity: b, Candidates: d}))
		add(NewRandomizedResponse(LocalConfig{Epsilon: a, Dim: d}))
		add(NewKaryRandomizedResponse(KaryConfig{Epsilon: a, K: d, Dim: 2}))
		add(NewInfectionTrajectory(TrajectoryConfig{Trials: 20, Inflation: 20, Population: 100, Times: d}))
		add(NewOUE(LocalConfig{Epsilon: a, Dim: d}))
		for _, m := range ms {
			n := d
			if ls, ok := m.(*Laplace); ok {
				n = ls.Dim()
			}
			if oue, ok := m.(*OUE); ok {
				n = oue.Dim()
			}
			if kr, ok := m.(*KaryRandomizedResponse); ok {
				n = kr.dim
			}
			s := make([]float64, n)
			if _, ok := m.(*OUE); ok {
				s[0] = 1
			}
			dst := make([]float64, lenOut(m, n))
			if err := Reproducible(m).Release(rand.New(rand.NewPCG(1, 2)), s, dst); err != nil {
				t.Fatalf("%T accepted by its constructor but cannot release 0: %v", m, err)
			}
			for _, v := range dst {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%T released %v", m, dst)
				}
			}
			// A calibrated Gaussian must also release a statistic of 2^16
			// sensitivities (its documented range).
			if g, ok := m.(*Gaussian); ok && g.Budget().Epsilon < math.Inf(1) {
				s[0] = b * (1 << 16) * (1 - 1e-9)
				if err := Reproducible(m).Release(rand.New(rand.NewPCG(1, 2)), s, dst); err != nil {
					t.Fatalf("Gaussian %v accepted but cannot release %v: %v", g.Budget(), s[0], err)
				}
			}
		}
	})
}

// BenchmarkSecureVsFloat compares, per release of d = 10 coordinates from
// the operating system's generator, the secure lattice releases (exact
// discrete Laplace and discrete Gaussian) with the textbook floating-point
// samplers they replace (continuous inverse-CDF Laplace, ziggurat normal)
// and with the seeded simulation paths. ns/draw is per coordinate; the
// interleaved sub-benchmarks time the secure release and the float
// sampler in alternating blocks and report their ratio.
func BenchmarkSecureVsFloat(b *testing.B) {
	const d = 10
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: d})
	gau, _ := NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-6, Sensitivity: 1, Dim: d})
	s := make([]float64, d)
	for i := range s {
		s[i] = 0.37 * float64(i)
	}
	dst := make([]float64, d)
	per := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*d), "ns/draw")
	}
	b.Run("secure-laplace-os", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = lap.Release(nil, s, dst)
		}
		per(b)
	})
	b.Run("float-laplace-os", func(b *testing.B) {
		r := NewCryptoRand()
		b.ReportAllocs()
		for b.Loop() {
			for i, v := range s {
				dst[i] = v + laplaceNoise(uniformOpen(r), 1)
			}
		}
		per(b)
	})
	b.Run("secure-gaussian-os", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = gau.Release(nil, s, dst)
		}
		per(b)
	})
	b.Run("float-gaussian-os", func(b *testing.B) {
		r := NewCryptoRand()
		sg := gau.Sigma()
		b.ReportAllocs()
		for b.Loop() {
			for i, v := range s {
				dst[i] = v + sg*r.NormFloat64()
			}
		}
		per(b)
	})
	// Interleaved: blocks of 64 secure releases alternate with blocks of
	// 64 float releases from the operating system's generator, timed
	// separately, so that load on the machine falls on both alike; the
	// ratio secure/float is the figure of merit (target: at most 3).
	interleaved := func(b *testing.B, secure func(), float func()) {
		var ts, tf time.Duration
		blocks := 0
		b.ReportAllocs()
		for b.Loop() {
			t0 := time.Now()
			for range 64 {
				secure()
			}
			t1 := time.Now()
			for range 64 {
				float()
			}
			ts += t1.Sub(t0)
			tf += time.Since(t1)
			blocks++
		}
		per := float64(blocks * 64 * d)
		b.ReportMetric(float64(ts.Nanoseconds())/per, "secure-ns/draw")
		b.ReportMetric(float64(tf.Nanoseconds())/per, "float-ns/draw")
		b.ReportMetric(float64(ts)/float64(tf), "secure/float")
	}
	b.Run("interleaved-laplace-os", func(b *testing.B) {
		r := NewCryptoRand()
		interleaved(b, func() { _ = lap.Release(nil, s, dst) }, func() {
			for i, v := range s {
				dst[i] = v + laplaceNoise(uniformOpen(r), 1)
			}
		})
	})
	b.Run("interleaved-gaussian-os", func(b *testing.B) {
		r := NewCryptoRand()
		sg := gau.Sigma()
		interleaved(b, func() { _ = gau.Release(nil, s, dst) }, func() {
			for i, v := range s {
				dst[i] = v + sg*r.NormFloat64()
			}
		})
	})
	b.Run("simulate-laplace-seeded", func(b *testing.B) {
		r := newRand(1)
		b.ReportAllocs()
		for b.Loop() {
			_ = lap.SimulateRelease(r, s, dst)
		}
		per(b)
	})
	b.Run("simulate-gaussian-seeded", func(b *testing.B) {
		r := newRand(1)
		b.ReportAllocs()
		for b.Loop() {
			_ = gau.SimulateRelease(r, s, dst)
		}
		per(b)
	})
}
