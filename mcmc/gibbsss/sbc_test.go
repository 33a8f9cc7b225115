package gibbsss

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestSBC is simulation-based calibration (Talts et al. 2018) of the whole
// sampler with every block active: p = 1, σ² unknown, a
// normal-inverse-Wishart prior on the predictors' law, n = 2000 records
// and Laplace noise of scale 0.05 (comparable to the sampling spread of the
// statistic, so the statistic and noise-variance steps matter). Each of
// the 200 data sets draws the parameters from the prior, the statistic
// from the normal approximation N(E[t], Cov[t]/n) restricted to the
// admissible set (the model the first step uses; its moments are checked
// separately by TestStatMoments) and the release by adding Laplace noise.
// The chain keeps 99 draws, thinned by 10 after 300 warm-up iterations,
// and the ranks of the true β_0, β_1 and σ² among them must pass a
// chi-square test of uniformity over 10 bins at the Bonferroni-adjusted
// level 10⁻³ (the false-alarm rate for an exact sampler). The conjugate
// steps are exact for the record-level model rather than for the normal
// approximation (see the package documentation); at n = 2000 the two
// posteriors differ by a small fraction of a posterior standard deviation,
// which 200 data sets cannot detect, while a wrong step shifts the ranks
// at once.
func TestSBC(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const (
		datasets = 200
		L        = 99
		bins     = 10
	)
	base := spec{P: 1, N: 2000, Observed: make([]float64, StatDim(1)), LaplaceScale: 0.2,
		Sigma2Shape: 4, Sigma2Scale: 3, PredictorPrior: &NIW{Mean: []float64{0.5}, Kappa: 2, Scale: []float64{2}, DF: 5},
		Chains: 1, Warmup: 3000, Draws: L, Thin: 100}
	if err := base.validate(); err != nil {
		t.Fatal(err)
	}
	gen := newChain(newModel(base))
	r := rand.New(rand.NewPCG(11, 12))
	k := gen.m.k
	hist := make([][]int, 3)
	for j := range hist {
		hist[j] = make([]int, bins)
	}
	for ds := range datasets {
		gen.init(r) // parameters from the prior
		truth := []float64{gen.theta[0], gen.theta[1], gen.v}
		gen.moments()
		if err := gen.factorStat(); err != nil {
			t.Fatal(err)
		}
		for {
			for i := range k {
				gen.z[i] = r.NormFloat64()
			}
			for i := range k {
				v := gen.mt[i]
				for j := 0; j <= i; j++ {
					v += gen.la[i*k+j] * gen.z[j]
				}
				gen.s0[i] = v
			}
			if gen.admissible(gen.s0) {
				break
			}
		}
		cfg := base
		cfg.Observed = make([]float64, k)
		for i := range k {
			u := r.Float64() - 0.5
			cfg.Observed[i] = gen.s0[i] - base.LaplaceScale*math.Copysign(math.Log1p(-2*math.Abs(u)), u)
		}
		cfg.Seed = uint64(ds)
		res, err := run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		d := res.Draws
		for j := range 3 {
			rank := 0
			for i := range d.Len() {
				if d.Theta[i*d.Dim+j] < truth[j] {
					rank++
				}
			}
			hist[j][rank*bins/(L+1)]++
		}
	}
	minP := 1.0
	for j, h := range hist {
		chi := 0.0
		e := float64(datasets) / bins
		for _, c := range h {
			chi += (float64(c) - e) * (float64(c) - e) / e
		}
		pv := special.ChiSquareSF(chi, bins-1)
		t.Logf("parameter %d: ranks %v, χ² = %.1f, p = %.3g", j, h, chi, pv)
		minP = math.Min(minP, pv)
	}
	if 3*minP < 1e-3 {
		t.Errorf("ranks are not uniform: Bonferroni p = %.3g < 1e-3", 3*minP)
	}
}
