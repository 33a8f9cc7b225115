// Package ldp provides the noise-aware models of locally differentially
// private Bayesian inference (Kulkarni, Jälkö, Kaski and Honkela, "the LDP
// paper"): closed-form marginal likelihoods Pr[z | θ] = ∫ η(z | x) f(x | θ) dx
// of each person's privatized report z, the posteriors built on them, and
// Sample, which turns a posterior into privinfer.Draws.
//
// # From reports to draws
//
// Each person privatizes their own record with a local mechanism of
// mechanism/ldp (or mechanism's randomized response, OUE and Gaussian
// mechanisms) and sends only the report; this package never sees a
// record. The analyst
//
//  1. builds the model of the reports (NewClippedGaussian, …, whose
//     Mechanism method returns the local mechanism it describes),
//  2. builds the posterior from the model, the reports and a prior
//     config (NewGaussianPosterior, …), and
//  3. calls Sample(ctx, posterior, nil, mcmc.Config{Chains, Warmup, Draws,
//     Seed, Progress}), which runs NUTS (slice sampling for targets without
//     a gradient; the nil is the sampler, mcmc.Method) with 1000 warm-up
//     iterations unless told otherwise on the posterior's unconstrained
//     coordinates and returns
//     *privinfer.Draws of the natural parameters (σ rather than log σ,
//     category probabilities rather than log-ratios), named, chain-major,
//     with the library's summaries, diagnostics and CSV.
//
// The clipped models can also be stated as a privinfer.Problem:
// NewProblemPosterior takes a Problem whose Simulator is a
// simulate.Dataset of simulate/clipped records, whose Mechanism is the
// per-record Laplace mechanism (mechanism/ldp.ClippedLaplace), whose
// Observed are the n reports and whose Prior is any simulate.Prior. The
// other models keep input types of their own (OUEData, LinRegData,
// LogRegData, SuffStatLinReg, SuffStatLogReg): their closed forms need
// structure a Simulator does not reveal (the OUE bit layout, the input
// noise scales and covariance Σ, the Chebyshev link, the per-block noise
// of the sufficient statistics), and their priors are the paper's
// conjugate-style choices with gradients for NUTS. They still end in
// Sample and Draws.
//
// # Models
//
//   - ClippedGaussian: x ~ N(μ, σ²) clipped to [a, b], Laplace noise of
//     scale (b−a)/ε (eq. 28); ClippedExponential: x ~ Exp(θ) clipped to
//     [0, b], Laplace noise of scale b/ε (eq. 30). Both log-space stable for
//     reports far outside the clipping interval and ε from 1e-3 to 1e4, with
//     gradients. Posteriors: GaussianPosterior (μ, σ), ExponentialPosterior
//     (θ), ProblemPosterior (either, from a Problem).
//   - OUEModel and OUEData: histograms released by optimal unary encoding
//     (eq. 33), reports compressed to distinct bit patterns. Posterior:
//     HistogramPosterior (Dirichlet prior).
//   - LinRegData: regression with Gaussian-perturbed inputs; LogDensity is
//     eq. 41 (linear model, Gaussian-perturbed outcome) from sufficient
//     statistics of the reports; LogRegData is the logistic model with
//     randomized-response outcomes and the second-order Chebyshev expansion
//     of eq. 44 (ChebyshevSigmoid). Posteriors: LinRegPosterior,
//     LogRegPosterior (Σ fixed), LinRegCovPosterior (Σ learned).
//   - SuffStatLinReg: the sufficient-statistics linear regression of §3.1.1
//     and §13.1 (normal approximation with Isserlis moments), for releases
//     calibrated with mechanism/ldp.LinRegSensitivity. Posteriors:
//     SuffStatPosterior (Σ fixed), SuffStatCovPosterior (Σ learned).
//   - SuffStatLogReg: the sufficient-statistics logistic regression of
//     §3.1.2 and §13.2 (statistics [y·x, t2(x)], normal approximation with
//     moments from Gaussian integration by parts, exact logistic or
//     Chebyshev link), for releases calibrated with
//     mechanism/ldp.LogRegSensitivity. Posteriors: SuffStatLogRegPosterior
//     (Σ fixed), SuffStatLogRegCovPosterior (Σ learned).
//   - PolyExpQuad: the tractable family of Lemma 3.2, a polynomial times
//     exp(quadratic) density observed with Gaussian noise, via
//     truncated-normal moments.
//
// The posteriors that learn the input covariance Σ take a
// CovariancePrior: ScaledLKJ, the paper's scaled LKJ(2) prior (§8, with
// the LKJ distribution itself in LKJ), or CovPrior, an inverse Wishart.
// GaussianPosterior.Grid computes the two-parameter posterior by
// quadrature, and CalibrateGaussian runs the calibration study of the
// paper's Fig. 1 on it. Every posterior is also an mcmc.Target (most an
// mcmc.GradTarget) for callers who drive mcmc.Run themselves.
//
// # Where a new LDP model goes
//
// A new report model goes here, in its own file: a type holding the
// model's public constants with a Config constructor (documented zero
// value, Validate naming the field, the dimension as Dim), allocation-free
// LogDensity/LogDensitySum methods for the reports, and a posterior type
// implementing Posterior (Dim, LogDensity and, for NUTS, Gradient on
// unconstrained coordinates; ParamNames and Natural for the draws). Its
// tests compare the closed form with quadrature (or mpmath references in
// testdata) and run SBC through Sample. The local mechanism that produces
// the reports goes in mechanism/ldp, with its privacy audit and
// floating-point test; a model that can be stated as a Problem extends
// NewProblemPosterior.
//
// The curator's side is not here: mechanism/ldp holds the local mechanisms
// that privatize each person's record, the sensitivities that calibrate
// them, and the paper's private baseline for the regression models,
// LDP-SGD (mechanism/ldp/sgd).
//
// # Accuracy
//
// Every closed form is tested against numerical integration of
// η(z | x) f(x | θ) over x: adaptive Gauss–Kronrod quadrature in the tests
// and, where float64 quadrature underflows, mpmath references at 30 digits
// (testdata/gen_ldp.py). Where the paper's printed algebra has typos the
// correct mathematics is implemented and the typo is named in the doc
// comment of the type concerned. Sample is checked against quadrature
// posteriors and by simulation-based calibration.
//
// # Errors
//
// Constructors and Sample validate their arguments (ε ≤ 0, a ≥ b, wrong
// dimensions, non-finite or malformed reports, negative chain settings)
// and return errors wrapping ErrInvalid that name the argument.
// Log-likelihood methods are hot paths: they return NaN for invalid
// parameters instead of an error, and −Inf outside the support, which the
// mcmc samplers report or reject.
package ldp
