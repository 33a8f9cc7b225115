// Package naivebayes provides the SBI paper's naive Bayes log-linear
// model (App. E.3, Karwa et al. 2015): the model as a simulator and record
// model, its Dirichlet prior, the additive-log-ratio parameterisation
// (ALR, InvALR), the paper's setting (Paper, PaperTheta) and its observed
// release (Release). Errors wrap simulate.ErrInvalid
// (simulate.ErrInvalidTheta for a bad θ).
package naivebayes

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Model is the naive Bayes log-linear model of SBI paper App. E.3
// (Karwa et al. 2015): a class y ∈ {1, …, I} with P(y = i) = p_i and K
// features, feature k taking values in {1, …, J_k} with
// P(x_k = j | y = i) = p^k_{ij}, independent given y.
//
// θ is laid out class-major, then feature, then value, then the class
// probabilities: (p^1_{1·}, …, p^K_{1·}, …, p^1_{I·}, …, p^K_{I·}, p_1, …, p_I)
// — for the paper's I = K = 2, J = (2, 2) that is p^1_11, p^1_12, p^2_11,
// p^2_12, p^1_21, p^1_22, p^2_21, p^2_22, p_1, p_2. Every block lies on a
// simplex.
//
// The released statistic is the cell proportions r^k_{ij} = n^k_{ij}/n,
// n^k_{ij} = #{y = i, x_k = j}, in the same class-feature-value order
// (8 values for the paper; the class counts are not released). The
// Laplace mechanism with scale 2K/(nε) on each proportion makes it ε-DP.
//
// Model is a simulate.RecordModel (a record is (y, x_1, …, x_K) with 0-based
// category codes stored as float64, its contribution the one-hot vector of
// the cells it falls in), and Simulate draws the counts directly from
// multinomials, which has the same law as averaging n contributions.
type Model struct {
	classes int
	levels  []int
	n       int
	cells   int // Σ_k J_k per class
	alpha   float64
}

// Config sets a naive Bayes model. It has no usable zero value: every
// field is required.
type Config struct {
	// Classes is the number of classes I ≥ 2.
	Classes int
	// Levels holds the level count J_k ≥ 2 of each feature (at least one
	// feature).
	Levels []int
	// N is the number of records, n ≥ 1.
	N int
}

// Validate reports whether c is usable, with an error wrapping
// simulate.ErrInvalid naming the setting at fault.
func (c Config) Validate() error {
	_, err := New(c)
	return err
}

// New returns the model of cfg: cfg.Classes classes, features with
// cfg.Levels levels and cfg.N records.
//
// Limits: at most 2^20 parameters (classes × Σ levels) and n ≤ 2^40
// records, beyond which the model's tables could not be allocated or its
// counts would lose integer precision.
func New(cfg Config) (*Model, error) {
	classes, levels, n := cfg.Classes, cfg.Levels, cfg.N
	if classes < 2 || classes > maxCells {
		return nil, fmt.Errorf("%w: naive Bayes needs 2 to 2^20 classes, got %d", simulate.ErrInvalid, classes)
	}
	if len(levels) == 0 {
		return nil, fmt.Errorf("%w: naive Bayes needs at least one feature", simulate.ErrInvalid)
	}
	cells := 0
	for k, j := range levels {
		if j < 2 || j > maxCells {
			return nil, fmt.Errorf("%w: naive Bayes feature %d needs 2 to 2^20 levels, got %d", simulate.ErrInvalid, k, j)
		}
		cells += j
	}
	if cells > maxCells || classes*cells > maxCells {
		return nil, fmt.Errorf("%w: naive Bayes with %d classes and %d feature levels has more than 2^20 parameters", simulate.ErrInvalid, classes, cells)
	}
	if n < 1 || n > maxN {
		return nil, fmt.Errorf("%w: naive Bayes number of records n must be in [1, 2^40], got %d", simulate.ErrInvalid, n)
	}
	return &Model{classes: classes, levels: append([]int(nil), levels...), n: n, cells: cells}, nil
}

// Size limits of New.
const (
	maxCells = 1 << 20
	maxN     = 1 << 40
)

// Paper returns the paper's model: I = 2 classes, K = 2 binary
// features, n = 100 records.
func Paper() *Model {
	m, err := New(Config{Classes: 2, Levels: []int{2, 2}, N: 100})
	if err != nil {
		panic(err)
	}
	return m
}

// N returns the number of records.
func (m *Model) N() int { return m.n }

