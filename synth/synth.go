// Package synth generates differentially private synthetic datasets by
// model-based synthesis (modips): sanitize the posterior of a Bayesian
// model, draw parameters from it and release data simulated from them.
//
// The procedure is Algorithm 1 of Liu, "Model-based differentially private
// data synthesis and statistical inference in multiple synthetic datasets"
// (Transactions on Data Privacy 15, 2022). With a total budget ε, an
// optional private model selection spends ε0 through the exponential
// mechanism and each of the m synthetic datasets spends (ε − ε0)/m on a
// sanitized posterior draw θ*(j); the dataset x̃*(j) ~ f(x | θ*(j)) is
// post-processing. Every privacy-consuming step is a mechanism value
// charged to a mechanism.Accountant, and Modips fails unless the charges
// add up to ε exactly.
//
// Posterior sanitizers:
//   - SSS (sanitization of sufficient statistics) with communal or
//     individualized budget allocation and BIT or truncation bounding, for
//     the conjugate models BetaBernoulli, GaussianMean, GaussianNIG,
//     PoissonGamma and CategoricalDirichlet (the last three built on the
//     priors and conjugate updates of package simulate/conjugate);
//   - SiDD, SiDDMC and SiPHiC for posteriors known only up to a density or
//     through samples, on product grids in any dimension;
//   - model-free synthesis from a sanitized histogram, with the bootstrap
//     variant (HistogramModel);
//   - model-free modips.SSS (PredictiveSSS): sanitized predictive
//     sufficient cell counts, synthetic data drawn from the Pólya-urn
//     predictive given them, with no parameter in between.
//
// Every release of confidential data (model selection, sanitized
// statistics, histograms, predictive counts, the sanitizers' bin
// statistics) goes through a Releaser: it is charged to an accountant and its noise is drawn from the
// operating system's secure generator, whatever *rand.Rand was passed in.
// Config.Reproducible (Releaser.Reproducible) is the explicit opt-out for
// seeded simulation studies and tests. Inference on the confidential data
// (posterior sampling) and synthesis from sanitized parameters draw from
// the *rand.Rand passed in. No result type carries a data-dependent value
// that was not released through a mechanism; the size of the data set is
// public, as in the paper.
//
// Analyses of the m released sets are combined with package combine
// (rule combine.DPSynthesis).
package synth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/mechanism"
)

// Sentinel errors (wrapped) of this package.
var (
	// ErrInvalid is wrapped by every error reporting an invalid argument
	// (ε ≤ 0, m < 1, c0 ≥ c1, n < 1, weights not summing to one, …),
	// including a model or releaser whose privacy charges do not add up
	// to the stated total budget. The message names the argument.
	ErrInvalid = errors.New("synth: invalid argument")
)

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// mechErr wraps an error from package mechanism: argument errors (invalid
// parameters, dimensions, non-finite or out-of-domain statistics) also
// wrap ErrInvalid, so that callers test one sentinel.
func mechErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, mechanism.ErrInvalid) {
		return argcheck.Also(err, ErrInvalid)
	}
	return fmt.Errorf("synth: %w", err)
}

// Budget limits: releases need ε in [minEpsilon, maxEpsilon].
const (
	minEpsilon = 0x1p-30
	maxEpsilon = 0x1p40
)

// checkEps validates a release budget.
func checkEps(name string, eps float64) error {
	if !(eps >= minEpsilon && eps <= maxEpsilon) {
		return invalidf("%s must be in [2^-30, 2^40], got %v", name, eps)
	}
	return nil
}

// Posterior is a sanitized posterior distribution f*(θ | x). Sampling
// from it is post-processing and costs no privacy.
type Posterior interface {
	// Sample draws θ* into theta (length Dim).
	Sample(r *rand.Rand, theta []float64) error
	// Dim is the parameter dimension.
	Dim() int
}

// Model is a Bayesian data model modips can synthesize from.
type Model interface {
	// RecordDim is the number of values per record; datasets are flat
	// row-major slices of n·RecordDim values.
	RecordDim() int
	// Sanitize returns a sanitized posterior given confidential data x,
	// releasing every data-dependent quantity through rel, whose
	// accountant it charges a total privacy loss eps. Inference on the
	// confidential data inside Sanitize (posterior sampling) draws from r.
	Sanitize(r *rand.Rand, x []float64, eps float64, rel Releaser) (Posterior, error)
	// Synthesize fills dst with len(dst)/RecordDim records drawn from
	// f(x | theta). It must not read confidential data.
	Synthesize(r *rand.Rand, theta, dst []float64) error
}

