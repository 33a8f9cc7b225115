// Package variate draws exact random variates from the distributions the
// library's simulators, mechanisms and samplers need, and evaluates their log
// densities and log masses.
//
// Log densities and masses (NormalLogPdf, BinomialLogPmf, …) are accurate to
// near machine precision also in the extreme regimes the generators cover; the large-count masses
// and the large-shape gamma and beta densities use Loader's (2000)
// saddle-point form, free of the cancellation in log-gamma differences.
//
// Every generator takes an explicit *rand.Rand from math/rand/v2; there is no
// global random state. Generators allocate nothing, so they can run in hot
// loops. Continuous generators return NaN for invalid parameters, the discrete
// Binomial and Poisson return -1, and functions with a setup or a slice
// argument (Multinomial, NewAlias) return an error; nothing panics on a bad
// parameter value.
//
// Algorithms:
//
//   - Normal and Exp use the ziggurat generators of math/rand/v2
//     (Rand.NormFloat64 and Rand.ExpFloat64, Marsaglia–Tsang 2000): one
//     64-bit word per draw 99% of the time, with exact tails; their float32
//     tables limit the resolution to about 2^-31 of a layer and the density
//     accuracy to about 1e-7 relative in the rare wedge tests, far below
//     what the package's 10⁶-draw KS tests can detect.
//   - Stream is a generator for simulators' innermost loops: xoshiro256++
//     held by value and seeded from the caller's *rand.Rand, with a
//     float64-table exponential ziggurat (Stream.Exp: 256 layers, the layer
//     and the position from independent bits of one word, the exact tail).
//   - Gamma uses Marsaglia–Tsang (2000) squeeze-rejection; shapes below one use
//     the boost Gamma(a) = Gamma(a+1)·U^(1/a) carried out in log space (see
//     GammaLog), so tiny shapes keep their full dynamic range.
//   - Beta and Dirichlet normalise gamma variates, in log space when a shape is
//     below one so that small shapes never produce 0/0 (Beta uses Jöhnk's
//     method, also in log space, when both shapes are below one); BetaLog returns
//     log X and log(1−X) for shapes so small that X rounds to 0 or 1.
//   - Binomial is exact for every n representable as int64: inversion for
//     n·min(p,1−p) < 10 and BTPE (Kachitvichyanukul & Schmeiser 1988)
//     otherwise, with the final acceptance test evaluated through Loader's
//     (2000) saddle-point form of the log mass, which is accurate for any n.
//   - Poisson is exact: inversion for λ < 10, PTRS (Hörmann 1993) otherwise.
//   - Multinomial draws sequential conditional binomials.
//   - StudentT uses Bailey's (1994) polar method, valid for any real df > 0.
//   - TruncNormal chooses among normal, uniform and Robert's (1995)
//     exponential rejection so that the acceptance rate stays bounded in every
//     regime, including intervals far in the tails.
//   - Alias implements Walker's alias method with Vose's (1991) stable setup.
package variate
