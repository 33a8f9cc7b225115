package flow

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestTrainingIndependentOfGOMAXPROCS trains the paper-shaped flow for a
// few steps with GOMAXPROCS 1, 2 and 8 (the trainer's worker count follows
// it) and requires bit-identical parameters and log-densities: shard
// gradients are reduced in a fixed order and every dense kernel sums in a
// fixed order. It does so for float64 and for float32 training steps.
func TestTrainingIndependentOfGOMAXPROCS(t *testing.T) {
	for _, f32 := range []bool{false, true} {
		trainingIndependentOfGOMAXPROCS(t, f32)
	}
}

func trainingIndependentOfGOMAXPROCS(t *testing.T, f32 bool) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const n = 300
	var ref []float64
	var refLogq []float64
	for _, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		r := rand.New(rand.NewPCG(21, 22))
		f, err := New(DefaultConfig(2, 10), r)
		if err != nil {
			t.Fatal(err)
		}
		y, z := randData(r, n, 2, 1), randData(r, n, 10, 1)
		tc := DefaultTrainConfig()
		tc.BatchSize = n
		tc.Float32 = f32
		tr, err := newTrainer(f, tc)
		if err != nil {
			t.Fatal(err)
		}
		for s := 0; s < 3; s++ {
			if _, err := tr.Step(y, z, n); err != nil {
				t.Fatal(err)
			}
		}
		tr.Close()
		logq := make([]float64, n)
		if err := f.LogDensityBatch(y, z, n, logq); err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref, refLogq = append([]float64(nil), f.Params()...), logq
			continue
		}
		for i, v := range f.Params() {
			if v != ref[i] {
				t.Fatalf("float32 %v, GOMAXPROCS=%d: parameter %d = %v, with GOMAXPROCS=1 %v", f32, procs, i, v, ref[i])
			}
		}
		for i, v := range logq {
			if v != refLogq[i] {
				t.Fatalf("float32 %v, GOMAXPROCS=%d: log q[%d] = %v, with GOMAXPROCS=1 %v", f32, procs, i, v, refLogq[i])
			}
		}
	}
}

// TestTrainerGradientFresh checks that a trainer's gradient does not
// depend on what it computed before: after a step on another batch (which
// leaves every shard's gradient dirty) it equals, bit for bit, the
// gradient of a fresh trainer at the same parameters, for shards of
// several chunks and for shards left without rows; and with one shard and
// no clipping it equals LogDensityGrad accumulated into a cleared vector.
func TestTrainerGradientFresh(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	f, err := New(smallConfig(2, 3), r)
	if err != nil {
		t.Fatal(err)
	}
	const big = 600
	y1, z1 := randData(r, big, 2, 1), randData(r, big, 3, 1)
	y2, z2 := randData(r, big, 2, 1), randData(r, big, 3, 1)
	for _, tc := range []struct{ shards, n int }{{1, 600}, {2, 600}, {8, 5}, {3, 301}} {
		cfg := DefaultTrainConfig()
		cfg.Shards, cfg.ClipNorm, cfg.BatchSize = tc.shards, 0, 20
		g := f.Clone()
		tr, err := newTrainer(g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Step(y1, z1, big); err != nil {
			t.Fatal(err)
		}
		at := g.Clone()
		if _, err := tr.Step(y2, z2, tc.n); err != nil {
			t.Fatal(err)
		}
		got := append([]float64(nil), tr.Gradient()...)
		tr.Close()
		fresh, err := newTrainer(at.Clone(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fresh.Step(y2, z2, tc.n); err != nil {
			t.Fatal(err)
		}
		for i, v := range fresh.Gradient() {
			if math.Float64bits(got[i]) != math.Float64bits(v) {
				t.Fatalf("%+v: gradient %d = %v after another step, %v from a fresh trainer", tc, i, got[i], v)
			}
		}
		fresh.Close()
		if tc.shards != 1 {
			continue
		}
		want := make([]float64, at.NumParams())
		dlogq := make([]float64, tc.n)
		for i := range dlogq {
			dlogq[i] = -1 / float64(tc.n)
		}
		if err := at.LogDensityGrad(y2, z2, tc.n, dlogq, want, nil); err != nil {
			t.Fatal(err)
		}
		for i, v := range want {
			if math.Float64bits(got[i]) != math.Float64bits(v) {
				t.Fatalf("%+v: gradient %d = %v, LogDensityGrad %v", tc, i, got[i], v)
			}
		}
	}
}
