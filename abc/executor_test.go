package abc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/exectest"
	"github.com/privinfer/privinfer/simulate"
)

// blockExecutors are the executors every engine must agree with: blocks of
// 1, 7 and 64 rows, shuffled and run on goroutines.
func blockExecutors() []*exectest.Shuffled {
	return []*exectest.Shuffled{{Size: 1, Workers: 3, Seed: 1}, {Size: 7, Workers: 2, Seed: 2}, {Size: 64, Workers: 4, Seed: 3}}
}

func sameDraws(a, b *privinfer.Draws) bool {
	return slices.Equal(a.Theta, b.Theta) && slices.Equal(a.Weights, b.Weights)
}

// TestSMCExecutorIndependence: SMC-ABC on the private normal-mean problem
// gives bit-identical rounds (draws, weights, distances, counts) in
// process and through executors that cut every batch into shuffled blocks
// of 1, 7 and 64 rows run on goroutines. The adaptive schedule and OLCM
// make every round depend on the previous one, and MinBatch 16 exercises
// the speculative attempts of the last batches.
func TestSMCExecutorIndependence(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []SMCConfig{
		{Distance: Euclidean{}, Particles: 150, Schedule: ToleranceList{2, 1, 0.5, 0.25}, Seed: 11},
		{Distance: Euclidean{}, Particles: 100, Schedule: Adaptive{Initial: 2, Quantile: 0.5, Rounds: 4}, Perturbation: PerturbOLCM, MinBatch: 16, Seed: 5},
	} {
		ref, err := SMC(context.Background(), p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var spec int64
		for _, r := range ref.Rounds {
			spec += r.Speculative
		}
		if len(ref.Rounds) != 4 || spec == 0 {
			t.Fatalf("reference run: %d rounds, %d speculative simulations (want 4 rounds, some speculation)", len(ref.Rounds), spec)
		}
		for _, ex := range blockExecutors() {
			c := cfg
			c.Executor = ex
			got, err := SMC(context.Background(), p, c)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Rounds) != len(ref.Rounds) || got.Simulations != ref.Simulations {
				t.Fatalf("blocks of %d: %d rounds, %d simulations; in process %d, %d", ex.Size, len(got.Rounds), got.Simulations, len(ref.Rounds), ref.Simulations)
			}
			for k, r := range got.Rounds {
				w := ref.Rounds[k]
				if !sameDraws(r.Draws, w.Draws) || !slices.Equal(r.Distance, w.Distance) || r.Tolerance != w.Tolerance ||
					r.Simulations != w.Simulations || r.Proposals != w.Proposals || r.Speculative != w.Speculative {
					t.Fatalf("blocks of %d, round %d differs from in process", ex.Size, k)
				}
			}
			if ex.Blocks() == 0 {
				t.Fatalf("blocks of %d: the executor ran nothing", ex.Size)
			}
		}
	}
}

