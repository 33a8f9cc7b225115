package privinfer

import (
	"context"
	"fmt"
	"github.com/privinfer/privinfer/internal/argcheck"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/internal/stats"
)

// SBCFit computes a posterior for one simulated data set of simulation-based
// calibration: p is the Problem given to SBC with Observed set to a release
// simulated from the prior predictive, and seed is the data set's own seed
// for the fit's randomness (an engine's Config.Seed). It returns posterior
// draws of p's parameters, weighted or not; SBC may call it concurrently
// for different data sets.
type SBCFit func(ctx context.Context, p Problem, seed uint64) (*Draws, error)

// SBCConfig configures SBC. The zero value is usable: 200 data sets, 99
// draws ranked per data set (ranks 0 to 99) and 20 rank bins.
type SBCConfig struct {
	// Datasets is the number of prior-predictive data sets, each fitted
	// once; 0 means 200.
	Datasets int
	// Draws is the number L of posterior draws each parameter is ranked
	// among, so ranks run from 0 to L; 0 means 99. Weighted draws are
	// resampled to L draws (Draws.Resample); unweighted draws must number
	// at least L and are thinned evenly to L, which for MCMC draws should
	// leave them nearly independent.
	Draws int
	// Bins is the number of bins of the rank histogram tested for
	// uniformity (2 ≤ Bins ≤ L+1); 0 means min(20, L+1, max(2,
	// Datasets/10)), about ten expected ranks per bin. Bins need not divide
	// L+1: each bin's expected count is exact.
	Bins int
	// Seed selects the random streams: data set i uses the stream of
	// (Seed, i) for θ, the release, the fit's seed and the resampling, so
	// the result depends on Seed and the fit only, never on scheduling.
	Seed uint64
	// Progress, if not nil, receives an event with Stage "dataset" after
	// every finished fit (Step of Total data sets), called from the
	// goroutine that called SBC.
	Progress ProgressFunc
}

// Limits of SBCConfig, refusing requests that cannot be allocated.
const (
	maxSBCDatasets = 1 << 24
	maxSBCDraws    = 1 << 24
)

// withDefaults returns c with the zero-value defaults applied.
func (c SBCConfig) withDefaults() SBCConfig {
	if c.Datasets == 0 {
		c.Datasets = 200
	}
	if c.Draws == 0 {
		c.Draws = 99
	}
	if c.Bins == 0 && c.Datasets > 0 && c.Draws > 0 {
		c.Bins = min(20, c.Draws+1, max(2, c.Datasets/10))
	}
	return c
}

// Validate checks the configuration: Datasets ≥ 1, Draws ≥ 1 and Bins in
// [2, Draws+1] after defaults, all within the size limits. Errors wrap
// ErrInvalid.
func (c SBCConfig) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Datasets < 1 || c.Datasets > maxSBCDatasets:
		return invalidf("SBCConfig.Datasets must be in [1, %d], got %d", maxSBCDatasets, c.Datasets)
	case c.Draws < 1 || c.Draws > maxSBCDraws:
		return invalidf("SBCConfig.Draws must be in [1, %d], got %d", maxSBCDraws, c.Draws)
	case c.Bins < 2 || c.Bins > c.Draws+1:
		return invalidf("SBCConfig.Bins must be in [2, Draws+1 = %d], got %d", c.Draws+1, c.Bins)
	}
	return nil
}

// SBCResult is the outcome of SBC: for every data set i and parameter j
// the true θ and its rank among the L posterior draws, and per parameter a
// chi-square test of the ranks' uniformity.
type SBCResult struct {
	// Names are the parameter names (the Problem's ParamNames).
	Names []string
	// Dim is the number of parameters; Datasets the number of data sets;
	// Draws the number L of draws each θ_j is ranked among; Bins the
	// number of rank bins of the chi-square test.
	Dim, Datasets, Draws, Bins int
	// Theta holds the true parameters, Datasets×Dim row-major.
	Theta []float64
	// Ranks holds rank_ij = #{l : draw_l[j] < θ_ij} ∈ {0, …, L}
	// (Datasets×Dim row-major), ties between a draw and θ broken
	// uniformly at random.
	Ranks []int
	// ChiSquare and PValue are, per parameter, Pearson's statistic of the
	// rank histogram against the uniform law on {0, …, L} grouped into
	// Bins bins, and its p-value (Bins − 1 degrees of freedom).
	ChiSquare, PValue []float64
}

// Histogram returns the counts of parameter j's ranks in the Bins bins:
// rank r falls in bin ⌊r·Bins/(L+1)⌋. Nil for j out of range.
func (r *SBCResult) Histogram(j int) []int {
	if r == nil || j < 0 || j >= r.Dim || r.Bins < 1 || len(r.Ranks) != r.Datasets*r.Dim {
		return nil
	}
	h := make([]int, r.Bins)
	for i := range r.Datasets {
		h[rankBin(r.Ranks[i*r.Dim+j], r.Draws, r.Bins)]++
	}
	return h
}

