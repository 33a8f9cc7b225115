package sbi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/privinfer/privinfer/internal/exectest"
	"github.com/privinfer/privinfer/simulate"
)

// tinyConfig is smallConfig cut down to seconds: the point is the bits, not
// the posterior's accuracy.
func tinyConfig() Config {
	o := smallConfig()
	o.SimsPerRound = 150
	o.Train.MaxEpochs = 5
	o.Warmup = 50
	o.PosteriorSamples = 200
	return o
}

// TestSPPEExecutorIndependence: two rounds of SPPE (the second simulating
// parameters proposed by the first round's posterior) give bit-identical
// draws in process and through executors that cut every round into
// shuffled blocks of 1, 7 and 64 rows run on goroutines; so does
// PosteriorPredictiveWith.
func TestSPPEExecutorIndependence(t *testing.T) {
	p := testProblem()
	ctx := context.Background()
	ref, err := SPPE(ctx, p, tinyConfig())
	if err != nil {
		t.Fatal(err)
	}
	th := ref.Draws.Theta[:50]
	refPred, err := PosteriorPredictive(ctx, p, th, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 7, 64} {
		ex := &exectest.Shuffled{Size: size, Workers: 3, Seed: uint64(size)}
		cfg := tinyConfig()
		cfg.Executor = ex
		got, err := SPPE(ctx, p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Draws.Theta, ref.Draws.Theta) || got.Simulations != ref.Simulations {
			t.Errorf("SPPE with blocks of %d differs from in process", size)
		}
		if want := int64(2 * ((150 + size - 1) / size)); ex.Blocks() != want {
			t.Errorf("blocks of %d: %d blocks ran, want %d", size, ex.Blocks(), want)
		}
		pred, err := PosteriorPredictiveWith(ctx, ex, p, th, 4)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pred, refPred) {
			t.Errorf("PosteriorPredictiveWith, blocks of %d, differs from in process", size)
		}
	}
}

// TestSPPERowErrors: a simulator that panics or returns NaN on one row
// stops SPPE with the *simulate.RowError naming the
// row's index and θ, the same row in process and through shuffled blocks.
func TestSPPERowErrors(t *testing.T) {
	p := testProblem()
	for _, f := range []exectest.Faulty{{At: 2, Noise: testTau, Panic: true}, {At: 2, Noise: testTau}} {
		p.Simulator = f
		var want *simulate.RowError
		for _, ex := range []simulate.Executor{nil, &exectest.Shuffled{Size: 7}} {
			cfg := tinyConfig()
			cfg.Executor = ex
			_, err := SPPE(context.Background(), p, cfg)
			var re *simulate.RowError
			if !errors.As(err, &re) || !(re.Theta[0] > 2) {
				t.Fatalf("panic %v, executor %T: %v", f.Panic, ex, err)
			}
			var pe *simulate.PanicError
			if f.Panic != errors.As(err, &pe) || (!f.Panic && !errors.Is(err, simulate.ErrNonFinite)) {
				t.Errorf("panic %v: cause %v", f.Panic, err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("row %d at θ = %v", re.Index, re.Theta)) {
				t.Errorf("error %q does not name the row and θ", err)
			}
			if want == nil {
				want = re
			} else if re.Index != want.Index || !slices.Equal(re.Theta, want.Theta) {
				t.Errorf("executor %T: row %d θ %v; in process row %d θ %v", ex, re.Index, re.Theta, want.Index, want.Theta)
			}
		}
	}
}

// TestSPPECancellation: cancelling during the first round's simulations
// stops SPPE with context.Canceled, in process and through shuffled
// blocks. The simulations after the cancelling one wait for the
// cancellation (CancelAt.Stop), so the round cannot run all its 150 rows
// while the cancelling call is descheduled.
func TestSPPECancellation(t *testing.T) {
	p := testProblem()
	for _, ex := range []simulate.Executor{nil, &exectest.Shuffled{Size: 7, Workers: 1}} {
		ctx, cancel := context.WithCancel(context.Background())
		var done atomic.Int64
		p.Simulator = exectest.CancelAt{N: 30, Done: &done, Cancel: cancel, Noise: testTau, Stop: ctx.Done()}
		cfg := tinyConfig()
		cfg.Executor = ex
		if _, err := SPPE(ctx, p, cfg); !errors.Is(err, context.Canceled) {
			t.Errorf("executor %T: %v", ex, err)
		}
		if n := done.Load(); n >= 150 {
			t.Errorf("executor %T: %d simulations ran after cancellation at 30", ex, n)
		}
		cancel()
	}
}
