package flow

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEMATrainer checks the parameter average of a Trainer with
// TrainConfig.EMA: after every step it equals a ← β·a + (1−β)·φ computed
// by hand from the parameters after that step (to rounding: the compiler
// may fuse the multiply-add), SwapAverage exchanges it with the parameters and a second
// call restores them; without EMA SwapAverage does nothing.
func TestEMATrainer(t *testing.T) {
	const beta = 0.9
	r := rand.New(rand.NewPCG(4, 5))
	cfg := smallConfig(2, 3)
	y, z := randData(r, 40, 2, 1), randData(r, 40, 3, 1)
	for _, ema := range []float64{0, beta} {
		f := randomFlow(t, cfg, 7, 0.1)
		tc := DefaultTrainConfig()
		tc.EMA = ema
		tr, err := newTrainer(f, tc)
		if err != nil {
			t.Fatal(err)
		}
		avg := slices.Clone(f.Params())
		for range 5 {
			if _, err := tr.Step(y, z, 40); err != nil {
				t.Fatal(err)
			}
			for i, v := range f.Params() {
				avg[i] = beta*avg[i] + (1-beta)*v
			}
		}
		cur := slices.Clone(f.Params())
		tr.SwapAverage()
		if ema == 0 {
			if !slices.Equal(f.Params(), cur) {
				t.Error("SwapAverage without EMA changed the parameters")
			}
		} else {
			for i, v := range f.Params() {
				if math.Abs(v-avg[i]) > 1e-14*math.Max(1, math.Abs(avg[i])) {
					t.Fatalf("averaged parameter %d is %v, β·a + (1−β)·φ after every step gives %v", i, v, avg[i])
				}
			}
			if slices.Equal(f.Params(), cur) {
				t.Error("the average equals the current parameters")
			}
		}
		tr.SwapAverage()
		if !slices.Equal(f.Params(), cur) {
			t.Error("a second SwapAverage did not restore the parameters")
		}
		tr.Close()
	}
	bad := DefaultTrainConfig()
	for _, v := range []float64{-0.1, 1, math.NaN(), math.Inf(1)} {
		bad.EMA = v
		if err := bad.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("EMA = %v: err = %v, want ErrInvalid", v, err)
		}
	}
}

// TestEMAFit checks that Fit with EMA keeps averaged parameters: their
// loss on Fit's validation rows (the first round(n·ValidationFraction) of
// the permutation drawn from the seed) is the reported best validation
// loss, and they differ from the parameters Fit keeps without EMA.
func TestEMAFit(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	const n = 300
	y, z := randData(r, n, 2, 1), randData(r, n, 3, 1)
	for i := range n { // y depends on z, so the fit has something to learn
		y[2*i] += z[3*i]
	}
	var kept [2][]float64
	for k, ema := range []float64{0, 0.95} {
		f, err := New(smallConfig(2, 3), rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		tc := DefaultTrainConfig()
		tc.MaxEpochs, tc.BatchSize, tc.ValidationFraction, tc.LearningRate, tc.EMA = 15, 20, 0.2, 3e-3, ema
		res, err := f.Fit(context.Background(), y, z, n, tc)
		if err != nil {
			t.Fatal(err)
		}
		perm := rand.New(rand.NewPCG(tc.Seed, 0x9e3779b97f4a7c15)).Perm(n)
		nv := int(math.Round(tc.ValidationFraction * n))
		v := 0.0
		for _, j := range perm[:nv] {
			v -= f.LogDensity(y[2*j:2*j+2], z[3*j:3*j+3])
		}
		v /= float64(nv)
		if math.Abs(v-res.BestValidationLoss) > 1e-12*math.Abs(v) {
			t.Errorf("EMA %v: kept parameters have validation loss %v, Fit reports %v", ema, v, res.BestValidationLoss)
		}
		kept[k] = slices.Clone(f.Params())
	}
	if slices.Equal(kept[0], kept[1]) {
		t.Error("EMA did not change the kept parameters")
	}
}