// Releaser performs a sanitizer's releases of confidential statistics:
// it charges every release to Accountant and draws its noise from the
// operating system's secure generator, whatever *rand.Rand the sanitizer
// was given, unless Reproducible is set.
type Releaser struct {
	// Accountant is charged for every release; it must not be nil.
	Accountant *mechanism.Accountant
	// Reproducible is the explicit opt-out of the secure generator: the
	// noise is drawn from the sanitizer's *rand.Rand, so that seeded
	// simulation studies and tests are reproducible. Anyone who learns
	// the seed can subtract the noise: never set it for a release of
	// confidential data.
	Reproducible bool
}

// release charges m's budget and releases s through m into dst.
func (rl Releaser) release(m mechanism.Mechanism, r *rand.Rand, s, dst []float64) error {
	if rl.Accountant == nil {
		return invalidf("releaser has no accountant")
	}
	if rl.Reproducible {
		if r == nil {
			return invalidf("a reproducible release needs a non-nil *rand.Rand")
		}
		return mechErr(rl.Accountant.Release(mechanism.Reproducible(m), r, s, dst))
	}
	return mechErr(rl.Accountant.Release(m, mechanism.NewCryptoRand(), s, dst))
}

// Limits on sizes, so that absurd configurations are refused with an
// error instead of exhausting memory.
const (
	// MaxSets bounds the number of synthetic data sets M·Nested.
	MaxSets = 1 << 16
	// MaxValues bounds the total number of synthetic values
	// M·Nested·N·RecordDim.
	MaxValues = 1 << 28
)

// Config configures Modips.
type Config struct {
	// M is the number of synthetic datasets (≥ 1).
	M int
	// Epsilon is the total privacy budget (> 0).
	Epsilon float64
	// Epsilon0 is the part of Epsilon spent on private model selection;
	// it must be in (0, Epsilon) when Selection has more than one
	// candidate and 0 otherwise.
	Epsilon0 float64
	// N is the size of each synthetic dataset in records; 0 means the
	// size of the original data (public knowledge in modips).
	N int
	// Nested is the number t ≥ 1 of datasets drawn from each sanitized
	// posterior (nested modips, App. A); 0 means 1 (standard modips).
	// Nested releases are pooled with combine.PoolNested, which separates
	// the sanitization and synthesis components of the between-set
	// variance.
	Nested int
	// Reproducible draws the release noise from the *rand.Rand given to
	// Modips instead of the operating system's generator (see Releaser):
	// for seeded simulation studies only.
	Reproducible bool
}

// Selection is a finite set of candidate models with a utility score for
// private model selection by the exponential mechanism.
type Selection struct {
	Candidates []Model
	// Utility scores candidate i on the confidential data; larger is
	// better.
	Utility func(i int, x []float64) float64
	// Sensitivity is the global sensitivity Δu of Utility over
	// neighbouring datasets (> 0).
	Sensitivity float64
}

// Release is the output of Modips.
type Release struct {
	// Sets holds the m·t synthetic datasets; with nested modips set
	// (i, k) is Sets[i*t+k].
	Sets [][]float64
	// Model is the index of the selected candidate (0 without selection).
	Model int
	// T is the number of datasets per sanitized posterior (1 unless
	// nested).
	T int
	// PerSet is the budget spent on each sanitized posterior.
	PerSet mechanism.Budget
	// Spent is the total budget charged, equal to Config.Epsilon.
	Spent mechanism.Budget
}

