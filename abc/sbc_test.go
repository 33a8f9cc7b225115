package abc_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// Simulation-based calibration of the ABC engines on a small private
// problem: θ ~ N(0, 1), n = 5 records x_i ~ N(θ, 1) clamped to [−3, 3],
// their mean released with Laplace noise (sensitivity 6/5, budget ε = 2,
// scale 0.6). Each test
// runs privinfer.SBC with the engine as the fit and requires the ranks to
// pass the chi-square test at level 10⁻³ (the false-alarm rate of the
// fixed-seed test for an exact posterior); the engines are consistent
// approximations, set up here so that their error is far below what 200
// data sets can detect.

// sbcClampedMean simulates the clamped mean of n records.
type sbcClampedMean struct{ n int }

func (s sbcClampedMean) StatDim() int  { return 1 }
func (s sbcClampedMean) ParamDim() int { return 1 }
func (s sbcClampedMean) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != 1 || math.IsNaN(theta[0]) || math.IsInf(theta[0], 0) {
		return fmt.Errorf("%w: θ = %v", simulate.ErrInvalidTheta, theta)
	}
	sum := 0.0
	for range s.n {
		sum += min(max(theta[0]+r.NormFloat64(), -3), 3)
	}
	dst[0] = sum / float64(s.n)
	return nil
}

// sbcProblem returns the problem with n records and budget eps.
func sbcProblem(t *testing.T, n int, eps float64) privinfer.Problem {
	t.Helper()
	nrm, err := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 1})
	if err != nil {
		t.Fatal(err)
	}
	prior, err := simulate.NewIndependent(nrm)
	if err != nil {
		t.Fatal(err)
	}
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 6 / float64(n), Epsilon: eps, Dim: 1})
	if err != nil {
		t.Fatal(err)
	}
	return privinfer.Problem{Prior: prior, Simulator: sbcClampedMean{n}, Mechanism: mech, Names: []string{"mu"}}
}

// sbcDatasets is the number of data sets: 200 by default, 1000 with
// PRIVINFER_LONG set.
func sbcDatasets() int {
	if os.Getenv(testutil.LongEnv) != "" {
		return 1000
	}
	return 200
}

// checkSBC runs SBC and fails unless the ranks pass at level 10⁻³.
func checkSBC(t *testing.T, p privinfer.Problem, fit privinfer.SBCFit, seed uint64) {
	t.Helper()
	res, err := privinfer.SBC(t.Context(), p, fit, privinfer.SBCConfig{Datasets: sbcDatasets(), Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Calibrated(1e-3) {
		t.Errorf("ranks not uniform:\n%v", res)
	}
	t.Logf("%v", res)
}

// TestSBCKernelIS calibrates exact-kernel importance sampling: three
// adaptive stages of 2000 simulations from a wide Student-t start.
func TestSBCKernelIS(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := sbcProblem(t, 5, 2)
	fit := func(ctx context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		res, err := abc.KernelIS(ctx, p, abc.KernelISConfig{Simulations: 2000, Stages: 3,
			Mean: []float64{p.Observed[0]}, Cov: []float64{2}, Seed: seed})
		if err != nil {
			return nil, err
		}
		return res.Draws, nil
	}
	checkSBC(t, p, fit, 21)
}

// TestSBCSMC calibrates SMC-ABC: 150 particles, the adaptive median
// schedule down to a tolerance between 0.1 and 0.2 (the uniform ABC
// kernel then adds at most 2% to the variance 0.72 of the Laplace noise).
func TestSBCSMC(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := sbcProblem(t, 5, 2)
	fit := func(ctx context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		res, err := abc.SMC(ctx, p, abc.SMCConfig{Distance: abc.Euclidean{}, Particles: 150,
			Schedule: abc.Adaptive{Initial: math.Inf(1), Quantile: 0.5, Rounds: 20, Min: 0.1}, Seed: seed})
		if err != nil {
			return nil, err
		}
		return res.Draws, nil
	}
	checkSBC(t, p, fit, 22)
}

// TestSBCSMCNaiveFails: SMC-ABC on the problem without its mechanism,
// treating the release as the confidential mean, ignores the Laplace noise;
// its posterior is over-confident and SBC rejects it (ε = 0.5: Laplace
// scale 2.4). A budget of 5000 simulations ends the runs whose release
// no clamped mean can match.
func TestSBCSMCNaiveFails(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := sbcProblem(t, 5, 0.5)
	fit := func(ctx context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		p.Mechanism = nil
		res, err := abc.SMC(ctx, p, abc.SMCConfig{Distance: abc.Euclidean{}, Particles: 150, MaxSimulations: 5000,
			Schedule: abc.Adaptive{Initial: math.Inf(1), Quantile: 0.5, Rounds: 20, Min: 0.1}, Seed: seed})
		if err != nil {
			return nil, err
		}
		return res.Draws, nil
	}
	res, err := privinfer.SBC(t.Context(), p, fit, privinfer.SBCConfig{Datasets: 100, Seed: 23})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calibrated(1e-3) {
		t.Errorf("the noise-ignoring posterior passed:\n%v", res)
	}
	t.Logf("%v", res)
}
