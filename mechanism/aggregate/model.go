package aggregate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// NoiseKind names the law of a release's noise.
type NoiseKind int

const (
	// DiscreteLaplace noise: P(Z = z) ∝ exp(−|z|/t) on the integers, t =
	// NoiseModel.Num/NoiseModel.Den.
	DiscreteLaplace NoiseKind = iota + 1
	// DiscreteGaussian noise: the secure discrete Gaussian of
	// mechanism.NewGaussian(NoiseModel.Sigma, 1), on that mechanism's grid.
	DiscreteGaussian
)

// String names the kind.
func (k NoiseKind) String() string {
	switch k {
	case DiscreteLaplace:
		return "discrete Laplace"
	case DiscreteGaussian:
		return "discrete Gaussian"
	}
	return fmt.Sprintf("NoiseKind(%d)", int(k))
}

// NoiseModel is the exact law of one lattice release: the statistic s,
// in value units, is rounded to its lattice index round(s/γ), noise Z of
// the given kind (in lattice units) is added, and γ·(index + Z) is
// released. It is plain data, so a Result can be stored and shipped with
// the law of its noise.
type NoiseModel struct {
	// Kind is the law of Z.
	Kind NoiseKind
	// Grid is γ, a power of two.
	Grid float64
	// Num and Den give the discrete Laplace scale t = Num/Den in lattice
	// units (zero for a Gaussian).
	Num, Den uint64
	// Sigma is the standard deviation, in lattice units, asked of
	// mechanism.NewGaussian, whose law the Gaussian noise follows exactly
	// (zero for a Laplace).
	Sigma float64
}

// mechanism returns the 1-dimensional mechanism of Z on the integer
// lattice (γ = 1).
func (n NoiseModel) mechanism(b mechanism.Budget) (mechanism.Mechanism, error) {
	switch n.Kind {
	case DiscreteLaplace:
		if b == (mechanism.Budget{}) {
			b = mechanism.Budget{Epsilon: math.Inf(1)}
		}
		return mechanism.NewDiscreteLaplace([]uint64{n.Num}, []uint64{n.Den}, b)
	case DiscreteGaussian:
		return mechanism.NewGaussian(mechanism.ScaleConfig{Sigma: n.Sigma, Dim: 1})
	}
	return nil, invalidf("noise model of unknown kind %v", n.Kind)
}

// model returns the NoiseModel of a noise on the lattice 2^k.
func noiseModel(d noise, k int) NoiseModel {
	m := d.model()
	m.Grid = math.Ldexp(1, k)
	return m
}

// Observed returns a copy of r.Releases: the observed value s_dp° of a
// privinfer.Problem whose Mechanism is r.Mechanism().
func (r Result) Observed() []float64 { return append([]float64(nil), r.Releases...) }

// Mechanism returns the exact law of the releases r was computed from as
// a mechanism (*Model), for a noise-aware posterior: a privinfer.Problem
// with this Mechanism and Observed r.Observed() describes the release
// exactly, not by a continuous approximation. Its statistic is
//
//   - for a count, s = (n): the count;
//   - for a sum, s = (Σ x̃_i): the sum of the records clamped to [lo, hi]
//     and rounded to the lattice γ (RoundValue), whose index the model
//     takes;
//   - for a mean released from a noisy count and a noisy sum (the
//     MeanAccumulator, and BoundedMean under AddRemove), s = (n, Σ x̃_i);
//     its second release is the centred sum γ·(Σ x̃_i/γ − n·C + Z₂);
//     BoundedMean under Substitute carries the sum's release and model
//     (the mean is that divided by the public n).
//
// It returns an error wrapping ErrInvalid for a Result without a noise
// model (a quantile, or a zero Result).
func (r Result) Mechanism() (mechanism.Mechanism, error) {
	if len(r.Noise) == 0 || len(r.Noise) > 2 {
		return nil, invalidf("the result carries %d noise models; want 1 or 2", len(r.Noise))
	}
	m := &Model{budget: r.Budget, rho: r.Rho, center: r.Center, mean: len(r.Noise) == 2}
	for i, n := range r.Noise {
		f, e := math.Frexp(n.Grid)
		if f != 0.5 {
			return nil, invalidf("noise model %d has grid %v, not a power of two", i, n.Grid)
		}
		inner, err := n.mechanism(r.Budget)
		if err != nil {
			return nil, err
		}
		m.k = append(m.k, e-1)
		m.inner = append(m.inner, inner)
		sp, lim := 1.0, int64(maxStat)
		if g, ok := inner.(*mechanism.Gaussian); ok {
			sp, lim = g.Grid(), gaussLimit(g.Grid())
		}
		m.limit = append(m.limit, float64(lim))
		m.spacing = append(m.spacing, math.Ldexp(sp, e-1))
	}
	return m, nil
}

// Model is the law of an aggregate's lattice releases as a mechanism
// (see Result.Mechanism). It implements mechanism.Mechanism,
// mechanism.Simulator, mechanism.Density, mechanism.Transform and
// mechanism.Lattice, all for the exact discrete law. Release draws from
// the operating system's generator.
type Model struct {
	k       []int // lattice exponents
	limit   []float64
	inner   []mechanism.Mechanism
	spacing []float64
	mean    bool
	center  int64
	budget  mechanism.Budget
	rho     float64
}

