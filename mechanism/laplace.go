package mechanism

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
)

// LaplaceConfig configures NewLaplace.
type LaplaceConfig struct {
	// Sensitivity is the ℓ1 sensitivity Δ1 of the statistic (> 0).
	Sensitivity float64
	// Epsilon is the privacy budget ε (> 0).
	Epsilon float64
	// Dim is the dimension of the statistic, in [1, 2^20]: the mechanism
	// keeps about 80 bytes of lattice state per coordinate and builds it
	// in about 2 µs per coordinate, so 2^20 coordinates take 80 MB and a
	// few seconds (a lower limit than MaxDim, which applies to the
	// mechanisms without per-coordinate state).
	Dim int
	// Grid is the spacing γ of the release lattice. Zero selects the
	// default, a power of two of about 2^-20·Δ1/Dim; otherwise it must be
	// a power of two in [2^-1000, 2^970].
	Grid float64
}

// Validate reports whether c is a usable configuration, with an error
// naming the offending field.
func (c LaplaceConfig) Validate() error {
	if err := checkPositive("LaplaceConfig.Sensitivity: sensitivity", c.Sensitivity); err != nil {
		return err
	}
	if err := checkPositive("LaplaceConfig.Epsilon: epsilon", c.Epsilon); err != nil {
		return err
	}
	if c.Dim < 1 || c.Dim > maxLaplaceDim {
		return invalidf("LaplaceConfig.Dim: dim must be in [1, 2^20], got %d", c.Dim)
	}
	if c.Sensitivity/c.Epsilon == 0 || math.IsInf(c.Sensitivity/c.Epsilon, 0) {
		return invalidf("LaplaceConfig: scale Sensitivity/Epsilon = %v must be finite and > 0", c.Sensitivity/c.Epsilon)
	}
	return checkGridSpacing("LaplaceConfig.Grid", c.Grid)
}

// maxLaplaceDim is the largest dimension of a Laplace mechanism (see
// LaplaceConfig.Dim).
const maxLaplaceDim = 1 << 20

// maxGridExp is the largest release grid exponent: a release is γ·j with
// |j| < 2^53 (a grid index below 2^52 plus noise below 2^52), and
// 2^970·2^53 = 2^1023 keeps every such value finite.
const maxGridExp = 1023 - 53

// checkGridSpacing validates an optional power-of-two grid spacing.
func checkGridSpacing(name string, g float64) error {
	if g == 0 {
		return nil
	}
	if !(g > 0) || math.IsInf(g, 0) {
		return invalidf("%s must be 0 (default) or a power of two, got %v", name, g)
	}
	f, e := math.Frexp(g)
	if f != 0.5 || e-1 < -1000 || e-1 > maxGridExp {
		return invalidf("%s must be 0 (default) or a power of two in [2^-1000, 2^%d], got %v", name, maxGridExp, g)
	}
	return nil
}

// Laplace is the vector Laplace mechanism, released on a lattice: each
// coordinate of a statistic s receives independent Laplace-type noise of
// scale b_i. With a common scale b = Δ1/ε it is ε-DP for statistics of ℓ1
// sensitivity Δ1 (SBI paper Prop. 3; modips Def. 5); with per-coordinate
// scales b_i = Δ_i/(w_i ε), Σw_i = 1, it is the individualized
// sanitization of modips Def. 6.
//
// Release (the curator's path) is floating-point safe: coordinate i is
// released as
//
//	s_dp,i = γ_i·(round(s_i/γ_i) + Z_i),
//
// on a power-of-two grid γ_i (about 2^-20·b_i·ε/d by default), where Z_i
// is discrete Laplace, P(Z = z) ∝ exp(−|z|/t_i), sampled exactly from the
// operating system's generator: every trial compares random bits with the
// exact binary expansion of a probability exp(−x), x rational, so no
// probability is ever rounded (see geometric.go; the exact discrete
// Laplace of Canonne, Kamath & Steinke 2020, drawing about 46 random bits
// per coordinate). Rounding to the grid moves a
// coordinate by at most γ_i/2, so the grid indices of neighbouring
// statistics differ by at most |Δs_i|/γ_i + 1; the rational scale t_i is
// rounded up from (b_i/γ_i)(1 + η), η = Σ_j γ_j/(b_j ε), which absorbs
// exactly that rounding: the release is ε-DP exactly (except for the
// redraw of noise beyond 2^52 grid units, an event of probability below
// e^-2048). The released noise scale NoiseScale(i) = γ_i·t_i exceeds the
// nominal Scale(i) by the relative amount η, about 2^-20.
//
// Every release is an integer multiple of γ_i, exactly representable
// while |s_i/γ_i| < 2^52; larger statistics are refused.
//
// Laplace implements Mechanism, Simulator, Transform and Density, all for
// the law of Release: the density of a release x is the discrete Laplace
// pmf of round(x/γ_i) − round(s_i/γ_i) divided by γ_i (the law of the
// lattice release dequantized over its grid cell, so releases made
// elsewhere, off the grid, also have a density), and Apply is the
// inverse CDF of the same discrete law evaluated in floating point.
type Laplace struct {
	scales  []float64 // nominal b_i
	budget  Budget
	grid    []int      // grid exponents
	t       []ratScale // discrete scales in grid units
	laws    []*geoLaw  // the geometric law of each coordinate's noise
	lam     []float64  // 1/t_i
	l1a     []float64  // log(1 + e^{−λ_i})
	logNorm []float64  // log((1−a)/(1+a)), a = e^{−λ_i}
	unit    []float64  // 2^{−grid_i} when a normal float64, else 0
	gridLn2 []float64  // grid_i·ln 2
}

