package gibbsss

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkIteration times one Gibbs-SS iteration on the SBI paper's
// ε = 10 release (p = 2, nine statistics), with the predictors' law known
// and with its normal-inverse-Wishart prior.
func BenchmarkIteration(b *testing.B) {
	for _, tc := range []struct {
		name string
		niw  bool
	}{{"known", false}, {"niw", true}} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := spec{P: 2, N: 100, Observed: []float64{-0.38244, -0.066783, 0.031997, 0.271985, 0.098835, -0.138503, 0.021882, -0.022884, 0.034092},
				LaplaceScale: 0.013, Scale: 10, Sigma2: 2, PredictorMean: []float64{0.9, -1.17}}
			if tc.niw {
				cfg.PredictorMean, cfg.PredictorPrior = nil, &NIW{Kappa: 1, Scale: []float64{100, 0, 0, 100}, DF: 50}
			}
			if err := cfg.validate(); err != nil {
				b.Fatal(err)
			}
			c := newChain(newModel(cfg))
			r := rand.New(rand.NewPCG(1, 2))
			c.init(r)
			b.ReportAllocs()
			for b.Loop() {
				if err := c.step(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
