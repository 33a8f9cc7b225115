package abc

import (
	"math"
	"math/rand/v2"
	"slices"
)

// FeatureMMD approximates the Gaussian-kernel MMD with D random Fourier
// features (Rahimi & Recht 2007; the ABCDP authors' code uses D = 100):
// φ(x) = D^{−1/2}(cos ω_k·x, sin ω_k·x)_{k=1..D} with ω_k ~ N(0, I/ℓ²), and
// ρ(X, Y) = ‖mean φ(X) − mean φ(Y)‖2. Because ‖φ(x)‖ = 1 exactly, k̂(x, y) =
// φ(x)·φ(y) is a positive-definite kernel bounded by B_k = 1, so ρ is the
// exact MMD of k̂ and Lemma 4.1's sensitivity 2/N holds for it without any
// approximation argument. Its cost is O(N·D) instead of O(N²).
//
// The frequencies are public (drawn from a seed independent of the data).
// A FeatureMMD is immutable and safe for concurrent use.
type FeatureMMD struct {
	dim, d int
	omega  []float64
	ref    []float64 // optional cached observation
	refEmb []float64
}

// FeatureMMDConfig sets a random-feature MMD distance. It has no usable
// zero value: every field is required.
type FeatureMMDConfig struct {
	// Dim is the dimension of the points, ≥ 1.
	Dim int
	// Bandwidth is the Gaussian kernel's ℓ > 0 (as in MMDConfig).
	Bandwidth float64
	// Features is the number D ≥ 1 of random Fourier features.
	Features int
}

// NewFeatureMMD draws the frequencies for points of dimension cfg.Dim with
// bandwidth ℓ = cfg.Bandwidth and D = cfg.Features features from r. A
// FeatureMMD not built by it (the zero value) reports NaN distances.
func NewFeatureMMD(cfg FeatureMMDConfig, r *rand.Rand) (*FeatureMMD, error) {
	dim, bandwidth, features := cfg.Dim, cfg.Bandwidth, cfg.Features
	if dim < 1 {
		return nil, invalidf("feature MMD point dimension must be >= 1, got %d", dim)
	}
	if err := checkBandwidth("feature MMD bandwidth", bandwidth); err != nil {
		return nil, err
	}
	if features < 1 {
		return nil, invalidf("feature MMD needs at least one feature, got %d", features)
	}
	if features > MaxElements/dim {
		return nil, invalidf("feature MMD: %d features of dimension %d exceed %d stored values", features, dim, MaxElements)
	}
	if r == nil {
		return nil, invalidf("feature MMD needs a non-nil *rand.Rand for its frequencies")
	}
	om := make([]float64, features*dim)
	for i := range om {
		om[i] = r.NormFloat64() / bandwidth
	}
	return &FeatureMMD{dim: dim, d: features, omega: om}, nil
}

// Embed writes the mean feature vector of the points x (length n·dim, n ≥ 1)
// into dst (length 2·D) and reports whether the lengths fit.
func (m *FeatureMMD) Embed(x, dst []float64) bool {
	if m == nil || m.dim < 1 || m.d < 1 || len(m.omega) != m.d*m.dim || len(x) == 0 || len(x)%m.dim != 0 || len(dst) != 2*m.d {
		return false
	}
	clear(dst)
	n := len(x) / m.dim
	for i := 0; i < n; i++ {
		p := x[i*m.dim : (i+1)*m.dim]
		for k := 0; k < m.d; k++ {
			w := m.omega[k*m.dim : (k+1)*m.dim]
			a := 0.0
			for j, v := range p {
				a += w[j] * v
			}
			s, c := math.Sincos(a)
			dst[2*k] += c
			dst[2*k+1] += s
		}
	}
	sc := 1 / (float64(n) * math.Sqrt(float64(m.d)))
	for i := range dst {
		dst[i] *= sc
	}
	return true
}

// WithObserved returns a copy of m that caches the embedding of obs:
// Distance(x, y) reuses it whenever y is the same slice (same first element
// and length), which is how Problem passes its observation.
func (m *FeatureMMD) WithObserved(obs []float64) (*FeatureMMD, error) {
	if m == nil || m.dim < 1 || m.d < 1 {
		return nil, invalidf("feature MMD is nil or was not built by NewFeatureMMD")
	}
	c := *m
	c.refEmb = make([]float64, 2*m.d)
	if !c.Embed(obs, c.refEmb) {
		return nil, invalidf("observation of length %d is not a non-empty multiple of %d", len(obs), m.dim)
	}
	c.ref = obs
	return &c, nil
}

// Distance returns ‖mean φ(x) − mean φ(y)‖2, NaN on unusable lengths.
func (m *FeatureMMD) Distance(x, y []float64) float64 {
	if m == nil || m.dim < 1 || m.d < 1 {
		return math.NaN()
	}
	ex := make([]float64, 2*m.d)
	if !m.Embed(x, ex) {
		return math.NaN()
	}
	var ey []float64
	if m.ref != nil && len(y) == len(m.ref) && len(y) > 0 && &y[0] == &m.ref[0] {
		ey = m.refEmb
	} else {
		ey = make([]float64, 2*m.d)
		if !m.Embed(y, ey) {
			return math.NaN()
		}
	}
	return Euclidean{}.Distance(ex, ey)
}

// Frequencies returns a copy of the frequencies ω (D×dim row-major).
func (m *FeatureMMD) Frequencies() []float64 {
	if m == nil {
		return nil
	}
	return slices.Clone(m.omega)
}
