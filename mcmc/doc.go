// Package mcmc provides Markov chain Monte Carlo for posteriors given
// privatized data: general samplers over a log-density Target, convergence
// diagnostics, and data-augmentation MCMC whose latent-record updates use
// random-scan IMwG, systematic-scan IMwG or SOMA.
//
// # Samplers
//
// A Target is an unnormalised log density on R^d (every simulate.Prior is
// one); a GradTarget also supplies its gradient. Run samples a Target with
// a Method on several chains in parallel (chain c on its own random stream
// derived from (Config.Seed, c), so results depend on the seed only), with
// warm-up, thinning, a context and Config.Progress, and returns a Result
// whose Draws are a chain-major *privinfer.Draws: its Summary, RHat,
// ESSBulk, ESSTail and MCSE methods are the convergence diagnostics. The
// Methods are AdaptiveMetropolis (Haario et al. 2001 in the
// Roberts–Rosenthal mixture form, adapted during warm-up and then frozen),
// Slice (Neal 2003 stepping-out and shrinkage, coordinatewise or
// hit-and-run) and NUTS (Hoffman and Gelman 2014 with dual averaging); each
// builds one Kernel, a chain's Markov transition, per chain. A NaN log
// density stops the run with an error wrapping ErrNaN.
//
// # Diagnostics on plain series
//
// RHat, ESSBulk, ESSTail, ESSMean and MCSEMean take one series per chain
// ([][]float64) and are the rank-normalised split R̂ and effective sample
// sizes of Vehtari et al. (2021), as in Stan and ArviZ; Autocorrelation
// gives sample autocorrelations. They share one implementation with
// privinfer.Draws. Degenerate input (no chains, too few draws, non-finite
// or constant draws) yields NaN and an error wrapping ErrDegenerate that
// states the reason.
//
// # Data augmentation for privatized data
//
// RunDA takes the same privinfer.Problem as every other engine: its Prior,
// a record-level Simulator (a *simulate.MeanStat: records x_i ~ f(·|θ),
// contributions t(x_i), s(x) the mean of the contributions), a Mechanism
// with a release density η(s_dp | s) (any mechanism.Density; the Laplace
// mechanism has a vectorised fast path) and the Observed s_dp. It checks
// both with Problem.Require and returns the root package's named error
// when one is missing. DAConfig holds the engine's own knobs: the θ-step
// (ThetaStep, an update of θ that leaves π(θ | x) invariant, whose prior
// must be the Problem's),
// the record step (RandomScanIMwG, SystematicScanIMwG or SOMA) and the
// chain settings. Every iteration is a Sweep of a DAChain: n attempts of
// the record step followed by the θ-step. Record proposals are y ~ f(·|θ),
// so the slides' weights reduce to w_0 = η(s_dp | s(x)) and w_i = η(s_dp |
// s(x) + t(y) − t(x_i)); they are kept in log space, the statistic is
// updated in O(dim s) per accepted move and recomputed from the stored
// contributions at every θ-step, and SOMA computes its n weights in one
// pass over the contiguous contribution matrix. Steps allocate nothing.
//
// NewMetropolisTheta builds a θ-step for any such Problem from its Prior
// and the record model's RecordLogLik (random-walk Metropolis moves that
// leave π(θ | x) invariant); the conjugate θ-steps below are exact draws.
//
// LinRegConjugate is the exact conjugate θ-step of Bayesian linear
// regression with known noise variance, and LinRegNIG the
// normal-inverse-gamma model (its prior, record model, θ-step and
// Coupler). CoupleDA runs coupled pairs of chains on a Problem with common
// random numbers and maximal couplings and returns their meeting times.
// The papers' linear-regression settings (the SBI paper's releases, the
// slides' n = 10 table) are in subpackage linregda.
package mcmc