// NewLaplace returns the Laplace mechanism for a Dim-dimensional statistic
// of ℓ1 sensitivity Sensitivity, with common nominal scale
// Sensitivity/Epsilon and budget (Epsilon, 0).
func NewLaplace(cfg LaplaceConfig) (*Laplace, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := cfg.Sensitivity / cfg.Epsilon
	sc := make([]float64, cfg.Dim)
	for i := range sc {
		sc[i] = b
	}
	return newLaplace(sc, Budget{Epsilon: cfg.Epsilon}, cfg.Grid, cfg.Sensitivity)
}

// NewLaplaceScales returns a Laplace mechanism with the given nominal
// per-coordinate scales and the budget it is claimed to satisfy: the
// caller is responsible for Σ_i |Δs_i|/b_i ≤ budget.Epsilon over
// neighbouring statistics; the lattice release keeps that claim exact.
// IndividualizedLaplace and CommunalLaplace derive scales and budget from
// sensitivities. At most 2^20 scales are accepted (see LaplaceConfig.Dim).
func NewLaplaceScales(scales []float64, budget Budget) (*Laplace, error) {
	if len(scales) == 0 {
		return nil, invalidf("scales must be non-empty")
	}
	if err := budget.Validate(); err != nil {
		return nil, err
	}
	sc := make([]float64, len(scales))
	for i, b := range scales {
		if err := checkPositive(fmt.Sprintf("scales[%d]", i), b); err != nil {
			return nil, err
		}
		sc[i] = b
	}
	return newLaplace(sc, budget, 0, 0)
}

// newLaplace derives the lattice of each coordinate (grid 0: default).
// With sens > 0 (a common ℓ1 sensitivity) the discrete scale is
// t = (Δ1/γ + d)/ε; otherwise t_i = (b_i/γ_i)(1 + Σ_j γ_j/(b_j ε)). Both
// are computed in exact rational arithmetic and rounded up.
func newLaplace(sc []float64, budget Budget, grid, sens float64) (*Laplace, error) {
	d := len(sc)
	if d > maxLaplaceDim {
		return nil, invalidf("a Laplace mechanism has at most 2^20 coordinates, got %d", d)
	}
	eps := budget.Epsilon
	m := &Laplace{
		scales: sc, budget: budget,
		grid: make([]int, d), t: make([]ratScale, d),
		lam: make([]float64, d), l1a: make([]float64, d), logNorm: make([]float64, d),
		unit: make([]float64, d), gridLn2: make([]float64, d),
		laws: make([]*geoLaw, d),
	}
	for i, b := range sc {
		g := 0
		if grid != 0 {
			g = floorLog2(grid)
		} else {
			g = floorLog2(b*eps/float64(d)) - 20
			if lo := floorLog2(b) - 39; g < lo {
				g = lo // keep the scale below 2^40 grid units
			}
		}
		if g < -1060 || g > maxGridExp {
			return nil, invalidf("scale %v gives a release grid 2^%d outside [2^-1060, 2^%d]", b, g, maxGridExp)
		}
		m.grid[i] = g
		m.unit[i] = latticeUnit(g)
		m.gridLn2[i] = float64(g) * math.Ln2
	}
	if grid == 0 {
		eta := 0.0
		for i, b := range sc {
			eta += math.Ldexp(1, m.grid[i]) / b / eps
		}
		if !(eta <= 0x1p-10) {
			return nil, invalidf("epsilon must be in a range where the grid rounding margin stays below 2^-10 (margin %v at epsilon %v, dimension %d)", eta, eps, d)
		}
	}
	rat := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	// A coordinate's grid and discrete scale depend on its nominal scale
	// only, so the exact arithmetic runs once per distinct scale (a
	// mechanism built with one common scale does it once, not d times).
	first := make(map[float64]int)  // the first coordinate of each scale
	mult := make(map[float64]int64) // the number of coordinates of each scale
	for i, b := range sc {
		if mult[b] == 0 {
			first[b] = i
		}
		mult[b]++
	}
	onePlusEta := big.NewRat(1, 1)
	if sens == 0 {
		reps := rat(eps)
		for b, i := range first {
			term := new(big.Rat).Quo(pow2(m.grid[i]), new(big.Rat).Mul(rat(b), reps))
			onePlusEta.Add(onePlusEta, term.Mul(term, big.NewRat(mult[b], 1)))
		}
	}
	laws := make(map[ratScale]*geoLaw)
	for i, b := range sc {
		if j := first[b]; j < i {
			m.t[i], m.laws[i], m.lam[i], m.l1a[i], m.logNorm[i] = m.t[j], m.laws[j], m.lam[j], m.l1a[j], m.logNorm[j]
			continue
		}
		var t ratScale
		var err error
		if sens > 0 {
			t, err = commonScale(sens, eps, m.grid[i], d)
		} else {
			x := new(big.Rat).Quo(rat(b), pow2(m.grid[i]))
			t, err = ratAtLeast(x.Mul(x, onePlusEta))
		}
		if err != nil {
			return nil, err
		}
		m.t[i] = t
		lam := float64(t.den) / float64(t.num)
		if g, ok := laws[t]; ok {
			m.laws[i] = g
		} else {
			m.laws[i] = newGeoLaw(t.num, t.den, len(laws) < maxTabled)
			laws[t] = m.laws[i]
		}
		m.lam[i] = lam
		m.l1a[i] = math.Log1p(math.Exp(-lam))
		m.logNorm[i] = math.Log(-math.Expm1(-lam)) - m.l1a[i]
	}
	return m, nil
}