// valid reports whether m was built by New.
func (m *Model) valid() bool { return m != nil && m.classes >= 2 && len(m.levels) > 0 && m.n >= 1 }

// Validate returns an error wrapping simulate.ErrInvalid when the Model is
// nil or was not built by its constructor; simulate.NewMeanStat and
// simulate.MeanContribution call it.
func (m *Model) Validate() error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("naivebayes.Model")
	}
	return nil
}

// ParamDim is I·Σ_k J_k + I.
func (m *Model) ParamDim() int { return m.classes*m.cells + m.classes }

// StatDim is I·Σ_k J_k, the number of released proportions.
func (m *Model) StatDim() int { return m.classes * m.cells }

// RecordDim is 1 + K.
func (m *Model) RecordDim() int { return 1 + len(m.levels) }

// ContribDim equals StatDim.
func (m *Model) ContribDim() int { return m.StatDim() }

// Sensitivity returns the ℓ1 sensitivity 2K/n of the proportions (changing
// one record moves one cell count per feature out and one in).
func (m *Model) Sensitivity() float64 {
	// The Laplace scale 2K/(nε) at ε = 1; K, n ≥ 1 by construction.
	s, _ := LaplaceScale(len(m.levels), m.n, 1)
	return s
}

// LaplaceScale returns the Laplace scale 2K/(nε) that the SBI paper
// (App. E.3) adds to every count proportion r^k_ij = n^k_ij/n of a naive
// Bayes model with K features on n records: changing one record moves two
// cells of each of the K feature tables by 1/n, an ℓ1 sensitivity of
// 2K/n (Model.Sensitivity). Errors wrap simulate.ErrInvalid: K or n below
// 1, ε not finite and positive, or a scale that is not a positive normal
// finite number.
func LaplaceScale(K, n int, epsilon float64) (float64, error) {
	if K < 1 || n < 1 {
		return 0, fmt.Errorf("%w: naivebayes.LaplaceScale: K and n must be >= 1, got K=%d n=%d", simulate.ErrInvalid, K, n)
	}
	if !(epsilon > 0) || math.IsInf(epsilon, 1) {
		return 0, fmt.Errorf("%w: naivebayes.LaplaceScale: epsilon must be finite and > 0, got %v", simulate.ErrInvalid, epsilon)
	}
	return modelutil.Result("naive Bayes Laplace scale 2K/(nε)", 2*float64(K)/(float64(n)*epsilon))
}

// CheckParam checks the length of θ and that every block is a probability
// vector (entries ≥ 0 summing to 1 within simulate.SimplexTol).
func (m *Model) CheckParam(theta []float64) error {
	if !m.valid() {
		return modelutil.ErrUnbuilt("naivebayes.Model")
	}
	if len(theta) != m.ParamDim() {
		return fmt.Errorf("%w: naive Bayes θ must have length %d, got %d", simulate.ErrInvalidTheta, m.ParamDim(), len(theta))
	}
	o := 0
	check := func(b []float64) error {
		s := 0.0
		for _, v := range b {
			if !modelutil.Finite(v) || v < 0 {
				return fmt.Errorf("%w: naive Bayes probabilities must be finite and >= 0, got %v at index %d", simulate.ErrInvalidTheta, v, o)
			}
			s += v
		}
		if math.Abs(s-1) > simulate.SimplexTol {
			return fmt.Errorf("%w: naive Bayes block at index %d sums to %v, not 1", simulate.ErrInvalidTheta, o, s)
		}
		return nil
	}
	for range m.classes {
		for _, j := range m.levels {
			if err := check(theta[o : o+j]); err != nil {
				return err
			}
			o += j
		}
	}
	return check(theta[o:])
}

// multinomialInto draws counts ~ Multinomial(n, p) by conditional
// binomials without allocating.
func multinomialInto(r *rand.Rand, n int64, p []float64, dst []float64, scale float64) {
	mass := 1.0
	for j := range p {
		if j == len(p)-1 || n == 0 {
			dst[j] = float64(n) * scale
			for jj := j + 1; jj < len(p); jj++ {
				dst[jj] = 0
			}
			return
		}
		q := 0.0
		if mass > 0 {
			q = math.Min(1, math.Max(0, p[j]/mass))
		}
		x := variate.Binomial(r, n, q)
		dst[j] = float64(x) * scale
		n -= x
		mass -= p[j]
	}
}

