package conjugate_test

import (
	"context"
	"math"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/conjugate"
)

// TestPoissonGammaDA runs data augmentation with PoissonGamma as record
// model, prior and θ-step on a Laplace release of the mean count, and
// compares the posterior mean of λ with the exact one: on a grid of λ,
// prior × Σ_S Poisson(S; nλ)·η(s_dp | S/n) with the mechanism's own
// density η (counts beyond MaxCount = 30 have probability below 1e-9 on
// the grid, so the clamping is negligible). The test fails beyond 5
// Monte Carlo standard errors (MCSEMean; false alarm about 6e-7).
func TestPoissonGammaDA(t *testing.T) {
	const n = 10
	m, err := conjugate.NewPoissonGamma(conjugate.PoissonGammaConfig{Shape: 2, Rate: 1, MaxCount: 30})
	if err != nil {
		t.Fatal(err)
	}
	stat, err := simulate.NewMeanStat(m, n)
	if err != nil {
		t.Fatal(err)
	}
	sens, _ := m.L1Sensitivity(n)
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: 4, Dim: 1})
	if err != nil {
		t.Fatal(err)
	}
	sdp := []float64{3.1}
	p := privinfer.Problem{Prior: m, Simulator: stat, Mechanism: lap, Observed: sdp, Names: []string{"lambda"}}
	res, err := mcmc.RunDA(context.Background(), p, mcmc.DAConfig{ThetaStep: m, Chains: 4, Warmup: 500, Draws: 5000, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Draws.Mean()[0]
	se, err := res.Draws.MCSEMean(0)
	if err != nil {
		t.Fatal(err)
	}

	// Exact posterior mean by a midpoint rule on λ ∈ (0, 15].
	const cells = 3000
	num, den := 0.0, 0.0
	for i := range cells {
		lam := (float64(i) + 0.5) * 15 / cells
		lik := 0.0
		for s := range int64(301) {
			lik += math.Exp(variate.PoissonLogPmf(s, n*lam) + lap.LogDensity(sdp, []float64{float64(s) / n}))
		}
		w := math.Exp(m.LogDensity([]float64{lam})) * lik
		num += lam * w
		den += w
	}
	want := num / den
	t.Logf("posterior mean of λ: DA %.4f ± %.4f, exact %.4f", got, se, want)
	if math.Abs(got-want) > 5*se {
		t.Errorf("DA posterior mean %v, exact %v (MCSE %v)", got, want, se)
	}
}
