package synth

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/internal/linalg"
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
	for i, v := range mean {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, invalidf("MVN mean[%d] is %v", i, v)
		}
	}
	for i, v := range cov {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, invalidf("MVN covariance entry %d is %v", i, v)
		}
	}
	l := make([]float64, p*p)
	if err := linalg.Cholesky(cov, p, l); err != nil {
		return nil, 0, fmt.Errorf("synth: MVN covariance: %w: %w", ErrInvalid, err)
	}
	logdet := linalg.LogDetChol(l, p)
	norm := -0.5 * (float64(p)*math.Log(2*math.Pi) + logdet)
	mu := append([]float64(nil), mean...)
	z := make([]float64, p)
	logf = func(theta []float64) float64 {
		for i := range z {
			z[i] = theta[i] - mu[i]
		}
		linalg.SolveLower(l, p, z)
		q := 0.0
		for _, v := range z {
			q += v * v
		}
		return norm - 0.5*q
	}
	return logf, norm, nil
}
