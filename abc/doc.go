// Package abc draws approximate posterior samples by simulation: rejection
// ABC and SMC-ABC over private simulators (SBI paper §3.1, App. C), and
// ABCDP, which releases differentially private accept/reject decisions with
// the sparse vector technique (Park, Vinaroz & Jitkrittum).
//
// # Simulate and compare
//
// Every engine takes the library's privinfer.Problem (a prior, the
// confidential simulator, the mechanism that produced the observed release
// s_dp, and s_dp itself) and returns its posterior sample as
// *privinfer.Draws, alone or in its result's Draws field; engine-specific
// settings, such as the Distance between releases, go into the engine's
// Config (RejectionConfig, SMCConfig, KernelISConfig, ABCDPConfig), each
// with a Validate method, a Seed and a privinfer.ProgressFunc.
//
// Rejection and SMC simulate releases through Problem.ReleaseSimulator (the
// simulator composed with the mechanism) and compare them with the
// observation by the Config's Distance. Rejection keeps prior draws whose
// simulated release lies within a tolerance of the observation (or the
// nearest k); SMC moves a weighted particle population through a decreasing
// tolerance schedule with a Gaussian Perturbation of the particles and
// importance weights π(θ)/Σ_j W_j K(θ|θ_j), K the perturbation's density
// (Beaumont et al. 2009). Because the mechanism is part of the simulated
// release, the limit of small tolerance is the posterior given the private
// release, π(θ | s_dp), not the one given the confidential data.
//
// In this package "kernel" means the ABC kernel, which compares a simulated
// release with the observation: the indicator of a distance below a
// tolerance for Rejection and SMC, the mechanism's density for KernelIS (and
// the Gaussian kernel inside the MMD distance). The move of SMC particles is
// the Perturbation.
//
// Every engine proposes θ on the driver, from random streams derived from
// its seed, and hands the batch to its Config.Executor (nil:
// simulate.InProcess, every core of this process), which simulates
// Problem.Simulator with one stream per row (simulate.Stream); the
// mechanism's noise, the distances and the weights are computed on the
// driver. Results therefore depend on the seed only, never on GOMAXPROCS
// or on the executor: the nested module simulate/nats runs the same
// batches on other machines with the same bits. A failing row (an error,
// a panic, a NaN or infinite statistic, a NaN distance) aborts the run
// with an error wrapping the *simulate.RowError that names it (errors.As),
// the one simulation-failure type of every engine; it is never turned into
// a NaN particle.
//
// # The mechanism as the kernel
//
// A tolerance τ > 0 biases rejection and SMC-ABC: their limit is the
// posterior given that the release lies within τ of s_dp, wider than the
// posterior given s_dp itself. When the mechanism's density η(s_dp | s) is
// known (the Problem passes Require(privinfer.NeedDensity)), KernelIS
// removes that bias: it weights a proposal draw θ, whose confidential
// statistic s is simulated but never released, by π(θ) η(s_dp | s)/q(θ),
// which is ABC with the mechanism as its kernel and targets the exact posterior (Wilkinson 2013). Adaptive stages
// refit a Student-t proposal to the weighted sample. It serves as an
// asymptotically exact reference posterior where no tractable likelihood
// for θ exists, such as the SIR release.
//
// # ABCDP
//
// ABCDP (Algorithm 1 of the ABCDP paper; the ABCDP function, with
// ABCDPSelector for distances computed elsewhere) is the data owner's
// side, and is itself the mechanism: its Problem has a nil Mechanism and a
// confidential Observed (ABCDP refuses a Mechanism). Given the distances
// ρ_t between the confidential data and a public sequence of pseudo-data
// sets, it answers "ρ_t ≤ ε_abc?" through a sparse vector session of the
// mechanism package (threshold noise of scale b, distance noise of scale
// 2b, optional RESAMPLE of the threshold after each acceptance) and halts
// after c acceptances. The session compares on a lattice with exact
// discrete Laplace noise from the operating system's generator, unless
// ABCDPConfig.Reproducible opts out for a simulation study. The released
// indicator sequence is ε_total-DP with b from Thm. 4.1 (NoiseScale, and
// its inverse TotalEpsilon). FlipProbability
// (Lemma 4.2, Prop. 4.2), ExpectedErrorBound and TailBound (Thm. 4.3) let a
// user judge the accuracy cost before spending any budget (the last two read
// the confidential distances and are for the data owner only).
//
// # Release versus inference
//
// ABCDP is a release path: its observation is confidential, and everything
// it returns (ABCDPResult: the indicators, the accepted indices, the
// accepted public draws as Draws and all public prior draws) is either the sparse vector's noisy output or public.
// No distance, count or threshold computed from the confidential data
// without noise leaves it; the distances that ABCDP computes stay inside it.
// Its sensitivity holds by construction when Clip is set: every distance is
// clamped to [0, Clip] on both sides, so no distance, not even a negative
// unbiased MMD², can move the noisy comparisons by more than the Δρ = Clip
// the noise is calibrated to.
//
// Rejection, SMC and KernelIS are inference from a release that is already
// public (the output of a mechanism, s_dp): their distances, tolerances and
// weights are post-processing of that release and may be published.
//
// # Privacy
//
// ABCDP and ABCDPSelector.Select are the package's only releases of
// confidential data. Each run costs ε_total (ABCDPSelector.Budget); with
// ABCDPConfig.Accountant set the run charges it before selecting and
// releases nothing when the accountant refuses. With a nil Accountant the
// caller accounts for every run: repeated runs on the same data compose.
//
// Everything else is analyst-side computation that adds no noise and
// charges no accountant, and is only as private as its input:
//
//   - SimulatePrior and SimulatePriorWith return the exact distances to
//     Problem.Observed. Their caller declares the observation public or
//     confidential (an Observation); confidential distances must stay with
//     the data owner, because a handful of exact distances from public
//     points locate the observation (trilateration).
//   - Rejection, SMC and KernelIS treat Problem.Observed as public. Given a
//     confidential observation (a Problem with a nil Mechanism holding
//     confidential data), the distances, tolerances, weights and
//     posterior draws of Rejection and SMC are computed from it without
//     noise and are not releases: RejectionResult.Distance and
//     Round.Distance are the exact distances to it, which locate it. No
//     marker is asked for, because no output of these engines would be
//     private with one (the draws leak as much); with confidential data,
//     set the Mechanism and pass its release, or use ABCDP. KernelIS
//     refuses a nil Mechanism (it needs the mechanism's density).
//   - ExpectedErrorBound and TailBound read the confidential distances and
//     are for the data owner's planning only.
//   - ABCDPConfig.Reproducible noise is recomputable from the seed and
//     gives no privacy.
//
// # Distances
//
// Euclidean, WeightedL2 and L1 compare summary vectors; MMD compares sample
// sets with a Gaussian kernel (the biased V-statistic of ABCDP §2.1, whose
// sensitivity is 2/N, or the unbiased U-statistic), evaluated in cache-sized
// blocks on all cores. MedianHeuristic sets the kernel bandwidth from
// simulated data only, so choosing it costs no privacy.
package abc
