package gibbsss

import (
	"context"
	"errors"
	"fmt"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// Config holds the engine's settings: the chain settings and the one model
// extension that a privinfer.Problem cannot express (PredictorPrior). The
// model, the release and the noise come from the Problem given to Run. The
// zero value is usable: 4 chains of 1000 draws, no warm-up, no thinning,
// the predictors' law known.
type Config struct {
	// PredictorPrior, if non-nil, makes the predictors' law N(μ_x, Σ_x)
	// unknown with this normal-inverse-Wishart prior, updated at every
	// iteration (Bernstein and Sheldon's model), in place of the law of
	// the Problem's record model. It lives here rather than in the
	// Problem because (μ_x, Σ_x) are nuisance parameters that the
	// Problem's Prior (on β, and σ²) does not carry and that the draws do
	// not report.
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
	// Seed selects the random streams; the result depends on it only.
	Seed uint64
	// Progress, if non-nil, receives events with Stage "chain", Step the
	// iterations done over all chains and Total their number, at about
	// every percent of the run and at its end, from the goroutine that
	// called Run.
	Progress privinfer.ProgressFunc
}

// Validate checks the settings that do not depend on the Problem: the
// chain counts non-negative and within the size limits, and a
// PredictorPrior, when given, with Kappa > 0, DF finite and positive, and
// finite entries. The checks that need the number of predictors (lengths,
// DF > P − 1, Scale positive definite) are made by Run. Errors wrap
// ErrInvalid and name the field.
func (c Config) Validate() error {
	s := spec{P: 1, Sigma2: 1, Chains: c.Chains, Warmup: c.Warmup, Draws: c.Draws, Thin: c.Thin}
	if _, err := s.settings(); err != nil {
		return err
	}
	if pp := c.PredictorPrior; pp != nil {
		if err := positive("PredictorPrior.Kappa", pp.Kappa); err != nil {
			return err
		}
		if err := positive("PredictorPrior.DF", pp.DF); err != nil {
			return err
		}
		for _, v := range [][]float64{pp.Mean, pp.Scale} {
			for i, x := range v {
				if !finite(x) {
					return invalidf("PredictorPrior entry %d must be finite, got %v", i, x)
				}
			}
		}
	}
	return nil
}

// Run samples the posterior of β (and σ²) of the linear regression whose
// sufficient statistics problem p released, with cfg.Chains parallel
// Gibbs-SS chains, and returns the draws named by p.Names (beta0, …,
// betaP and sigma2 when p.Names is nil).
//
// The sampler is specific to one model, so it reads the model off the
// Problem rather than taking a general record model:
//
//   - Simulator: a *simulate.MeanStat of n records of a *linreg.Model
//     (known σ² and predictors' law N(m, Σ), the model's clamping bound as
//     the statistics' scale) or of a *linreg.NIG (σ² unknown with its
//     inverse-gamma prior, predictors N(m, I));
//   - Prior: for a *linreg.Model a Gaussian prior on β, a *simulate.MVNormal
//     (linreg.Prior gives the SBI paper's); for a *linreg.NIG the NIG
//     itself (it is its own prior);
//   - Mechanism: a *mechanism.Laplace releasing the StatDim(P) statistics;
//     the sampler models its noise on coordinate j as continuous Laplace
//     of scale NoiseScale(j), the scale of the lattice noise it releases;
//   - Observed: the release.
//
// Another simulator, prior or mechanism is refused with an error wrapping
// ErrInvalid that says what the sampler needs (privinfer.ErrNoRecords for
// a simulator without records, privinfer.ErrNoMechanism without a
// mechanism). It also returns an error wrapping ErrInvalid for an invalid
// Problem or cfg or a nil context, the context's error if it is
// cancelled, and a numerical error if a covariance stops being positive
// definite.
func Run(ctx context.Context, p privinfer.Problem, cfg Config) (*Result, error) {
	if ctx == nil {
		return nil, invalidf("context is nil")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s, err := specFrom(&p, cfg)
	if err != nil {
		return nil, err
	}
	return run(ctx, s)
}

// problemErr wraps an error of the Problem's checks: an invalid Problem is
// an invalid argument (both sentinels match), a missing capability keeps
// the root package's named error.
func problemErr(err error) error {
	if errors.Is(err, privinfer.ErrInvalid) {
		return fmt.Errorf("gibbsss: %w: %w", ErrInvalid, err)
	}
	return fmt.Errorf("gibbsss: %w", err)
}

// specFrom reads the model, the release and the noise off p and joins the
// chain settings of cfg.
func specFrom(p *privinfer.Problem, cfg Config) (spec, error) {
	if err := p.Validate(); err != nil {
		return spec{}, problemErr(err)
	}
	rec, n, err := p.Records()
	if err != nil {
		return spec{}, problemErr(err)
	}
	if p.Mechanism == nil {
		return spec{}, problemErr(fmt.Errorf("%w: Gibbs-SS models the Laplace noise of a release, so it needs a Mechanism", privinfer.ErrNoMechanism))
	}
	lap, ok := p.Mechanism.(*mechanism.Laplace)
	if !ok {
		return spec{}, invalidf("Problem.Mechanism must be a *mechanism.Laplace (the sampler writes its noise as a scale mixture of normals), got %T", p.Mechanism)
	}
	s := spec{N: n, Observed: p.Observed, PredictorPrior: cfg.PredictorPrior, Names: p.Names,
		Chains: cfg.Chains, Warmup: cfg.Warmup, Draws: cfg.Draws, Thin: cfg.Thin, Seed: cfg.Seed, Progress: cfg.Progress}
	switch m := rec.(type) {
	case *linreg.Model:
		mc := m.Config()
		s.P, s.Scale, s.Sigma2 = m.P(), mc.Clamp, mc.Sigma2
		if cfg.PredictorPrior == nil {
			s.PredictorMean, s.PredictorCov = mc.PredictorMean, mc.PredictorCov
		}
		g, ok := p.Prior.(*simulate.MVNormal)
		if !ok {
			return spec{}, invalidf("Problem.Prior must be a Gaussian prior on β (*simulate.MVNormal, as linreg.Prior returns) for a *linreg.Model, got %T", p.Prior)
		}
		s.PriorMean, s.PriorCov = g.Mean(), g.Cov()
	case *linreg.NIG:
		nc := m.Config()
		if p.Prior != simulate.Prior(m) {
			return spec{}, invalidf("Problem.Prior must be the *linreg.NIG of the record model (its own prior), got %T", p.Prior)
		}
		d := len(nc.PredictorMean) + 1
		s.P, s.Scale, s.Sigma2Shape, s.Sigma2Scale = d-1, nc.Clamp, nc.A0, nc.B0
		s.PriorMean = make([]float64, d)
		s.PriorCov = make([]float64, d*d)
		for j := range d {
			s.PriorCov[j*d+j] = nc.G
		}
		if cfg.PredictorPrior == nil {
			s.PredictorMean = nc.PredictorMean
			s.PredictorCov = nil // the identity
		}
	default:
		return spec{}, invalidf("Problem.Simulator must hold a *linreg.Model or *linreg.NIG record model (the sampler's statistic layout and conjugate updates are linear regression's), got %T", rec)
	}
	k := StatDim(s.P)
	if lap.Dim() != k {
		return spec{}, invalidf("Problem.Mechanism releases %d statistics, want StatDim(%d) = %d", lap.Dim(), s.P, k)
	}
	s.scales = make([]float64, k)
	for j := range k {
		s.scales[j] = lap.NoiseScale(j)
	}
	s.LaplaceScale = s.scales[0]
	if err := s.validate(); err != nil {
		return spec{}, err
	}
	return s, nil
}
