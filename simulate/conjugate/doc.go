// Package conjugate provides record models with exact conjugate θ-steps
// for data-augmentation MCMC (mcmc.RunDA): Poisson counts with a gamma
// prior (PoissonGamma), categorical records with a Dirichlet prior
// (CategoricalDirichlet) and normal records with a normal-inverse-gamma
// prior (NormalNIG).
//
// Each model is three things at once, as simulate/linreg's NIG is:
//
//   - a simulate.Prior on θ (the conjugate prior);
//   - a simulate.RecordModel: records x_i ~ f(·|θ), with a contribution
//     t(x_i) that is clamped to public bounds so that the mean statistic
//     s = (1/n) Σ t(x_i) has finite sensitivity (L1Sensitivity gives it
//     for a mechanism);
//   - an mcmc.ThetaStep: SampleTheta draws θ exactly from its conjugate
//     posterior given the raw latent records (the clamping concerns only
//     the release, not the data model).
//
// A Problem for data augmentation is then the model as Prior, a
// simulate.MeanStat of the model as Simulator, a mechanism with a density
// calibrated to L1Sensitivity, and the observed release; the model is
// also the DAConfig.ThetaStep.
//
// The conjugate updates are also exported on their own, from sufficient
// statistics that need not come from raw records (a sanitized sum or
// counts): PoissonGamma.SamplePosterior, CategoricalDirichlet.SamplePosterior
// and NIG.Update with NIG.Sample (NormalNIG.Prior is its prior as an NIG).
// Package synth builds its PoissonGamma, CategoricalDirichlet and
// GaussianNIG models for synthetic data on them.
//
// Errors wrap simulate.ErrInvalid and name the argument or field; a θ
// outside the parameter space gives an error wrapping
// simulate.ErrInvalidTheta.
package conjugate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate"
)

// minNormal is the smallest normal float64: positive parameters below it
// are refused.
const minNormal = 0x1p-1022

// maxRecords bounds n in SampleTheta and L1Sensitivity.
const maxRecords = 1 << 40

// checkPos validates a positive, finite, normal parameter named name.
func checkPos(name string, v float64) error {
	if !(v >= minNormal) || math.IsInf(v, 1) {
		return fmt.Errorf("%w: %s must be finite and > 0 (not subnormal), got %v", simulate.ErrInvalid, name, v)
	}
	return nil
}

// checkStep validates the arguments every SampleTheta shares: a generator,
// n in [1, 2^40], records of length n·rd with finite entries, and theta of
// length d.
func checkStep(what string, r *rand.Rand, records []float64, n, rd int, theta []float64, d int) error {
	if r == nil {
		return fmt.Errorf("%w: %s θ-step: r is nil", simulate.ErrInvalid, what)
	}
	if n < 1 || n > maxRecords {
		return fmt.Errorf("%w: %s θ-step: n must be in [1, 2^40], got %d", simulate.ErrInvalid, what, n)
	}
	if len(records) != n*rd {
		return fmt.Errorf("%w: %s θ-step: records must have length n·%d = %d, got %d", simulate.ErrInvalid, what, rd, n*rd, len(records))
	}
	if len(theta) != d {
		return fmt.Errorf("%w: %s θ-step: theta must have length %d, got %d", simulate.ErrInvalid, what, d, len(theta))
	}
	for i, v := range records {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s θ-step: records[%d] must be finite, got %v", simulate.ErrInvalid, what, i, v)
		}
	}
	return nil
}

// checkN validates the number of records of a sensitivity.
func checkN(n int) error {
	if n < 1 || n > maxRecords {
		return fmt.Errorf("%w: n must be in [1, 2^40], got %d", simulate.ErrInvalid, n)
	}
	return nil
}

// unbuilt reports a model used without its constructor.
func unbuilt(what string) error {
	return fmt.Errorf("%w: conjugate.%s used without its constructor (nil or zero value)", simulate.ErrInvalid, what)
}