// Modips runs Algorithm 1 on confidential data x (flat records). With a
// single candidate in sel (or sel.Candidates of length 1) no selection is
// made and Epsilon0 must be 0. Each sanitized posterior receives budget
// (Epsilon − Epsilon0)/M; an accountant verifies the charges add up to
// Epsilon. Every release of confidential data (selection, sanitized
// statistics, histograms) draws its noise from the operating system's
// generator; posterior sampling and synthesis draw from r. With
// cfg.Reproducible every draw comes from r, so the output depends on r's
// seed only. Sizes beyond MaxSets sets or MaxValues values are refused.
func Modips(ctx context.Context, r *rand.Rand, sel Selection, x []float64, cfg Config) (*Release, error) {
	if r == nil {
		return nil, invalidf("nil *rand.Rand")
	}
	if cfg.M < 1 || cfg.M > MaxSets {
		return nil, invalidf("m must be in [1, %d], got %d", MaxSets, cfg.M)
	}
	if err := checkEps("epsilon", cfg.Epsilon); err != nil {
		return nil, err
	}
	if len(sel.Candidates) == 0 {
		return nil, invalidf("need at least one candidate model")
	}
	for i, c := range sel.Candidates {
		if c == nil {
			return nil, invalidf("candidate %d is nil", i)
		}
	}
	multi := len(sel.Candidates) > 1
	if multi {
		if !(cfg.Epsilon0 > 0 && cfg.Epsilon0 < cfg.Epsilon) {
			return nil, invalidf("epsilon0 must be in (0, epsilon=%v) with %d candidates, got %v", cfg.Epsilon, len(sel.Candidates), cfg.Epsilon0)
		}
		if err := checkEps("epsilon0", cfg.Epsilon0); err != nil {
			return nil, err
		}
		if sel.Utility == nil {
			return nil, invalidf("selection needs a utility")
		}
		if err := checkPos("selection sensitivity", sel.Sensitivity); err != nil {
			return nil, err
		}
	} else if cfg.Epsilon0 != 0 {
		return nil, invalidf("epsilon0 must be 0 without model selection, got %v", cfg.Epsilon0)
	}
	t := cfg.Nested
	if t == 0 {
		t = 1
	}
	if t < 1 || t > MaxSets || cfg.M*t > MaxSets {
		return nil, invalidf("nested count must be in [0, %d] with m·nested <= %d, got %d", MaxSets, MaxSets, cfg.Nested)
	}
	if cfg.N < 0 || cfg.N > MaxValues {
		return nil, invalidf("n must be in [1, %d] (or 0 for the original size), got %d", MaxValues, cfg.N)
	}
	if len(x) == 0 {
		return nil, invalidf("confidential data are empty")
	}
	if math.IsNaN(cfg.Epsilon0) || math.IsInf(cfg.Epsilon0, 0) {
		return nil, invalidf("epsilon0 must be finite, got %v", cfg.Epsilon0)
	}
	acct, err := mechanism.NewAccountant(mechanism.Budget{Epsilon: cfg.Epsilon})
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	rl := Releaser{Accountant: acct, Reproducible: cfg.Reproducible}
	rel := &Release{T: t}
	if multi {
		k, err := selectModel(r, sel, x, cfg.Epsilon0, rl)
		if err != nil {
			return nil, err
		}
		rel.Model = k
	}
	model := sel.Candidates[rel.Model]
	p := model.RecordDim()
	if p < 1 || len(x) == 0 || len(x)%p != 0 {
		return nil, invalidf("data length %d is not a positive multiple of the record dimension %d", len(x), p)
	}
	n := cfg.N
	if n == 0 {
		n = len(x) / p
	}
	if float64(n)*float64(p)*float64(cfg.M*t) > MaxValues {
		return nil, invalidf("%d sets of %d records of dimension %d exceed %d values", cfg.M*t, n, p, MaxValues)
	}
	per := (cfg.Epsilon - cfg.Epsilon0) / float64(cfg.M)
	if err := checkEps("epsilon per set (epsilon − epsilon0)/m", per); err != nil {
		return nil, err
	}
	rel.PerSet = mechanism.Budget{Epsilon: per}
	rel.Sets = make([][]float64, 0, cfg.M*t)
	theta := []float64(nil)
	for j := 0; j < cfg.M; j++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		before := acct.Spent().Epsilon
		post, err := model.Sanitize(r, x, per, rl)
		if err != nil {
			return nil, fmt.Errorf("synth: set %d: %w", j, err)
		}
		if d := acct.Spent().Epsilon - before; math.Abs(d-per) > 1e-9*per {
			return nil, invalidf("budget: set %d charged ε=%v, want %v", j, d, per)
		}
		if cap(theta) < post.Dim() {
			theta = make([]float64, post.Dim())
		}
		theta = theta[:post.Dim()]
		for k := 0; k < t; k++ {
			if err := post.Sample(r, theta); err != nil {
				return nil, fmt.Errorf("synth: set %d: %w", j, err)
			}
			ds := make([]float64, n*p)
			if err := model.Synthesize(r, theta, ds); err != nil {
				return nil, fmt.Errorf("synth: set %d: %w", j, err)
			}
			rel.Sets = append(rel.Sets, ds)
		}
	}
	rel.Spent = acct.Spent()
	if math.Abs(rel.Spent.Epsilon-cfg.Epsilon) > 1e-9*cfg.Epsilon {
		return nil, invalidf("budget: charged ε=%v, stated Config.Epsilon %v", rel.Spent.Epsilon, cfg.Epsilon)
	}
	return rel, nil
}

// Single wraps one model as a Selection without model selection.
func Single(m Model) Selection { return Selection{Candidates: []Model{m}} }
