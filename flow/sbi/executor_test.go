package sbi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
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

// rowFault panics, or returns NaN, at θ > 2 (rare under the N(0, 1) prior).
type rowFault struct{ panic bool }

func (rowFault) StatDim() int { return 1 }
func (f rowFault) Simulate(r *rand.Rand, theta, dst []float64) error {
	if theta[0] > 2 {
		if f.panic {
			panic("no simulation above 2")
		}
		dst[0] = math.NaN()
		return nil
	}
	dst[0] = theta[0] + testTau*r.NormFloat64()
	return nil
}

// TestSPPERowErrors: a simulator that panics or returns NaN on one row
// stops SPPE with ErrSimulation and the *simulate.RowError naming the
// row's index and θ, the same row in process and through shuffled blocks.
func TestSPPERowErrors(t *testing.T) {
	p := testProblem()
	for _, f := range []rowFault{{panic: true}, {}} {
		p.Simulator = f
		var want *simulate.RowError
		for _, ex := range []simulate.Executor{nil, &exectest.Shuffled{Size: 7}} {
			cfg := tinyConfig()
			cfg.Executor = ex
			_, err := SPPE(context.Background(), p, cfg)
			var re *simulate.RowError
			if !errors.Is(err, ErrSimulation) || !errors.As(err, &re) || !(re.Theta[0] > 2) {
				t.Fatalf("panic %v, executor %T: %v", f.panic, ex, err)
			}
			var pe *simulate.PanicError
			if f.panic != errors.As(err, &pe) || (!f.panic && !errors.Is(err, simulate.ErrNonFinite)) {
				t.Errorf("panic %v: cause %v", f.panic, err)
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

// stopAfter cancels its context at its n-th simulation.
type stopAfter struct {
	n      int64
	done   *atomic.Int64
	cancel context.CancelFunc
}

func (stopAfter) StatDim() int { return 1 }
func (s stopAfter) Simulate(r *rand.Rand, theta, dst []float64) error {
	if s.done.Add(1) == s.n {
		s.cancel()
	}
	dst[0] = theta[0] + testTau*r.NormFloat64()
	return nil
}

// TestSPPECancellation: cancelling during the first round's simulations
// stops SPPE with context.Canceled, in process and through shuffled
// blocks.
func TestSPPECancellation(t *testing.T) {
	p := testProblem()
	for _, ex := range []simulate.Executor{nil, &exectest.Shuffled{Size: 7, Workers: 1}} {
		ctx, cancel := context.WithCancel(context.Background())
		var done atomic.Int64
		p.Simulator = stopAfter{n: 30, done: &done, cancel: cancel}
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
