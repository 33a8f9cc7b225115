package privinfer

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/diag"
	"github.com/privinfer/privinfer/internal/stats"
)

// ErrDegenerate is wrapped by the errors of the convergence diagnostics
// (RHat, ESSBulk, ESSTail, MCSEMean, MCSESD) when the draws cannot support
// the estimate: too few draws per chain, non-finite or constant draws. It
// is the same value as mcmc.ErrDegenerate.
var ErrDegenerate = diag.ErrDegenerate

// Draws are posterior samples, what every engine returns (alone or inside
// its own result): n draws of a Dim-dimensional θ stored row-major, with
// optional importance weights and optional MCMC chain structure.
//
// Statistics are per coordinate j (0 ≤ j < Dim). They never fail: on
// draws that do not Validate, or for an out-of-range j or probability, they
// return NaN (and nil slices). Weighted statistics use the weights
// normalised to sum to one; rows with zero weight are ignored and NaN
// values are dropped from quantiles and intervals.
//
// The convergence diagnostics (RHat, ESSBulk, ESSTail, MCSEMean, MCSESD)
// need unweighted draws; they use the chain structure when Chains > 0 and
// treat all rows as one chain when Chains is 0.
type Draws struct {
	// Names are the parameter names (length Dim); nil means θ[0], θ[1], ….
	Names []string
	// Dim is the dimension of θ (≥ 1).
	Dim int
	// Theta holds the draws, n×Dim row-major: draw i is
	// Theta[i*Dim:(i+1)*Dim].
	Theta []float64
	// Weights are non-negative importance weights, one per draw, not
	// necessarily normalised; nil means equally weighted.
	Weights []float64
	// Chains is the number of MCMC chains when > 0: the rows are Chains
	// chains of n/Chains draws each, chain-major (chain c is rows
	// c·n/Chains to (c+1)·n/Chains − 1). 0 means the rows are not chained.
	Chains int
}

// Validate checks the shapes and values: Dim ≥ 1; len(Theta) a multiple of
// Dim; Names nil or Dim distinct non-empty names; Weights nil or one
// finite non-negative weight per draw with a positive finite sum;
// Chains ≥ 0 dividing the number of draws, and Chains > 0 only with nil
// Weights. Theta may hold NaN and ±Inf (a diverged draw is data). Errors
// wrap ErrInvalid.
func (d *Draws) Validate() error {
	if d == nil {
		return invalidf("draws are nil")
	}
	if d.Dim < 1 {
		return invalidf("Draws.Dim must be >= 1, got %d", d.Dim)
	}
	if len(d.Theta)%d.Dim != 0 {
		return invalidf("len(Draws.Theta) = %d is not a multiple of Dim = %d", len(d.Theta), d.Dim)
	}
	n := len(d.Theta) / d.Dim
	if d.Names != nil {
		if err := checkNames(d.Names, d.Dim); err != nil {
			return err
		}
	}
	if d.Weights != nil {
		if len(d.Weights) != n {
			return invalidf("Draws.Weights has length %d, want one weight per draw (%d)", len(d.Weights), n)
		}
		s := 0.0
		for i, w := range d.Weights {
			if !(w >= 0) || math.IsInf(w, 0) {
				return invalidf("Draws.Weights[%d] is %v, want a finite value >= 0", i, w)
			}
			s += w
		}
		if n > 0 && !(s > 0 && !math.IsInf(s, 0)) {
			return invalidf("Draws.Weights sum to %v, want a positive finite sum", s)
		}
	}
	if d.Chains < 0 {
		return invalidf("Draws.Chains must be >= 0, got %d", d.Chains)
	}
	if d.Chains > 0 {
		if d.Weights != nil {
			return invalidf("Draws.Chains = %d with Weights: chained MCMC draws are unweighted", d.Chains)
		}
		if n%d.Chains != 0 {
			return invalidf("%d draws do not split into Draws.Chains = %d chains of equal length", n, d.Chains)
		}
	}
	return nil
}

