package mcmc

import (
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// The data-augmentation tests run on privatized linear regressions built
// here from the public model pieces; the papers' own settings (with their
// observed releases) are in mcmc/linregda, which imports this package.

// simulatedRelease returns a release of sim's statistic at θ through mech,
// simulated with a fixed seed.
func simulatedRelease(t testing.TB, sim simulate.Simulator, mech mechanism.Mechanism, theta []float64) []float64 {
	t.Helper()
	r := rand.New(rand.NewPCG(2026, 10))
	s, sdp := make([]float64, sim.StatDim()), make([]float64, sim.StatDim())
	if err := sim.Simulate(r, theta, s); err != nil {
		t.Fatal(err)
	}
	if err := mechanism.Simulate(mech, r, s, sdp); err != nil {
		t.Fatal(err)
	}
	return sdp
}

// linRegProblem returns a privatized linear regression with known noise
// variance: n records of linreg.Paper (σ² = 2), the prior N(0, I) on β,
// the Laplace mechanism at ε with the model's sensitivity and a release
// simulated at β = linreg.PaperTheta(); with its exact θ-step.
func linRegProblem(t testing.TB, n int, eps float64) (privinfer.Problem, *linreg.Conjugate) {
	t.Helper()
	model := linreg.Paper()
	sens, err := linreg.Sensitivity(model.P(), n)
	if err != nil {
		t.Fatal(err)
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: eps, Dim: model.ContribDim()})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulate.NewMeanStat(model, n)
	if err != nil {
		t.Fatal(err)
	}
	prior, err := linreg.Prior(model.P())
	if err != nil {
		t.Fatal(err)
	}
	th, err := linreg.NewConjugate(linreg.ConjugateConfig{P: model.P(), Sigma2: 2, PriorMean: []float64{0, 0, 0}, PriorVar: []float64{1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	return privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: lap,
		Observed: simulatedRelease(t, sim, lap, linreg.PaperTheta()), Names: []string{"beta0", "beta1", "beta2"}}, th
}

// nigProblem returns a privatized normal-inverse-gamma linear regression
// with n = 10 records (x ~ N((0.9, −1.17), I), a0 = b0 = 10, g = 2,
// clamp 6), Laplace noise of scale (13/n)/ε and a release simulated at
// θ = (−1.79, −2.89, −0.66, 2); the linreg.NIG is its prior, record model,
// θ-step and Coupler.
func nigProblem(t testing.TB, eps float64) (privinfer.Problem, *linreg.NIG) {
	t.Helper()
	const n = 10
	nig, err := linreg.NewNIG(linreg.NIGConfig{PredictorMean: []float64{0.9, -1.17}, A0: 10, B0: 10, G: 2, Clamp: 6})
	if err != nil {
		t.Fatal(err)
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 13.0 / n, Epsilon: eps, Dim: nig.ContribDim()})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulate.NewMeanStat(nig, n)
	if err != nil {
		t.Fatal(err)
	}
	return privinfer.Problem{Prior: nig, Simulator: sim, Mechanism: lap,
		Observed: simulatedRelease(t, sim, lap, []float64{-1.79, -2.89, -0.66, 2}), Names: []string{"beta0", "beta1", "beta2", "sigma2"}}, nig
}

// priorPair starts both chains of a coupled pair at independent draws
// from nig's prior, with records drawn from the model.
func priorPair(nig *linreg.NIG) func(pair int, r *rand.Rand, th1, x1, th2, x2 []float64) error {
	return func(_ int, r *rand.Rand, th1, x1, th2, x2 []float64) error {
		rd := nig.RecordDim()
		for _, c := range [2]struct{ th, x []float64 }{{th1, x1}, {th2, x2}} {
			nig.Sample(r, c.th)
			for i := range len(c.x) / rd {
				nig.SampleRecord(r, c.th, c.x[i*rd:(i+1)*rd])
			}
		}
		return nil
	}
}

// farInits are four starting points far apart in the tails of the N(0, I) prior.
var farInits = [][]float64{{4, 4, 4}, {-4, -4, -4}, {4, -4, 4}, {-4, 4, -4}}

// testRecords draws n linear-regression records (x1, x2, y).
func testRecords(r *rand.Rand, n int) []float64 {
	rec := make([]float64, 3*n)
	for i := range n {
		x1, x2 := 0.9+r.NormFloat64(), -1.17+r.NormFloat64()
		rec[3*i], rec[3*i+1], rec[3*i+2] = x1, x2, -1.8-2.9*x1-0.7*x2+1.4*r.NormFloat64()
	}
	return rec
}
