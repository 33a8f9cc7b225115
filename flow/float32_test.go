package flow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestTrainerFloat32Gradient compares the gradient of a training step
// computed with float32 products and splines against the float64 one on
// the paper's flow (8 layers, 2 blocks of 50 units, gating, LU): the
// relative error of the whole gradient must be below 10⁻⁴ (float32
// rounding gives a few 10⁻⁶) and above 0 (the float32 path is really
// used), for a plain batch and for rows sharing contexts in groups.
func TestTrainerFloat32Gradient(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(31, 32))
	cfg := tailBound5Config(2, 10)
	for _, g := range []int{1, 10} {
		rel := float32GradError(t, r, cfg, 400, g, 0)
		t.Logf("group %d: relative error of the float32 gradient %.2g", g, rel)
	}
}

// TestTrainerFloat32Shapes compares the float32 and float64 gradients as
// TestTrainerFloat32Gradient does on other shapes: dimension 1 (where
// grouped rows share their splines, which stay in float64), dimension 3
// (two splines per row in every other layer), a spline count that is
// not a multiple of the float32 kernels' 8 lanes, and a tenth of the
// inputs outside the tail bound, where the splines are the identity.
func TestTrainerFloat32Shapes(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, d := range []int{1, 3} {
		cfg := DefaultConfig(d, 4)
		cfg.Layers, cfg.Hidden = 4, 16
		for _, g := range []int{1, 3} {
			rel := float32GradError(t, r, cfg, 123, g, 0.1)
			t.Logf("dim %d, group %d: relative error of the float32 gradient %.2g", d, g, rel)
		}
	}
}

// float32GradError returns the relative error of the float32 gradient of
// a training step on n random rows (contexts shared in groups of group,
// which must divide n; a fraction out of the rows at ±4 times the tail
// bound) of a flow with configuration cfg, its parameters moved away from
// the near-identity start; it fails the test unless the error is in
// (0, 10⁻⁴).
func float32GradError(t *testing.T, r *rand.Rand, cfg Config, n, group int, out float64) float64 {
	t.Helper()
	f, err := New(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range f.Params() {
		f.Params()[i] = v + 0.05*r.NormFloat64()
	}
	D, C := cfg.Dim, cfg.ContextDim
	y, z := randData(r, n, D, 1), randData(r, n, C, 1)
	for i := range y {
		if r.Float64() < out {
			y[i] = 4 * cfg.TailBound * math.Copysign(1, y[i])
		}
	}
	grads := make([][]float64, 2)
	for k, f32 := range []bool{false, true} {
		tc := DefaultTrainConfig()
		tc.BatchSize, tc.ClipNorm, tc.Float32 = n, 0, f32
		tr, err := newTrainer(f, tc)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.prepare(y, z[:n/group*C], n, group); err != nil {
			t.Fatal(err)
		}
		tr.mode = modeGrad
		for i := range tr.dlogq[:n] {
			tr.dlogq[i] = -1 / float64(n)
		}
		tr.run()
		grads[k] = make([]float64, len(tr.grad))
		for _, sh := range tr.shards {
			for i, v := range sh.grad {
				grads[k][i] += v
			}
		}
		tr.Close()
	}
	var d2, n2 float64
	for i, v := range grads[0] {
		d2 += (grads[1][i] - v) * (grads[1][i] - v)
		n2 += v * v
	}
	rel := math.Sqrt(d2 / n2)
	if !(rel < 1e-4) || rel == 0 {
		t.Errorf("dim %d, group %d: relative error %.3g of the float32 gradient (norm %.3g), want in (0, 1e-4)", D, group, rel, math.Sqrt(n2))
	}
	return rel
}
