package mcmc_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// Simulation-based calibration of data-augmentation MCMC on a small
// private problem: θ ~ N(0, 1), n = 5 records x_i ~ N(θ, 1) whose values
// are clamped to [−3, 3] before their mean is released with Laplace noise
// (sensitivity 6/5, ε = 2, scale 0.6). The ranks over 200 data sets must
// pass the chi-square test at level 10⁻³ (the false-alarm rate of this
// fixed-seed test for an exact sampler); the chains' draws are thinned
// to 99 nearly independent ones.

// sbcClampedNormal is the record model: a raw record x ~ N(θ, 1) with
// contribution clamp(x, −3, 3).
type sbcClampedNormal struct{}

func (sbcClampedNormal) ParamDim() int   { return 1 }
func (sbcClampedNormal) RecordDim() int  { return 1 }
func (sbcClampedNormal) ContribDim() int { return 1 }
func (sbcClampedNormal) CheckParam(theta []float64) error {
	if len(theta) != 1 || math.IsNaN(theta[0]) || math.IsInf(theta[0], 0) {
		return fmt.Errorf("%w: θ = %v", simulate.ErrInvalidTheta, theta)
	}
	return nil
}
func (sbcClampedNormal) SampleRecord(r *rand.Rand, theta, rec []float64) {
	rec[0] = theta[0] + r.NormFloat64()
}
func (sbcClampedNormal) Contribution(rec, dst []float64) { dst[0] = min(max(rec[0], -3), 3) }
func (sbcClampedNormal) RecordLogLik(theta, rec []float64) float64 {
	z := rec[0] - theta[0]
	return -0.5*z*z - 0.5*math.Log(2*math.Pi)
}

// TestSBCDataAugmentation calibrates RunDA with the random-scan IMwG
// record step and a Metropolis θ-step: two chains of 200 warm-up and 500
// kept sweeps per data set.
func TestSBCDataAugmentation(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const n = 5
	nrm, err := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 1})
	if err != nil {
		t.Fatal(err)
	}
	prior, err := simulate.NewIndependent(nrm)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulate.NewMeanStat(sbcClampedNormal{}, n)
	if err != nil {
		t.Fatal(err)
	}
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 6.0 / n, Epsilon: 2, Dim: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: mech, Names: []string{"mu"}}
	fit := func(ctx context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		step, err := mcmc.NewMetropolisTheta(p, []float64{0.8}, 3)
		if err != nil {
			return nil, err
		}
		res, err := mcmc.RunDA(ctx, p, mcmc.DAConfig{ThetaStep: step, Chains: 2, Warmup: 200, Draws: 500, Seed: seed})
		if err != nil {
			return nil, err
		}
		return res.Draws, nil
	}
	datasets := 200
	if os.Getenv(testutil.LongEnv) != "" {
		datasets = 1000
	}
	res, err := privinfer.SBC(t.Context(), p, fit, privinfer.SBCConfig{Datasets: datasets, Seed: 31})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Calibrated(1e-3) {
		t.Errorf("ranks not uniform:\n%v", res)
	}
	t.Logf("%v", res)
}