// pow2 returns 2^e as a rational.
func pow2(e int) *big.Rat {
	if e >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e)))
}

// commonScaleKey and commonScaleVal are the arguments and result of
// commonScale.
type (
	commonScaleKey struct {
		sens, eps float64
		grid, d   int
	}
	commonScaleVal struct {
		t   ratScale
		err error
	}
)

// commonScales caches commonScale: mechanisms of the same sensitivity,
// budget, grid and dimension, such as one built per release, share the
// exact arithmetic.
var commonScales = newScaleCache[commonScaleKey, commonScaleVal]()

// commonScale returns the discrete scale t = (Δ1/γ + d)/ε (rounded up by
// ratAtLeast) in units of the grid γ = 2^grid, of a d-dimensional Laplace
// mechanism with common ℓ1 sensitivity sens and budget eps.
func commonScale(sens, eps float64, grid, d int) (ratScale, error) {
	v := commonScales.get(commonScaleKey{sens, eps, grid, d}, func() commonScaleVal {
		x := new(big.Rat).Quo(new(big.Rat).SetFloat64(sens), pow2(grid))
		x.Add(x, big.NewRat(int64(d), 1))
		x.Quo(x, new(big.Rat).SetFloat64(eps))
		t, err := ratAtLeast(x)
		return commonScaleVal{t, err}
	})
	return v.t, v.err
}

// Dim returns the dimension of the statistic (0 for a nil Laplace).
func (m *Laplace) Dim() int {
	if m == nil {
		return 0
	}
	return len(m.scales)
}

// Scale returns the nominal Laplace scale b_i of coordinate i (Δ1/ε for
// NewLaplace). The released noise has scale NoiseScale(i) ≥ Scale(i). It
// panics if i is outside [0, Dim()), as indexing does; a nil Laplace
// returns 0.
func (m *Laplace) Scale(i int) float64 {
	if m == nil {
		return 0
	}
	return m.scales[i]
}

// NoiseScale returns the scale γ_i·t_i of the discrete Laplace noise that
// coordinate i actually receives (0 for a nil Laplace; i as for Scale).
func (m *Laplace) NoiseScale(i int) float64 {
	if m == nil {
		return 0
	}
	return math.Ldexp(m.t[i].value(), m.grid[i])
}

// Grid returns the lattice spacing γ_i of coordinate i (0 for a nil
// Laplace; i as for Scale).
func (m *Laplace) Grid(i int) float64 {
	if m == nil {
		return 0
	}
	return math.Ldexp(1, m.grid[i])
}

// Budget reports the budget the mechanism was constructed with.
func (m *Laplace) Budget() Budget {
	if m == nil {
		return Budget{}
	}
	return m.budget
}

func (m *Laplace) gridExp(i int) int { return m.grid[i] }

// check validates a release: lengths, finiteness and the lattice range.
func (m *Laplace) check(s, dst []float64) error {
	if m == nil {
		return errNilMechanism("*Laplace")
	}
	if err := checkRelease(s, dst, len(m.scales)); err != nil {
		return err
	}
	return checkGrid(s, m.gridExp)
}

