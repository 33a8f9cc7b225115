package mechanism

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// BoundMode selects how Bounded legitimises releases that fall outside
// their bounds (modips §5.1).
type BoundMode int

const (
	// BIT is boundary-inflated truncation: values below the lower bound
	// are set to it and values above the upper bound to it. It is
	// post-processing, so the budget is unchanged; the released law has
	// atoms at the bounds.
	BIT BoundMode = iota
	// Truncate discards out-of-bound values: each coordinate is drawn
	// from the noise law conditioned on the bounds. Conditioning is not
	// post-processing: the acceptance probability itself depends on the
	// data. For a pure ε-DP inner mechanism it changes by at most e^ε
	// between neighbours, so truncation is 2ε-DP and Budget reports 2ε;
	// for an (ε, δ) inner mechanism no guarantee is claimed (Budget
	// reports ε = +Inf, which an Accountant refuses).
	Truncate
)

// String names the mode.
func (m BoundMode) String() string {
	switch m {
	case BIT:
		return "BIT"
	case Truncate:
		return "truncate"
	}
	return fmt.Sprintf("BoundMode(%d)", int(m))
}

// BITSlice writes the boundary-inflated truncation of x to [lo_i, hi_i]
// into dst (which may alias x): Clamp(x_i, lo_i, hi_i), ±Inf mapping to
// the nearer bound. It returns an error wrapping ErrInvalid,
// writing nothing, for slices of different lengths, a bound that is not
// finite, lo_i > hi_i, or a NaN x_i (ErrInvalid).
func BITSlice(dst, x, lo, hi []float64) error {
	if len(dst) != len(x) || len(lo) != len(x) || len(hi) != len(x) {
		return fmt.Errorf("%w: x, dst, lo and hi must have equal lengths, got %d, %d, %d, %d", ErrInvalid, len(x), len(dst), len(lo), len(hi))
	}
	for i := range x {
		if math.IsInf(lo[i], 0) || math.IsInf(hi[i], 0) || !(lo[i] <= hi[i]) {
			return invalidf("bounds %d must be finite with lo <= hi, got [%v, %v]", i, lo[i], hi[i])
		}
	}
	if err := checkNoNaN(x); err != nil {
		return err
	}
	for i, v := range x {
		dst[i] = Clamp(v, lo[i], hi[i])
	}
	return nil
}

// InBounds reports whether every x_i lies in [lo_i, hi_i] (the acceptance
// test of truncation). It is false on a length mismatch.
func InBounds(x, lo, hi []float64) bool {
	if len(lo) != len(x) || len(hi) != len(x) {
		return false
	}
	for i, v := range x {
		if !(v >= lo[i] && v <= hi[i]) {
			return false
		}
	}
	return true
}

// Bounded restricts the releases of a Laplace or Gaussian mechanism to a
// box [lo, hi] by BIT or truncation.
//
// Release is the inner mechanism's secure lattice release (operating
// system's generator) followed by clamping (BIT) or redrawing until the
// draw lies in the box (truncation), so it stays floating-point safe.
// The simulation path, transform and density describe that law with the
// inner noise scale actually released (NoiseScale, NoiseSigma), evaluated
// at lattice points:
//
//   - BIT: τ is the inner lattice transform followed by clamping; the
//     density is with respect to Lebesgue measure plus unit atoms at the
//     bounds: a coordinate released exactly at lo_i contributes log F(lo_i),
//     at hi_i log(1 − F(hi_i)), inside the density of the lattice point
//     nearest to it.
//   - Truncate: each coordinate is the inner noise law conditioned on
//     [lo_i, hi_i]; the transform is the truncated inverse CDF snapped to
//     the lattice (no rejection loop) and the density the truncated
//     density at the nearest lattice point.
//
// F and the densities are the continuous ones at the released scale; they
// match the lattice law to a relative accuracy of about the grid over the
// scale (2^-20), except in boundary cells cut by lo_i or hi_i.
//
// Truncating a Gaussian mechanism is supported for modelling but carries
// no privacy claim (see Truncate).
type Bounded struct {
	lap    *Laplace
	gau    *Gaussian
	lo, hi []float64
	mode   BoundMode
	budget Budget
}

