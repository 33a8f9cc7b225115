// Package privinfer is a library for Bayesian inference from privatized
// data: a data curator releases only a differentially private summary
// s_dp of confidential data x, and an analyst wants the posterior
// π(θ | s_dp) of a model's parameters, corrected for the privacy noise.
//
// The library also covers the curator's side: mechanisms that make
// releases private, private approximate Bayesian computation that releases
// posterior samples, and differentially private synthetic data with valid
// rules for combining analyses over several synthetic sets.
//
// # Data flow
//
//	θ ~ Prior ──► Simulator: x ~ f(·|θ), s(x) ──► Mechanism η: s_dp ~ η(·|s) ──► observed s_dp
//	                                                                          │
//	  abc  (rejection, SMC-ABC, ABCDP)  ◄─────── simulate and compare ────────┤
//	  mcmc (DA-MCMC: IMwG / SOMA; LDP marginal likelihoods) ◄── likelihoods ──┤
//	  flow (SPPE, SPLE: spline flows + qmc inner integrals) ◄── simulate+fit ─┘
//	                                  │
//	                          posterior samples θ
//	                                  │
//	  synth (modips): θ* → synthetic datasets x̃*(1..m) ──► combine: pooled estimate, variance, df, CI
//
// # One vocabulary
//
// The package itself holds the nouns every engine speaks:
//
//   - Problem: the prior, the confidential simulator, the mechanism (nil
//     for non-private inference), the observed release and optional
//     parameter names. The same value goes to every posterior engine; each
//     checks the capability it needs with Require (a release density, a
//     uniform transform, a record-level simulator) and returns an error
//     wrapping ErrNoMechanism, ErrNoDensity, ErrNoTransform or ErrNoRecords
//     that says what is missing. ReleaseSimulator composes the simulator
//     with the mechanism for engines that simulate releases.
//   - Draws: posterior samples, n×Dim row-major with optional importance
//     weights and optional MCMC chains, with weighted means, covariances,
//     quantiles, equal-tailed and highest-density intervals, Kish's ESS,
//     the rank-normalised split R̂ and bulk/tail ESS of Vehtari et al.
//     (2021), a Summary table printed like ArviZ's az.summary, systematic
//     resampling, CSV and JSON forms that keep NaN and infinities, and a
//     corner plot as SVG.
//   - Progress and ProgressFunc: the one progress event of every long run,
//     delivered through an engine's Config.Progress.
//   - SBC: simulation-based calibration of any engine's posterior (given as
//     a fit function) over prior-predictive data sets, with a chi-square
//     test of the ranks' uniformity.
//
// # One dialect
//
// Every package speaks the same way (internal/apicheck's test enforces
// the parts that can be read off the source: constructor arity and
// configuration types, same-typed parameters in mechanism, the sentinels,
// doc comments, measurements in comments and the names below):
//
//   - Constructors: a constructor with more than one numeric argument
//     takes a Config struct (named fields, documented zero values, a
//     Validate method naming the field at fault); a single obvious
//     argument stays positional (simulate.NewPoisson(λ), histogram.New(d));
//     a dimension is always a field named Dim. Random sources are the last
//     positional argument. A configuration is its own type (TConfig for
//     NewT), never the type being built. Functions of package mechanism
//     and its subpackages take no two positional numbers of one type
//     that could be swapped unnoticed: bounds are named fields (Lo, Hi of
//     aggregate.Config), save for the few with a fixed conventional order
//     (Clamp(x, lo, hi), a fraction num/den, a conversion ε(ρ, δ)); the
//     Gaussian calibrations take a GaussianConfig.
//   - Measurements live beside what they measure (benchmarks, RESULTS.md
//     and BENCHMARKS.md files, the reproduction report); doc comments
//     state the decisions and point there.
//   - Errors: each package has one invalid-argument sentinel, ErrInvalid,
//     whose text is "<pkg>: invalid argument"; every argument error wraps
//     it once and reads "<pkg>: invalid argument: <argument> <constraint>",
//     the constraint a "must …" clause ("Config.Epsilon must be > 0, got
//     -1") or, after a colon, what is wrong with the value ("r: truncated
//     after 12 bytes").
//     An error passed on from another package keeps its own text and also
//     matches the caller's ErrInvalid (errors.Is sees both), so no prefix
//     repeats. The other exported errors name conditions that are not bad
//     arguments: a missing capability (ErrNoMechanism, ErrNoDensity, …), a
//     refusal (mechanism.ErrBudgetExceeded), a result (ErrDegenerate), a
//     file (ErrCorrupt). A simulation failure is always the failing row's
//     *simulate.RowError, whichever engine ran it (read it with errors.As).
//   - Doc comments: every exported name has one beginning with its name.
//   - Seeded noise: a release draws from the operating system's generator
//     (mechanism.CryptoSource) by default; the one opt-out for reproducible
//     studies and tests is named Reproducible: mechanism.Reproducible(m)
//     for a mechanism value, a Reproducible field in a Config (abc, synth,
//     mechanism/aggregate, mechanism/ldp/sgd), StartReproducible for a
//     sparse vector session; no exported name contains "Seeded".
//   - Names: a log density is LogDensity (never LogProb…); the settings of
//     a published study (Paper…) live in its model package
//     (simulate/<model>, mcmc/linregda) or in examples/.
//
// # Packages
//
//   - mechanism: differential privacy mechanisms as values that release,
//     evaluate their release density, and map uniform variates to releases.
//   - simulate: distributions and priors, simulators of confidential
//     summaries, record models, private simulators and batch simulation;
//     its subpackages hold the papers' models with their settings and
//     observed releases: simulate/sir, simulate/linreg and
//     simulate/naivebayes (SBI paper), simulate/mixture,
//     simulate/polynomial and simulate/tb (ABCDP paper), simulate/clipped,
//     simulate/histogram and simulate/regression (LDP paper); and
//     simulate/sbibm holds four tasks of the sbibm benchmark with loaders
//     for its reference posteriors; simulate/conjugate holds record models
//     with exact conjugate θ-steps for data augmentation (Poisson–gamma,
//     categorical–Dirichlet, normal–normal-inverse-gamma).
//   - abc: rejection ABC, SMC-ABC for privatized data, and ABCDP.
//   - mcmc: Markov chain samplers, data augmentation for privatized data,
//     convergence diagnostics, local-DP noise-aware models (mcmc/ldp), and
//     Bernstein and Sheldon's sufficient-statistics Gibbs sampler for
//     linear regression from noisy statistics (mcmc/gibbsss).
//   - flow: spline normalizing flows and sequential neural posterior and
//     likelihood estimation from privatized data.
//   - qmc: Sobol point sets with scrambling, and randomized QMC estimates.
//   - synth: model-based DP synthetic data (modips) and its variants.
//   - combine: rules for combining analyses of m synthetic datasets.
//
// Randomness is always passed in as a *rand.Rand from math/rand/v2, and
// parallel work uses per-task streams derived from one seed, so results
// depend only on the seed.
//
// # References
//
// The library implements five works. Doc comments throughout cite them by
// the short names on the left, with a section, equation, algorithm,
// table or figure ("SBI paper §3.4", "modips paper Thm 7"):
//
//   - SBI paper: Y. Xiong, N. P. Ju and S. Zhang (2025), Simulation-based
//     Bayesian inference from privacy protected data, Transactions on
//     Machine Learning Research (03/2025), https://openreview.net/forum?id=SB7JzhDG45;
//     arXiv:2310.12781. SMC-ABC for privatized data, SPPE and SPLE with
//     spline flows and RQMC inner integrals, the DP infection-curve
//     mechanism, the SIR, linear-regression and naive Bayes models and
//     the outbreak data.
//   - the slides: Y. Xiong, with N. P. Ju (2026), Inference from
//     privatized data: sampling-based and variational-based Bayesian
//     computation, slides, Department of Statistics, Purdue University,
//     April 2026. Data-augmentation MCMC with the IMwG (random and
//     systematic scan) and SOMA record kernels, their acceptance bounds and
//     the n = 10 linear-regression setting.
//   - ABCDP paper: M. Park, M. Vinaroz and W. Jitkrittum (2021), ABCDP:
//     approximate Bayesian computation with differential privacy, Entropy
//     23(8), 961, https://doi.org/10.3390/e23080961. Rejection ABC with the
//     sparse vector technique, its noise calibration, flip probability and
//     error bounds, the mixture-of-uniforms and COVID polynomial examples.
//   - LDP paper: T. Kulkarni, J. Jälkö, S. Kaski and A. Honkela (2021),
//     Locally differentially private Bayesian inference, arXiv:2110.14426.
//     Noise-aware models under local DP with closed-form marginal
//     likelihoods (clipped Gaussian and exponential, OUE histograms, linear
//     and logistic regression), the analytic Gaussian mechanism and the
//     sensitivities.
//   - modips paper: F. Liu (2022), Model-based differentially private data
//     synthesis and statistical inference in multiple synthetic datasets,
//     Transactions on Data Privacy 15. modips and nested modips, the SSS,
//     SiDD, SiDD.MC and SiPHiC posterior-sanitisation procedures, budget
//     allocation, and the combination rule for m synthetic sets (Thm 7).
//
// Data-augmentation MCMC for privatized data originates in N. P. Ju,
// J. Awan, R. Gong and V. Rao (2022), Data augmentation MCMC for Bayesian
// inference from privatized data, Advances in Neural Information
// Processing Systems 35, cited as "Ju et al. 2022"; other works are cited
// in full where they are used.
package privinfer
