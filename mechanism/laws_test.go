package mechanism

import (
	"math"
	"testing"
)

// Distributional tests: for every mechanism, the secure release law
// (drawn from the seeded generator through Reproducible, so that each test
// is deterministic) and Apply (on
// pseudo-random uniforms) follow the law stated by LogDensity, and the
// density integrates (or sums) to one. Every KS / chi-square test below
// uses a fixed seed and rejects at p < 1e-3 (false-alarm rate 1e-3 per
// test if the code is right).

const lawAlpha = 1e-3

func laplaceCDF(x, mu, b float64) float64 {
	if x < mu {
		return 0.5 * math.Exp((x-mu)/b)
	}
	return 1 - 0.5*math.Exp(-(x-mu)/b)
}

// integrate1D integrates exp(logf) over [lo, hi] with the composite
// Simpson rule on n (even) intervals.
func integrate1D(logf func(float64) float64, lo, hi float64, n int) float64 {
	h := (hi - lo) / float64(n)
	s := math.Exp(logf(lo)) + math.Exp(logf(hi))
	for i := 1; i < n; i++ {
		w := 4.0
		if i%2 == 0 {
			w = 2
		}
		s += w * math.Exp(logf(lo+float64(i)*h))
	}
	return s * h / 3
}

func TestLaplaceLaw(t *testing.T) {
	m, err := NewLaplace(LaplaceConfig{Sensitivity: 2, Epsilon: 0.5, Dim: 3}) // scale 4
	if err != nil {
		t.Fatal(err)
	}
	s := []float64{-1, 0, 7.5}
	const n = 20000
	rel := make([][]float64, 3)
	app := make([][]float64, 3)
	r := newRand(11)
	dst := make([]float64, 3)
	u := make([]float64, 3)
	for i := 0; i < n; i++ {
		if err := Reproducible(m).Release(r, s, dst); err != nil {
			t.Fatal(err)
		}
		for j := range dst {
			rel[j] = append(rel[j], dst[j])
		}
		for j := range u {
			u[j] = r.Float64()
		}
		m.Apply(u, s, dst)
		for j := range dst {
			app[j] = append(app[j], dst[j])
		}
	}
	for j := range s {
		cdf := func(x float64) float64 { return laplaceCDF(x, s[j], 4) }
		if _, p := ksStat(rel[j], cdf); p < lawAlpha {
			t.Errorf("Release coordinate %d: KS p = %v", j, p)
		}
		if _, p := ksStat(app[j], cdf); p < lawAlpha {
			t.Errorf("Apply coordinate %d: KS p = %v", j, p)
		}
	}
	// Apply is the SBI §3.4 map τ(u; s) = s − b·sgn(u−½)·log(1 − 2|u−½|)
	// at the released scale, on the lattice: within two grid cells.
	for _, uu := range []float64{0.01, 0.3, 0.5, 0.77, 0.999} {
		m.Apply([]float64{uu, uu, uu}, s, dst)
		sgn := 1.0
		if uu < 0.5 {
			sgn = -1
		}
		b := m.NoiseScale(2)
		want := s[2] - b*sgn*math.Log(1-2*math.Abs(uu-0.5))
		if math.Abs(dst[2]-want) > 2*m.Grid(2)+1e-12*math.Max(1, math.Abs(want)) || math.Abs(b/4-1) > 1e-5 {
			t.Errorf("tau(%v) = %v, want %v", uu, dst[2], want)
		}
	}
	// u = 0 gives a finite release.
	m.Apply([]float64{0, 0, 0}, s, dst)
	if math.IsInf(dst[0], 0) {
		t.Errorf("Apply(0) is infinite")
	}
	// Density: one-dimensional marginal integrates to 1 and the joint
	// density factorises.
	m1, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 2, Dim: 1})
	got := integrate1D(func(x float64) float64 { return m1.LogDensity([]float64{x}, []float64{0.3}) }, 0.3-30, 0.3+30, 200000)
	if math.Abs(got-1) > 1e-6 {
		t.Errorf("Laplace density integrates to %v", got)
	}
	// The dequantized lattice density equals the Laplace density of the
	// released scale at the lattice points, to O((γ/b)²).
	x := []float64{0, 1, 2}
	want := 0.0
	for j := range x {
		b, g := m.NoiseScale(j), m.Grid(j)
		want += -math.Log(2*b) - math.Abs(math.Round(x[j]/g)*g-math.Round(s[j]/g)*g)/b
	}
	if d := m.LogDensity(x, s); math.Abs(d-want) > 1e-12 {
		t.Errorf("LogDensity %v want %v", d, want)
	}
	if !math.IsNaN(m.LogDensity(x[:2], s)) {
		t.Errorf("LogDensity on length mismatch should be NaN")
	}
}

