// Package linregda holds the papers' privatized linear-regression settings
// for data-augmentation MCMC (mcmc.RunDA, mcmc.CoupleDA): the SBI paper's
// regression with known noise variance (SBIPaper, §4.2 and App. E.2 of the
// SBI paper) and the slides' n = 10 SOMA table with the
// normal-inverse-gamma model (SlidesN10). Each returns the
// privinfer.Problem together with its exact conjugate θ-step
// (linreg.Conjugate or linreg.NIG from package simulate/linreg). Errors
// wrap mcmc.ErrInvalid.
//
// The settings live here, not in package mcmc, because they are paper
// specifics rather than part of the engine, and not in simulate/linreg,
// because the coupling start of the slides' table runs mcmc's chains
// (simulate must not import mcmc).
package linregda

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// SBIPaper returns the SBI paper's privatized linear regression at
// ε ∈ {10, 1, 0.1} as a Problem for data augmentation: the prior N(0, I)
// on β = (β_0, β_1, β_2) (linreg.Prior), n = linreg.PaperN records of
// linreg.Paper (known σ² = 2), the Laplace mechanism with the model's
// sensitivity (linreg.Sensitivity), the paper's observed release
// at ε (linreg.Release), and names beta0, beta1, beta2. The returned
// linreg.Conjugate is its exact θ-step for mcmc.DAConfig.ThetaStep.
func SBIPaper(eps float64) (privinfer.Problem, *linreg.Conjugate, error) {
	model := linreg.Paper()
	n := linreg.PaperN
	sdp, err := linreg.Release(eps)
	if err != nil {
		return privinfer.Problem{}, nil, argcheck.Also(err, mcmc.ErrInvalid)
	}
	sens, err := linreg.Sensitivity(model.P(), n)
	if err != nil {
		return privinfer.Problem{}, nil, argcheck.Also(err, mcmc.ErrInvalid)
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: eps, Dim: model.ContribDim()})
	if err != nil {
		return privinfer.Problem{}, nil, argcheck.Also(err, mcmc.ErrInvalid)
	}
	prior, err := linreg.Prior(model.P())
	if err != nil {
		return privinfer.Problem{}, nil, argcheck.Also(err, mcmc.ErrInvalid)
	}
	sim, err := simulate.NewMeanStat(model, n)
	if err != nil {
		return privinfer.Problem{}, nil, argcheck.Also(err, mcmc.ErrInvalid)
	}
	th, err := linreg.NewConjugate(linreg.ConjugateConfig{P: model.P(), Sigma2: 2, PriorMean: []float64{0, 0, 0}, PriorVar: []float64{1, 1, 1}})
	if err != nil {
		return privinfer.Problem{}, nil, argcheck.Also(err, mcmc.ErrInvalid)
	}
	p := privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: lap, Observed: sdp,
		Names: []string{"beta0", "beta1", "beta2"}}
	return p, th, nil
}

