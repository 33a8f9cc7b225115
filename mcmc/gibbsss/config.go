package gibbsss

import (
	"errors"
	"fmt"
	"math"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/linalg"
)

// ErrInvalid is wrapped by every error reporting an invalid argument: a
// non-finite, non-positive or out-of-range setting, a slice of the wrong
// length, a matrix that is not symmetric positive definite, a nil context,
// or contradictory settings.
var ErrInvalid = errors.New("gibbsss: invalid argument")

// NIW is a normal-inverse-Wishart prior on the predictors' mean and
// covariance: Σ_x ~ InvWishart(DF, Scale) (mean Scale/(DF − p − 1) when DF
// > p + 1) and μ_x | Σ_x ~ N(Mean, Σ_x/Kappa), in the records' original
// units.
type NIW struct {
	// Mean is the prior mean of μ_x (length p); nil means zeros.
	Mean []float64
	// Kappa > 0 is the prior's number of pseudo-observations for μ_x.
	Kappa float64
	// Scale is the inverse-Wishart scale matrix Ψ (p×p, row-major,
	// symmetric positive definite); nil means the identity.
	Scale []float64
	// DF > p − 1 is the inverse-Wishart degrees of freedom ν.
	DF float64
}

// spec holds the model, the release and the chain settings of one run, as
// Run reads them off a privinfer.Problem and a Config. There is no usable
// zero value: P, N, Observed and LaplaceScale are required,
// and so is either a known σ² (Sigma2) or its prior (Sigma2Shape,
// Sigma2Scale), and either the predictors' law (PredictorMean) or its
// prior (PredictorPrior).
type spec struct {
	// P ≥ 1 is the number of predictors; β = (β_0, …, β_P).
	P int
	// N ≥ 1 is the number of records whose mean statistic was released.
	N int
	// Observed is the release s_dp, of length StatDim(P), in the layout of
	// the package documentation.
	Observed []float64
	// LaplaceScale b > 0 is the scale of the Laplace noise on every
	// coordinate of Observed (sensitivity/ε).
	LaplaceScale float64
	// scales, if non-nil, are per-coordinate Laplace scales (length
	// StatDim(P)) that replace LaplaceScale.
	scales []float64
	// Scale C > 0 is the number every raw predictor and response was
	// divided by before the statistics were formed (the SBI paper's
	// clamping bound, 10); 0 means 1.
	Scale float64

	// PriorMean is m_0, the prior mean of β (length P + 1); nil means zeros.
	PriorMean []float64
	// PriorCov is V_0 ((P+1)×(P+1), row-major, symmetric positive
	// definite): the prior covariance of β when Sigma2 is known, and
	// Cov(β | σ²)/σ² when it is not; nil means the identity.
	PriorCov []float64
	// Sigma2 > 0 is the known noise variance σ²; 0 means σ² is unknown with
	// the InvGamma(Sigma2Shape, Sigma2Scale) prior (density ∝
	// v^(−Sigma2Shape−1) exp(−Sigma2Scale/v)), and the draws then have a
	// last column sigma2.
	Sigma2 float64
	// Sigma2Shape and Sigma2Scale > 0 are the inverse-gamma prior of σ²
	// when Sigma2 is 0; both must be 0 when Sigma2 is set.
	Sigma2Shape, Sigma2Scale float64

	// PredictorMean (length P) and PredictorCov (P×P, row-major, symmetric
	// positive definite; nil means the identity) are the known law of the
	// predictors. Both must be nil when PredictorPrior is set.
	PredictorMean, PredictorCov []float64
	// PredictorPrior, if non-nil, makes the predictors' law unknown with
	// this prior, updated at every iteration.
	PredictorPrior *NIW

	// Chains is the number of chains; 0 means 4. They run in parallel,
	// chain c on its own random stream derived from (Seed, c), each
	// starting from a draw of the prior.
	Chains int
	// Warmup iterations are discarded; 0 means none.
	Warmup int
	// Draws is the number of retained draws per chain; 0 means 1000.
	Draws int
	// Thin keeps every Thin-th iteration after warm-up; 0 means 1.
	Thin int
	// Seed selects the random streams.
	Seed uint64
	// Names are the parameter names of the returned Draws (one per
	// column); nil means beta0, …, betaP and, when σ² is unknown, sigma2.
	Names []string
	// Progress, if non-nil, receives events with Stage "chain", Step the
	// iterations done over all chains and Total their number, at about
	// every percent of the run and at its end, from the goroutine that
	// called Run.
	Progress privinfer.ProgressFunc
}

