package ldp

import (
	"fmt"
	"math"
	"math/bits"
)

// OUEModel is the noise-aware histogram model of the LDP paper §3.2.2 and
// §11: each person's category x = k ∈ {0, …, d−1} is drawn with probability
// θ_k and reported through optimal unary encoding (mechanism.OUE): the
// one-hot vector's 1 is kept with probability ½ and each 0 is kept with
// probability p = e^ε/(1+e^ε). Summing out x gives eq. 33,
//
//	Pr[z | θ] = p^d e^{−ε Σ_j z_j} Σ_k θ_k e^{ε z_k} / (2p)
//	          = p^{d−1} e^{−ε Σ_j z_j} (1 + (e^ε − 1) Σ_{k: z_k=1} θ_k) / 2,
//
// the second line using Σ_k θ_k = 1; it is evaluated with expm1 and log1p.
// d is at most 64.
type OUEModel struct {
	eps, logP, kappa float64
	d                int
}

// OUEModelConfig configures NewOUEModel. The zero value is refused.
type OUEModelConfig struct {
	// Epsilon is each person's budget ε (finite, > 0), that of
	// mechanism.NewOUE.
	Epsilon float64
	// Dim is the number of categories d, in [2, 64].
	Dim int
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// that names the offending field.
func (c OUEModelConfig) Validate() error {
	if !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 1) {
		return fmt.Errorf("ldp: OUEModelConfig.Epsilon must be finite and > 0, got %v: %w", c.Epsilon, ErrInvalid)
	}
	if c.Dim < 2 || c.Dim > 64 {
		return fmt.Errorf("ldp: OUEModelConfig.Dim must be in [2, 64], got %d: %w", c.Dim, ErrInvalid)
	}
	return nil
}

// NewOUEModel returns the OUE histogram model of cfg, refusing what
// cfg.Validate refuses.
func NewOUEModel(cfg OUEModelConfig) (*OUEModel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	eps, d := cfg.Epsilon, cfg.Dim
	// log p = log(e^ε/(1+e^ε)) = −log(1+e^{−ε}).
	return &OUEModel{eps: eps, d: d, logP: -math.Log1p(math.Exp(-eps)), kappa: math.Expm1(eps)}, nil
}

// Dim returns the number of categories d.
func (m *OUEModel) Dim() int { return m.d }

// Epsilon returns the per-person budget ε.
func (m *OUEModel) Epsilon() float64 { return m.eps }

func (m *OUEModel) checkTheta(theta []float64) bool {
	if len(theta) != m.d {
		return false
	}
	s := 0.0
	for _, v := range theta {
		if !(v >= 0) || v > 1 {
			return false
		}
		s += v
	}
	return math.Abs(s-1) <= 1e-9
}

// LogDensity returns log Pr[z | θ] (eq. 33) for one report z ∈ {0,1}^d. It
// returns NaN if θ is not a probability vector of length d (entries ≥ 0
// summing to 1 within 1e-9) or z has the wrong length, and −Inf if z is not
// a bit vector.
func (m *OUEModel) LogDensity(z, theta []float64) float64 {
	if m == nil || m.d < 2 || len(z) != m.d || !m.checkTheta(theta) {
		return math.NaN()
	}
	ones, dot := 0, 0.0
	for k, v := range z {
		switch v {
		case 1:
			ones++
			dot += theta[k]
		case 0:
		default:
			return math.Inf(-1)
		}
	}
	return float64(m.d-1)*m.logP - m.eps*float64(ones) - math.Ln2 + math.Log1p(m.kappa*dot)
}

// OUEData holds N OUE reports compressed to their distinct bit patterns, so
// that a log-likelihood evaluation costs O(patterns · d) however large N is.
type OUEData struct {
	m        *OUEModel
	patterns []uint64
	counts   []float64
	constant float64
	n        int
	colSums  []float64
}