// Len returns the number of draws, len(Theta)/Dim, or 0 if the shape is
// invalid (nil draws, Dim < 1 or len(Theta) not a multiple of Dim), so
// that no accessor returns part of a ragged row.
func (d *Draws) Len() int {
	if d == nil || d.Dim < 1 || len(d.Theta)%d.Dim != 0 {
		return 0
	}
	return len(d.Theta) / d.Dim
}

// Row returns draw i as a slice of Theta (not a copy), or nil if i is out
// of range or the shape is invalid (see Len).
func (d *Draws) Row(i int) []float64 {
	if i < 0 || i >= d.Len() {
		return nil
	}
	return d.Theta[i*d.Dim : (i+1)*d.Dim : (i+1)*d.Dim]
}

// Column returns a copy of coordinate j of every draw, or nil if j is out
// of range or the shape is invalid (see Len).
func (d *Draws) Column(j int) []float64 {
	if d == nil || j < 0 || j >= d.Dim || len(d.Theta)%d.Dim != 0 {
		return nil
	}
	n := d.Len()
	out := make([]float64, n)
	for i := range out {
		out[i] = d.Theta[i*d.Dim+j]
	}
	return out
}

// ParamNames returns a copy of Names, or θ[0], …, θ[Dim−1] when Names is
// nil.
func (d *Draws) ParamNames() []string {
	if d == nil {
		return nil
	}
	if d.Names != nil {
		return append([]string(nil), d.Names...)
	}
	return DefaultNames(d.Dim)
}

// Index returns the coordinate of the parameter called name (matching
// ParamNames), or −1.
func (d *Draws) Index(name string) int {
	for j, n := range d.ParamNames() {
		if n == name {
			return j
		}
	}
	return -1
}

// Weighted reports whether the draws carry importance weights.
func (d *Draws) Weighted() bool { return d != nil && d.Weights != nil }

// valid reports whether the draws validate and are not empty.
func (d *Draws) valid() bool { return d.Validate() == nil && d.Len() > 0 }

// Mean returns the weighted mean of every coordinate (length Dim).
func (d *Draws) Mean() []float64 {
	if !d.valid() {
		return nil
	}
	m := make([]float64, d.Dim)
	if err := stats.WeightedMean(d.Theta, d.Dim, d.Weights, m); err != nil {
		return nil
	}
	return m
}

// Cov returns the covariance matrix (Dim×Dim, row-major). With equal
// weights it is the unbiased sample covariance (divisor n − 1); with
// weights w normalised to sum to one it is the unbiased estimate under
// reliability weights, Σ w_i (x_i − μ)(x_i − μ)ᵀ / (1 − Σ w_i²), which
// reduces to the former for equal weights. It is nil for fewer than two
// draws with positive weight.
func (d *Draws) Cov() []float64 {
	if !d.valid() {
		return nil
	}
	m := make([]float64, d.Dim)
	c := make([]float64, d.Dim*d.Dim)
	if err := stats.WeightedCov(d.Theta, d.Dim, d.Weights, m, c); err != nil {
		return nil
	}
	ess := d.ESS()
	if !(ess > 1) {
		return nil
	}
	f := ess / (ess - 1) // 1/(1 − Σw²) for normalised weights
	for k := range c {
		c[k] *= f
	}
	return c
}

// SD returns the standard deviation of every coordinate, the square roots
// of the diagonal of Cov.
func (d *Draws) SD() []float64 {
	c := d.Cov()
	if c == nil {
		return nil
	}
	sd := make([]float64, d.Dim)
	for j := range sd {
		sd[j] = math.Sqrt(c[j*d.Dim+j])
	}
	return sd
}

// ESS returns the effective sample size of the weights, Kish's
// (Σw)²/Σw², which is Len() for equal weights. For MCMC draws the
// autocorrelation-aware sizes are ESSBulk and ESSTail.
func (d *Draws) ESS() float64 {
	if !d.valid() {
		return math.NaN()
	}
	if d.Weights == nil {
		return float64(d.Len())
	}
	return stats.ESS(d.Weights)
}

// sorted returns coordinate j sorted with its normalised weights (nil for
// equal weights), as diag.Sorted.
func (d *Draws) sorted(j int) (xs, ws []float64, ok bool) {
	if !d.valid() || j < 0 || j >= d.Dim {
		return nil, nil, false
	}
	xs, ws, err := diag.Sorted(d.Column(j), d.Weights)
	return xs, ws, err == nil
}

