package mcmc

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/internal/diag"
)

// ErrDegenerate is wrapped by the errors the diagnostics return together
// with a NaN value when their input cannot support the estimate: no
// chains, chains of unequal length, too few draws, non-finite draws or a
// constant sample. It is the same value as privinfer.ErrDegenerate, so
// either can be tested with errors.Is.
var ErrDegenerate = diag.ErrDegenerate

// RHat returns the rank-normalised split R̂ of Vehtari et al. (2021): the
// larger of the bulk R̂ (split chains, rank-normalised) and the tail R̂
// (the same for |x − median|). chains holds one series per chain, all of
// the same length. It returns NaN and an error wrapping ErrDegenerate for
// no chains, fewer than 6 draws per chain (3 per split half),
// non-finite draws or a constant sample.
func RHat(chains [][]float64) (float64, error) { return wrap(diag.RHat(chains)) }

// RHatBasic returns the classic split R̂ without rank normalisation
// (Gelman et al. 2013), with the same degenerate-input rules as RHat. It
// is kept for comparison with older reports, not for judging convergence:
// it does not see chains with equal means and different scales (1.0005 on
// such chains where RHat gives 1.16; internal/diag/testdata), so use RHat.
func RHatBasic(chains [][]float64) (float64, error) { return wrap(diag.RHatBasic(chains)) }

// ESSBulk returns the bulk effective sample size of Vehtari et al.
// (2021): the ESS of the rank-normalised split chains. Degenerate input
// (see RHat) gives NaN and an error wrapping ErrDegenerate.
func ESSBulk(chains [][]float64) (float64, error) { return wrap(diag.ESSBulk(chains)) }

// ESSQuantile returns the ESS of the indicator I(x ≤ q_p) on split chains,
// q_p the type-7 p-quantile of the pooled split draws. A level p outside
// (0, 1) gives NaN and an error wrapping ErrInvalid.
func ESSQuantile(chains [][]float64, p float64) (float64, error) {
	if !(p > 0 && p < 1) {
		return math.NaN(), fmt.Errorf("%w: quantile level must be in (0, 1), got %v", ErrInvalid, p)
	}
	return wrap(diag.ESSQuantile(chains, p))
}

// ESSTail returns the tail effective sample size of Vehtari et al.
// (2021): the smaller of the ESS of the 5% and 95% quantile indicators.
func ESSTail(chains [][]float64) (float64, error) { return wrap(diag.ESSTail(chains)) }

// ESSMean returns the ESS of the split chains without rank normalisation
// (the basic ESS for estimating the mean).
func ESSMean(chains [][]float64) (float64, error) { return wrap(diag.ESSMean(chains)) }

// MCSEMean returns the Monte Carlo standard error of the posterior mean,
// sd/√ESSMean.
func MCSEMean(chains [][]float64) (float64, error) { return wrap(diag.MCSEMean(chains)) }

// Autocorrelation returns the sample autocorrelations ρ_t = γ_t/γ_0 of x
// for lags t = 0..maxLag (biased estimator, as in Stan). It returns an
// error wrapping ErrDegenerate for fewer than 2 draws, non-finite draws
// or a constant series, and an error for maxLag outside [0, len(x)−1].
func Autocorrelation(x []float64, maxLag int) ([]float64, error) {
	ac, err := diag.Autocorrelation(x, maxLag)
	if err != nil {
		return nil, fmt.Errorf("mcmc: %w", err)
	}
	return ac, nil
}

// wrap prefixes a diagnostic's error with the package name.
func wrap(v float64, err error) (float64, error) {
	if err != nil {
		return v, fmt.Errorf("mcmc: %w", err)
	}
	return v, nil
}
