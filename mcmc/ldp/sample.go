package ldp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/mcmc"
)

// Posterior is a noise-aware posterior of this package, ready for Sample:
// an mcmc.Target (most are mcmc.GradTargets) on unconstrained coordinates
// x, and the map from x to the natural parameters θ that Sample reports.
// Every posterior type of the package implements it; a new LDP model adds
// a posterior type that does.
type Posterior interface {
	mcmc.Target
	// ParamNames returns the names of the natural parameters, in the
	// order Natural writes them.
	ParamNames() []string
	// Natural writes the natural (constrained) parameters θ of the
	// unconstrained coordinates x (length Dim()) into theta (length
	// len(ParamNames())).
	Natural(x, theta []float64)
}

// Compile-time checks that every posterior is a Posterior.
var (
	_ Posterior = (*GaussianPosterior)(nil)
	_ Posterior = (*ExponentialPosterior)(nil)
	_ Posterior = (*HistogramPosterior)(nil)
	_ Posterior = (*LinRegPosterior)(nil)
	_ Posterior = (*LogRegPosterior)(nil)
	_ Posterior = (*SuffStatPosterior)(nil)
	_ Posterior = (*SuffStatLogRegPosterior)(nil)
	_ Posterior = (*SuffStatLogRegCovPosterior)(nil)
	_ Posterior = (*SuffStatCovPosterior)(nil)
	_ Posterior = (*LinRegCovPosterior)(nil)
	_ Posterior = (*ProblemPosterior)(nil)
)

// defaultWarmup is Sample's warm-up when cfg.Warmup is 0.
const defaultWarmup = 1000

