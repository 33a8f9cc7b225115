package flow

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestTrainingIndependentOfGOMAXPROCS trains the paper-shaped flow for a
// few steps with GOMAXPROCS 1, 2 and 8 (the trainer's worker count follows
// it) and requires bit-identical parameters and log-densities: shard
// gradients are reduced in a fixed order and every dense kernel sums in a
// fixed order.
func TestTrainingIndependentOfGOMAXPROCS(t *testing.T) {
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
		tr, err := NewTrainer(f, tc)
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
		if err := f.LogProbBatch(y, z, n, logq); err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref, refLogq = append([]float64(nil), f.Params()...), logq
			continue
		}
		for i, v := range f.Params() {
			if v != ref[i] {
				t.Fatalf("GOMAXPROCS=%d: parameter %d = %v, with GOMAXPROCS=1 %v", procs, i, v, ref[i])
			}
		}
		for i, v := range logq {
			if v != refLogq[i] {
				t.Fatalf("GOMAXPROCS=%d: log q[%d] = %v, with GOMAXPROCS=1 %v", procs, i, v, refLogq[i])
			}
		}
	}
}
