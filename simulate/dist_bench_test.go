package simulate

import (
	"math/rand/v2"
	"testing"
)

// hotDists are the distributions simulators call in their inner loops.
func hotDists(t testing.TB) map[string]Univariate {
	must := func(d Univariate, err error) Univariate {
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	nrm, _ := NewNormal(NormalConfig{Mu: 0, Sigma: 1})
	return map[string]Univariate{
		"Normal":      nrm,
		"Gamma":       must(NewGamma(GammaConfig{Shape: 2.5, Scale: 1})),
		"Beta":        must(NewBeta(BetaConfig{Alpha: 2, Beta: 3})),
		"Exponential": must(NewExponential(2)),
		"Poisson":     must(NewPoisson(30)),
		"Binomial":    must(NewBinomial(BinomialConfig{N: 100, P: 0.3})),
		"Categorical": must(NewCategorical([]float64{1, 2, 3, 4})),
		"Truncated":   must(Truncate(nrm, 1, 2)),
	}
}

// TestDistributionsAllocateNothing checks that Sample and LogDensity of
// every distribution, and the priors' Sample and LogDensity, allocate
// nothing.
func TestDistributionsAllocateNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for name, d := range hotDists(t) {
		if a := testing.AllocsPerRun(100, func() { d.LogDensity(d.Sample(r)) }); a != 0 {
			t.Errorf("%s: %v allocations per draw", name, a)
		}
	}
	g, _ := NewGamma(GammaConfig{Shape: 2, Scale: 1})
	ind, _ := NewIndependent(g, g)
	mv, _ := NewMVNormal(MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 0.5, 0.5, 1}})
	dir, _ := NewDirichlet([]float64{1, 2, 3})
	for _, p := range []Prior{ind, mv, dir} {
		th := make([]float64, p.Dim())
		if a := testing.AllocsPerRun(100, func() { p.Sample(r, th); p.LogDensity(th) }); a != 0 {
			t.Errorf("%T: %v allocations per draw", p, a)
		}
	}
}

func BenchmarkDistributions(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for name, d := range hotDists(b) {
		b.Run(name+"/Sample", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d.Sample(r)
			}
		})
		x := d.Sample(r)
		b.Run(name+"/LogDensity", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d.LogDensity(x)
			}
		})
	}
}