func TestGaussianLaw(t *testing.T) {
	g, err := NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-5, Sensitivity: 1, Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	sg := g.Sigma()
	s := []float64{0.5, -3}
	const n = 20000
	r := newRand(12)
	rel := [2][]float64{}
	app := [2][]float64{}
	dst := make([]float64, 2)
	u := make([]float64, 2)
	for i := 0; i < n; i++ {
		if err := Reproducible(g).Release(r, s, dst); err != nil {
			t.Fatal(err)
		}
		rel[0], rel[1] = append(rel[0], dst[0]), append(rel[1], dst[1])
		u[0], u[1] = r.Float64(), r.Float64()
		g.Apply(u, s, dst)
		app[0], app[1] = append(app[0], dst[0]), append(app[1], dst[1])
	}
	for j := range s {
		cdf := func(x float64) float64 { return normCDF((x - s[j]) / sg) }
		if _, p := ksStat(rel[j], cdf); p < lawAlpha {
			t.Errorf("Release %d: KS p = %v", j, p)
		}
		if _, p := ksStat(app[j], cdf); p < lawAlpha {
			t.Errorf("Apply %d: KS p = %v", j, p)
		}
	}
	g1, _ := NewGaussian(ScaleConfig{Sigma: 0.7, Dim: 1})
	got := integrate1D(func(x float64) float64 { return g1.LogDensity([]float64{x}, []float64{1}) }, 1-12, 1+12, 20000)
	if math.Abs(got-1) > 1e-9 {
		t.Errorf("Gaussian density integrates to %v", got)
	}
}

// TestNormQuantile checks Φ⁻¹ against Φ over the whole range.
func TestNormQuantile(t *testing.T) {
	for _, p := range []float64{1e-300, 1e-100, 1e-20, 0x1p-53, 1e-10, 1e-5, 0.01, 0.2, 0.5, 0.7, 0.99, 1 - 1e-10} {
		x := normQuantile(p)
		var back float64
		if p < 0.5 {
			back = math.Exp(normLogCDF(x))
			if math.Abs(back-p) > 1e-13*p {
				t.Errorf("Phi(Phiinv(%v)) = %v", p, back)
			}
		} else {
			back = 0.5 * math.Erfc(x/math.Sqrt2) // 1 − Φ(x)
			if math.Abs(back-(1-p)) > 1e-13*(1-p) {
				t.Errorf("1-Phi(Phiinv(%v)) = %v, want %v", p, back, 1-p)
			}
		}
	}
	// Known value: Φ⁻¹(0.975) = 1.959963984540054.
	if x := normQuantile(0.975); math.Abs(x-1.959963984540054) > 1e-14 {
		t.Errorf("Phiinv(0.975) = %.17g", x)
	}
	// log Φ matches across the switch to the asymptotic series (mpmath,
	// dps=40: log Φ(−40) = −804.60844201375378817).
	if v := normLogCDF(-40); math.Abs(v-(-804.60844201375378817)) > 1e-12 {
		t.Errorf("log Phi(-40) = %.17g", v)
	}
	for _, x := range []float64{-3, -30, -40, -100, -1000} {
		if y := normQuantileLog(normLogCDF(x)); math.Abs(y-x) > 1e-12*math.Abs(x) {
			t.Errorf("normQuantileLog(log Phi(%v)) = %v", x, y)
		}
	}
	if d := normLogCDF(-36.999) - normLogCDF(-37.001); !(d > 0 && d < 0.1) {
		t.Errorf("log Phi not monotone across the series switch: %v", d)
	}
}