// Quantile returns the p-quantile of coordinate j. With equal weights it
// is the type-7 quantile of R and NumPy (linear interpolation between
// order statistics placed at k/(n−1)); with unequal weights each sorted
// draw is placed at the midpoint of its cumulative weight and the
// quantile interpolates linearly between those points. NaN draws are
// ignored.
func (d *Draws) Quantile(j int, p float64) float64 {
	xs, ws, ok := d.sorted(j)
	if !ok {
		return math.NaN()
	}
	return diag.Quantile(xs, ws, p)
}

// Quantiles returns the quantiles of coordinate j at every probability in
// ps (as Quantile), sorting once.
func (d *Draws) Quantiles(j int, ps ...float64) []float64 {
	out := make([]float64, len(ps))
	xs, ws, ok := d.sorted(j)
	for k, p := range ps {
		out[k] = math.NaN()
		if ok {
			out[k] = diag.Quantile(xs, ws, p)
		}
	}
	return out
}

// Interval returns the equal-tailed credible interval of probability
// level (0 < level < 1) of coordinate j: the (1−level)/2 and (1+level)/2
// quantiles.
func (d *Draws) Interval(j int, level float64) (lo, hi float64) {
	if !(level > 0 && level < 1) {
		return math.NaN(), math.NaN()
	}
	q := d.Quantiles(j, (1-level)/2, (1+level)/2)
	return q[0], q[1]
}

// HDI returns the highest-density interval of probability level
// (0 < level < 1) of coordinate j: the narrowest interval between two
// draws holding that probability. With equal weights it is ArviZ's
// az.hdi (the interval spans ⌊level·n⌋ + 1 sorted draws); with weights
// it is the narrowest [x_(a), x_(b)] whose draws carry weight ≥ level.
// It describes one mode; for a multimodal marginal the union of
// intervals may be shorter.
func (d *Draws) HDI(j int, level float64) (lo, hi float64) {
	xs, ws, ok := d.sorted(j)
	if !ok {
		return math.NaN(), math.NaN()
	}
	return diag.HDI(xs, ws, level)
}

// chains returns coordinate j split into its chains (one chain when
// Chains is 0), or an error for weighted or invalid draws.
func (d *Draws) chains(j int) ([][]float64, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if j < 0 || j >= d.Dim {
		return nil, invalidf("coordinate %d out of range [0, %d)", j, d.Dim)
	}
	if d.Weights != nil {
		return nil, invalidf("convergence diagnostics need unweighted draws; use ESS for the weights' effective sample size")
	}
	col := d.Column(j)
	m := max(d.Chains, 1)
	n := len(col) / m
	out := make([][]float64, m)
	for c := range out {
		out[c] = col[c*n : (c+1)*n : (c+1)*n]
	}
	return out, nil
}

// diagnose applies a chain diagnostic to coordinate j.
func (d *Draws) diagnose(j int, f func([][]float64) (float64, error)) (float64, error) {
	ch, err := d.chains(j)
	if err != nil {
		return math.NaN(), err
	}
	v, err := f(ch)
	if err != nil {
		return v, fmt.Errorf("privinfer: %s: %w", d.ParamNames()[j], err)
	}
	return v, nil
}

// RHat returns the rank-normalised split R̂ of coordinate j (Vehtari et
// al. 2021): the larger of the bulk and tail R̂ over the split chains.
// Values above 1.01 indicate chains that have not mixed. Weighted draws
// give an error wrapping ErrInvalid, and degenerate draws (fewer than 6
// draws per chain, non-finite or constant draws) NaN and an error
// wrapping ErrDegenerate.
func (d *Draws) RHat(j int) (float64, error) { return d.diagnose(j, diag.RHat) }

// ESSBulk returns the bulk effective sample size of coordinate j: the
// ESS of the rank-normalised split chains (Vehtari et al. 2021). Errors
// as RHat.
func (d *Draws) ESSBulk(j int) (float64, error) { return d.diagnose(j, diag.ESSBulk) }

