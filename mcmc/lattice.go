package mcmc

import (
	"math"

	"github.com/privinfer/privinfer/internal/lattice"
	"github.com/privinfer/privinfer/mechanism"
)

// lapLattice is the release density of a *mechanism.Laplace in the form
// the record weights need: coordinate k lives on the grid γ_k = 2^{g_k},
// and
//
//	log η(s_dp | s) = Σ_k (ℓ_k − λ_k·|K_k − round(s_k/γ_k)|) − g_k·ln 2,
//
// with K_k = round(s_dp,k/γ_k), λ_k the inverse noise scale in grid units
// and ℓ_k the log normalising constant of the discrete Laplace law. The
// chain keeps its statistic and contributions also in grid units (scaled
// by the power of two 1/γ_k, which is exact), so a weight costs one
// subtraction, one rounding and one absolute value per coordinate instead
// of the mechanism's two rescalings and two roundings, and the n weights
// of a SOMA step are one pass over the column-major contribution matrix
// per coordinate. The terms are summed in the mechanism's order, so the weights are those of
// Laplace.LogDensity (newLapLattice checks this on sample points and
// declines otherwise).
type lapLattice struct {
	inv []float64 // 1/γ_k = 2^{−g_k}
	k   []float64 // K_k = round(s_dp,k/γ_k)
	lam []float64 // λ_k = γ_k/NoiseScale(k)
	ell []float64 // ℓ_k = log((1 − e^{−λ_k})/(1 + e^{−λ_k}))
	gl  []float64 // g_k·ln 2

	// pass holds K, λ, ℓ and g·ln 2 for the vectorised weight pass
	// (internal/lattice), which gives the same bits as the Go loop.
	pass *lattice.Coef
}

// Grid exponents outside this range could make 1/γ or the scaled values
// lose their exactness; such mechanisms use LogDensity.
const (
	latMinExp = -1000
	latMaxExp = 900
	// latMaxScaled bounds the scaled contributions the lattice path
	// accepts: sums of up to maxValues of them stay far from overflow.
	latMaxScaled = 0x1p900
)

// newLapLattice returns the lattice form of mech for the observed release
// sdp, or nil when mech is not a *mechanism.Laplace of dimension len(sdp)
// with grids in range, or when the form does not reproduce
// mech.LogDensity to 1e-12 relative on a set of test statistics.
func newLapLattice(mech mechanism.Density, sdp []float64) *lapLattice {
	lap, ok := mech.(*mechanism.Laplace)
	d := len(sdp)
	if !ok || lap == nil || lap.Dim() != d {
		return nil
	}
	l := &lapLattice{inv: make([]float64, d), k: make([]float64, d), lam: make([]float64, d),
		ell: make([]float64, d), gl: make([]float64, d)}
	for i := range d {
		gamma := lap.Grid(i)
		fr, e := math.Frexp(gamma)
		g := e - 1
		if fr != 0.5 || g < latMinExp || g > latMaxExp {
			return nil
		}
		l.inv[i] = math.Ldexp(1, -g)
		l.k[i] = math.Round(math.Ldexp(sdp[i], -g))
		lam := gamma / lap.NoiseScale(i)
		if !(lam > 0) || math.IsInf(lam, 0) || math.IsInf(l.k[i], 0) || math.IsNaN(l.k[i]) {
			return nil
		}
		l.lam[i] = lam
		l.ell[i] = math.Log(-math.Expm1(-lam)) - math.Log1p(math.Exp(-lam))
		l.gl[i] = float64(g) * math.Ln2
	}
	pass, err := lattice.NewCoef(lattice.CoefConfig{K: l.k, Lam: l.lam, Ell: l.ell, GL: l.gl})
	if err != nil {
		return nil
	}
	l.pass = pass
	// Check the form against the mechanism at the release and at points
	// 0, 1, 10 and 1000 noise scales away in alternating directions.
	s, sc := make([]float64, d), make([]float64, d)
	for _, m := range []float64{0, 0.37, 1, 10.5, 1000} {
		for i := range d {
			s[i] = sdp[i] + m*lap.NoiseScale(i)*float64(1-2*(i%2))
			sc[i] = s[i] * l.inv[i]
		}
		want, got := mech.LogDensity(sdp, s), l.logEta(sc)
		if !(math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))) {
			return nil
		}
	}
	return l
}

// logEta returns log η(s_dp | s) given the statistic in grid units, sc_k
// = s_k/γ_k.
func (l *lapLattice) logEta(sc []float64) float64 {
	lp := 0.0
	for k, z := range sc {
		lp += (l.ell[k] - l.lam[k]*math.Abs(l.k[k]-math.Round(z))) - l.gl[k]
	}
	return lp
}

// slot returns log η(s_dp | s + t(y) − t(x_i)) given a = s + t(y) and the
// column-major contributions tg of n slots, all in grid units.
func (l *lapLattice) slot(a, tg []float64, n, i int) float64 {
	lp := 0.0
	for k, z := range a {
		lp += (l.ell[k] - l.lam[k]*math.Abs(l.k[k]-round(z-tg[k*n+i]))) - l.gl[k]
	}
	return lp
}

// weights sets logw[i] = log η(s_dp | s + t(y) − t(x_i)) for every slot i
// given a = s + t(y) and the column-major contributions tg (coordinate k
// of slot i at tg[k·len(logw) + i]), all in grid units. It runs over the
// coordinates in the outer loop, so the slots' sums are independent
// chains of additions, each still summed in the mechanism's order; on
// amd64 the pass is vectorised (internal/lattice) with the same results.
// It returns the largest weight (NaN if any is NaN).
func (l *lapLattice) weights(a, tg, logw []float64) float64 {
	if l.pass.SetZ(a) != nil {
		return math.NaN() // unreachable: the dimensions are fixed at construction
	}
	mx, err := l.pass.LogWeights(logw, tg)
	if err != nil {
		return math.NaN()
	}
	return mx
}

// round is math.Round (halves away from zero) computed by the hardware's
// rounding to even (lattice.Round).
func round(x float64) float64 { return lattice.Round(x) }
