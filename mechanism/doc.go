// Package mechanism provides differential privacy mechanisms as values that
// release statistics, evaluate their release densities and map uniform
// variates to releases.
//
// # Release versus simulation of a release
//
// One mechanism value serves three parties, and all views describe the
// same law:
//
//   - a curator calls Release(r, s, dst) on confidential data. Release is
//     floating-point safe by default: Laplace, Gaussian and Bounded
//     release on a power-of-two lattice with discrete Laplace or discrete
//     Gaussian noise sampled exactly with integer arithmetic (Canonne,
//     Kamath & Steinke 2020), randomized response and unary encoding use
//     exact integer thresholds, the sparse vector compares its queries with
//     its threshold on a lattice with exact discrete Laplace noise, and
//     every Release draws from the operating system's generator
//     (CryptoSource) whatever *rand.Rand is passed.
//     Release validates lengths, finiteness and domain, and refuses
//     statistics too large for the lattice (|s/γ| ≥ 2^52), returning an
//     error instead of ever releasing unprotected data;
//   - inference (ABC, SPPE/SPLE, calibration studies) simulates releases
//     with Simulate(m, r, s, dst) — SimulateRelease of the Simulator
//     interface — a fast floating-point path drawing from r, so seeded
//     runs are reproducible; it has the law of the secure release;
//   - an analyst evaluates LogDensity(sdp, s) = log η(s_dp | s) — for the
//     lattice mechanisms the pmf of the released grid point divided by the
//     grid spacing (the lattice law dequantized over its cell, so releases
//     made elsewhere also get a density) — and SPPE/SPLE losses push
//     uniform points through Apply(u, s, dst), the inverse CDF of the same
//     law.
//
// Reproducible(m) is the explicit opt-out for reproducible simulations and
// tests: its Release draws the secure law from the caller's generator.
// Anyone who learns the seed can subtract the noise, so it must never
// release confidential data.
//
// # Mechanisms
//
//   - Laplace (vector, nominal scale Δ1/ε; SBI paper §3.4 transform), with
//     the communal and individualized budget splits of the modips paper
//     (CommunalLaplace, IndividualizedLaplace); the lattice rounding is
//     absorbed into a slightly larger discrete scale (NoiseScale), so the
//     release is ε-DP exactly.
//   - Gaussian with the analytic calibration of Balle & Wang (2018)
//     (AnalyticGaussianSigma, with δ(σ) evaluated without cancellation and
//     a margin so that δ(σ) ≤ δ holds exactly), the classical ε < 1
//     calibration and the probabilistic-DP calibration of the modips
//     paper, released as a discrete Gaussian whose guarantee is stated on
//     the Gaussian type.
//   - Exponential mechanism over finite candidates (log space, Gumbel-max).
//   - Randomized response (binary, k-ary) and optimal unary encoding with
//     their unbiased estimators; their budgets are derived from the
//     probabilities they realise.
//   - The sparse vector technique (AboveThreshold, Sparse, and the general
//     SVTConfig that ABCDP calibrates), on a lattice with the budget of its
//     continuous proofs; sessions draw from the operating system's
//     generator (Start) unless explicitly reproducible (StartReproducible).
//   - The DP infection trajectory of the SBI paper (Prop. 4), released as
//     proportions c_i/n with an exact binomial pmf and an exact binomial
//     inverse-CDF transform.
//   - Bounded releases (BIT and truncation, modips §5).
//
// Constructors with several parameters of one type take configuration
// structs (LaplaceConfig, GaussianConfig, ExponentialConfig), each with a
// Validate method whose errors name the field.
//
// # Budgets
//
// Budget holds (ε, δ); Sequential and Parallel compose budgets, Split
// divides one by weights, and an Accountant refuses any spend beyond its
// total. Sensitivity helpers (Clamp, Normalize, ClampedMean,
// MMDSensitivity) give statistics the bounded sensitivity the mechanisms
// need; the sensitivities of one model's statistic live with the model
// (simulate/linreg.Sensitivity, simulate/naivebayes.LaplaceScale), and the
// local-DP bounds of the LDP paper with the local mechanisms
// (mechanism/ldp).
//
// Randomness is always passed in as a *rand.Rand (Release ignores it in
// favour of the operating system's generator); mechanism values are
// immutable after construction and safe for concurrent use with separate
// generators (SVTSession and CryptoSource are the stateful exceptions).
//
// # Nil receivers
//
// No exported method panics on a nil pointer receiver. Accessors (Dim,
// Sigma, Scale, Grid, Budget, …) return the zero value; methods with an
// error result (Release, SimulateRelease, Spend, …) return an error
// wrapping ErrInvalid that says the value is nil; LogDensity
// returns NaN and Apply fills dst with NaN; a nil *CryptoSource draws from
// the operating system's generator unbuffered. A nil mechanism therefore
// never releases anything.
package mechanism