// Simulate draws the class counts (n_1, …, n_I) ~ Multinomial(n; p), then
// for every class i and feature k the counts (n^k_{i1}, …) ~
// Multinomial(n_i; p^k_{i·}), and writes the proportions n^k_{ij}/n.
func (m *Model) Simulate(r *rand.Rand, theta, dst []float64) error {
	if err := m.CheckParam(theta); err != nil {
		return err
	}
	if err := modelutil.CheckRand(r); err != nil {
		return err
	}
	if len(dst) != m.StatDim() {
		return fmt.Errorf("%w: naive Bayes dst must have length %d, got %d", simulate.ErrInvalid, m.StatDim(), len(dst))
	}
	pc := theta[m.classes*m.cells:]
	inv := 1 / float64(m.n)
	rem := int64(m.n)
	mass := 1.0
	o := 0
	for i := range m.classes {
		var ni int64
		if i == m.classes-1 {
			ni = rem
		} else {
			q := 0.0
			if mass > 0 {
				q = math.Min(1, math.Max(0, pc[i]/mass))
			}
			ni = variate.Binomial(r, rem, q)
			rem -= ni
			mass -= pc[i]
		}
		for _, j := range m.levels {
			multinomialInto(r, ni, theta[o:o+j], dst[o:o+j], inv)
			o += j
		}
	}
	return nil
}

// SampleRecord draws y ~ Categorical(p) and x_k | y ~ Categorical(p^k_{y·});
// rec = (y, x_1, …, x_K) with 0-based codes.
func (m *Model) SampleRecord(r *rand.Rand, theta, rec []float64) {
	y := modelutil.Categorical(r, theta[m.classes*m.cells:])
	rec[0] = float64(y)
	o := y * m.cells
	for k, j := range m.levels {
		rec[k+1] = float64(modelutil.Categorical(r, theta[o:o+j]))
		o += j
	}
}

// Contribution writes the one-hot indicator of the cells (y, k, x_k) into
// dst, so the mean over records is the vector of proportions.
func (m *Model) Contribution(rec, dst []float64) {
	clear(dst)
	o := int(rec[0]) * m.cells
	for k, j := range m.levels {
		dst[o+int(rec[k+1])] = 1
		o += j
	}
}

// RecordLogLik is log p_y + Σ_k log p^k_{y x_k}; −Inf for codes out of
// range.
func (m *Model) RecordLogLik(theta, rec []float64) float64 {
	y := int(rec[0])
	if rec[0] != float64(y) || y < 0 || y >= m.classes {
		return math.Inf(-1)
	}
	ll := math.Log(theta[m.classes*m.cells+y])
	o := y * m.cells
	for k, j := range m.levels {
		x := int(rec[k+1])
		if rec[k+1] != float64(x) || x < 0 || x >= j {
			return math.Inf(-1)
		}
		ll += math.Log(theta[o+x])
		o += j
	}
	return ll
}

// Prior returns the product of Dirichlet(α, …, α) priors on every block of
// θ in θ's order; the paper uses α = 2.
func (m *Model) Prior(alpha float64) (*simulate.Concat, error) {
	var blocks []simulate.Prior
	mk := func(k int) error {
		a := make([]float64, k)
		for i := range a {
			a[i] = alpha
		}
		d, err := simulate.NewDirichlet(a)
		if err != nil {
			return err
		}
		blocks = append(blocks, d)
		return nil
	}
	for range m.classes {
		for _, j := range m.levels {
			if err := mk(j); err != nil {
				return nil, err
			}
		}
	}
	if err := mk(m.classes); err != nil {
		return nil, err
	}
	return simulate.NewConcat(blocks...)
}

// blocks calls fn with the offset and size of every simplex block of θ.
func (m *Model) blocks(fn func(o, j int)) {
	o := 0
	for range m.classes {
		for _, j := range m.levels {
			fn(o, j)
			o += j
		}
	}
	fn(o, m.classes)
}

// UnconstrainedDim is the dimension of the additive-log-ratio
// parameterisation, ParamDim minus the number of blocks.
func (m *Model) UnconstrainedDim() int {
	return m.ParamDim() - m.classes*len(m.levels) - 1
}