// NewBounded wraps inner (a *Laplace or *Gaussian) with bounds lo, hi of
// its dimension (lo_i < hi_i, finite) and the given mode.
func NewBounded(inner Mechanism, lo, hi []float64, mode BoundMode) (*Bounded, error) {
	b := &Bounded{mode: mode}
	var dim int
	switch m := inner.(type) {
	case *Laplace:
		if m == nil || len(m.t) == 0 {
			return nil, invalidf("bounded release: the inner *Laplace is nil or was not built by a constructor")
		}
		b.lap, dim = m, m.Dim()
	case *Gaussian:
		if m == nil || m.dim == 0 {
			return nil, invalidf("bounded release: the inner *Gaussian is nil or was not built by a constructor")
		}
		b.gau, dim = m, m.Dim()
	default:
		return nil, invalidf("bounded releases need a *Laplace or *Gaussian inner mechanism, got %T", inner)
	}
	if len(lo) != dim || len(hi) != dim {
		return nil, fmt.Errorf("%w: bounds have lengths %d and %d, mechanism dimension %d", ErrInvalid, len(lo), len(hi), dim)
	}
	for i := range lo {
		if err := checkInterval(lo[i], hi[i]); err != nil {
			return nil, fmt.Errorf("bound %d: %w", i, err)
		}
	}
	inb := inner.Budget()
	switch mode {
	case BIT:
		b.budget = inb
	case Truncate:
		b.budget = Budget{Epsilon: math.Inf(1)}
		if inb.Delta == 0 {
			b.budget = Budget{Epsilon: 2 * inb.Epsilon}
		}
	default:
		return nil, invalidf("unknown bound mode %d", int(mode))
	}
	b.lo = append([]float64(nil), lo...)
	b.hi = append([]float64(nil), hi...)
	return b, nil
}

// Budget reports the inner budget for BIT and twice it for truncation.
func (b *Bounded) Budget() Budget {
	if b == nil {
		return Budget{}
	}
	return b.budget
}

// Dim returns the dimension (0 for a nil Bounded).
func (b *Bounded) Dim() int {
	if b == nil {
		return 0
	}
	return len(b.lo)
}

func (b *Bounded) inner() Mechanism {
	if b.lap != nil {
		return b.lap
	}
	return b.gau
}

func (b *Bounded) gridExp(i int) int {
	if b.lap != nil {
		return b.lap.grid[i]
	}
	return b.gau.grid
}

// check validates a release: lengths, finiteness and the inner lattice's
// range.
func (b *Bounded) check(s, dst []float64) error {
	if b == nil {
		return errNilMechanism("*Bounded")
	}
	if err := checkRelease(s, dst, len(b.lo)); err != nil {
		return err
	}
	return checkGrid(s, b.gridExp)
}

// Release draws a bounded release into dst from the inner mechanism's
// secure lattice release (operating system's generator, whatever r is):
// BIT clamps it to the box; truncation draws each coordinate exactly from
// the lattice law conditioned on the box (see sampleTruncated; an error
// wrapping ErrInvalid reports a box without lattice points or too
// improbable to sample; dst is then partly written). Other errors as for
// the inner mechanism.
func (b *Bounded) Release(r *rand.Rand, s, dst []float64) error {
	if err := b.check(s, dst); err != nil {
		return err
	}
	return withOSBits(func(bs *bitSource) error { return b.releaseBits(bs, s, dst) })
}

// releaseWith is Release drawing from r.
func (b *Bounded) releaseWith(r *rand.Rand, s, dst []float64) error {
	if err := b.check(s, dst); err != nil {
		return err
	}
	return withSeededBits(r, func(bs *bitSource) error { return b.releaseBits(bs, s, dst) })
}

