package synth

import (
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/simulate"
)

// MVNLogDensity returns the log density of N(mean, cov) (cov p×p,
// row-major, positive definite) for use as the posterior of SiDD on a
// product grid (the multivariate-normal recipe of the paper's App. G),
// together with its supremum log G = −½ log det(2π cov), which bounds
// log f from above (SiPHiC's G = exp of it). On a grid covering
// [mean − C·sd, mean + C·sd] the density is bounded below by its value at
// a corner, giving A.
func MVNLogDensity(mean, cov []float64) (logf func(theta []float64) float64, logSup float64, err error) {
	p := len(mean)
	if p == 0 || len(cov) != p*p {
		return nil, 0, invalidf("MVN needs p >= 1 and a p×p covariance, got p = %d and %d entries", p, len(cov))
	}
	g, err := simulate.NewMVNormal(simulate.MVNormalConfig{Mean: mean, Cov: cov})
	if err != nil {
		return nil, 0, argcheck.Also(err, ErrInvalid)
	}
	// The density is largest at the mean.
	return g.LogDensity, g.LogDensity(mean), nil
}