// ToUnconstrained maps θ to φ by the additive log-ratio transform of each
// block, φ_j = log(p_j / p_J) for j < J. θ must be valid with positive
// entries (a zero entry gives ±Inf, as the logarithm does). It panics (a
// programmer error on a hot path) on a nil or zero-value model and unless
// len(theta) = ParamDim and len(phi) = UnconstrainedDim.
func (m *Model) ToUnconstrained(theta, phi []float64) {
	m.checkUnconstrained("ToUnconstrained", theta, phi)
	q := 0
	m.blocks(func(o, j int) {
		ALR(theta[o:o+j], phi[q:q+j-1])
		q += j - 1
	})
}

// FromUnconstrained maps φ back to θ and returns the log absolute Jacobian
// determinant of φ ↦ θ (each block's first J − 1 coordinates), so that a
// density π(θ) on the simplices corresponds to π(θ(φ))·exp(logJac) on R^d.
// It panics like ToUnconstrained (nil or zero-value model, lengths other
// than UnconstrainedDim and ParamDim).
func (m *Model) FromUnconstrained(phi, theta []float64) (logJac float64) {
	m.checkUnconstrained("FromUnconstrained", theta, phi)
	q := 0
	m.blocks(func(o, j int) {
		logJac += InvALR(phi[q:q+j-1], theta[o:o+j])
		q += j - 1
	})
	return logJac
}

// checkUnconstrained panics unless m was built by its constructor and the
// lengths of theta and phi match it.
func (m *Model) checkUnconstrained(op string, theta, phi []float64) {
	if !m.valid() {
		panic("naivebayes: " + op + " on a nil or zero-value Model")
	}
	if len(theta) != m.ParamDim() || len(phi) != m.UnconstrainedDim() {
		panic(fmt.Sprintf("naivebayes: %s needs θ of %d and φ of %d values, got %d and %d", op, m.ParamDim(), m.UnconstrainedDim(), len(theta), len(phi)))
	}
}

// checkALR panics unless len(phi) = len(p) − 1 ≥ 1.
func checkALR(op string, p, phi []float64) {
	if len(p) < 2 || len(phi) != len(p)-1 {
		panic(fmt.Sprintf("naivebayes: %s needs p of J >= 2 values and phi of J − 1, got %d and %d", op, len(p), len(phi)))
	}
}

// ALR writes the additive log-ratio transform φ_j = log(p_j/p_J),
// j = 1, …, J − 1, of the probability vector p (length J) into phi. A zero
// p_j gives φ_j = −Inf (p_J = 0: +Inf) and a NaN entry NaN, as the
// logarithm does. It panics (a programmer error on a hot path) unless
// len(phi) = len(p) − 1 ≥ 1.
func ALR(p, phi []float64) {
	checkALR("ALR", p, phi)
	last := math.Log(p[len(p)-1])
	for j := range phi {
		phi[j] = math.Log(p[j]) - last
	}
}

// InvALR writes p = softmax(φ_1, …, φ_{J−1}, 0) into p (length J) and
// returns log|det ∂(p_1, …, p_{J−1})/∂φ| = Σ_{j=1}^{J} log p_j. A NaN φ_j
// gives NaN throughout; +Inf gives NaN (∞ − ∞). It panics (a programmer
// error on a hot path) unless len(phi) = len(p) − 1 ≥ 1.
func InvALR(phi, p []float64) (logJac float64) {
	checkALR("InvALR", p, phi)
	mx := 0.0
	for _, v := range phi {
		mx = math.Max(mx, v)
	}
	s := math.Exp(-mx)
	for j, v := range phi {
		p[j] = math.Exp(v - mx)
		s += p[j]
	}
	p[len(phi)] = math.Exp(-mx)
	ls := math.Log(s)
	for j := range p {
		p[j] /= s
	}
	// log p_j = (φ_j − mx) − log s, with φ_J = 0.
	for _, v := range phi {
		logJac += v - mx - ls
	}
	logJac += -mx - ls
	return logJac
}

// PaperTheta returns the paper's data-generating θ in θ order.
func PaperTheta() []float64 {
	return []float64{0.3887, 0.6113, 0.7537, 0.2463, 0.6534, 0.3466, 0.5834, 0.4166, 0.8489, 0.1511}
}

// Release returns the paper's observed private proportions
// (ε = 10, Laplace scale 2K/(nε) = 0.004) in the released order r^1_11,
// r^1_12, r^2_11, r^2_12, r^1_21, r^1_22, r^2_21, r^2_22 (unrounded values
// of the authors' code; the paper prints four decimals).
func Release() []float64 {
	return []float64{0.32754, 0.452008, 0.586172, 0.182683, 0.12926, 0.085805, 0.128789, 0.095372}
}