// rankBin is the bin of rank k ∈ {0, …, L} among bins.
func rankBin(k, L, bins int) int { return int(int64(k) * int64(bins) / int64(L+1)) }

// OverallPValue returns the Bonferroni-adjusted p-value of the hypothesis
// that every parameter's ranks are uniform: min(1, Dim·min_j PValue_j).
// NaN for a result without p-values.
func (r *SBCResult) OverallPValue() float64 {
	if r == nil || len(r.PValue) == 0 {
		return math.NaN()
	}
	m := math.Inf(1)
	for _, p := range r.PValue {
		if math.IsNaN(p) {
			return math.NaN()
		}
		m = min(m, p)
	}
	return min(1, float64(len(r.PValue))*m)
}

// Calibrated reports whether the uniformity of the ranks is not rejected
// at level alpha over all parameters jointly: OverallPValue() ≥ alpha. For
// an exact posterior it is false with probability at most alpha.
func (r *SBCResult) Calibrated(alpha float64) bool { return r.OverallPValue() >= alpha }

// String prints one line per parameter: the rank histogram, the
// chi-square statistic and its p-value.
func (r *SBCResult) String() string {
	if r == nil {
		return "<nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SBC: %d data sets, ranks among %d draws, %d bins (overall p = %.3g)\n", r.Datasets, r.Draws, r.Bins, r.OverallPValue())
	for j := range r.Dim {
		name := fmt.Sprintf("θ[%d]", j)
		if j < len(r.Names) {
			name = r.Names[j]
		}
		chi, p := math.NaN(), math.NaN()
		if j < len(r.ChiSquare) && j < len(r.PValue) {
			chi, p = r.ChiSquare[j], r.PValue[j]
		}
		fmt.Fprintf(&b, "%-12s χ² = %7.2f  p = %.3g  ranks %v\n", name, chi, p, r.Histogram(j))
	}
	return b.String()
}