// releaseBits draws the bounded release of a checked s from bs.
func (b *Bounded) releaseBits(bs *bitSource, s, dst []float64) error {
	out := dst
	for i, v := range s {
		ge := b.gridExp(i)
		k, _ := gridIndex(v, ge)
		var num, den uint64
		var g *dgauss
		if b.lap != nil {
			num, den = b.lap.t[i].num, b.lap.t[i].den
		} else {
			g = &b.gau.dg
		}
		if b.mode == BIT {
			var z int64
			if g == nil {
				z = b.lap.laws[i].laplace(bs)
			} else {
				z = g.sampleBits(bs)
			}
			out[i] = Clamp(latticeValue(k, z, ge), b.lo[i], b.hi[i])
			continue
		}
		// Lattice points of the box, relative to k (|k| < 2^52 and the
		// box is finite, so these fit in int64 after clamping).
		la := math.Ceil(math.Ldexp(b.lo[i], -ge)) - k
		lb := math.Floor(math.Ldexp(b.hi[i], -ge)) - k
		la = math.Max(la, -maxNoise)
		lb = math.Min(lb, maxNoise)
		z, err := sampleTruncated(bs, num, den, g, int64(la), int64(lb))
		if err != nil {
			return fmt.Errorf("coordinate %d, box [%v, %v], statistic %v: %w", i, b.lo[i], b.hi[i], v, err)
		}
		out[i] = Clamp(latticeValue(k, z, ge), b.lo[i], b.hi[i])
	}
	return nil
}

// SimulateRelease draws from the law of Release using r (seeded
// generators welcome), through the floating-point transform; for
// inference only.
func (b *Bounded) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	if err := b.check(s, dst); err != nil {
		return err
	}
	for i := range s {
		dst[i] = b.coord(i, uniformOpen(r), s[i])
	}
	return nil
}

// NoiseDim returns statDim.
func (b *Bounded) NoiseDim(statDim int) int { return statDim }

// Apply is the exact uniform-to-release map. On a nil Bounded it fills
// dst with NaN.
func (b *Bounded) Apply(u, s, dst []float64) {
	if b == nil {
		fillNaN(dst)
		return
	}
	checkApply("Bounded", u, s, dst, len(b.lo), len(b.lo), len(b.lo))
	for i := range s {
		dst[i] = b.coord(i, clampU(u[i]), s[i])
	}
}

// coord maps a uniform to coordinate i of a bounded release: the inner
// lattice law's transform followed by clamping (BIT), or the truncated
// continuous inverse CDF at the inner noise scale snapped to the lattice
// points inside the box (truncation).
func (b *Bounded) coord(i int, u, s float64) float64 {
	lo, hi := b.lo[i], b.hi[i]
	ge := b.gridExp(i)
	k, _ := gridIndex(s, ge)
	if b.mode == BIT {
		var z int64
		if b.lap != nil {
			z = b.lap.quantile(i, u)
		} else {
			z = int64(math.Round(b.gau.sqrtS * normQuantile(u)))
		}
		return Clamp(latticeValue(k, z, ge), lo, hi)
	}
	sl := math.Ldexp(k, ge)
	var x float64
	if b.lap != nil {
		x = truncLaplaceQuantile(u, sl, b.lap.NoiseScale(i), lo, hi)
	} else {
		x = truncNormalQuantile(u, sl, b.gau.NoiseSigma(), lo, hi)
	}
	g := math.Ldexp(1, ge)
	x = math.Ldexp(math.Round(math.Ldexp(x, -ge)), ge)
	if x < lo {
		x += g
	}
	if x > hi {
		x -= g
	}
	return Clamp(x, lo, hi) // a box narrower than the grid
}