// Sample draws from the posterior p with the sampler m and returns the
// draws of the natural parameters (p.ParamNames, p.Natural), chain-major
// with Draws.Chains set, so Draws.RHat and ESSBulk diagnose the run. It
// runs mcmc.Run(ctx, p, m, cfg) on the unconstrained coordinates with
// the defaults of this package for the zero values of m and cfg:
//
//   - m nil: mcmc.NUTS{} for an mcmc.GradTarget (every posterior of the
//     package but SuffStatPosterior) and mcmc.Slice{} otherwise.
//   - cfg.Warmup 0: 1000 warm-up iterations per chain (mcmc.Run would
//     run none; the chains start away from the posterior and NUTS needs
//     the warm-up to adapt its step size). There is no way to ask for no
//     warm-up here; call mcmc.Run for that.
//   - cfg.Init and cfg.InitFunc both nil: chain c starts at
//     x_j = 0.1·N(0, 1) drawn from its own stream, a point near x = 0
//     (μ = 0 and σ = 1, θ uniform over the categories, and so on) rather
//     than mcmc.Run's N(0, I). Init and InitFunc, when set, hold or write
//     unconstrained points, as for mcmc.Run.
//   - cfg.Names nil: p.ParamNames(). Non-nil Names name the natural
//     parameters and must have the length of p.ParamNames().
//
// cfg.Chains, Draws, Thin, Seed and Progress mean what they mean for
// mcmc.Run (0 chains means 4, 0 draws means 1000, Thin 0 means 1). The
// draws depend on (p, m, cfg) only: Sample with settings s gives the
// same bits as mcmc.Run with s's defaults written out, mapped by
// p.Natural.
//
// It returns an error wrapping ErrInvalid (and, for a bad cfg, with
// mcmc's message and matching mcmc.ErrInvalid too) for a nil or unbuilt posterior, a nil context or an
// invalid cfg, the context's error when it is cancelled, and the
// sampler's errors otherwise.
func Sample(ctx context.Context, p Posterior, m mcmc.Method, cfg mcmc.Config) (*privinfer.Draws, error) {
	if argcheck.Nil(p) || p.Dim() < 1 || math.IsNaN(p.LogDensity(make([]float64, p.Dim()))) {
		return nil, fmt.Errorf("%w: p is nil or was not built by its constructor", ErrInvalid)
	}
	if ctx == nil {
		return nil, fmt.Errorf("%w: ctx is nil", ErrInvalid)
	}
	names := p.ParamNames()
	if cfg.Names != nil {
		if len(cfg.Names) != len(names) {
			return nil, fmt.Errorf("%w: cfg.Names has %d names, the posterior has %d natural parameters %v", ErrInvalid, len(cfg.Names), len(names), names)
		}
		names = cfg.Names
		cfg.Names = nil // mcmc.Run names the unconstrained coordinates
	}
	if err := cfg.Validate(); err != nil {
		return nil, argcheck.Also(err, ErrInvalid)
	}
	if argcheck.Nil(m) {
		if _, ok := p.(mcmc.GradTarget); ok {
			m = mcmc.NUTS{}
		} else {
			m = mcmc.Slice{}
		}
	}
	if cfg.Warmup == 0 {
		cfg.Warmup = defaultWarmup
	}
	if cfg.Init == nil && cfg.InitFunc == nil {
		cfg.InitFunc = func(_ int, r *rand.Rand, x []float64) error {
			for j := range x {
				x[j] = 0.1 * r.NormFloat64()
			}
			return nil
		}
	}
	res, err := mcmc.Run(ctx, p, m, cfg)
	if errors.Is(err, mcmc.ErrInvalid) {
		return nil, argcheck.Also(err, ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("ldp: %w", err)
	}
	d, err := res.Draws.Map(names, p.Natural)
	if err != nil {
		return nil, argcheck.Also(err, ErrInvalid) // repeated or empty cfg.Names
	}
	return d, nil
}

// thetaNames returns θ[0], …, θ[d−1] as "theta[j]".
func thetaNames(d int, extra ...string) []string {
	n := make([]string, 0, d+len(extra))
	for j := range d {
		n = append(n, fmt.Sprintf("theta[%d]", j))
	}
	return append(n, extra...)
}

// covNames returns the names "Sigma[r,c]" of the lower triangle of a d×d
// covariance, row by row.
func covNames(d int) []string {
	n := make([]string, 0, CovParams(d))
	for r := range d {
		for c := 0; c <= r; c++ {
			n = append(n, fmt.Sprintf("Sigma[%d,%d]", r, c))
		}
	}
	return n
}

// lowerTriangle writes the lower triangle of the d×d matrix s, row by
// row, into dst.
func lowerTriangle(s []float64, d int, dst []float64) {
	k := 0
	for r := range d {
		for c := 0; c <= r; c++ {
			dst[k] = s[r*d+c]
			k++
		}
	}
}

// ParamNames returns mu and sigma.
func (g *GaussianPosterior) ParamNames() []string { return []string{"mu", "sigma"} }

// Natural writes (μ, σ) = (x_0, e^{x_1}).
func (g *GaussianPosterior) Natural(x, theta []float64) { theta[0], theta[1] = x[0], math.Exp(x[1]) }

// ParamNames returns theta, the rate.
func (e *ExponentialPosterior) ParamNames() []string { return []string{"theta"} }

// Natural writes the rate θ = e^{x_0}.
func (e *ExponentialPosterior) Natural(x, theta []float64) { theta[0] = math.Exp(x[0]) }

// ParamNames returns theta[0], …, theta[d−1], the category probabilities.
func (h *HistogramPosterior) ParamNames() []string {
	if h.unbuilt() {
		return nil
	}
	return thetaNames(h.data.m.d)
}

// Natural writes the category probabilities θ (length d) of x (see Theta).
func (h *HistogramPosterior) Natural(x, theta []float64) { h.Theta(x, theta) }

// ParamNames returns theta[0], …, theta[d−1] and sigma.
func (p *LinRegPosterior) ParamNames() []string {
	if p == nil || p.f == nil {
		return nil
	}
	return thetaNames(p.f.d, "sigma")
}

// Natural writes (θ, σ) = (x_{0..d−1}, e^{x_d}).
func (p *LinRegPosterior) Natural(x, theta []float64) {
	d := p.f.d
	copy(theta[:d], x[:d])
	theta[d] = math.Exp(x[d])
}

// ParamNames returns theta[0], …, theta[d−1].
func (p *LogRegPosterior) ParamNames() []string { return thetaNames(p.Dim()) }

// Natural copies θ = x.
func (p *LogRegPosterior) Natural(x, theta []float64) { copy(theta, x) }

// ParamNames returns theta[0], …, theta[d−1] and sigma.
func (p *SuffStatPosterior) ParamNames() []string {
	if p == nil || p.s == nil {
		return nil
	}
	return thetaNames(p.s.d, "sigma")
}

// Natural writes (θ, σ) = (x_{0..d−1}, e^{x_d}).
func (p *SuffStatPosterior) Natural(x, theta []float64) {
	d := p.s.d
	copy(theta[:d], x[:d])
	theta[d] = math.Exp(x[d])
}

// ParamNames returns theta[0], …, theta[d−1].
func (p *SuffStatLogRegPosterior) ParamNames() []string { return thetaNames(p.Dim()) }

// Natural copies θ = x.
func (p *SuffStatLogRegPosterior) Natural(x, theta []float64) { copy(theta, x) }

// ParamNames returns theta[0], …, theta[d−1] and the lower triangle of Σ,
// Sigma[r,c] for c ≤ r, row by row.
func (p *SuffStatLogRegCovPosterior) ParamNames() []string {
	if p == nil || !p.s.built() {
		return nil
	}
	return append(thetaNames(p.s.d), covNames(p.s.d)...)
}

// Natural writes θ and the lower triangle of Σ (NaN where the coordinates
// of Σ are not finite).
func (p *SuffStatLogRegCovPosterior) Natural(x, theta []float64) {
	d := p.s.d
	copy(theta[:d], x[:d])
	s := make([]float64, d*d)
	if p.Sigma(x, s) != nil {
		for i := range s {
			s[i] = math.NaN()
		}
	}
	lowerTriangle(s, d, theta[d:])
}

// ParamNames returns theta[0], …, theta[d−1], sigma and the lower
// triangle of Σ, Sigma[r,c] for c ≤ r, row by row.
func (p *SuffStatCovPosterior) ParamNames() []string {
	if p == nil || p.c == nil {
		return nil
	}
	return p.c.names()
}

// Natural writes θ, σ = e^{x_d} and the lower triangle of Σ.
func (p *SuffStatCovPosterior) Natural(x, theta []float64) { p.c.natural(x, theta) }

// ParamNames returns theta[0], …, theta[d−1], sigma and the lower
// triangle of Σ, Sigma[r,c] for c ≤ r, row by row.
func (p *LinRegCovPosterior) ParamNames() []string {
	if p == nil || p.c == nil {
		return nil
	}
	return p.c.names()
}

// Natural writes θ, σ = e^{x_d} and the lower triangle of Σ.
func (p *LinRegCovPosterior) Natural(x, theta []float64) { p.c.natural(x, theta) }

func (c *covPost) names() []string {
	return append(thetaNames(c.d, "sigma"), covNames(c.d)...)
}

func (c *covPost) natural(x, theta []float64) {
	d := c.d
	copy(theta[:d], x[:d])
	theta[d] = math.Exp(x[d])
	s := make([]float64, d*d)
	if lc := c.cov.Cov(x[d+1:], d, s); math.IsNaN(lc) {
		for i := range s {
			s[i] = math.NaN()
		}
	}
	lowerTriangle(s, d, theta[d+1:])
}