// SBC runs simulation-based calibration (S. Talts, M. Betancourt, D.
// Simpson, A. Vehtari and A. Gelman (2018), Validating Bayesian inference
// algorithms with simulation-based calibration, arXiv:1804.06788, Alg. 1)
// of the posterior computed by fit on the model of p: for each of
// cfg.Datasets data sets it draws θ ~ p.Prior, a confidential summary
// s ~ p.Simulator(θ) and, when p has a Mechanism, a release through the
// mechanism's simulation path (Problem.ReleaseSimulator); it fits the
// problem with that release as Observed, reduces the draws to L = cfg.Draws
// (resampling weighted draws, thinning unweighted ones evenly) and records
// the rank of each θ_j among them. If fit returns the exact posterior, the
// ranks are uniform on {0, …, L} for every parameter; an over-confident
// posterior piles ranks at both ends, an over-dispersed one in the middle,
// a biased one on one side. The result's chi-square p-values test this.
//
// p.Observed is ignored (it may be nil); the rest of p must validate. Data
// sets are fitted in parallel; the result depends only on cfg.Seed and
// what fit computes from its arguments. A fit error, draws of the wrong
// dimension, with NaN, or unweighted and fewer than L, stop the run with
// an error naming the data set; ctx cancels it.
func SBC(ctx context.Context, p Problem, fit SBCFit, cfg SBCConfig) (*SBCResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if fit == nil {
		return nil, invalidf("SBC needs a non-nil fit function")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if !argcheck.Nil(p.Simulator) {
		p.Observed = make([]float64, max(p.Simulator.StatDim(), 0))
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	rs, err := p.ReleaseSimulator()
	if err != nil {
		return nil, err
	}
	d, sd, n, L := p.Prior.Dim(), p.Simulator.StatDim(), cfg.Datasets, cfg.Draws
	if n > maxSBCDatasets/d {
		return nil, invalidf("SBCConfig.Datasets = %d × %d parameters exceeds %d", n, d, maxSBCDatasets)
	}
	res := &SBCResult{Names: p.ParamNames(), Dim: d, Datasets: n, Draws: L, Bins: cfg.Bins,
		Theta: make([]float64, n*d), Ranks: make([]int, n*d)}
	one := func(i int, r *rand.Rand) error {
		theta := res.Theta[i*d : (i+1)*d]
		p.Prior.Sample(r, theta)
		obs := make([]float64, sd)
		if err := rs.Simulate(r, theta, obs); err != nil {
			return fmt.Errorf("privinfer: SBC data set %d: simulating θ = %v: %w", i, theta, err)
		}
		q := p
		q.Observed = obs
		draws, err := fit(ctx, q, r.Uint64())
		if err != nil {
			return fmt.Errorf("privinfer: SBC data set %d: fit: %w", i, err)
		}
		return rankDraws(r, i, draws, theta, L, res.Ranks[i*d:(i+1)*d])
	}
	if err := runSBC(ctx, n, cfg, one); err != nil {
		return nil, err
	}
	res.ChiSquare, res.PValue = make([]float64, d), make([]float64, d)
	expected := make([]float64, cfg.Bins)
	for k := 0; k <= L; k++ {
		expected[rankBin(k, L, cfg.Bins)]++
	}
	for b := range expected {
		expected[b] *= float64(n) / float64(L+1)
	}
	obs := make([]float64, cfg.Bins)
	for j := range d {
		for b, c := range res.Histogram(j) {
			obs[b] = float64(c)
		}
		res.ChiSquare[j], res.PValue[j], _ = stats.ChiSquareGOF(obs, expected, 0)
	}
	return res, nil
}

// rankDraws reduces draws to L rows and writes the rank of each θ_j among
// them into ranks.
func rankDraws(r *rand.Rand, i int, draws *Draws, theta []float64, L int, ranks []int) error {
	if draws == nil {
		return invalidf("SBC data set %d: fit returned nil draws", i)
	}
	if err := draws.Validate(); err != nil {
		return fmt.Errorf("privinfer: SBC data set %d: fit returned invalid draws: %w", i, err)
	}
	d := len(theta)
	if draws.Dim != d {
		return invalidf("SBC data set %d: fit returned draws of dimension %d, the prior's is %d", i, draws.Dim, d)
	}
	m := draws.Len()
	if m == 0 || (draws.Weights == nil && m < L) {
		return invalidf("SBC data set %d: fit returned %d unweighted draws, fewer than SBCConfig.Draws = %d", i, m, L)
	}
	for k, v := range draws.Theta {
		if math.IsNaN(v) {
			return invalidf("SBC data set %d: draw %d has NaN in coordinate %d", i, k/d, k%d)
		}
	}
	sel := selectDraws(r, draws, L)
	for j := range d {
		less, eq := 0, 0
		for l := range L {
			switch v := draws.Theta[sel[l]*d+j]; {
			case v < theta[j]:
				less++
			case v == theta[j]:
				eq++
			}
		}
		if eq > 0 {
			less += r.IntN(eq + 1)
		}
		ranks[j] = less
	}
	return nil
}

// selectDraws returns the indices of L rows of draws: L independent
// multinomial draws by weight for weighted draws (so the selected rows are
// independent draws of the weighted empirical law; systematic resampling
// would halve the probability of the extreme ranks), every row when there
// are L unweighted rows, and L evenly spaced rows from a random offset
// otherwise (thinning, which keeps independent draws independent and
// spreads MCMC draws over the chains).
func selectDraws(r *rand.Rand, draws *Draws, L int) []int {
	m := draws.Len()
	sel := make([]int, L)
	switch {
	case draws.Weights != nil:
		cum := make([]float64, m)
		c, last := 0.0, 0
		for k, w := range draws.Weights {
			c += w
			cum[k] = c
			if w > 0 {
				last = k
			}
		}
		for l := range sel {
			// The first row whose cumulative weight exceeds u; rounding
			// of u up to c selects the last row of positive weight.
			u := r.Float64() * c
			k, _ := slices.BinarySearch(cum, u)
			for k < last && cum[k] <= u {
				k++
			}
			sel[l] = min(k, last)
		}
	case m == L:
		for l := range sel {
			sel[l] = l
		}
	default:
		u := r.Float64()
		for l := range sel {
			sel[l] = min(int((float64(l)+u)*float64(m)/float64(L)), m-1)
		}
	}
	return sel
}

// runSBC runs one(i, stream(Seed, i)) for every data set in parallel and
// reports progress from the calling goroutine.
func runSBC(ctx context.Context, n int, cfg SBCConfig, one func(int, *rand.Rand) error) error {
	if cfg.Progress == nil {
		return parallel.Map(ctx, n, cfg.Seed, one)
	}
	start := time.Now()
	done := make(chan struct{}, n)
	type outcome struct {
		err   error
		panic any
	}
	out := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if v := recover(); v != nil {
				o.panic = v
			}
			out <- o
		}()
		o.err = parallel.Map(ctx, n, cfg.Seed, func(i int, r *rand.Rand) error {
			if err := one(i, r); err != nil {
				return err
			}
			done <- struct{}{}
			return nil
		})
	}()
	step := 0
	report := func() {
		step++
		cfg.Progress.Report(Progress{Stage: "dataset", Step: step, Total: n, Elapsed: time.Since(start)})
	}
	for {
		select {
		case <-done:
			report()
		case o := <-out:
			if o.panic != nil {
				panic(o.panic) // a panic in fit, re-raised in the caller's goroutine
			}
			for len(done) > 0 {
				<-done
				report()
			}
			return o.err
		}
	}
}