// LogDensity returns the log density of sdp (see the type comment for
// the reference measure); -Inf outside the box, NaN on length mismatch.
func (b *Bounded) LogDensity(sdp, s []float64) float64 {
	if b == nil || len(sdp) != len(b.lo) || len(s) != len(b.lo) {
		return math.NaN()
	}
	lp := 0.0
	for i, x := range sdp {
		lo, hi := b.lo[i], b.hi[i]
		if !(x >= lo && x <= hi) {
			return math.Inf(-1)
		}
		var logpdf, za, zc, zx float64
		logF := normLogCDF
		ge := b.gridExp(i)
		si := math.Ldexp(math.Round(math.Ldexp(s[i], -ge)), ge)
		atLo, atHi := x == lo, x == hi
		if !atLo && !atHi {
			x = math.Ldexp(math.Round(math.Ldexp(x, -ge)), ge)
		}
		if b.lap != nil {
			sc := b.lap.NoiseScale(i)
			logpdf = -math.Log(2*sc) - math.Abs(x-si)/sc
			za, zc, zx = (lo-si)/sc, (hi-si)/sc, (x-si)/sc
			logF = laplaceLogCDF
		} else {
			sg := b.gau.NoiseSigma()
			za, zc, zx = (lo-si)/sg, (hi-si)/sg, (x-si)/sg
			logpdf = -0.5*zx*zx - math.Log(sg) - lnSqrt2Pi
		}
		if b.mode == BIT {
			switch {
			case atLo:
				lp += logF(za)
			case atHi:
				lp += logF(-zc)
			default:
				lp += logpdf
			}
			continue
		}
		if b.lap != nil && (lo >= si || hi <= si) {
			// The box lies in one exponential tail: the truncated law is a
			// truncated exponential that does not depend on s, evaluated
			// from offsets within the box (no cancellation for far s).
			sc := b.lap.NoiseScale(i)
			off := x - lo
			if hi <= si {
				off = hi - x
			}
			lp += -off/sc - math.Log(sc) - math.Log(-math.Expm1(-(hi-lo)/sc))
			continue
		}
		lp += logpdf - logMassBetween(b.lap != nil, za, zc)
	}
	return lp
}

// logMassBetween returns log P(za ≤ Z ≤ zc) for the standard Laplace
// (laplace = true) or normal law, working in whichever tail keeps full
// precision; for a box straddling 0 the two half-masses are added, which
// involves no cancellation even for boxes tiny relative to the scale.
func logMassBetween(laplace bool, za, zc float64) float64 {
	logF := normLogCDF
	if laplace {
		logF = laplaceLogCDF
	}
	switch {
	case za >= 0:
		a, c := logF(-za), logF(-zc) // upper-tail masses S(za) ≥ S(zc)
		return a + log1mExp(c-a)
	case zc <= 0:
		a, c := logF(zc), logF(za)
		return a + log1mExp(c-a)
	}
	if laplace {
		// ½(1 − e^{za}) + ½(1 − e^{−zc}).
		return math.Log(-0.5*math.Expm1(za) - 0.5*math.Expm1(-zc))
	}
	return math.Log(0.5*math.Erf(zc/sqrt2) - 0.5*math.Erf(za/sqrt2))
}