func TestSecureLaplaceLaw(t *testing.T) {
	// A coarse grid (γ = 1/8) keeps the pmf support small enough for a
	// chi-square test: Δg = 8 + 2 = 10, t = 10/ε'.
	m, err := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 2, Grid: math.Ldexp(1, -3)})
	if err != nil {
		t.Fatal(err)
	}
	if m.t[0].value() != 10 || m.NoiseScale(0) != 1.25 {
		t.Fatalf("scale = %v grid units, want 10", m.t[0].value())
	}
	s := []float64{0.3, -2.06}
	const n = 60000
	const half = 120
	r := newRand(13)
	counts := [2][2][]int64{}
	for a := range counts {
		for j := range counts[a] {
			counts[a][j] = make([]int64, 2*half+1)
		}
	}
	dst := make([]float64, 2)
	u := make([]float64, 2)
	for i := 0; i < n; i++ {
		if err := Reproducible(m).Release(r, s, dst); err != nil {
			t.Fatal(err)
		}
		for j := range dst {
			z := int(dst[j]*8 - math.Round(s[j]*8))
			if dst[j]*8 != math.Trunc(dst[j]*8) {
				t.Fatalf("release %v off the grid", dst[j])
			}
			if z >= -half && z <= half {
				counts[0][j][z+half]++
			}
		}
		u[0], u[1] = r.Float64(), r.Float64()
		m.Apply(u, s, dst)
		for j := range dst {
			z := int(dst[j]*8 - math.Round(s[j]*8))
			if z >= -half && z <= half {
				counts[1][j][z+half]++
			}
		}
	}
	probs := make([]float64, 2*half+1)
	sum := 0.0
	for z := -half; z <= half; z++ {
		// Marginal pmf of coordinate 0 from LogDensity of the joint with
		// coordinate 1 at its centre (whose mass is exp(logNorm)).
		x := []float64{math.Round(s[0]*8)/8 + float64(z)/8, math.Round(s[1]*8) / 8}
		probs[z+half] = math.Exp(m.LogDensity(x, s) - m.logNorm[1] + 2*math.Log(m.Grid(0)))
		sum += probs[z+half]
	}
	if math.Abs(sum-1) > 1e-5 { // tail beyond ±120 has mass 2e^{-12}/(1+…) ≈ 1e-5
		t.Errorf("pmf sums to %v over ±%d", sum, half)
	}
	// Exact normalisation: (1−a)/(1+a)·(1 + 2a/(1−a)) = 1.
	a := math.Exp(-m.lam[0])
	if tot := math.Exp(m.logNorm[0]) * (1 + 2*a/(1-a)); math.Abs(tot-1) > 1e-12 {
		t.Errorf("pmf normalisation %v", tot)
	}
	for a, name := range []string{"Release", "Apply"} {
		for j := range s {
			stat, df := chiSquareCounts(counts[a][j], probs, n)
			if p := chiSquareP(stat, df); p < lawAlpha {
				t.Errorf("%s coordinate %d: chi2 = %v, df = %d, p = %v", name, j, stat, df, p)
			}
		}
	}
}

