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
// IMwG evaluates one. On the SBI paper's linear regression
// (examples/reproduce/soma/table) SOMA matched random scan per sweep, systematic
// scan was as good or better everywhere, and per CPU-second SOMA was
// slower than systematic scan by a factor that grows with n, even with
// its vectorised weights; the slides' claim that SOMA mixes better at
// n = 100 is not borne out there (measured in mcmc/BENCHMARKS.md). So
// SOMA can pay off only when IMwG's acceptance is low (little noise: a
// large ε for the sensitivity) and a sweep's cost is dominated by
// something other than its n² weights, such as a θ-step or record
// proposal much dearer than n weights, and even then systematic scan
// matched it per sweep; otherwise prefer SystematicScanIMwG.
//
// # The cost of a SOMA sweep
//
// A SOMA sweep cannot be made to cost close to an IMwG sweep: its record
// weights admit no incremental or shared computation, so it does Θ(n²)
// weight evaluations where IMwG does Θ(n). The argument, for the model
// proposal used here (y ~ f(·|θ), so w_j = η(s_dp | s + (t(y) − t(x_j))/n)):
//
//  1. An attempt moves to slot i with probability P_i = w_i·min{1/W,
//     1/(W + w_0 − w_i)}, W = Σ_j w_j, and stays with 1 − Σ_i P_i. For a
//     fixed fresh y, changing one weight w_j (through x_j) changes W and
//     with it every P_i, i ≠ j; so an attempt that evaluates these
//     probabilities must know every w_j, each at the cost of one weight.
//  2. No w_j can be carried over from an earlier attempt: every attempt
//     has a fresh y, and w_j depends on y and x_j jointly. For a Laplace
//     release log w_j = Σ_k (ℓ_k − λ_k·|K_k − round(a_k − t_jk)|) + const
//     with a = s + t(y) (grid units, as in the lattice path above), and
//     the absolute value of a sum does not split into a part of y and a
//     part of x_j, so a new a changes all n weights at once. A new y gives
//     a new a at every attempt, and so does an accepted move (it changes
//     s); a θ-step leaves the records and s alone but changes the law of
//     the next y, so no weight survives from one attempt to the next
//     whatever changed between them.
//
// So a SOMA sweep (n attempts) evaluates n² weights and their n²
// exponentials, besides the n proposals and the θ-step that both kernels
// share, while an IMwG sweep evaluates n of each. mcmc/BENCHMARKS.md
// measures what that costs on the SBI paper's linear regression ("A sweep
// at n = 100, and why SOMA's cannot be cheap"): per sweep SOMA mixes at
// best about as well as systematic scan, so to come within a factor 2 of
// it per CPU-second each of SOMA's extra weights, with its exponential and
// slot choice, would have to cost less than IMwG pays for one log weight
// and its exponential; and the gap grows with n. A randomised scheme that
// decides the acceptance without computing W (a Bernoulli factory, using
// that an ε-DP release bounds w_i/w_j by about e^ε) is conceivable, but
// its expected cost grows with that bound and it would be another
// algorithm; SOMA as specified is kept.
//
// NewMetropolisTheta builds a θ-step for any such Problem from its Prior
// and the record model's RecordLogLik (random-walk Metropolis moves that
// leave π(θ | x) invariant). A model with a conjugate posterior supplies
// an exact θ-step of its own: package simulate/linreg has linreg.Conjugate
// (Bayesian linear regression with known noise variance) and linreg.NIG
// (the normal-inverse-gamma model: its prior, record model, θ-step and
// Coupler); package mcmc depends on no model. CoupleDA runs coupled pairs of chains on a Problem with common
// random numbers and maximal couplings and returns their meeting times.
// The papers' linear-regression settings (the SBI paper's releases, the
// slides' n = 10 table) are in subpackage linregda.
package mcmc
