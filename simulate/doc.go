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
// mcmc.Target.
//
// # Seams
//
// A Prior draws θ and evaluates log π(θ). A Simulator draws confidential
// data x ~ f(·|θ) and writes its summary s(x). Private(sim, mech) composes
// a Simulator with a mechanism.Mechanism into a Simulator of
// s_dp ~ η(·|s(x)), which is all that simulation-based inference (ABC,
// SPPE, SPLE) needs. Batch and PriorPredictive run many simulations on all
// cores with per-row random streams, so results depend on the seed only.
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
//   - SIR epidemics (SBI paper §4.1): the exact Gillespie simulator SIR,
//     binomial tau-leaping SIRTauLeap and the deterministic SIRODE, with the
//     paper's prior SIRPrior, record times SIRPaperTimes, R0 and the observed
//     releases SIRSyntheticRelease and Outbreaks.
//   - Bayesian linear regression (App. E.2): LinReg, with the 9-dimensional
//     clamped statistic and the releases LinRegRelease.
//   - Naive Bayes log-linear model (App. E.3): NaiveBayes, with the
//     additive-log-ratio parameterisation and NaiveBayesRelease.
//   - ABCDP models: UniformMixture (eq. 10) and CubicPolynomial (eq. 11).
//   - LDP data models: ClippedGaussian, ClippedExponential, Histogram and
//     RegressionInputs (linear and logistic).
//
// # Randomness and concurrency
//
// Every draw takes a *rand.Rand; nothing keeps global random state. All
// simulators are safe for concurrent use, and the SIR, linear regression
// and naive Bayes simulators allocate nothing per simulation after warm-up.
package simulate