// Dim returns the dimension of the statistic and of the release (0 for a
// nil Model).
func (m *Model) Dim() int {
	if m == nil {
		return 0
	}
	return len(m.k)
}

// Budget reports the (ε, 0) budget of the release (zero for zCDP and for
// a nil Model).
func (m *Model) Budget() mechanism.Budget {
	if m == nil {
		return mechanism.Budget{}
	}
	return m.budget
}

// Rho reports the zCDP ρ of the release (zero for pure DP and for a nil
// Model).
func (m *Model) Rho() float64 {
	if m == nil {
		return 0
	}
	return m.rho
}

// LatticeSpacing returns the smallest spacing of the releases' grids (0
// for a nil Model).
func (m *Model) LatticeSpacing() float64 {
	if m == nil || len(m.spacing) == 0 {
		return 0
	}
	sp := m.spacing[0]
	for _, v := range m.spacing[1:] {
		sp = math.Min(sp, v)
	}
	return sp
}

// index returns the lattice index of coordinate i of the statistic s
// (the centred index for a mean's sum), clamped as the release clamps
// it, and false if it is not finite.
func (m *Model) index(s []float64, i int) (float64, bool) {
	v := math.Round(math.Ldexp(s[i], -m.k[i]))
	if m.mean && i == 1 {
		v -= math.Round(s[0]) * float64(m.center)
	}
	return math.Max(-m.limit[i], math.Min(m.limit[i], v)), !math.IsNaN(v) && !math.IsInf(v, 0)
}

// check validates s and dst.
func (m *Model) check(s, dst []float64) error {
	if m == nil || len(m.k) == 0 {
		return invalidf("nil or zero Model")
	}
	if len(s) != len(m.k) || len(dst) != len(m.k) {
		return fmt.Errorf("%w: statistic of length %d and destination of length %d for a model of dimension %d", mechanism.ErrInvalid, len(s), len(dst), len(m.k))
	}
	for i := range s {
		if _, ok := m.index(s, i); !ok {
			return fmt.Errorf("%w: statistic entry %d = %v is not finite", mechanism.ErrInvalid, i, s[i])
		}
	}
	return nil
}

// each runs f on every coordinate with the lattice index of s.
func (m *Model) each(s, dst []float64, f func(i int, in, out []float64) error) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	var in, out [1]float64
	for i := range m.k {
		in[0], _ = m.index(s, i)
		if err := f(i, in[:], out[:]); err != nil {
			return err
		}
		dst[i] = math.Ldexp(out[0], m.k[i])
	}
	return nil
}

// Release draws a release of s exactly as the aggregate did, from the
// operating system's generator (r is ignored).
func (m *Model) Release(r *rand.Rand, s, dst []float64) error {
	return m.each(s, dst, func(i int, in, out []float64) error { return m.inner[i].Release(nil, in, out) })
}

// SimulateRelease draws from the law of Release using r (seeded
// generators welcome); for inference, never for confidential data.
func (m *Model) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	return m.each(s, dst, func(i int, in, out []float64) error { return mechanism.Simulate(m.inner[i], r, in, out) })
}

// NoiseDim returns statDim: one uniform per coordinate.
func (m *Model) NoiseDim(statDim int) int { return statDim }

// Apply maps uniforms through the inverse CDF of each coordinate's
// discrete noise law, giving releases with exactly the law of Release
// when u is uniform. It panics on mismatched lengths (a programmer
// error), like every Transform. On a nil Model it fills dst with NaN.
func (m *Model) Apply(u, s, dst []float64) {
	if m == nil {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	if len(u) != len(m.k) || len(s) != len(m.k) || len(dst) != len(m.k) {
		panic(fmt.Sprintf("aggregate: Model.Apply with lengths %d, %d, %d for dimension %d", len(u), len(s), len(dst), len(m.k)))
	}
	var in, out, uu [1]float64
	for i := range m.k {
		in[0], _ = m.index(s, i)
		uu[0] = u[i]
		m.inner[i].(mechanism.Transform).Apply(uu[:], in[:], out[:])
		dst[i] = math.Ldexp(out[0], m.k[i])
	}
}

// LogDensity returns log η(sdp | s): the sum over coordinates of the log
// probability of the lattice noise round(sdp_i/γ_i) − index_i(s), minus
// log of the release grid's spacing (the law dequantized over its grid
// cells, as the mechanism package's lattice densities are). NaN on a
// length mismatch or NaN input.
func (m *Model) LogDensity(sdp, s []float64) float64 {
	if m == nil || len(sdp) != len(m.k) || len(s) != len(m.k) {
		return math.NaN()
	}
	var in, x [1]float64
	lp := 0.0
	for i := range m.k {
		in[0], _ = m.index(s, i)
		x[0] = math.Ldexp(sdp[i], -m.k[i])
		lp += m.inner[i].(mechanism.Density).LogDensity(x[:], in[:]) - float64(m.k[i])*math.Ln2
	}
	return lp
}