// log1mExp returns log(1 − e^x) for x ≤ 0.
func log1mExp(x float64) float64 {
	if x > -math.Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// log1mExpSum returns log(1 − e^a − e^b) for a, b ≤ 0 with e^a + e^b < 1.
func log1mExpSum(a, b float64) float64 {
	// e^a + e^b = e^m (1 + e^{n−m}), m = max.
	m, n := a, b
	if n > m {
		m, n = n, m
	}
	l := m + math.Log1p(math.Exp(n-m))
	if l > -math.Ln2 {
		return math.Log(-math.Expm1(l))
	}
	return math.Log1p(-math.Exp(l))
}

// laplaceLogCDF returns log F(z) for the standard Laplace law.
func laplaceLogCDF(z float64) float64 {
	if z < 0 {
		return z - math.Ln2
	}
	return math.Log1p(-0.5 * math.Exp(-z))
}

// truncLaplaceQuantile is the inverse CDF of s + Laplace(0, b) conditioned
// on [lo, hi], evaluated stably when the box lies far in one tail.
func truncLaplaceQuantile(u, s, b, lo, hi float64) float64 {
	switch {
	case lo >= s:
		// Upper tail only: exponential with rate 1/b starting at lo,
		// truncated at hi − lo.
		return lo + truncExpQuantile(u, b, hi-lo)
	case hi <= s:
		// Lower tail only: mirror image.
		return hi - truncExpQuantile(1-u, b, hi-lo)
	}
	// Box straddles s: split u over the masses below and above s,
	// m_L = ½(1 − e^{za}) and m_U = ½(1 − e^{−zc}), and invert each half
	// with log1p so that boxes tiny relative to b keep their precision.
	za, zc := (lo-s)/b, (hi-s)/b
	mL, mU := -0.5*math.Expm1(za), -0.5*math.Expm1(-zc)
	v := u * (mL + mU)
	if v < mL {
		// ½e^{(x−s)/b} = ½e^{za} + v.
		return s + b*math.Log1p(math.Expm1(za)+2*v)
	}
	// ½e^{−(x−s)/b} = ½ − (v − m_L).
	return s - b*math.Log1p(-2*(v-mL))
}

// truncExpQuantile is the inverse CDF of an exponential(mean b) variable
// conditioned on [0, w]: −b·log(1 − u(1 − e^{−w/b})).
func truncExpQuantile(u, b, w float64) float64 {
	return -b * math.Log1p(u*math.Expm1(-w/b))
}

// truncNormalQuantile is the inverse CDF of N(s, σ²) conditioned on
// [lo, hi]. Boxes in the upper half are mapped to the lower half by
// symmetry, and the lower-half computation runs in log space, so boxes
// arbitrarily far in a tail are sampled exactly (up to rounding).
func truncNormalQuantile(u, s, sigma, lo, hi float64) float64 {
	a, c := (lo-s)/sigma, (hi-s)/sigma
	if a > -c {
		// More of the box lies above 0: Z on [a, c] is −Z' with Z' on
		// [−c, −a] and the uniform reflected.
		return s - sigma*truncStdNormalQuantile(1-u, -c, -a)
	}
	return s + sigma*truncStdNormalQuantile(u, a, c)
}

// truncStdNormalQuantile returns Φ⁻¹(Φ(a) + u(Φ(c) − Φ(a))) for a < c
// with a ≤ −c (so Φ(a) ≤ ½ is accurate), computed from log Φ.
func truncStdNormalQuantile(u, a, c float64) float64 {
	la, lc := normLogCDF(a), normLogCDF(c)
	if c > 0 {
		// Straddling box with a ≤ −c. Near the centre invert erf, which
		// keeps relative precision for boxes tiny relative to σ; farther
		// out invert Φ.
		if a > -2 {
			ea, ec := math.Erf(a/sqrt2), math.Erf(c/sqrt2)
			return math.Max(a, math.Min(c, sqrt2*math.Erfinv(ea+u*(ec-ea))))
		}
		fa, fc := math.Exp(la), math.Exp(lc)
		return math.Max(a, math.Min(c, normQuantile(fa+u*(fc-fa))))
	}
	// log(Φ(a) + u(Φ(c) − Φ(a))) = lc + log(u + (1−u)e^{la−lc}).
	lp := lc + math.Log(u+(1-u)*math.Exp(la-lc))
	x := normQuantileLog(lp)
	return math.Max(a, math.Min(c, x))
}

// normQuantileLog returns Φ⁻¹(e^lp) for lp ≤ log ½, valid far beyond the
// underflow of e^lp.
func normQuantileLog(lp float64) float64 {
	if lp > -700 {
		return normQuantile(math.Exp(lp))
	}
	t := -2 * lp
	x := -math.Sqrt(t - math.Log(t) - 2*lnSqrt2Pi)
	for i := 0; i < 8; i++ {
		// Newton on log Φ(x) = lp: d/dx log Φ = φ(x)/Φ(x).
		f := normLogCDF(x) - lp
		d := math.Exp(-0.5*x*x - lnSqrt2Pi - normLogCDF(x))
		dx := f / d
		x -= dx
		if math.Abs(dx) <= 1e-15*math.Abs(x) {
			break
		}
	}
	return x
}
