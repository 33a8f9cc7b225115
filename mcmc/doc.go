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
// with a release density η(s_dp | s) (any mechanism.Density; a
// *mechanism.Laplace release takes a faster lattice path with the same
// weights) and the Observed s_dp. It checks
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
// pass over the contribution matrix. For a Laplace release the chain also
// keeps the statistic and the contributions in the mechanism's grid units
// (an exact power-of-two scaling, contributions stored column-major), so a
// weight costs one subtraction, rounding and absolute value per coordinate
// and SOMA's pass runs coordinate by coordinate over all slots (on amd64
// in AVX-512 or AVX2 assembly, as are SOMA's n exponentials); the
// weights are those of Laplace.LogDensity, bit for bit on amd64, and the
// draws are the same with or without the assembly. Steps allocate
// nothing.
//
// # When SOMA pays off
//
// SOMA's acceptance dominates random-scan IMwG's for every state and
// proposal, but one SOMA attempt evaluates all n record weights where
// IMwG evaluates one. Program examples/soma/table measures both sides on
// the SBI paper's linear regression (σ² known, the 9-dimensional Laplace
// release simulated at the paper's β, 4 chains from the prior, every
// quoted cell with split R̂ below 1.02). At n = 100 and 20,000 sweeps per
// chain (go run ./examples/soma/table -n 100 -sweeps 20000 -seed 7), the
// smallest bulk ESS per 1000 sweeps of SOMA, systematic- and
// random-scan IMwG was 3.3, 4.8 and 3.6 at ε = 1; 6.8, 11.7 and 7.2 at
// ε = 3; 6.1, 9.0 and 5.8 at ε = 10; 20.8, 19.0 and 14.8 at ε = 30. So per
// sweep SOMA matches random-scan IMwG and beats it only where IMwG's
// acceptance falls (0.60 against SOMA's 0.99 at ε = 30), and systematic
// scan is as good or better at every ε; at n = 10 (4000 sweeps, the
// program's defaults) systematic scan led at every ε too. The slides'
// claim that SOMA mixes better at n = 100 is not borne out on this
// problem (their own n = 100 setting, a normal-inverse-gamma model with
// an unstated release, is run by examples/soma). Per CPU-second SOMA was 18 to 26 times slower than
// systematic scan at n = 100 and 3 to 4 times slower at n = 10 (at
// n = 1000 and ε = 10, 1500 sweeps per chain left R̂ up to 1.34, so per
// sweep nothing is settled there, but SOMA's ESS per CPU-second was about
// 1/170 of random scan's), with the
// lattice path at about 25–40 ns of CPU per record weight (110–210 ns
// through Laplace.LogDensity; a loaded machine). Those per-second ratios
// predate the vectorised pass: with AVX-512 the n weights now cost about
// 1.5 ns of CPU per record weight at n = 1000 (2 ns at n = 100), against
// 18–23 ns before, and a whole SOMA attempt, exponentials and slot choice
// included, about 3.7 ns per record weight at n = 1000 (6.3 ns at n =
// 100), against 26–34 ns (BenchmarkSOMAWeights, alternating runs on the
// same loaded machine), so SOMA's cost per sweep fell five- to sevenfold
// and its per-second disadvantage above shrinks by about that factor
// (to roughly 3–5 times at n = 100; not re-measured). With AVX2 only (an
// AMD Zen 3, loaded) the n weights cost about 3.2–3.5 ns of CPU per record
// weight at n = 1000 (3.3–4.4 ns at n = 100) and a whole attempt about
// 5.8–6.7 ns (9–13 ns at n = 100). On this evidence
// SOMA can pay off only when IMwG's acceptance is low (little noise: a large ε
// for the sensitivity) and a sweep's cost is dominated by something other
// than its n² weights, such as a θ-step or record proposal much dearer
// than n weights, and even then systematic scan matched it per sweep;
// otherwise prefer SystematicScanIMwG.
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
