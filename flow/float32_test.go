package flow

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTrainerFloat32Gradient compares the gradient of a training step
// computed with float32 products against the float64 one on the paper's
// flow (8 layers, 2 blocks of 50 units, gating, LU): the relative error of
// the whole gradient must be below 10⁻⁴ (float32 rounding of the operands
// gives about 10⁻⁶) and above 0 (the float32 products are really used),
// for a plain batch and for rows sharing contexts in groups.
func TestTrainerFloat32Gradient(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	cfg := PaperTextConfig(2, 10)
	f, err := New(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range f.Params() { // move away from the near-identity start
		f.Params()[i] = v + 0.05*r.NormFloat64()
	}
	const n, group = 400, 10
	y, z := randData(r, n, 2, 1), randData(r, n, 10, 1)
	for _, g := range []int{1, group} {
		grads := make([][]float64, 2)
		for k, f32 := range []bool{false, true} {
			tc := DefaultTrainConfig()
			tc.BatchSize, tc.ClipNorm, tc.Float32 = n, 0, f32
			tr, err := NewTrainer(f, tc)
			if err != nil {
				t.Fatal(err)
			}
			if err := tr.prepare(y, z[:n/g*10], n, g); err != nil {
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
		t.Logf("group %d: relative error of the float32 gradient %.2g (norm %.3g)", g, rel, math.Sqrt(n2))
		if !(rel < 1e-4) || rel == 0 {
			t.Errorf("group %d: relative error %.3g of the float32 gradient, want in (0, 1e-4)", g, rel)
		}
	}
}