// Defaults and limits of the chain settings.
const (
	defaultChains = 4
	defaultDraws  = 1000
	maxChains     = 1 << 16
	maxValues     = 1 << 31 // retained draws × columns over all chains
	maxP          = 64
)

// StatDim returns the length of the released statistic for p predictors,
// (p+1) + 1 + (p+1)(p+2)/2 − 1 (9 for p = 2), or 0 for p < 1 or p too
// large.
func StatDim(p int) int {
	if p < 1 || p > maxP {
		return 0
	}
	d := p + 1
	return d + 1 + d*(d+1)/2 - 1
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("gibbsss: "+format+": %w", append(args, ErrInvalid)...)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// checkVec checks an optional vector of length n with finite entries.
func checkVec(name string, v []float64, n int, required bool) error {
	if v == nil {
		if required {
			return invalidf("%s is required (length %d)", name, n)
		}
		return nil
	}
	if len(v) != n {
		return invalidf("%s must have length %d, got %d", name, n, len(v))
	}
	for i, x := range v {
		if !finite(x) {
			return invalidf("%s[%d] must be finite, got %v", name, i, x)
		}
	}
	return nil
}

// checkSPD checks an optional n×n symmetric positive-definite matrix.
func checkSPD(name string, a []float64, n int) error {
	if a == nil {
		return nil
	}
	if err := checkVec(name, a, n*n, false); err != nil {
		return err
	}
	for i := range n {
		for j := range i {
			x, y := a[i*n+j], a[j*n+i]
			if math.Abs(x-y) > 1e-12*math.Max(math.Abs(x), math.Abs(y)) {
				return invalidf("%s must be symmetric, [%d,%d] = %v but [%d,%d] = %v", name, i, j, x, j, i, y)
			}
		}
	}
	l := make([]float64, n*n)
	if err := linalg.Cholesky(a, n, l); err != nil {
		return invalidf("%s must be positive definite (%v)", name, err)
	}
	return nil
}

func positive(name string, v float64) error {
	if !finite(v) || v <= 0 {
		return invalidf("%s must be finite and > 0, got %v", name, v)
	}
	return nil
}

// Validate checks every field: P in [1, 64]; N ≥ 1; Observed of length
// StatDim(P) with finite entries; LaplaceScale finite and > 0; Scale 0 or
// finite and > 0; PriorMean and PriorCov of the right lengths, finite, the
// covariance symmetric positive definite; exactly one of Sigma2 > 0 and
// (Sigma2Shape, Sigma2Scale) > 0; exactly one of PredictorMean (with an
// optional PredictorCov) and PredictorPrior, each well formed; the chain
// counts non-negative and within the size limits; Names one distinct
// non-empty name per column. Errors name the field and wrap ErrInvalid.
func (c spec) validate() error {
	if c.P < 1 || c.P > maxP {
		return invalidf("P must be in [1, %d], got %d", maxP, c.P)
	}
	if c.N < 1 {
		return invalidf("N must be >= 1, got %d", c.N)
	}
	p, d := c.P, c.P+1
	if err := checkVec("Observed", c.Observed, StatDim(p), true); err != nil {
		return err
	}
	if err := positive("LaplaceScale", c.LaplaceScale); err != nil {
		return err
	}
	if c.scales != nil {
		if err := checkVec("Laplace scales", c.scales, StatDim(p), true); err != nil {
			return err
		}
		for j, b := range c.scales {
			if err := positive(fmt.Sprintf("Laplace scale %d", j), b); err != nil {
				return err
			}
		}
	}
	if c.Scale != 0 {
		if err := positive("Scale", c.Scale); err != nil {
			return err
		}
	}
	if err := checkVec("PriorMean", c.PriorMean, d, false); err != nil {
		return err
	}
	if err := checkSPD("PriorCov", c.PriorCov, d); err != nil {
		return err
	}
	switch {
	case math.IsNaN(c.Sigma2) || c.Sigma2 < 0 || math.IsInf(c.Sigma2, 0):
		return invalidf("Sigma2 must be finite and >= 0 (0: unknown), got %v", c.Sigma2)
	case c.Sigma2 > 0:
		if c.Sigma2Shape != 0 || c.Sigma2Scale != 0 {
			return invalidf("Sigma2Shape and Sigma2Scale must be 0 when Sigma2 is known, got %v and %v", c.Sigma2Shape, c.Sigma2Scale)
		}
	default:
		if err := positive("Sigma2Shape (σ² unknown: Sigma2 is 0)", c.Sigma2Shape); err != nil {
			return err
		}
		if err := positive("Sigma2Scale (σ² unknown: Sigma2 is 0)", c.Sigma2Scale); err != nil {
			return err
		}
	}
	if c.PredictorPrior == nil {
		if err := checkVec("PredictorMean (no PredictorPrior)", c.PredictorMean, p, true); err != nil {
			return err
		}
		if err := checkSPD("PredictorCov", c.PredictorCov, p); err != nil {
			return err
		}
	} else {
		if c.PredictorMean != nil || c.PredictorCov != nil {
			return invalidf("PredictorMean and PredictorCov must be nil when PredictorPrior is set")
		}
		pp := c.PredictorPrior
		if err := checkVec("PredictorPrior.Mean", pp.Mean, p, false); err != nil {
			return err
		}
		if err := positive("PredictorPrior.Kappa", pp.Kappa); err != nil {
			return err
		}
		if err := checkSPD("PredictorPrior.Scale", pp.Scale, p); err != nil {
			return err
		}
		if !finite(pp.DF) || pp.DF <= float64(p-1) {
			return invalidf("PredictorPrior.DF must be finite and > P − 1 = %d, got %v", p-1, pp.DF)
		}
	}
	_, err := c.settings()
	return err
}

// chainSettings are the chain counts with defaults applied.
type chainSettings struct {
	chains, warmup, draws, thin, cols int
}

func (s chainSettings) iters() int { return s.warmup + s.draws*s.thin }

// cols returns the number of columns of the draws.
func (c spec) cols() int {
	if c.Sigma2 > 0 {
		return c.P + 1
	}
	return c.P + 2
}

// settings checks and resolves the chain settings and the names.
func (c spec) settings() (chainSettings, error) {
	s := chainSettings{chains: c.Chains, warmup: c.Warmup, draws: c.Draws, thin: c.Thin, cols: c.cols()}
	switch {
	case c.Chains < 0:
		return s, invalidf("Chains must be >= 0 (0 means %d), got %d", defaultChains, c.Chains)
	case c.Warmup < 0:
		return s, invalidf("Warmup must be >= 0, got %d", c.Warmup)
	case c.Draws < 0:
		return s, invalidf("Draws must be >= 0 (0 means %d), got %d", defaultDraws, c.Draws)
	case c.Thin < 0:
		return s, invalidf("Thin must be >= 0 (0 means 1), got %d", c.Thin)
	}
	if s.chains == 0 {
		s.chains = defaultChains
	}
	if s.draws == 0 {
		s.draws = defaultDraws
	}
	if s.thin == 0 {
		s.thin = 1
	}
	if s.chains > maxChains {
		return s, invalidf("Chains must be <= %d, got %d", maxChains, s.chains)
	}
	if s.draws > maxValues/s.cols/s.chains {
		return s, invalidf("Chains·Draws·columns = %d·%d·%d exceeds %d stored values", s.chains, s.draws, s.cols, maxValues)
	}
	if s.draws > (math.MaxInt-s.warmup)/s.thin {
		return s, invalidf("Warmup + Draws·Thin = %d + %d·%d overflows", s.warmup, s.draws, s.thin)
	}
	if c.Names != nil {
		if len(c.Names) != s.cols {
			return s, invalidf("Names must have one name per column (%d), got %d", s.cols, len(c.Names))
		}
		d := privinfer.Draws{Names: c.Names, Dim: s.cols}
		if err := d.Validate(); err != nil {
			return s, fmt.Errorf("gibbsss: Names: %w: %w", ErrInvalid, err)
		}
	}
	return s, nil
}

// names returns the column names.
func (c spec) names() []string {
	if c.Names != nil {
		return append([]string(nil), c.Names...)
	}
	out := make([]string, 0, c.cols())
	for j := range c.P + 1 {
		out = append(out, fmt.Sprintf("beta%d", j))
	}
	if c.Sigma2 == 0 {
		out = append(out, "sigma2")
	}
	return out
}

func nan() float64 { return math.NaN() }
