// Package tb provides the tuberculosis transmission models of the ABCDP
// paper's §6.3 (Fig. 5): the stochastic birth–death outbreak model of
// Lintusaari et al. (2019), which extends the birth–death model of Tanaka
// et al. (2006) with a therapy-compliant and a non-compliant population and
// a burden of new genotypes, together with its summary statistics, the
// weighted distance the ABCDP authors use, the joint prior and the "true"
// parameters from which the paper simulates its observations.
//
// # The outbreak model
//
// Active cases belong to genotype clusters. New clusters (reactivations and
// immigration) appear at rate β, the burden rate. Every case transmits and
// ends (by death or cure) at rates that depend on its population: a
// compliant case at a₀ and d₀, a non-compliant case at a₁ and d₁. A new
// case, by burden or transmission, is compliant with probability 0.95; a
// transmitted case joins its source's cluster. A case that ends inside the
// two-year observation window is observed with probability 0.8. Before
// the window the process runs a warm-up, advanced year by year until both
// populations reach their balance means (at most 150 years) and then
// doubled, at least 15 years (the authors' code). The parameters are those
// of the ABCDP paper, θ = (R₁, t₁, R₂, β):
//
//	d₁ = t₁/(R₁ − 1),  a₁ = t₁ + d₁   (non-compliant: R₁ = a₁/d₁, t₁ = a₁ − d₁)
//	d₀ = 5.95,         a₀ = R₂·d₀      (compliant: R₂ = a₀/d₀)
//
// The summary of one outbreak (Outbreak.Simulate) holds NumStats values:
// the number of observed cases, of distinct observed clusters, the size of
// the largest cluster, the mean difference between the four largest
// clusters, the numbers of clusters of size one and two, the number of
// months spanned by the largest cluster's observations and the number of
// months in which it was observed (Lintusaari et al. 2019, Table 1), and
// the gene diversity of Tanaka et al. (2006). A Study simulates n
// independent outbreaks, the data set of n records the ABCDP authors' code
// compares with the average of per-outbreak distances (Distance).
//
// # The birth–death–mutation model
//
// BDM is the original model of Tanaka et al. (2006): one population whose
// cases transmit at rate α, end at rate δ and mutate into a new genotype at
// rate μ, grown from one case to N = 10,000 and summarised by the number of
// genotypes g and the gene diversity H of a sample of n = 473 cases, the
// statistics of the San Francisco data (326 and 0.9892). Its tests compare
// it with the exact law of its embedded chain.
//
// # Data and moments
//
// SanFrancisco is the summary of the San Francisco IS6110 cluster table of
// Small et al. (1994) (473 isolates in 326 genotypes), the data Tanaka et
// al. (2006) fit. BalanceMeans gives the balance population sizes and the
// mean number of observations per year, closed forms the tests check the
// simulator against.
//
// Errors wrap simulate.ErrInvalid (simulate.ErrInvalidTheta for a bad θ).
// Every simulator is safe for concurrent use and allocates nothing per
// simulation once warm.
//
// References: Lintusaari J, Blomstedt P, Rose B, Sivula T, Gutmann MU,
// Kaski S, Corander J (2019), Resolving outbreak dynamics using approximate
// Bayesian computation for stochastic birth–death models, Wellcome Open
// Research 4:14. Tanaka MM, Francis AR, Luciani F, Sisson SA (2006), Using
// approximate Bayesian computation to estimate tuberculosis transmission
// parameters from genotype data, Genetics 173:1511–1520. Small PM et al.
// (1994), The epidemiology of tuberculosis in San Francisco, NEJM
// 330:1703–1709.
package tb