// Release writes the secure lattice release of s into dst, drawing from
// the operating system's generator whatever r is (r may be nil). It
// returns an error wrapping ErrInvalid (for a length mismatch, a
// non-finite entry or |s_i/γ_i| ≥ 2^52), leaving dst untouched, on
// invalid input.
func (m *Laplace) Release(r *rand.Rand, s, dst []float64) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	return withOSBits(func(b *bitSource) error { m.releaseBits(b, s, dst); return nil })
}

// releaseWith is Release drawing from r.
func (m *Laplace) releaseWith(r *rand.Rand, s, dst []float64) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	return withSeededBits(r, func(b *bitSource) error { m.releaseBits(b, s, dst); return nil })
}

// releaseBits draws the lattice release of a checked s from b.
func (m *Laplace) releaseBits(b *bitSource, s, dst []float64) {
	for i, v := range s {
		k, _ := gridIndex(v, m.grid[i])
		dst[i] = latticeValue(k, m.laws[i].laplace(b), m.grid[i])
	}
}

// SimulateRelease draws from the law of Release using r (seeded
// generators welcome) by the inverse CDF of the discrete Laplace law in
// floating point; for inference, never for releasing confidential data.
func (m *Laplace) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	if err := m.check(s, dst); err != nil {
		return err
	}
	for i, v := range s {
		k, _ := gridIndex(v, m.grid[i])
		dst[i] = latticeValue(k, m.quantile(i, uniformOpen(r)), m.grid[i])
	}
	return nil
}

// NoiseDim returns statDim: one uniform per coordinate.
func (m *Laplace) NoiseDim(statDim int) int { return statDim }

// Apply maps uniforms through the inverse CDF of the discrete Laplace law
// of each coordinate and returns lattice values like Release. Uniforms
// outside [2^-53, 1 − 2^-53] are clamped into it. On a nil Laplace it
// fills dst with NaN.
func (m *Laplace) Apply(u, s, dst []float64) {
	if m == nil {
		fillNaN(dst)
		return
	}
	checkApply("Laplace", u, s, dst, len(m.scales), len(m.scales), len(m.scales))
	for i, v := range s {
		k, _ := gridIndex(v, m.grid[i])
		dst[i] = latticeValue(k, m.quantile(i, clampU(u[i])), m.grid[i])
	}
}

// quantile returns min{z : F(z) ≥ u} for the two-sided geometric law
// P(Z = z) = (1−a)/(1+a)·a^|z|, a = e^{−λ}: F(−k) = a^k/(1+a) for k ≥ 1
// and 1 − F(z) = a^{z+1}/(1+a) for z ≥ 0.
func (m *Laplace) quantile(i int, u float64) int64 {
	lam, l1a := m.lam[i], m.l1a[i]
	if u <= 0.5 {
		// Largest k ≥ 1 with a^k/(1+a) ≥ u: k ≤ −(log u + log(1+a))/λ.
		k := math.Floor(-(math.Log(u) + l1a) / lam)
		if k >= 1 {
			return -int64(k)
		}
	}
	// Smallest z ≥ 0 with a^{z+1}/(1+a) ≤ 1−u.
	z := math.Ceil(-(math.Log1p(-u)+l1a)/lam) - 1
	if z < 0 {
		z = 0
	}
	return int64(z)
}

// LogDensity returns Σ_i log P(Z_i = round(sdp_i/γ_i) − round(s_i/γ_i)) −
// log γ_i, the log density of the lattice release dequantized over its
// grid cells; NaN on a length mismatch or NaN input.
func (m *Laplace) LogDensity(sdp, s []float64) float64 {
	if m == nil || len(sdp) != len(m.scales) || len(s) != len(m.scales) {
		return math.NaN()
	}
	// k and c are round(sdp_i/γ_i) and round(s_i/γ_i) as math.Round and
	// math.Ldexp give them (latticeIndex, bit for bit), by one product with
	// the precomputed 2^{−grid_i} where it is a normal float64.
	d := len(sdp)
	s = s[:d]
	unit, grid, logNorm, lam, gridLn2 := m.unit[:d], m.grid[:d], m.logNorm[:d], m.lam[:d], m.gridLn2[:d]
	lp := 0.0
	for i, x := range sdp {
		var k, c float64
		if u := unit[i]; u != 0 {
			k, c = roundHalfAway(x*u), roundHalfAway(s[i]*u)
		} else {
			k, c = latticeIndex(x, grid[i]), latticeIndex(s[i], grid[i])
		}
		lp += logNorm[i] - lam[i]*math.Abs(k-c) - gridLn2[i]
	}
	return lp
}

// laplaceNoise is the continuous Laplace(0, b) inverse CDF at u ∈ (0, 1).
func laplaceNoise(u, b float64) float64 {
	if u < 0.5 {
		return b * math.Log(2*u)
	}
	return -b * math.Log(2*(1-u))
}