// TestEnginesExecutorIndependence: rejection ABC (both variants), ABCDP,
// KernelIS and SimulatePriorWith give the same bits in process and through
// shuffled blocks.
func TestEnginesExecutorIndependence(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rejCfgs := []RejectionConfig{
		{Distance: Euclidean{}, Accept: 50, Simulations: 2000, Seed: 3},
		{Distance: Euclidean{}, Tolerance: 0.1, Accept: 40, Simulations: 5000, Seed: 4},
	}
	pdp := p
	pdp.Mechanism = nil
	dpCfg := ABCDPConfig{EpsTotal: 5, EpsABC: 0.2, C: 5, Clip: 2, Distance: Euclidean{}, Simulations: 500, Seed: 9, Reproducible: true}
	kisCfg := KernelISConfig{Simulations: 400, Stages: 2, Mean: []float64{0}, Cov: []float64{1}, Seed: 2}
	var refs []*RejectionResult
	for _, c := range rejCfgs {
		r, err := Rejection(ctx, p, c)
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	dpRef, err := ABCDP(ctx, pdp, dpCfg)
	if err != nil {
		t.Fatal(err)
	}
	kisRef, err := KernelIS(ctx, p, kisCfg)
	if err != nil {
		t.Fatal(err)
	}
	spRef, err := SimulatePrior(ctx, p, Euclidean{}, 300, 6, PublicObservation)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range blockExecutors() {
		for k, c := range rejCfgs {
			c.Executor = ex
			r, err := Rejection(ctx, p, c)
			if err != nil {
				t.Fatal(err)
			}
			if !sameDraws(r.Draws, refs[k].Draws) || !slices.Equal(r.Distance, refs[k].Distance) || r.Simulations != refs[k].Simulations {
				t.Errorf("Rejection %d, blocks of %d: differs from in process", k, ex.Size)
			}
		}
		c := dpCfg
		c.Executor = ex
		dp, err := ABCDP(ctx, pdp, c)
		if err != nil {
			t.Fatal(err)
		}
		if !sameDraws(dp.Public, dpRef.Public) || !slices.Equal(dp.Indicators, dpRef.Indicators) {
			t.Errorf("ABCDP, blocks of %d: differs from in process", ex.Size)
		}
		sp, err := SimulatePriorWith(ctx, ex, p, Euclidean{}, 300, 6, PublicObservation)
		if err != nil {
			t.Fatal(err)
		}
		if !sameDraws(sp.Draws, spRef.Draws) || !slices.Equal(sp.Distance, spRef.Distance) {
			t.Errorf("SimulatePriorWith, blocks of %d: differs from SimulatePrior", ex.Size)
		}
		kc := kisCfg
		kc.Executor = ex
		kis, err := KernelIS(ctx, p, kc)
		if err != nil {
			t.Fatal(err)
		}
		if !sameDraws(kis.Draws, kisRef.Draws) {
			t.Errorf("KernelIS, blocks of %d: differs from in process", ex.Size)
		}
	}
}

// TestEngineRowErrors: a simulator that panics or returns NaN on one row
// stops SMC, Rejection and KernelIS with an error naming the row's index
// and θ — the same row whichever executor ran it.
func TestEngineRowErrors(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, bad := range []exectest.Faulty{{At: 2.5, Noise: 0.3, Panic: true}, {At: 2.5, Noise: 0.3}} {
		p.Simulator = bad
		runs := map[string]func(simulate.Executor) error{
			"SMC": func(ex simulate.Executor) error {
				_, err := SMC(ctx, p, SMCConfig{Distance: Euclidean{}, Particles: 300, Schedule: ToleranceList{1, 0.5}, Seed: 1, Executor: ex})
				return err
			},
			"Rejection": func(ex simulate.Executor) error {
				_, err := Rejection(ctx, p, RejectionConfig{Distance: Euclidean{}, Accept: 10, Simulations: 2000, Seed: 1, Executor: ex})
				return err
			},
			"KernelIS": func(ex simulate.Executor) error {
				_, err := KernelIS(ctx, p, KernelISConfig{Simulations: 2000, Stages: 1, Mean: []float64{0}, Cov: []float64{1}, Seed: 1, Executor: ex})
				return err
			},
		}
		for name, run := range runs {
			var want *simulate.RowError
			for k, ex := range append([]simulate.Executor{nil}, exAsExecutors(blockExecutors())...) {
				err := run(ex)
				var re *simulate.RowError
				if !errors.As(err, &re) || !(re.Theta[0] > bad.At) {
					t.Fatalf("%s (panic %v), executor %d: %v is not the *RowError of a bad row", name, bad.Panic, k, err)
				}
				var pe *simulate.PanicError
				if bad.Panic != errors.As(err, &pe) || (!bad.Panic && !errors.Is(err, simulate.ErrNonFinite)) {
					t.Errorf("%s (panic %v): cause %v", name, bad.Panic, err)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("row %d", re.Index)) || !strings.Contains(err.Error(), fmt.Sprint(re.Theta)) {
					t.Errorf("%s: error %q does not name row %d and θ %v", name, err, re.Index, re.Theta)
				}
				if want == nil {
					want = re
				} else if re.Index != want.Index || !slices.Equal(re.Theta, want.Theta) {
					t.Errorf("%s (panic %v), executor %d: row %d θ %v; in process row %d θ %v", name, bad.Panic, k, re.Index, re.Theta, want.Index, want.Theta)
				}
			}
		}
	}
}

func exAsExecutors(s []*exectest.Shuffled) []simulate.Executor {
	out := make([]simulate.Executor, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
}

// TestEngineCancellation: cancelling the context during a batch stops SMC
// and Rejection with context.Canceled, whichever executor runs the batch.
// The simulations after the cancelling one wait for the cancellation
// (CancelAt.Stop): otherwise a worker descheduled inside the 500th call
// lets the others finish Rejection's single batch of 100000 rows, and the
// run rightly succeeds.
func TestEngineCancellation(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	for k, ex := range append([]simulate.Executor{nil}, exAsExecutors(blockExecutors())...) {
		ctx, cancel := context.WithCancel(context.Background())
		var done atomic.Int64
		p.Simulator = exectest.CancelAt{N: 500, Done: &done, Cancel: cancel, Noise: 0.3, Stop: ctx.Done()}
		res, err := SMC(ctx, p, SMCConfig{Distance: Euclidean{}, Particles: 200, Schedule: ToleranceList{1, 0.5, 0.1, 0.05, 0.01}, Seed: 1, Executor: ex})
		if !errors.Is(err, context.Canceled) || res == nil || res.Stop != StopCancelled {
			t.Errorf("SMC, executor %d: err %v, result %+v", k, err, res)
		}
		done.Store(0)
		ctx, cancel = context.WithCancel(context.Background())
		p.Simulator = exectest.CancelAt{N: 500, Done: &done, Cancel: cancel, Noise: 0.3, Stop: ctx.Done()}
		_, err = Rejection(ctx, p, RejectionConfig{Distance: Euclidean{}, Tolerance: 0.01, Simulations: 100000, Seed: 1, Executor: ex})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Rejection, executor %d: err %v", k, err)
		}
		if n := done.Load(); n >= 100000 {
			t.Errorf("Rejection, executor %d: all %d simulations ran after cancellation", k, n)
		}
		cancel()
	}
}
