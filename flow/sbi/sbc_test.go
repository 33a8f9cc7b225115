package sbi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
)

// Simulation-based calibration of SPPE and SPLE on the test model of
// helpers_test.go: θ ~ N(0, 1), the confidential mean s | θ ~ N(θ, τ²)
// with τ = 0.5, released with Laplace noise of scale 0.5; its exact
// posterior at any release is a one-dimensional quadrature
// (exactPosterior).
//
// Each test trains ONE amortized posterior (a single round on prior
// simulations) and conditions it with At on every prior-predictive data
// set that privinfer.SBC draws. This is valid SBC of the amortized
// posterior q(θ | s_dp): the training simulations come from streams of
// their own seed, independent of the SBC data sets, so given the trained
// flow the data sets' ranks are independent, and they are uniform for
// every data set exactly when q(θ | s_dp) = π(θ | s_dp) for almost every
// s_dp of the prior predictive. (It does not calibrate the training
// procedure over training sets, which would need one training per data
// set.) The ranks must pass SBC's chi-square test at level 10⁻³, the
// test's false-alarm rate for an exact posterior; the same draws shrunk
// toward their mean by a factor 0.5, an over-confident posterior, must
// fail it. By default 200 data sets; with PRIVINFER_LONG set, 1000 data
// sets and a posterior trained on more simulations.

// sbcSize returns the number of SBC data sets and of training
// simulations: 200 and 2000 by default, 1000 and 5000 with PRIVINFER_LONG.
func sbcSize() (datasets, sims int) {
	if os.Getenv(testutil.LongEnv) != "" {
		return 1000, 5000
	}
	return 200, 2000
}

// sbcConfig is smallConfig cut to one round of sims simulations: the
// amortized posterior of the SBC tests.
func sbcConfig(sims int) Config {
	c := smallConfig()
	c.Rounds, c.SimsPerRound = 1, sims
	c.PosteriorSamples = 100
	return c
}

// shrink moves n×1 draws toward their mean by the factor f.
func shrink(x []float64, f float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	for i, v := range x {
		x[i] = m + f*(v-m)
	}
}

// sbcFit returns the SBC fit function of an estimate conditioned by at on
// each data set's release: n draws on the data set's seed, shrunk toward
// their mean by the factor f (1 leaves them alone).
func sbcFit(at func([]float64) (Estimate, error), n int, f float64) privinfer.SBCFit {
	return func(_ context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		est, err := at(p.Observed)
		if err != nil {
			return nil, err
		}
		x := make([]float64, n)
		if err := est.Sample(rand.New(rand.NewPCG(seed, 0x736263)), n, x); err != nil {
			return nil, err
		}
		if f != 1 {
			shrink(x, f)
		}
		return &privinfer.Draws{Dim: 1, Theta: x}, nil
	}
}

// checkAmortized fails the test unless the posterior is amortized, then
// runs SBC with n draws per data set at the release that at conditions it
// on: the ranks must be uniform, and those of the same draws shrunk by 0.5
// (an over-confident posterior) must not.
func checkAmortized(t *testing.T, p privinfer.Problem, amortized bool, at func([]float64) (Estimate, error), n, datasets int, seed uint64) {
	t.Helper()
	if !amortized {
		t.Fatal("one-round posterior not amortized")
	}
	cfg := privinfer.SBCConfig{Datasets: datasets, Seed: seed}
	res, err := privinfer.SBC(t.Context(), p, sbcFit(at, n, 1), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("amortized posterior:\n%v", res)
	if !res.Calibrated(1e-3) {
		t.Errorf("ranks of the amortized posterior not uniform:\n%v", res)
	}
	bad, err := privinfer.SBC(t.Context(), p, sbcFit(at, n, 0.5), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("draws shrunk by 0.5:\n%v", bad)
	if bad.Calibrated(1e-3) {
		t.Errorf("the over-confident posterior passed:\n%v", bad)
	}
}

// TestSBCSPPE calibrates an amortized SPPE posterior: 99 independent flow
// draws per data set, restricted to the prior support (all of R here);
// without and with the regression shift, and with the shift and the
// context-dependent affine layer, the defaults' combination for one round.
func TestSBCSPPE(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	datasets, sims := sbcSize()
	p := testProblem()
	for _, c := range []struct{ shift, affine bool }{{false, false}, {true, false}, {true, true}} {
		t.Run(fmt.Sprintf("RegressionShift=%v,affine=%v", c.shift, c.affine), func(t *testing.T) {
			cfg := sbcConfig(sims)
			cfg.RegressionShift = shiftMode(c.shift)
			cfg.Flow.ContextAffine = c.affine
			res, err := SPPE(t.Context(), p, cfg)
			if err != nil {
				t.Fatal(err)
			}
			post := res.Posterior
			checkAmortized(t, p, post.Amortized(), func(sdp []float64) (Estimate, error) { return post.At(sdp) }, 99, datasets, 31)
		})
	}
}

// TestSBCSPLE calibrates an amortized SPLE posterior: the one trained
// likelihood times the prior, sampled at each data set's release by four
// short adaptive Metropolis chains (warm-up 200, every 4th of 50 draws per
// chain kept); SBC thins the 200 draws to 99, so consecutive ranked draws
// are 8 iterations apart, nearly independent for a one-dimensional
// Metropolis chain. The likelihood flow is trained with and without the
// context-dependent affine layer that Config.DefaultFlow gives it.
func TestSBCSPLE(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	datasets, sims := sbcSize()
	for _, affine := range []bool{false, true} {
		t.Run(fmt.Sprintf("affine=%v", affine), func(t *testing.T) {
			p := testProblem()
			cfg := sbcConfig(sims)
			cfg.Chains, cfg.Warmup, cfg.Thin = 4, 200, 4
			cfg.Flow.ContextAffine = affine
			res, err := SPLE(t.Context(), p, cfg)
			if err != nil {
				t.Fatal(err)
			}
			post := res.Posterior
			checkAmortized(t, p, post.Amortized(), func(sdp []float64) (Estimate, error) { return post.At(sdp) }, 200, datasets, 32)
		})
	}
}