func TestRandomizedResponseLaw(t *testing.T) {
	m, err := NewRandomizedResponse(LocalConfig{Epsilon: 0.8, Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := []float64{1, 0}
	const n = 200000
	r := newRand(14)
	var keepR, keepA [2]int64
	dst := make([]float64, 2)
	u := make([]float64, 2)
	zs := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		_ = Reproducible(m).Release(r, s, dst)
		for j := range dst {
			if dst[j] == s[j] {
				keepR[j]++
			}
		}
		zs = append(zs, dst[0])
		u[0], u[1] = r.Float64(), r.Float64()
		m.Apply(u, s, dst)
		for j := range dst {
			if dst[j] == s[j] {
				keepA[j]++
			}
		}
	}
	p := math.Exp(m.LogDensity(s, s)) // both kept
	pk := math.Sqrt(p)
	if math.Abs(pk-math.Exp(0.8)/(1+math.Exp(0.8))) > 1e-14 {
		t.Fatalf("keep probability %v", pk)
	}
	for j := 0; j < 2; j++ {
		for _, k := range []int64{keepR[j], keepA[j]} {
			lo, hi := clopperPearson(k, n, lawAlpha)
			if pk < lo || pk > hi {
				t.Errorf("coordinate %d: kept %d of %d, CP [%v, %v] excludes %v", j, k, n, lo, hi, pk)
			}
		}
	}
	// Mass sums to 1 over {0,1}^2.
	tot := 0.0
	for _, a := range []float64{0, 1} {
		for _, b := range []float64{0, 1} {
			tot += math.Exp(m.LogDensity([]float64{a, b}, s))
		}
	}
	if math.Abs(tot-1) > 1e-14 {
		t.Errorf("mass sums to %v", tot)
	}
	// Unbiased mean: all true bits are 1 in coordinate 0 → estimate ≈ 1
	// with standard error √(p(1−p)/n)/(2p−1).
	est, err := m.EstimateMean(zs)
	if err != nil {
		t.Fatal(err)
	}
	se := math.Sqrt(pk*(1-pk)/n) / (2*pk - 1)
	if math.Abs(est-1) > 4*se {
		t.Errorf("EstimateMean = %v, want 1 ± %v", est, 4*se)
	}
}

func TestKaryRandomizedResponseLaw(t *testing.T) {
	const k = 5
	m, err := NewKaryRandomizedResponse(KaryConfig{Epsilon: 1.2, K: k, Dim: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, q := m.Probs()
	if math.Abs(p/q-math.Exp(1.2)) > 1e-12 || math.Abs(p+(k-1)*q-1) > 1e-15 {
		t.Fatalf("p=%v q=%v", p, q)
	}
	const n = 100000
	r := newRand(15)
	s := []float64{2}
	cr := make([]int64, k)
	ca := make([]int64, k)
	dst := make([]float64, 1)
	reports := make([]float64, n)
	for i := 0; i < n; i++ {
		_ = Reproducible(m).Release(r, s, dst)
		cr[int(dst[0])]++
		reports[i] = dst[0]
		m.Apply([]float64{r.Float64()}, s, dst)
		ca[int(dst[0])]++
	}
	probs := make([]float64, k)
	tot := 0.0
	for j := range probs {
		probs[j] = math.Exp(m.LogDensity([]float64{float64(j)}, s))
		tot += probs[j]
	}
	if math.Abs(tot-1) > 1e-14 {
		t.Errorf("mass sums to %v", tot)
	}
	for name, c := range map[string][]int64{"Release": cr, "Apply": ca} {
		stat, df := chiSquareCounts(c, probs, n)
		if pv := chiSquareP(stat, df); pv < lawAlpha {
			t.Errorf("%s: chi2 %v df %d p %v", name, stat, df, pv)
		}
	}
	f := make([]float64, k)
	if err := m.EstimateFrequencies(reports, f); err != nil {
		t.Fatal(err)
	}
	se := math.Sqrt(p*(1-p)/n) / (p - q)
	for j := range f {
		want := 0.0
		if j == 2 {
			want = 1
		}
		if math.Abs(f[j]-want) > 5*se {
			t.Errorf("f̂[%d] = %v, want %v ± %v", j, f[j], want, 5*se)
		}
	}
}

func TestOUELaw(t *testing.T) {
	const d = 4
	m, err := NewOUE(LocalConfig{Epsilon: 1.5, Dim: d})
	if err != nil {
		t.Fatal(err)
	}
	s := []float64{0, 0, 1, 0}
	// Mass sums to 1 over {0,1}^4.
	tot := 0.0
	z := make([]float64, d)
	for mask := 0; mask < 1<<d; mask++ {
		for j := range z {
			z[j] = float64(mask >> j & 1)
		}
		tot += math.Exp(m.LogDensity(z, s))
	}
	if math.Abs(tot-1) > 1e-14 {
		t.Errorf("mass sums to %v", tot)
	}
	const n = 100000
	r := newRand(16)
	cr := make([]int64, 1<<d)
	ca := make([]int64, 1<<d)
	dst := make([]float64, d)
	u := make([]float64, d)
	ones := make([]float64, d)
	for i := 0; i < n; i++ {
		_ = Reproducible(m).Release(r, s, dst)
		mask := 0
		for j, v := range dst {
			mask |= int(v) << j
			ones[j] += v
		}
		cr[mask]++
		for j := range u {
			u[j] = r.Float64()
		}
		m.Apply(u, s, dst)
		mask = 0
		for j, v := range dst {
			mask |= int(v) << j
		}
		ca[mask]++
	}
	probs := make([]float64, 1<<d)
	for mask := range probs {
		for j := range z {
			z[j] = float64(mask >> j & 1)
		}
		probs[mask] = math.Exp(m.LogDensity(z, s))
	}
	for name, c := range map[string][]int64{"Release": cr, "Apply": ca} {
		stat, df := chiSquareCounts(c, probs, n)
		if pv := chiSquareP(stat, df); pv < lawAlpha {
			t.Errorf("%s: chi2 %v df %d p %v", name, stat, df, pv)
		}
	}
	// f̂ is unbiased: all N reports come from category 2.
	f := make([]float64, d)
	if err := m.EstimateFrequencies(ones, n, f); err != nil {
		t.Fatal(err)
	}
	q := m.FlipProb()
	for j := range f {
		want, pj := 0.0, q
		if j == 2 {
			want, pj = 1, 0.5
		}
		se := math.Sqrt(pj*(1-pj)/n) / (0.5 - q)
		if math.Abs(f[j]-want) > 5*se {
			t.Errorf("f̂[%d] = %v, want %v ± %v", j, f[j], want, 5*se)
		}
	}
}

func TestExponentialLaw(t *testing.T) {
	m, err := NewExponential(ExponentialConfig{Epsilon: 2, Sensitivity: 0.5, Candidates: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Utilities chosen so that exp(ε u/(2Δ)) spans large values: the
	// log-space sampler must not overflow.
	s := []float64{1000, 1001, 999.5, 1000.2}
	probs := make([]float64, 4)
	tot := 0.0
	for j := range probs {
		probs[j] = math.Exp(m.LogDensity([]float64{float64(j)}, s))
		tot += probs[j]
	}
	if math.Abs(tot-1) > 1e-14 {
		t.Errorf("mass sums to %v", tot)
	}
	// Closed form: P(j) ∝ exp(2 u_j).
	den := 0.0
	for _, v := range s {
		den += math.Exp(2 * (v - 1000))
	}
	if w := math.Exp(2*(s[1]-1000)) / den; math.Abs(probs[1]-w) > 1e-14 {
		t.Errorf("P(1) = %v, want %v", probs[1], w)
	}
	const n = 100000
	r := newRand(17)
	cr := make([]int64, 4)
	ca := make([]int64, 4)
	dst := make([]float64, 1)
	u := make([]float64, 4)
	for i := 0; i < n; i++ {
		if err := Reproducible(m).Release(r, s, dst); err != nil {
			t.Fatal(err)
		}
		cr[int(dst[0])]++
		for j := range u {
			u[j] = r.Float64()
		}
		m.Apply(u, s, dst)
		ca[int(dst[0])]++
	}
	for name, c := range map[string][]int64{"Release": cr, "Apply": ca} {
		stat, df := chiSquareCounts(c, probs, n)
		if pv := chiSquareP(stat, df); pv < lawAlpha {
			t.Errorf("%s: chi2 %v df %d p %v", name, stat, df, pv)
		}
	}
	mm, _ := NewExponential(ExponentialConfig{Epsilon: 2, Sensitivity: 0.5, Candidates: 4, Monotone: true})
	if a, b := mm.LogDensity([]float64{1}, s), m.LogDensity([]float64{1}, s); !(a > b) {
		t.Errorf("monotone variant should concentrate more: %v vs %v", a, b)
	}
}

func TestBoundedLaw(t *testing.T) {
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 1})
	gau, _ := NewGaussian(ScaleConfig{Sigma: 0.8, Dim: 1})
	lo, hi := []float64{-0.5}, []float64{1.5}
	for _, inner := range []Mechanism{lap, gau} {
		for _, mode := range []BoundMode{BIT, Truncate} {
			b, err := NewBounded(inner, lo, hi, mode)
			if err != nil {
				t.Fatal(err)
			}
			for _, s0 := range []float64{0.2, 3, -4, 40} {
				s := []float64{s0}
				// Normalisation: continuous part plus atoms.
				mass := integrate1D(func(x float64) float64 { return b.LogDensity([]float64{x}, s) }, lo[0]+1e-12, hi[0]-1e-12, 20000)
				if mode == BIT {
					mass += math.Exp(b.LogDensity(lo, s)) + math.Exp(b.LogDensity(hi, s))
				}
				if math.Abs(mass-1) > 1e-6 {
					t.Errorf("%T %v s=%v: total mass %v", inner, mode, s0, mass)
				}
				// Samples: KS against the closed-form truncated CDF.
				var za, zc, sc float64
				isLap := inner == Mechanism(lap)
				if isLap {
					sc = 1
				} else {
					sc = 0.8
				}
				za, zc = (lo[0]-s0)/sc, (hi[0]-s0)/sc
				logZ := logMassBetween(isLap, za, zc)
				cdf := func(x float64) float64 {
					if x <= lo[0] {
						return 0
					}
					if x >= hi[0] {
						return 1
					}
					return math.Exp(logMassBetween(isLap, za, (x-s0)/sc) - logZ)
				}
				const n = 4000
				r := newRand(18)
				xs := make([]float64, 0, n)
				xa := make([]float64, 0, n)
				dst := make([]float64, 1)
				for i := 0; i < n; i++ {
					_ = Reproducible(b).Release(r, s, dst)
					if dst[0] < lo[0] || dst[0] > hi[0] {
						t.Fatalf("release %v outside bounds", dst[0])
					}
					xs = append(xs, dst[0])
					b.Apply([]float64{r.Float64()}, s, dst)
					xa = append(xa, dst[0])
				}
				if mode == Truncate || s0 == 0.2 {
					// (For BIT with far-away s the release is almost
					// always an atom; the atom mass is checked above.)
					if mode == Truncate {
						if _, p := ksStat(xs, cdf); p < lawAlpha {
							t.Errorf("%T %v s=%v: Release KS p = %v", inner, mode, s0, p)
						}
						if _, p := ksStat(xa, cdf); p < lawAlpha {
							t.Errorf("%T %v s=%v: Apply KS p = %v", inner, mode, s0, p)
						}
					}
				}
				if mode == BIT {
					// Atom at lo: fraction of releases equal to lo.
					var k int64
					for _, v := range xs {
						if v == lo[0] {
							k++
						}
					}
					pl := math.Exp(b.LogDensity(lo, s))
					cl, ch := clopperPearson(k, n, lawAlpha)
					if pl < cl || pl > ch {
						t.Errorf("%T BIT s=%v: atom at lo %d/%d, CP [%v,%v] excludes %v", inner, s0, k, n, cl, ch, pl)
					}
				}
			}
			if mode == Truncate && b.Budget().Epsilon != 2*inner.Budget().Epsilon && inner == Mechanism(lap) {
				t.Errorf("truncation budget %v", b.Budget())
			}
		}
	}
	// Truncation of an (ε, δ) mechanism carries no claim.
	ag, _ := NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-6, Sensitivity: 1, Dim: 1})
	if b, err := NewBounded(ag, lo, hi, Truncate); err != nil || !math.IsInf(b.Budget().Epsilon, 1) {
		t.Errorf("truncated Gaussian: budget %v, err %v", b.Budget(), err)
	}
}

// TestBoundedTinyBox: a box tiny relative to the noise scale keeps its
// precision (the truncated law is then almost uniform on the box).
func TestBoundedTinyBox(t *testing.T) {
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1e-6, Dim: 1}) // scale 1e6
	gau, _ := NewGaussian(ScaleConfig{Sigma: 1e6, Dim: 1})
	for _, inner := range []Mechanism{lap, gau} {
		b, _ := NewBounded(inner, []float64{0}, []float64{1}, Truncate)
		s := []float64{0.3}
		r := newRand(21)
		xs := make([]float64, 5000)
		dst := make([]float64, 1)
		for i := range xs {
			_ = Reproducible(b).Release(r, s, dst)
			xs[i] = dst[0]
		}
		// Density is (1 ± 1e-6)-uniform: KS against the uniform CDF.
		if _, p := ksStat(xs, func(x float64) float64 { return math.Min(1, math.Max(0, x)) }); p < lawAlpha {
			t.Errorf("%T: tiny-box truncation not uniform, KS p = %v", inner, p)
		}
		if ld := b.LogDensity([]float64{0.7}, s); math.Abs(ld) > 1e-5 {
			t.Errorf("%T: log density %v, want ≈ 0", inner, ld)
		}
	}
}
