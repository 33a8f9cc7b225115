// Package sbi performs simulation-based Bayesian inference from a privatized
// release: sequential private posterior estimation (SPPE) and sequential
// private likelihood estimation (SPLE) of the SBI paper (Xiong, Ju & Zhang,
// §3.2–3.5, Algorithms 1–2), whose training losses integrate over the privacy
// mechanism's noise with randomized quasi-Monte Carlo.
//
// # Use
//
// Both engines take the shared privinfer.Problem and a Config whose zero
// values are sized for a first run (4 rounds of 500 simulations, M = 8,
// the flow of Config.DefaultFlow, the training of DefaultTrain; the SBI
// paper's settings are a preset of its reproduction,
// examples/reproduce/support/sbiflags.PaperConfig):
//
//	res, err := sbi.SPPE(ctx, problem, sbi.Config{Seed: 1})
//	fmt.Print(res.Draws.Summary()) // posterior draws at problem.Observed
//	res.Posterior.LogDensity(theta) // the trained estimate
//
// The Problem's Mechanism must implement mechanism.Transform (Laplace,
// Gaussian, the infection-trajectory mechanism, …) or be nil for
// non-private inference; otherwise the engines return an error wrapping
// privinfer.ErrNoTransform. SPPE returns a *Posterior (the flow q(θ | s_dp)
// restricted to the prior support), SPLE a *LikelihoodPosterior (the prior
// times the flow q(s_dp | θ)); both are an Estimate with Sample and
// LogDensity. Training epochs and rounds are reported through
// Config.Progress as privinfer.Progress events.
//
// # Posteriors you keep
//
// Posterior.Save and LikelihoodPosterior.Save write a whole posterior (the
// flow with its standardisation, the observation, the parameter names,
// the in-support fraction and the settings that sampling uses, the number
// of training rounds);
// LoadPosterior and LoadLikelihoodPosterior read it back given the prior,
// which they check against the prior's log density at probe points saved
// with the file. A reloaded posterior gives the same draws for the same
// random source. A posterior trained in one round on prior simulations is
// amortized: At conditions it on any other release. Amortized SPPE
// (Config.Rounds = 1) needs no Problem.Observed at all: it is then trained
// once, saved, and conditioned at sample time,
//
//	res, _ := sbi.SPPE(ctx, problem, sbi.Config{Rounds: 1}) // problem.Observed nil
//	at, _ := res.Posterior.At(sdp)
//	draws, _ := at.Draws(ctx, 4000, seed) // privinfer.Draws, named
//
// Every posterior's Draws method returns privinfer.Draws named after the
// Problem's parameters (Sample writes the same draws into a slice). A
// sequential one was
// trained on proposals focused on its observation and refuses other
// releases with ErrSequential. Config.Simulations trains round 1 on pairs
// (θ, s) simulated beforehand, as the sbi package's append_simulations.
//
// # Long runs
//
// A run stops with the context's error when its context is cancelled.
// With Config.Checkpoint it also keeps its state in a file after every
// round, and a later run given the same file continues after the last
// saved round, returning exactly what the whole run would have returned:
// every round draws its random numbers from streams of Config.Seed and the
// round, and trains with a new optimiser, so the simulations, the flow,
// the regression shift and the next round's parameters are all a round
// leaves behind. The SBI paper's configuration takes one to two hours a
// run on two cores; a checkpoint lets it span interrupted processes.
//
// # The nested loss
//
// A confidential simulation x ~ f(·|θ) with summary s(x) is expensive; the
// mechanism's noise is cheap. Both losses have the form (eq. 9)
//
//	ℓ(φ) = −E_{p̃(θ,x)} [ ∫ η(s_dp | s(x)) g_φ(s_dp, θ) ds_dp ],
//
// with g = log q̃_φ(θ | s_dp) (SPPE, the atomic proposal posterior of APT) or
// g = log q_φ(s_dp | θ) (SPLE). For every simulated pair the inner integral is
// estimated (eq. 11) from M releases s_dp = τ(v_m; s(x)) pushed through the
// mechanism's uniform-to-release map (mechanism.Transform), with v_1..v_M an
// Owen-scrambled Sobol point set (RQMC) or independent uniforms (MC). One
// confidential simulation thus serves M releases. The points are redrawn for
// every pair in every epoch; validation pairs keep fixed points so that early
// stopping compares like with like.
//
// # Algorithms
//
// SPPE trains a conditional flow q(θ | s_dp): round 1 is plain neural
// posterior estimation on prior draws; later rounds draw θ from the current
// q(θ | s_dp°) restricted to the prior's support and minimise the atomic APT
// loss (Greenberg et al. 2019) with n_a atoms from the mini-batch and the
// prior-ratio correction, on the simulations of all rounds. SPLE trains a
// conditional flow q(s_dp | θ) by maximum likelihood on all rounds and draws
// the next round's parameters from π(θ) q(s_dp° | θ) with several adaptive
// Metropolis chains (mcmc.Run with mcmc.AdaptiveMetropolis, in coordinates
// standardised by the spread of the start candidates). The chains start at
// points drawn by sampling-importance-resampling (systematic) from 1,000
// prior draws and 1,000 draws of a Gaussian kernel density estimate on the
// previous draws, weighted by the posterior over their mixture density, so
// that each mode of the posterior receives chains roughly in proportion to
// its mass: the chains rarely cross between modes, and starting them at
// the best candidates by density could put all of them in one crescent of
// the two-moons posterior. The chains are rerun once from
// their final states when a rank-normalised split R̂ (mcmc.RHat) exceeds
// 1.1, with four times the warm-up and twice the thinning, or when their
// draws are too autocorrelated to serve as a sample of their number: when
// the sum of the chains' own bulk effective sample sizes is below half the
// draws, the thinning is multiplied by ⌈draws/ESS⌉ (at most 16). The R̂ of
// the run used is reported; on a multimodal posterior R̂ stays large by
// design.
//
// When a split R̂ is 1.1 or more, the chains are grouped into modes before
// the rerun (chains whose draws do not intermingle: among 100 draws of
// each, fewer than 10% have their nearest neighbour in the other chain),
// each mode's mass is estimated by importance sampling from a mixture of
// Student t fits to the modes' draws, and the chains are shared out
// between the modes in proportion to the masses (Diagnostics.ChainGroups
// reports the number of groups). The resampled starts alone allocate
// chains only as well as their few effective candidates estimate the
// masses, so a mode's share of the draws would be left to chance; with
// the rebalancing, SNLE's final draws on the two-moons task match exact
// draws of the same learned density (measured in
// examples/reproduce/sbibm/RESULTS.md, section "SNLE's chains shared out between
// modes by mass").
//
// The rebalancing only shares chains out; the chains still do not cross,
// and the grouping can fail where two modes nearly touch (as the crescents
// of two moons do at some observations). So the rerun also lets the chains
// jump: after warm-up, one iteration in ten is an independence
// Metropolis–Hastings move proposed from an equal mixture of Student t fits
// (ν = 4), one per chain of the first run, accepted with the ratio that
// keeps the posterior invariant; at such an observation it brought R̂ near
// 1 and the draws' C2ST to the same level at every MCMC seed (section
// "Mode jumps in the rerun"). Warm-up uses the local moves alone, so that
// each chain's proposal covariance adapts to one mode.
//
// The thinning rule matters in higher dimensions, where a random walk's
// draws stay correlated over many iterations: on sbibm's 10-dimensional
// Gaussian linear task it brought SNLE's draws markedly closer to the
// reference for about a quarter more CPU time (section "Thinning grown
// with the chains' autocorrelation").
//
// Sharing the chains out by estimated mass lets the rounds feed on
// themselves on a posterior with separated modes: a mode that one round's
// likelihood underweights gets fewer of the next round's parameters, is
// learned worse, and can lose its chains altogether. Config.CarryChains
// leaves the chains that draw rounds 2..R's parameters in the modes they
// start in and, from round 4's parameters on, continues them from the
// previous round's final states, so each mode keeps the share of chains
// that the resampling after round 2 gave it (the sbi package's SNLE
// resamples its chains' starts after rounds 1 and 2 and continues them
// from then on); the final draws are drawn as without it. It is not the
// default: it helped on SLCP's four separated modes with 100 chains and
// was level with the default elsewhere, but it has been measured on the
// sbibm tasks only, and with few chains a mode's share of the proposals is
// fixed by chance (examples/reproduce/sbibm/RESULTS.md, section "CarryChains is an
// option, not the default", and examples/reproduce/sbibm/SLCP.md).
//
// # Leakage guard
//
// A flow trained on a truncated proposal can put posterior mass outside the
// prior's support. Posterior.Sample keeps only in-support draws, reports the
// in-support fraction, and fails with ErrLeakage when that fraction is below
// Config.MinInSupport — unless Config.LeakageFallback selects MCMC on
// q(θ | s_dp°)·1{π(θ) > 0}.
//
// # The regression shift and spurious far tails
//
// By default SPPE's flow models the residual of θ from its linear
// regression on the release, θ − a − B·s_dp, fitted by least squares on
// round 1's simulations and z-scored by the residuals' spread
// (Config.RegressionShift; by default every run but amortized NPE under a
// box prior of 5 or more dimensions, see below). The shift is a
// translation that depends on the release only, so the posterior density
// is the flow's density at the residual; what changes is where the flow's
// splines do their work.
//
// The splines act on a bounded interval, [−3, 3] by default, of the
// z-scored variable and are the identity outside it. Without the shift the
// z-scoring is the prior's spread, fixed in round 1; when the posterior is
// much narrower than the prior, the flow squeezes it into a small part of
// that interval, and base draws beyond ±3 in any coordinate (0.54% of
// them in two dimensions) pass through the identity tails and land in the
// prior's range, far from the posterior; later rounds do not remove this
// mass, because the atomic loss scores the flow at proposal atoms only.
// With the shift the residuals' spread is close to the posterior's and
// those draws are ordinary tail draws: on a Gaussian location model with
// the posterior 20 times narrower than the prior, the far draws that every
// round kept without the shift were gone with it. Where θ depends on the
// release far from linearly the shift helps less (on the SBI paper's SIR
// release it left about as many far draws as before). θ is not re-standardised
// in every round by the spread of the round's proposals: that made the
// tails worse, because the flow trained in round 1 no longer fits the
// rescaled parameters and the prior draws of round 1 fall far outside the
// spline interval. (Measured in examples/reproduce/sir/RESULTS.md, section "Far
// tails of SPPE posteriors: the regression shift and the affine layer".)
//
// What removes the far tails where the shift cannot is a location and scale
// that follow the release: flow.Config.ContextAffine puts a learned affine
// map y′ = (y − μ(s))·e^(−σ(s)) before the splines, so a base draw beyond
// ±3 lands a few learned scales from μ(s); on the SIR release it left about
// one far draw where there had been a dozen, though its C2ST and MMD were
// no better (the same section). Config.DefaultFlow gives the layer to
// SPLE's flow and to SPPE's when it is trained in one round (amortized
// NPE), where the sbibm tasks measured it better overall, except on the
// Gaussian linear task, where the regression shift alone is exact and the
// layer's network only adds noise to a location that should not move.
// Sequential SPPE does without it by default: there it was level on three
// sbibm tasks and worse on SLCP, and on SIR its C2ST and MMD were no
// better (examples/reproduce/sbibm/RESULTS.md, section "The affine layer in
// Config.DefaultFlow"); set it in Config.Flow where far tails matter more.
//
// On the SBI paper's SIR release the far draws of sequential SPPE are such
// identity-tail draws: they are at least as frequent after round 1, trained
// by maximum likelihood without atoms, as after the atomic rounds, and they
// do not change with the number of epochs trained, so they are neither
// leakage of the atomic loss nor under-training. Besides the affine layer,
// a spline interval wide enough that base draws practically never leave it
// (flow.Config.TailBound) helps: it leaves those draws to the splines'
// outer bins, which training can shape, though only weakly; on the SIR
// release none were left far out, on the narrow Gaussian model of the tests
// fewer than a tenth of them. Neither is the default; the reasons and the
// measurements are in examples/reproduce/sir/RESULTS.md, section "The γ
// tail of SPPE: the splines' identity tails".
//
// Where no architecture is best everywhere, Config.FlowCandidates lets the
// data choose: round 1 trains each candidate on the same simulations and
// keeps the one whose best epoch has the lowest validation loss. The
// held-out negative log density is a proper scoring rule (its expectation
// is least at the true posterior, or likelihood for SPLE), so the choice
// ranks the architectures by their fit, not by their training loss. Given
// the flow with and without ContextAffine on the sbibm tasks, it kept the
// better of the two by C2ST where they differ, and the affine layer where
// they score alike (section "FlowCandidates chooses by validation loss").
// The cost is one round-1 training per candidate.
//
// The shift also makes amortized NPE (one round) more accurate at small
// budgets: at 10³ simulations it scored better than the same flow z-scored
// as in the sbi package on all four sbibm tasks, most on the Gaussian linear
// task, whose posterior mean is linear in the observation, so that there
// the residual carries only the posterior's own spread. At 10⁴
// simulations the flow needs the help less (section "The regression shift
// in amortized NPE").
//
// Under a prior bounded in every coordinate (simulate.Bounded: a box such
// as U[−1, 1]ᵈ) the shift can cost amortized NPE: the box's faces are
// sharp edges of the posterior, fixed in θ, and the shift moves them with
// the release in the flow's variable, where the splines' knots must
// follow them through the conditioner network. In 5, 10 and 20
// dimensions that cost outweighed the shift's gain on the box priors
// measured, in two it did not, so ShiftAuto, the default, leaves the
// shift out of amortized NPE under a box prior of 5 or more dimensions
// (Config.UsesRegressionShift states the rule and where it was measured).
//
// # Robust NPE
//
// RNPE (Ward, Cannon, Beaumont, Fasiolo & Schmon 2022) guards amortized
// NPE against a release the model cannot produce: it also fits a flow to
// the simulated releases, models the observed release as a denoised
// release plus a spike-and-slab error per coordinate, samples the
// denoised release by MCMC and draws θ from the posterior flow at each
// draw. RNPEResult reports which coordinates look misspecified
// (Misspecified) beside the draws of RNPE and of plain NPE;
// RobustPosterior.At reruns the denoising at another release.
//
//	res, err := sbi.RNPE(ctx, problem, sbi.RNPEConfig{NPE: sbi.Config{SimsPerRound: 10000}, Seed: 1})
//	fmt.Println(res.Misspecified) // P(z_j = 1 | s_dp°) per coordinate
//
// # High-dimensional releases
//
// Config.Embedding gives SPPE an embedding network (package flow/ad: an MLP
// or a 1-D convolutional network) that summarises a high-dimensional
// release, such as a time series, into a few features before the posterior
// flow's conditioners; it is trained jointly with the flow.
//
// # Reproducibility
//
// Simulations run on all cores with one random stream per simulation
// (internal/parallel); training evaluates gradients over a fixed partition of
// every batch. Results depend on Config.Seed only, never on GOMAXPROCS.
package sbi
