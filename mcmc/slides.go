package mcmc

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// SlidesN10 returns the privatized linear-regression problem of the
// slides' n = 10 SOMA table for ε ∈ {3, 30}: n = 10 records (x1, x2, y), x
// ~ N((0.90, −1.17), I), y | x ~ N(β_0 + β_1x1 + β_2x2, σ²), prior σ² ~
// InvGamma(10, 10), β | σ² ~ N(0, 2σ²I); the 9 statistics of
// linreg.Model on records clamped to [−6, 6] and divided by 6, averaged
// over records; Laplace noise of scale (13/n)/ε per coordinate; and the
// observed release used for the table. θ = (β_0, β_1, β_2, σ²), named
// beta0, beta1, beta2 and sigma2.
//
// The returned LinRegNIG is the problem's prior, its record model, the
// exact θ-step for DAConfig.ThetaStep and the Coupler of CoupleDA.
func SlidesN10(eps float64) (privinfer.Problem, *LinRegNIG, error) {
	var sdp []float64
	switch eps {
	case 3:
		sdp = []float64{0.6778, -0.0178, 0.1976, 0.3162, -0.2362, -0.121, 0.0557, -0.6128, 0.0974}
	case 30:
		sdp = []float64{-0.3868, -0.0926, 0.0806, 0.2603, 0.1281, -0.2086, 0.0686, -0.0336, 0.0665}
	default:
		return privinfer.Problem{}, nil, fmt.Errorf("mcmc: the slides' n = 10 table uses epsilon 3 or 30, got %v: %w", eps, ErrInvalid)
	}
	const n = 10
	nig, err := NewLinRegNIG([]float64{0.90, -1.17}, 10, 10, 2, 6)
	if err != nil {
		return privinfer.Problem{}, nil, err
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 13.0 / n, Epsilon: eps, Dim: 9})
	if err != nil {
		return privinfer.Problem{}, nil, err
	}
	sim, err := simulate.NewMeanStat(nig, n)
	if err != nil {
		return privinfer.Problem{}, nil, err
	}
	p := privinfer.Problem{Prior: nig, Simulator: sim, Mechanism: lap, Observed: sdp,
		Names: []string{"beta0", "beta1", "beta2", "sigma2"}}
	return p, nig, nil
}

// SlidesN10CouplingInit returns the table's coupling start for problem p
// (from SlidesN10): chain 1 at the end of a SOMA run of warm iterations
// from a prior start (approximately stationary), chain 2 fresh from the
// prior with records from the model.
func SlidesN10CouplingInit(p privinfer.Problem, nig *LinRegNIG, warm int) func(pair int, r *rand.Rand, th1, x1, th2, x2 []float64) error {
	return func(_ int, r *rand.Rand, th1, x1, th2, x2 []float64) error {
		if err := nig.check(); err != nil {
			return err
		}
		nig.Sample(r, th1)
		c, err := NewDAChain(p, DAConfig{ThetaStep: nig, RecordStep: SOMA}, r, th1)
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
		rd := nig.RecordDim()
		for i := range len(x2) / rd {
			nig.SampleRecord(r, th2, x2[i*rd:(i+1)*rd])
		}
		return nil
	}
}
