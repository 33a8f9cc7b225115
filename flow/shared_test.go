package flow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestSharedContextMatchesExpanded checks StepLossShared and
// LogDensitiesShared against StepLoss and LogDensities on the expanded contexts,
// and StepGroupLoss (one forward pass) against StepLossShared (two):
// log-densities, the loss and every gradient component agree to 1e-12
// relative (to the largest gradient component), for the paper's flow with
// context gating, without gating, and for group sizes 1, 3 and 10.
func TestSharedContextMatchesExpanded(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	for _, dc := range [][2]int{{2, 10}, {1, 10}, {1, 1}} {
		testSharedContext(t, dc[0], dc[1], false, false)
	}
	testSharedContext(t, 1, 6, true, false)
	testSharedContext(t, 2, 6, true, false)
	testSharedContext(t, 2, 10, false, true)
	testSharedContext(t, 1, 6, true, true)
}

// testSharedContext is TestSharedContextMatchesExpanded for a flow of
// dimension dim and context dimension ctx, with an embedding network (an
// MLP to 3 features) when emb is set and a ContextAffine layer when aff is
// set. In dimension 1 the conditioners see the context only, and the shared
// paths run them once per group (as they always run the affine layer's).
func testSharedContext(t *testing.T, dim, ctx int, emb, aff bool) {
	for _, gating := range []bool{true, false} {
		for _, na := range []int{1, 3, 10} {
			cfg := DefaultConfig(dim, ctx)
			if emb {
				e := ad.Net{In: ctx, Hidden: []int{5}, Out: 3}
				cfg.Embedding = &e
			}
			cfg.ContextGating, cfg.ContextAffine = gating, aff
			r := rand.New(rand.NewPCG(uint64(na), 7))
			f, err := New(cfg, r)
			if err != nil {
				t.Fatal(err)
			}
			// Move the residual blocks away from the identity so the
			// context paths carry weight.
			for i := range f.params {
				f.params[i] += 0.05 * r.NormFloat64()
			}
			tameAffine(f)
			G := 37
			n := G * na
			y := randData(r, n, dim, 1)
			zg := randData(r, G, ctx, 1)
			z := make([]float64, n*ctx)
			for i := 0; i < n; i++ {
				copy(z[i*ctx:(i+1)*ctx], zg[(i/na)*ctx:(i/na+1)*ctx])
			}
			// A loss that is a sum over groups, each term nonlinear in its
			// group's log-densities: Σ_g log Σ_{i∈g} e^{w_i log q_i}.
			wts := randData(r, n, 1, 0.3)
			part := func(lo int, logq, dlogq []float64) float64 {
				s := 0.0
				for g := 0; g < len(logq)/na; g++ {
					se := 0.0
					for i := g * na; i < (g+1)*na; i++ {
						dlogq[i] = math.Exp(wts[lo+i] * logq[i])
						se += dlogq[i]
					}
					for i := g * na; i < (g+1)*na; i++ {
						dlogq[i] *= wts[lo+i] / se
					}
					s += math.Log(se)
				}
				return s
			}
			loss := func(logq, dlogq []float64) float64 { return part(0, logq, dlogq) }
			tc := DefaultTrainConfig()
			tc.ClipNorm = 0
			tc.BatchSize = n
			f1, f2 := f.Clone(), f.Clone()
			t1, err := newTrainer(f1, tc)
			if err != nil {
				t.Fatal(err)
			}
			t2, _ := newTrainer(f2, tc)
			t3, _ := newTrainer(f.Clone(), tc)
			lq1, lq2 := make([]float64, n), make([]float64, n)
			if err := t1.LogDensities(y, z, n, lq1); err != nil {
				t.Fatal(err)
			}
			if err := t2.LogDensitiesShared(y, zg, n, na, lq2); err != nil {
				t.Fatal(err)
			}
			for i := range lq1 {
				if math.Abs(lq1[i]-lq2[i]) > 1e-12*math.Max(1, math.Abs(lq1[i])) {
					t.Fatalf("dim %d gating %v na %d: log q[%d] %v shared, %v expanded", dim, gating, na, i, lq2[i], lq1[i])
				}
			}
			l1, err := t1.StepLoss(y, z, n, loss)
			if err != nil {
				t.Fatal(err)
			}
			l2, err := t2.StepLossShared(y, zg, n, na, loss)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(l1-l2) > 1e-12*math.Abs(l1) {
				t.Fatalf("dim %d gating %v na %d: loss %v shared, %v expanded", dim, gating, na, l2, l1)
			}
			l3, err := t3.StepGroupLoss(y, zg, n, na, part)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(l1-l3) > 1e-12*math.Abs(l1) {
				t.Fatalf("dim %d gating %v na %d: loss %v by groups, %v expanded", dim, gating, na, l3, l1)
			}
			for i, v := range t3.Gradient() {
				if v != t2.Gradient()[i] {
					t.Fatalf("dim %d gating %v na %d: gradient %d = %v by groups, %v shared", dim, gating, na, i, v, t2.Gradient()[i])
				}
			}
			g1, g2 := t1.Gradient(), t2.Gradient()
			gmax := 0.0
			for _, v := range g1 {
				gmax = math.Max(gmax, math.Abs(v))
			}
			for i := range g1 {
				if math.Abs(g1[i]-g2[i]) > 1e-12*gmax {
					t.Fatalf("dim %d gating %v na %d: gradient %d = %v shared, %v expanded (max |g| %v)", dim, gating, na, i, g2[i], g1[i], gmax)
				}
			}
			t1.Close()
			t2.Close()
			t3.Close()
		}
	}
}

func TestSharedContextErrors(t *testing.T) {
	f, _ := New(DefaultConfig(2, 3), rand.New(rand.NewPCG(1, 1)))
	tr, _ := newTrainer(f, DefaultTrainConfig())
	defer tr.Close()
	y, z := make([]float64, 12), make([]float64, 9)
	dst := make([]float64, 6)
	for _, c := range []struct{ n, group int }{{6, 0}, {6, 4}, {6, -1}, {0, 1}} {
		if err := tr.LogDensitiesShared(y, z, c.n, c.group, dst); err == nil {
			t.Errorf("n=%d group=%d: no error", c.n, c.group)
		}
	}
	if err := tr.LogDensitiesShared(y, z[:5], 6, 2, dst); err == nil {
		t.Error("short z: no error")
	}
	loss := func(l, d []float64) float64 { return 0 }
	if _, err := tr.StepLossShared(y, z, 6, 4, loss); err == nil {
		t.Error("StepLossShared with a group not dividing n: no error")
	}
	if _, err := tr.StepGroupLoss(y, z, 6, 2, nil); err == nil {
		t.Error("StepGroupLoss with a nil loss: no error")
	}
	nanLoss := func(lo int, l, d []float64) float64 {
		for i := range d {
			d[i] = math.NaN()
		}
		return 0
	}
	if _, err := tr.StepGroupLoss(y, z, 6, 2, nanLoss); err == nil {
		t.Error("StepGroupLoss with a NaN loss gradient: no error")
	}
}
