package nats

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
)

// tinySPPE is a two-round SPPE cut down to a few seconds: the point is
// the bits, not the posterior.
func tinySPPE() sbi.Config {
	var o sbi.Config
	o.Rounds = 2
	o.SimsPerRound = 150
	o.InnerPoints = 8
	o.Atoms = 5
	fc := flow.DefaultConfig(1, 1)
	fc.Layers, fc.Hidden, fc.Blocks, fc.Bins, fc.ContextGating = 2, 16, 1, 8, false
	o.Flow = &fc
	tc := flow.DefaultTrainConfig()
	tc.BatchSize, tc.MaxEpochs, tc.Patience, tc.LearningRate, tc.ValidationFraction = 50, 5, 8, 3e-3, 0.1
	o.Train = &tc
	o.Chains, o.Warmup, o.Thin, o.PosteriorSamples = 4, 50, 2, 200
	o.Seed = 11
	return o
}

// TestSPPEIdenticalOnNATS: SPPE's draws (two rounds, the second
// simulating parameters proposed by the first round's posterior) are the
// in-process draws bit for bit with 1 and 3 NATS workers and blocks of 1,
// 7 and 64 rows; so are PosteriorPredictiveWith's releases.
func TestSPPEIdenticalOnNATS(t *testing.T) {
	p := normalMeanProblem(t)
	var reg Registry
	must(reg.Register("normal-mean", p.Simulator))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ref, err := sbi.SPPE(ctx, p, tinySPPE())
	if err != nil {
		t.Fatal(err)
	}
	th := ref.Draws.Theta[:40]
	refPred, err := sbi.PosteriorPredictive(ctx, p, th, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range natsExecutors(t, &reg) {
		st := engineSetups()[i]
		cfg := tinySPPE()
		cfg.Executor = e
		got, err := sbi.SPPE(ctx, p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Draws.Theta, ref.Draws.Theta) || got.Simulations != ref.Simulations {
			t.Fatalf("%+v: SPPE draws differ from the in-process run", st)
		}
		if es := e.Stats(); es.Rows != int64(got.Simulations) {
			t.Fatalf("%+v: executor merged %d rows (%d duplicates), SPPE counts %d simulations", st, es.Rows, es.Duplicates, got.Simulations)
		}
		pred, err := sbi.PosteriorPredictiveWith(ctx, e, p, th, 4)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pred, refPred) {
			t.Fatalf("%+v: PosteriorPredictiveWith differs from the in-process run", st)
		}
	}
}
