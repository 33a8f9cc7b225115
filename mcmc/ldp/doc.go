// Package ldp provides the noise-aware models of locally differentially
// private Bayesian inference (Kulkarni, Jälkö, Kaski and Honkela, "the LDP
// paper"): closed-form marginal likelihoods Pr[z | θ] = ∫ η(z | x) f(x | θ) dx
// of each person's privatized report z, as allocation-free log-likelihood
// functions and as mcmc targets for posterior sampling.
//
// # Models
//
//   - ClippedGaussian: x ~ N(μ, σ²) clipped to [a, b], Laplace noise of
//     scale (b−a)/ε (eq. 28); ClippedExponential: x ~ Exp(θ) clipped to
//     [0, b], Laplace noise of scale b/ε (eq. 30). Both log-space stable for
//     reports far outside the clipping interval and ε from 1e-3 to 1e4, with
//     gradients.
//   - OUEModel and OUEData: histograms released by optimal unary encoding
//     (eq. 33), reports compressed to distinct bit patterns.
//   - LinRegData: regression with Gaussian-perturbed inputs; LogDensity is
//     eq. 41 (linear model, Gaussian-perturbed outcome) from sufficient
//     statistics of the reports; LogRegData is the logistic model with
//     randomized-response outcomes and the second-order Chebyshev expansion
//     of eq. 44 (ChebyshevSigmoid).
//   - SuffStatLinReg: the sufficient-statistics linear regression of §3.1.1
//     and §13.1 (normal approximation with Isserlis moments), for releases
//     calibrated with mechanism/ldp.LinRegSensitivity.
//   - SuffStatLogReg: the sufficient-statistics logistic regression of
//     §3.1.2 and §13.2 (statistics [y·x, t2(x)], normal approximation with
//     moments from Gaussian integration by parts, exact logistic or
//     Chebyshev link), for releases calibrated with
//     mechanism/ldp.LogRegSensitivity.
//   - PolyExpQuad: the tractable family of Lemma 3.2, a polynomial times
//     exp(quadratic) density observed with Gaussian noise, via
//     truncated-normal moments (truncNormalMoments).
//
// The posteriors GaussianPosterior, ExponentialPosterior,
// HistogramPosterior, LinRegPosterior and LogRegPosterior implement
// mcmc.GradTarget (for NUTS) on unconstrained coordinates;
// SuffStatLogRegPosterior, SuffStatLogRegCovPosterior,
// SuffStatCovPosterior and LinRegCovPosterior implement mcmc.GradTarget
// too; SuffStatPosterior implements mcmc.Target. The targets that learn
// the input covariance Σ take a CovariancePrior: ScaledLKJ, the paper's
// scaled LKJ(2) prior (§8, with the LKJ distribution itself in LKJ), or
// CovPrior, an inverse Wishart. GaussianPosterior.Grid computes the
// two-parameter posterior by quadrature, and CalibrateGaussian runs the
// calibration study of the paper's Fig. 1 on it.
//
// The curator's side lives in mechanism/ldp: the local mechanisms that
// privatize each person's record (ClippedGaussian.Mechanism and
// ClippedExponential.Mechanism return the one a model describes), the
// sensitivities that calibrate them, and the paper's private baseline for
// the regression models, LDP-SGD (mechanism/ldp/sgd). This package never
// touches confidential records.
//
// # Accuracy
//
// Every closed form is tested against numerical integration of
// η(z | x) f(x | θ) over x: adaptive Gauss–Kronrod quadrature in the tests
// and, where float64 quadrature underflows, mpmath references at 30 digits
// (testdata/gen_ldp.py). Where the paper's printed algebra has typos the
// correct mathematics is implemented and the typo is named in the doc
// comment of the type concerned.
//
// # Errors
//
// Constructors validate their arguments (ε ≤ 0, a ≥ b, wrong dimensions,
// non-finite or malformed reports) and return errors naming the argument.
// Log-likelihood methods are hot paths: they return NaN for invalid
// parameters instead of an error, and −Inf outside the support, which the
// mcmc samplers report or reject.
package ldp
