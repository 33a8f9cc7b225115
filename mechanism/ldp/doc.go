// Package ldp provides the local mechanisms of locally differentially
// private (LDP) data collection: each person privatizes their own record
// and sends only the report, as in the LDP paper (Kulkarni, Jälkö, Kaski
// and Honkela; see the bibliography in the root package).
//
//   - ClippedLaplace clips a scalar record to [Lo, Hi] and adds Laplace
//     noise of scale (Hi − Lo)/ε: the reports of the paper's clipped
//     Gaussian and clipped exponential models (mcmc/ldp).
//   - NormClippedGaussian clips a vector to ℓ2 norm C and adds analytic
//     Gaussian noise for sensitivity 2C: the per-user release of LDP-SGD
//     (subpackage sgd).
//   - LinRegSensitivity, LogRegSensitivity and InputSensitivity (with the
//     paper's corollaries LinRegSensitivityEqual and
//     LogRegSensitivityEqual) calibrate the Gaussian releases of the
//     sufficient statistics of the regression models (Lemmas 3.1 and 13.1,
//     eq. 45).
//
// The other local mechanisms the paper uses are mechanisms of the parent
// package: randomized response (mechanism.NewRandomizedResponse), optimal
// unary encoding (mechanism.NewOUE) and the analytic Gaussian
// (mechanism.NewAnalyticGaussian) for the perturbed regression inputs.
//
// # Releases are secure by default
//
// The mechanisms are mechanism.Mechanism values. Release is a real
// person's report: floating-point safe (the noise is a lattice draw of the
// parent package's secure samplers) and drawn from the operating
// system's generator, whatever *rand.Rand is passed. They are
// mechanism.Composite, so mechanism.Reproducible(m) — the library's one
// reproducible opt-out — draws the same lattice law from a seeded
// generator, for simulation studies and tests on public data only; and
// mechanism.Simulate(m, r, …) is the floating-point simulation path for
// inference. Each release path has a privacy audit and a floating-point
// distinguishability test.
//
// From reports to a posterior: see mcmc/ldp.
package ldp
