package flow

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestContextAffineTails fits q(y | z) to y = z + 0.05·ε in two dimensions
// (2000 pairs, z standard normal, both z-scored by their unit spread) with
// and without a ContextAffine layer, and counts draws at z0 = (0.7, 0.2)
// beyond Mahalanobis distance 5.9 of the true N(z0, 0.05²·I). Without the
// layer the splines take up the 20-fold narrowing and base draws beyond
// their interval land at the data's scale (a fraction 7·10⁻³ on this
// seed); with it the layer learns the scale (log-scale about −3 at z0) and
// the fraction must stay below 10⁻³. The plain flow must show the tail
// (above 2·10⁻³), or the test would not tell the two apart.
func TestContextAffineTails(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two flows")
	}
	const n, D, tau, draws = 2000, 2, 0.05, 20000
	z0 := []float64{0.7, 0.2}
	far := make(map[bool]float64)
	for _, aff := range []bool{false, true} {
		r := rand.New(rand.NewPCG(1, 2))
		cfg := DefaultConfig(D, D)
		cfg.Layers, cfg.ContextAffine = 5, aff
		f, err := New(cfg, r)
		if err != nil {
			t.Fatal(err)
		}
		z := randData(r, n, D, 1)
		y := make([]float64, n*D)
		for i := range y {
			y[i] = z[i] + tau*r.NormFloat64()
		}
		if err := f.SetStandardization(y, z, n); err != nil {
			t.Fatal(err)
		}
		tc := DefaultTrainConfig()
		tc.BatchSize, tc.ValidationFraction = 50, 0.1
		if _, err := f.Fit(context.Background(), y, z, n, tc); err != nil {
			t.Fatal(err)
		}
		x := make([]float64, draws*D)
		if err := f.Sample(rand.New(rand.NewPCG(3, 3)), z0, draws, x); err != nil {
			t.Fatal(err)
		}
		k := 0
		for i := 0; i < draws; i++ {
			r2 := 0.0
			for j := 0; j < D; j++ {
				e := (x[i*D+j] - z0[j]) / tau
				r2 += e * e
			}
			if r2 > 35 {
				k++
			}
		}
		far[aff] = float64(k) / draws
		if aff {
			w := f.newWork(1)
			f.loadShared(w, make([]float64, D), z0, 1, 1)
			f.embed(w, false)
			f.affineParams(w)
			s := []float64{-math.Log(w.affExp[0]), -math.Log(w.affExp[1])}
			t.Logf("affine layer: log-scale at z0 %.2f %.2f", s[0], s[1])
			if s[0] > -2 || s[1] > -2 {
				t.Errorf("the affine layer's log-scale at z0 is %.2f, %.2f; want below −2 (the data are 20 times narrower than their spread)", s[0], s[1])
			}
		}
		t.Logf("ContextAffine %v: fraction of draws beyond distance 5.9: %.2e", aff, far[aff])
	}
	if far[false] < 2e-3 {
		t.Errorf("without the layer %.2e of the draws lie far out, want above 2e-3 (the test no longer shows the tail)", far[false])
	}
	if far[true] > 1e-3 {
		t.Errorf("with the layer %.2e of the draws lie far out, want at most 1e-3", far[true])
	}
}
