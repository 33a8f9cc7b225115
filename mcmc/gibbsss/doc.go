// Package gibbsss is the noise-aware sufficient-statistics Gibbs sampler
// ("Gibbs-SS") of G. Bernstein and D. R. Sheldon (2019), Differentially
// private Bayesian linear regression, Advances in Neural Information
// Processing Systems 32, §4: the posterior of a linear regression's
// coefficients given a release of its sufficient statistics with Laplace
// noise.
//
// # Release
//
// The released statistic is the one of simulate/linreg.Model and of the
// SBI paper (§4.2, App. E.2): with records (x, y), x ∈ R^p, divided by a
// scale C (the record model's clamping bound, 10 in the SBI paper),
// x̃ = (1, x/C)
// the scaled predictors with the intercept and ỹ = y/C,
//
//	s = mean over records of (x̃ỹ [p+1], ỹ² [1], upper triangle of x̃x̃ᵀ
//	    without the constant (0,0) entry, row by row [(p+1)(p+2)/2 − 1]),
//
// StatDim(p) numbers in all, released as s_dp = s + independent
// Laplace(0, b_j) noise on coordinate j (b_j = Δ/ε for the Laplace
// mechanism). The model ignores the clamping: records are taken to be unclamped, so
// the sampler is exact only when clamping does not bind.
//
// # Model
//
// Predictors x_i ~ N(μ_x, Σ_x), either known (the record model's law, the
// SBI paper's setting) or with a normal-inverse-Wishart prior
// (Config.PredictorPrior, Bernstein and Sheldon's); y_i | x_i ~
// N(β_0 + x_iᵀβ_{1:p}, σ²) with β ~ N(m_0, V_0) and σ² known (a
// linreg.Model with the Problem's Gaussian prior; the SBI paper's σ² = 2),
// or β | σ² ~ N(m_0, σ²V_0) and σ² ~ InvGamma(a_0, b_0) (a linreg.NIG,
// with m_0 = 0 and V_0 = G·I).
//
// # Sampler
//
// One iteration updates, in this order:
//
//  1. s | s_dp, ω, β, σ², μ_x, Σ_x. The central-limit approximation of
//     Bernstein and Sheldon: s ≈ N(E[t], Cov[t]/n) for the mean s of n
//     contributions t = t(x, y), whose mean and covariance are computed in
//     closed form from the Gaussian model (t is a vector of products w_a w_b
//     of w = (1, x̃, ỹ), jointly Gaussian but for the constant, so Cov[t]
//     follows from Isserlis' theorem). Writing the Laplace noise as a scale
//     mixture of normals, noise_j ~ N(0, ω_j) with ω_j ~ Exponential of mean
//     2b², s given s_dp and ω is Gaussian; it is drawn by conditioning a
//     joint draw (Matheron's rule: s = s_0 + A(A + W)⁻¹(s_dp − s_0 − e) with
//     s_0 ~ N(E[t], A), A = Cov[t]/n, e ~ N(0, W), W = diag ω), which needs
//     no factorisation of the posterior covariance. The statistic of real
//     data always makes the moment matrix (1/n)[X y]ᵀ[X y] positive
//     semidefinite; the Gaussian approximation does not, and the
//     conjugate updates below need it. The sampler therefore restricts s to
//     the set where that matrix is positive definite: it draws up to 20
//     times from the Gaussian conditional and keeps the first draw inside
//     the set, or keeps the current statistic if none is (a Metropolis–
//     Hastings step with an independence proposal, so the restricted
//     conditional stays invariant; Result.Outside counts such iterations).
//     Bernstein and Sheldon retry a few times and then project the moment
//     matrix onto the positive-definite cone instead.
//  2. β (and σ²) | s: the conjugate normal (normal-inverse-gamma) update of
//     Bayesian linear regression, treating s as the exact statistics
//     XᵀX/n, Xᵀy/n and yᵀy/n of the scaled records.
//  3. (μ_x, Σ_x) | s, with a PredictorPrior: the conjugate
//     normal-inverse-Wishart update from the predictors' mean and scatter
//     read off s, as Bernstein and Sheldon do.
//  4. 1/ω_j | s, s_dp: inverse Gaussian with mean 1/(b|s_dp,j − s_j|) and
//     shape 1/b², exact for the scale mixture.
//
// Steps 2 and 3 are the exact conditionals of the record-level model
// (given the statistics, the parameters do not depend on the records), and
// step 1 approximates that model's p(s | parameters) by the normal
// distribution, so the chain targets neither model exactly: its posterior
// approaches the exact one as n grows (with the noise fixed relative to
// the sampling spread of s) and can be far from it when the Gaussian
// approximation of s is poor — few records, predictors that are not
// Gaussian, or clamping that binds. On the SBI paper's release (n = 100,
// ε = 10) see examples/reproduce/linreg, which compares it with data-augmentation
// MCMC.
//
// # Running
//
// Run takes the privinfer.Problem every engine takes and a Config of
// engine settings. The sampler is specific to this model, so it reads the
// model off the Problem: a *simulate.MeanStat of a *linreg.Model (σ² and
// the predictors' law known, the model's clamping bound as the scale C)
// with a Gaussian prior on β (*simulate.MVNormal), or of a *linreg.NIG
// (σ² unknown) that is also the Prior; a *mechanism.Laplace whose
// per-coordinate noise scales NoiseScale(j) are the b above; and the
// Observed release. Config carries the chain settings and
// PredictorPrior, the one part of Bernstein and Sheldon's model that a
// Problem cannot express (the predictors' law as nuisance parameters with
// a normal-inverse-Wishart prior). Errors for a bad Problem or Config
// name the field and wrap ErrInvalid (privinfer.ErrNoRecords or
// ErrNoMechanism for a Problem that lacks records or a mechanism).
//
// Run runs Config.Chains chains in parallel (chain c on its own random
// stream derived from (Config.Seed, c), so results depend on the seed
// only), reports progress through Config.Progress (Stage "chain", as the
// samplers of package mcmc) and returns a Result whose Draws are a
// chain-major *privinfer.Draws of β (and σ² when it is unknown), in the
// records' original units, named by Problem.Names (beta0, …, betaP and
// sigma2 when nil). Iterations allocate nothing.
package gibbsss
