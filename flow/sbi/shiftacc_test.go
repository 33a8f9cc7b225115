package sbi

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate/sbibm"
)

// TestRegressionShiftAccuracy checks the regression shift's accuracy gain
// on the sbibm Gaussian linear task (10-dimensional θ and observation,
// exact Gaussian posterior): amortized NPE on 1000 simulations, then the
// Kullback–Leibler divergence KL(p ‖ q) from the exact posterior p to the
// flow's posterior q, estimated from 400 exact draws at each of four
// observations simulated from the prior. The shift is measured on the
// flow without its context-dependent affine layer (plainFlow): with the
// shift the flow only has to learn the posterior's spread (its mean is
// linear in the observation); without it, it has to learn the mean map
// too. When this test was written the estimates were 0.57 nats with the
// shift and 1.36 without (seed 3; 0.333 and 1.198 with the training of
// DefaultTrain since); the test asks for at most 0.8 with it and at least
// 1.5 times that without. The default flow, whose affine layer can learn
// the mean map itself, scores 0.635 with the shift (0.598 without it); it
// must also stay within 0.8. The flow's training depends on the seed
// only, so the margins guard against changes of the code, not against
// Monte Carlo noise.
func TestRegressionShiftAccuracy(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	if raceEnabled {
		t.Skip("two trainings of a 10-dimensional flow: too slow under the race detector")
	}
	task := sbibm.NewGaussianLinear()
	d := task.Dim()
	r := rand.New(rand.NewPCG(21, 22))
	obs := make([][]float64, 4)
	theta := make([]float64, d)
	for i := range obs {
		task.Prior().Sample(r, theta)
		obs[i] = make([]float64, task.DataDim())
		if err := task.Simulator().Simulate(r, theta, obs[i]); err != nil {
			t.Fatal(err)
		}
	}
	plain := plainFlow()
	kl := func(disable bool, fc *flow.Config) float64 {
		p, err := task.Problem(obs[0])
		if err != nil {
			t.Fatal(err)
		}
		res, err := SPPE(context.Background(), p, Config{Rounds: 1, SimsPerRound: 1000, PosteriorSamples: 1, Seed: 3,
			RegressionShift: shiftMode(!disable), Flow: fc})
		if err != nil {
			t.Fatal(err)
		}
		// The same exact draws score both flows (common random numbers).
		rd := rand.New(rand.NewPCG(23, 24))
		const n = 400
		tot := 0.0
		l := make([]float64, d*d)
		z, th := make([]float64, d), make([]float64, d)
		for _, x := range obs {
			post, err := res.Posterior.At(x)
			if err != nil {
				t.Fatal(err)
			}
			mean, cov, err := sbibm.GaussianLinearPosterior(x)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := linalg.CholeskyJitter(slices.Clone(cov), d, l); err != nil {
				t.Fatal(err)
			}
			logDet := 0.0
			for i := range d {
				logDet += math.Log(l[i*d+i])
			}
			for range n {
				for i := range z {
					z[i] = rd.NormFloat64()
				}
				q := 0.0
				for i := range d {
					v := mean[i]
					for j := 0; j <= i; j++ {
						v += l[i*d+j] * z[j]
					}
					th[i] = v
					q += z[i] * z[i]
				}
				logp := -0.5*q - logDet - 0.5*float64(d)*math.Log(2*math.Pi)
				tot += logp - post.LogDensity(th)
			}
		}
		return tot / float64(n*len(obs))
	}
	with, without, def := kl(false, &plain), kl(true, &plain), kl(false, nil)
	t.Logf("KL(exact ‖ NPE) with the regression shift %.3f nats, without %.3f; the default flow with the shift %.3f", with, without, def)
	if !(with <= 0.8) || !(without >= 1.5*with) {
		t.Errorf("KL with the shift %.3f (want ≤ 0.8), without %.3f (want ≥ 1.5 times that)", with, without)
	}
	if !(def <= 0.8) {
		t.Errorf("KL of the default flow %.3f, want ≤ 0.8", def)
	}
}