// ESSTail returns the tail effective sample size of coordinate j: the
// smaller ESS of the indicators of the 5% and 95% quantiles. Errors as
// RHat.
func (d *Draws) ESSTail(j int) (float64, error) { return d.diagnose(j, diag.ESSTail) }

// MCSEMean returns the Monte Carlo standard error of the mean of
// coordinate j: sd/√ESS with the mean ESS of the split chains, and for
// weighted draws sd/√ESS with Kish's ESS of the weights (the usual
// approximation for self-normalised importance sampling). Errors as
// RHat, except that weighted draws are accepted.
func (d *Draws) MCSEMean(j int) (float64, error) {
	if d.Weighted() && d.Validate() == nil && j >= 0 && j < d.Dim {
		sd := d.SD()
		if sd == nil {
			return math.NaN(), fmt.Errorf("%w: fewer than two weighted draws", ErrDegenerate)
		}
		return sd[j] / math.Sqrt(d.ESS()), nil
	}
	return d.diagnose(j, diag.MCSEMean)
}

// MCSESD returns the Monte Carlo standard error of the standard deviation
// of coordinate j, ArviZ's delta-method mcse_sd over the split chains.
// Errors as RHat.
func (d *Draws) MCSESD(j int) (float64, error) { return d.diagnose(j, diag.MCSESD) }

// Resample draws n equally weighted draws from d by systematic
// resampling: one uniform u ~ U[0, 1/n) and the points u + k/n,
// k = 0..n−1, select draw i as often as they fall into its slice of the
// cumulative normalised weights, so draw i appears ⌊n·w_i⌋ or ⌈n·w_i⌉
// times. The result is unweighted and unchained, with the same names. For
// unweighted draws it is a stratified subsample (or replication) of the
// rows in their order.
func (d *Draws) Resample(r *rand.Rand, n int) (*Draws, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, invalidf("Resample needs a non-nil *rand.Rand")
	}
	if n < 1 {
		return nil, invalidf("Resample size n must be >= 1, got %d", n)
	}
	m := d.Len()
	if m == 0 {
		return nil, invalidf("Resample needs at least one draw")
	}
	total := float64(m)
	if d.Weights != nil {
		total = 0
		for _, w := range d.Weights {
			total += w
		}
	}
	out := &Draws{Dim: d.Dim, Theta: make([]float64, 0, n*d.Dim)}
	if d.Names != nil {
		out.Names = append([]string(nil), d.Names...)
	}
	weight := func(i int) float64 {
		if d.Weights == nil {
			return 1
		}
		return d.Weights[i]
	}
	last := m - 1 // the last row with positive weight
	for weight(last) == 0 {
		last--
	}
	u := r.Float64() / float64(n)
	cum := 0.0
	i := 0
	for k := range n {
		pos := u + float64(k)/float64(n)
		// Zero-weight rows are passed over here: cum ≤ pos already holds.
		for i < last && cum+weight(i)/total <= pos {
			cum += weight(i) / total
			i++
		}
		out.Theta = append(out.Theta, d.Row(i)...)
	}
	return out, nil
}

// Map returns the draws of derived quantities: row i of the result is
// f applied to row i of d, with len(names) coordinates named names (for
// example R0 = β/γ from (β, γ)). Weights and chain structure are kept,
// so every statistic of the result is the posterior statistic of the
// derived quantity. f writes into dst (length len(names)) and must not
// retain theta or dst.
func (d *Draws) Map(names []string, f func(theta, dst []float64)) (*Draws, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if f == nil {
		return nil, invalidf("Map needs a non-nil function")
	}
	if err := checkNames(names, len(names)); err != nil {
		return nil, err
	}
	k := len(names)
	if k == 0 {
		return nil, invalidf("Map needs at least one name")
	}
	out := &Draws{Names: append([]string(nil), names...), Dim: k, Chains: d.Chains, Theta: make([]float64, d.Len()*k)}
	if d.Weights != nil {
		out.Weights = append([]float64(nil), d.Weights...)
	}
	row := make([]float64, d.Dim)
	for i := range d.Len() {
		copy(row, d.Row(i)) // f cannot modify d through theta
		f(row, out.Theta[i*k:(i+1)*k:(i+1)*k])
	}
	return out, nil
}
