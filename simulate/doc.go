// Package simulate provides generative models: distributions and priors
// over parameters, simulators of confidential data summaries, and their
// composition with a privacy mechanism into simulators of private
// releases.
//
// # Distributions
//
// The distributions a simulator or a prior is written with are values
// with Sample(r *rand.Rand) and LogDensity: Normal, LogNormal, Uniform,
// HalfNormal, Exponential, Gamma and Beta (continuous, with CDF and
// Quantile), Poisson, Binomial and Categorical (discrete; SampleInt
// draws the count, LogDensity is the log mass), their truncations
// (Truncate), and the multivariate MVNormal, Dirichlet and Multinomial.
// Constructors validate their parameters and return errors wrapping
// ErrInvalid, refusing values for which draws would overflow or lose
// their meaning (subnormal scales, shapes above 1e20), so that LogDensity
// at a distribution's own draws is never NaN. Sample and LogDensity
// allocate nothing.
//
// A Prior is a distribution over the parameter vector θ: MVNormal,
// Dirichlet, Independent (a product of univariate components) and Concat
// (blocks of priors laid end to end). Its LogDensity makes it an
// mcmc.Target. A prior may also state a box that contains its support
// (the optional capability Bounded, read with SupportBox): a product of
// Uniform components is a box prior, bounded in every coordinate.
//
// # Seams
//
// A Prior draws θ and evaluates log π(θ). A Simulator draws confidential
// data x ~ f(·|θ) and writes its summary s(x). Private(sim, mech) composes
// a Simulator with a mechanism.Mechanism into a Simulator of
// s_dp ~ η(·|s(x)), which is all that simulation-based inference (ABC,
// SPPE, SPLE) needs. Batch and PriorPredictive run many simulations with
// per-row random streams, so results depend on the seed only.
//
// # Executors
//
// An Executor simulates a Block of parameter rows: row First+k of a run
// with the stream Stream(Seed, First+k), so its statistic depends on
// (Seed, index, θ) only and a run gives the same bits however it is cut
// into blocks and wherever they run. InProcess, the default of every
// engine, runs the rows on all cores; a remote executor (the nested module
// simulate/nats) ships blocks to workers that run RunBlock. Every engine
// that simulates takes one through its Config.Executor and hands it the
// Problem's confidential Simulator only: parameters are proposed, and the
// mechanism, distances and weights applied, on the driver. A failing row —
// a simulator error, a panic, a non-finite statistic — is reported as a
// *RowError naming its index and θ, the lowest failing row winning.
//
// Models whose data are i.i.d. records with a mean summary implement
// RecordModel: one record can be drawn given θ, its contribution t(x_i)
// computed and its log-likelihood evaluated. Data-augmentation MCMC keeps
// the records as latent variables and updates them one at a time through
// this interface (Records holds that latent state with a running
// statistic); MeanStat turns the same model into a Simulator of
// s = (1/n) Σ t(x_i), and Dataset into a simulator of the raw records (for
// local DP).
//
// # Models
//
// The papers' models, with their settings and observed releases, live in
// subpackages named after the model: simulate/sir (SIR epidemics, SBI
// paper §4.1), simulate/linreg (Bayesian linear regression, App. E.2),
// simulate/naivebayes (naive Bayes log-linear model, App. E.3),
// simulate/mixture and simulate/polynomial (the ABCDP paper's mixture of
// uniforms and cubic polynomial), simulate/tb (the ABCDP paper's
// tuberculosis birth–death outbreak model, §6.3), and simulate/clipped, simulate/histogram
// and simulate/regression (the LDP paper's data models). Their errors wrap
// ErrInvalid and ErrInvalidTheta.
//
// # Randomness and concurrency
//
// Every draw takes a *rand.Rand; nothing keeps global random state. All
// simulators are safe for concurrent use.
package simulate
