// Package mcmc provides Markov chain Monte Carlo for posteriors given
// privatized data: general samplers over a log-density Target, convergence
// diagnostics, and data-augmentation MCMC whose latent-record updates use
// random-scan IMwG, systematic-scan IMwG or SOMA.
//
// # Samplers
//
// A Target is an unnormalised log density on R^d; a GradTarget also
// supplies its gradient. Run samples a Target with a Method on several
// chains in parallel (chain c uses the random stream parallel.Stream(seed,
// c), so results depend on the seed only), with warm-up, thinning, a
// context and a progress callback. The Methods are AdaptiveMetropolis
// (Haario et al. 2001 in the Roberts–Rosenthal mixture form, adapted
// during warm-up and then frozen), Slice (Neal 2003 stepping-out and
// shrinkage, coordinatewise or hit-and-run) and NUTS (Hoffman and Gelman
// 2014 with dual averaging). A NaN log density stops the run with an
// error wrapping ErrNaN.
//
// # Diagnostics
//
// RHat, ESSBulk, ESSTail, ESSMean and MCSEMean implement the rank-normalised
// split R̂ and effective sample sizes of Vehtari et al. (2021), as in Stan
// and ArviZ; Autocorrelation gives sample autocorrelations and Summarize
// collects them with posterior quantiles. Degenerate input (no chains, too
// few draws, non-finite or constant draws) yields NaN and an error wrapping
// ErrDegenerate that states the reason. The diagnostics are shared with
// privinfer.Draws; internal/diag/testdata/gen_diagnostics.py is an
// independent pure-Python implementation of the published formulas whose
// values on committed reference chains the tests reproduce.
//
// # Data augmentation for privatized data
//
// A DAModel couples a simulate.RecordModel (records x_i ~ f(·|θ), their
// contributions t(x_i), s(x) the mean or sum of the contributions), a
// release density η(s_dp | s) (any mechanism.Density; the Laplace
// mechanism has a vectorised fast path), the observed s_dp and a θ-step
// (ThetaSampler) drawing θ from π(θ | x). DAChain alternates n attempts of
// an XKernel with the θ-step (a Sweep). Record proposals are y ~ f(·|θ),
// so the slides' weights reduce to w_0 = η(s_dp | s(x)) and w_i = η(s_dp |
// s(x) + t(y) − t(x_i)); they are kept in log space, the statistic is
// updated in O(dim s) per accepted move and recomputed from the stored
// contributions at every θ-step, and SOMA computes its n weights in one
// pass over the contiguous contribution matrix. Steps allocate nothing.
//
// LinRegConjugate is the exact θ-step of Bayesian linear regression with
// known noise variance (the SBI paper's setting, with linreg.Model),
// and LinRegNIG is the normal-inverse-gamma model of the slides' n = 10
// table (SlidesN10). CoupleDA runs coupled pairs of chains with common
// random numbers and maximal couplings and returns their meeting times.
package mcmc