// NewData validates N reports given row-major in z (length N·d, entries 0
// or 1) and compresses them.
func (m *OUEModel) NewData(z []float64) (*OUEData, error) {
	if m == nil || m.d < 2 {
		return nil, fmt.Errorf("ldp: OUEModel used without NewOUEModel: %w", ErrInvalid)
	}
	if len(z) == 0 || len(z)%m.d != 0 {
		return nil, fmt.Errorf("ldp: reports must hold N·d = N·%d entries with N ≥ 1, got %d: %w", m.d, len(z), ErrInvalid)
	}
	n := len(z) / m.d
	idx := make(map[uint64]int)
	dd := &OUEData{m: m, n: n, colSums: make([]float64, m.d)}
	ones := 0
	for i := range n {
		var mask uint64
		for k := range m.d {
			switch z[i*m.d+k] {
			case 1:
				mask |= 1 << k
				ones++
				dd.colSums[k]++
			case 0:
			default:
				return nil, fmt.Errorf("ldp: report %d entry %d must be 0 or 1, got %v: %w", i, k, z[i*m.d+k], ErrInvalid)
			}
		}
		j, ok := idx[mask]
		if !ok {
			j = len(dd.patterns)
			idx[mask] = j
			dd.patterns = append(dd.patterns, mask)
			dd.counts = append(dd.counts, 0)
		}
		dd.counts[j]++
	}
	dd.constant = float64(n)*(float64(m.d-1)*m.logP-math.Ln2) - m.eps*float64(ones)
	return dd, nil
}

// N returns the number of reports.
func (d *OUEData) N() int { return d.n }

// ColumnSums returns c_k = Σ_i z_{i,k}, the input of the unbiased OUE
// frequency estimator (mechanism.OUE.EstimateFrequencies).
func (d *OUEData) ColumnSums() []float64 { return append([]float64(nil), d.colSums...) }

// LogDensity returns Σ_i log Pr[z_i | θ], allocating nothing; NaN if θ is not a
// probability vector of length d.
func (d *OUEData) LogDensity(theta []float64) float64 {
	if d == nil || d.m == nil || d.m.d < 2 || !d.m.checkTheta(theta) {
		return math.NaN()
	}
	s := d.constant
	for j, mask := range d.patterns {
		s += d.counts[j] * math.Log1p(d.m.kappa*maskDot(mask, theta))
	}
	return s
}

// LogDensityGrad returns Σ_i log Pr[z_i | θ] and writes its partial
// derivatives ∂/∂θ_k (treating θ as free coordinates) into grad.
func (d *OUEData) LogDensityGrad(theta, grad []float64) float64 {
	if d == nil || d.m == nil || d.m.d < 2 || !d.m.checkTheta(theta) || len(grad) != d.m.d {
		return math.NaN()
	}
	clear(grad)
	s := d.constant
	for j, mask := range d.patterns {
		u := d.m.kappa * maskDot(mask, theta)
		s += d.counts[j] * math.Log1p(u)
		g := d.counts[j] * d.m.kappa / (1 + u)
		for mm := mask; mm != 0; mm &= mm - 1 {
			grad[bits.TrailingZeros64(mm)] += g
		}
	}
	return s
}

func maskDot(mask uint64, theta []float64) float64 {
	s := 0.0
	for mm := mask; mm != 0; mm &= mm - 1 {
		s += theta[bits.TrailingZeros64(mm)]
	}
	return s
}

// ProjectSimplex writes into dst the Euclidean projection of v onto the
// probability simplex {θ : θ_k ≥ 0, Σθ_k = 1} (the least-squares
// consistency step applied to LDP point estimates; Duchi et al. 2008). dst
// and v may alias. It returns an error for empty, mismatched or non-finite
// input.
func ProjectSimplex(dst, v []float64) error {
	if len(v) == 0 || len(dst) != len(v) {
		return fmt.Errorf("ldp: ProjectSimplex needs equal non-zero lengths, got %d and %d: %w", len(dst), len(v), ErrInvalid)
	}
	for i, x := range v {
		if !finite(x) {
			return fmt.Errorf("ldp: ProjectSimplex input %d must be finite, got %v: %w", i, x, ErrInvalid)
		}
	}
	// Find τ with Σ max(v_k − τ, 0) = 1 by scanning sorted values.
	u := append([]float64(nil), v...)
	sortDesc(u)
	cum, tau := 0.0, 0.0
	for i, x := range u {
		cum += x
		t := (cum - 1) / float64(i+1)
		if x-t > 0 {
			tau = t
		}
	}
	for i, x := range v {
		dst[i] = math.Max(x-tau, 0)
	}
	return nil
}

func sortDesc(u []float64) {
	for i := 1; i < len(u); i++ {
		for j := i; j > 0 && u[j] > u[j-1]; j-- {
			u[j], u[j-1] = u[j-1], u[j]
		}
	}
}