// SlidesN10 returns the privatized linear-regression problem of the
// slides' n = 10 SOMA table for ε ∈ {3, 30}: n = 10 records (x1, x2, y), x
// ~ N((0.90, −1.17), I), y | x ~ N(β_0 + β_1x1 + β_2x2, σ²), prior σ² ~
// InvGamma(10, 10), β | σ² ~ N(0, 2σ²I); the 9 statistics of
// linreg.Model on records clamped to [−6, 6] and divided by 6, averaged
// over records; Laplace noise of scale (13/n)/ε per coordinate; and the
// observed release used for the table. θ = (β_0, β_1, β_2, σ²), named
// beta0, beta1, beta2 and sigma2.
//
// The returned linreg.NIG is the problem's prior, its record model, the
// exact θ-step for mcmc.DAConfig.ThetaStep and the mcmc.Coupler of
// mcmc.CoupleDA.
func SlidesN10(eps float64) (privinfer.Problem, *linreg.NIG, error) {
	var sdp []float64
	switch eps {
	case 3:
		sdp = []float64{0.6778, -0.0178, 0.1976, 0.3162, -0.2362, -0.121, 0.0557, -0.6128, 0.0974}
	case 30:
		sdp = []float64{-0.3868, -0.0926, 0.0806, 0.2603, 0.1281, -0.2086, 0.0686, -0.0336, 0.0665}
	default:
		return privinfer.Problem{}, nil, fmt.Errorf("%w: the slides' n = 10 table uses epsilon 3 or 30, got %v", mcmc.ErrInvalid, eps)
	}
	const n = 10
	nig, err := linreg.NewNIG(linreg.NIGConfig{PredictorMean: []float64{0.90, -1.17}, A0: 10, B0: 10, G: 2, Clamp: 6})
	if err != nil {
		return privinfer.Problem{}, nil, argcheck.Also(err, mcmc.ErrInvalid)
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 13.0 / n, Epsilon: eps, Dim: nig.ContribDim()})
	if err != nil {
		return privinfer.Problem{}, nil, argcheck.Also(err, mcmc.ErrInvalid)
	}
	sim, err := simulate.NewMeanStat(nig, n)
	if err != nil {
		return privinfer.Problem{}, nil, argcheck.Also(err, mcmc.ErrInvalid)
	}
	p := privinfer.Problem{Prior: nig, Simulator: sim, Mechanism: lap, Observed: sdp,
		Names: []string{"beta0", "beta1", "beta2", "sigma2"}}
	return p, nig, nil
}

// SlidesN10CouplingInit returns the table's coupling start for problem p
// (from SlidesN10), for mcmc.CouplingConfig.InitPair: chain 1 at the end
// of a SOMA run of warm iterations from a prior start (approximately
// stationary), chain 2 fresh from the prior with records from the model.
// The returned function refuses, with an error wrapping mcmc.ErrInvalid, a
// nil or zero-value nig, a negative warm, a nil r, θ slices not of length
// nig.Dim() and record slices of different lengths or not a multiple of
// nig.RecordDim().
func SlidesN10CouplingInit(p privinfer.Problem, nig *linreg.NIG, warm int) func(pair int, r *rand.Rand, th1, x1, th2, x2 []float64) error {
	return func(_ int, r *rand.Rand, th1, x1, th2, x2 []float64) error {
		d, rd := nig.Dim(), nig.RecordDim()
		switch {
		case d == 0:
			return fmt.Errorf("%w: linreg.NIG used without linreg.NewNIG (nil or zero value)", mcmc.ErrInvalid)
		case warm < 0:
			return fmt.Errorf("%w: SlidesN10CouplingInit warm must be >= 0, got %d", mcmc.ErrInvalid, warm)
		case r == nil:
			return fmt.Errorf("%w: coupling start needs a non-nil *rand.Rand", mcmc.ErrInvalid)
		case len(th1) != d || len(th2) != d:
			return fmt.Errorf("%w: coupling start θ lengths %d and %d, want %d", mcmc.ErrInvalid, len(th1), len(th2), d)
		case len(x1) != len(x2) || len(x1)%rd != 0:
			return fmt.Errorf("%w: coupling start record lengths %d and %d, want equal multiples of %d", mcmc.ErrInvalid, len(x1), len(x2), rd)
		}
		nig.Sample(r, th1)
		c, err := mcmc.NewDAChain(p, mcmc.DAConfig{ThetaStep: nig, RecordStep: mcmc.SOMA}, r, th1)
		if err != nil {
			return err
		}
		for range warm {
			if err := c.Sweep(r); err != nil {
				return err
			}
		}
		copy(th1, c.Theta())
		copy(x1, c.Records())
		nig.Sample(r, th2)
		for i := range len(x2) / rd {
			nig.SampleRecord(r, th2, x2[i*rd:(i+1)*rd])
		}
		return nil
	}
}
