package sbi

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestFlowCandidates checks the choice among architectures by validation
// loss, for SPPE and SPLE over two rounds: a run with Flow = A and
// FlowCandidates = [B] records exactly the best-epoch validation losses of
// the runs with A alone and B alone, keeps the lower one, and from then on
// is the run of the kept architecture alone, bit for bit (round 2's losses,
// the final draws); with the roles swapped (Flow = B, candidates [A]) it
// keeps the same architecture under the other index.
func TestFlowCandidates(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	base := smallConfig()
	a := *base.Flow
	b := a
	b.ContextAffine = true
	for _, m := range []string{"SPPE", "SPLE"} {
		t.Run(m, func(t *testing.T) {
			run := func(f flow.Config, cand ...flow.Config) *Result {
				cfg := base
				cfg.Flow = &f
				cfg.FlowCandidates = cand
				if m == "SPPE" {
					res, err := SPPE(context.Background(), testProblem(), cfg)
					if err != nil {
						t.Fatal(err)
					}
					return &res.Result
				}
				res, err := SPLE(context.Background(), testProblem(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				return &res.Result
			}
			best := func(r *Result) float64 {
				rr := r.Rounds[0]
				return rr.ValidationLoss[rr.BestEpoch-1]
			}
			alone := []*Result{run(a), run(b)}
			la, lb := best(alone[0]), best(alone[1])
			if la == lb {
				t.Fatalf("both architectures reach validation loss %v: the test cannot tell the choice", la)
			}
			win := 0
			if lb < la {
				win = 1
			}
			t.Logf("validation loss: A %.5f, B (ContextAffine) %.5f", la, lb)
			for swap, got := range []*Result{run(a, b), run(b, a)} {
				want := []float64{la, lb}
				sel := win
				if swap == 1 {
					want = []float64{lb, la}
					sel = 1 - win
				}
				r1 := got.Rounds[0]
				if !slices.Equal(r1.Candidates, want) || r1.Selected != sel {
					t.Fatalf("order %d: Candidates %v, Selected %d; want %v, %d", swap, r1.Candidates, r1.Selected, want, sel)
				}
				ref := alone[win]
				if r1.BestEpoch != ref.Rounds[0].BestEpoch || !slices.Equal(r1.ValidationLoss, ref.Rounds[0].ValidationLoss) {
					t.Fatalf("order %d: round 1 describes another training than the kept architecture's", swap)
				}
				if !slices.Equal(got.Rounds[1].TrainLoss, ref.Rounds[1].TrainLoss) || ref.Rounds[1].Candidates != nil {
					t.Fatalf("order %d: round 2 differs from the kept architecture's run alone", swap)
				}
				if !slices.Equal(got.Draws.Theta, ref.Draws.Theta) {
					t.Fatalf("order %d: final draws differ from the kept architecture's run alone", swap)
				}
			}
		})
	}
}

// TestFlowCandidatesInvalid checks the refusals naming the field.
func TestFlowCandidatesInvalid(t *testing.T) {
	good := *smallConfig().Flow
	bad := good
	bad.Layers = -1
	noVal := flow.DefaultTrainConfig()
	noVal.ValidationFraction = 0
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"invalid architecture", func(c *Config) { c.FlowCandidates = []flow.Config{good, bad} }, "Config.FlowCandidates[1]"},
		{"no validation set", func(c *Config) { c.FlowCandidates = []flow.Config{good}; c.Train = &noVal }, "ValidationFraction"},
		{"too many", func(c *Config) { c.FlowCandidates = make([]flow.Config, maxCandidates+1) }, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallConfig()
			tc.edit(&cfg)
			for _, f := range []func() error{
				func() error { _, err := SPPE(context.Background(), testProblem(), cfg); return err },
				func() error { _, err := SPLE(context.Background(), testProblem(), cfg); return err },
			} {
				err := f()
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want ErrInvalid naming %q", err, tc.want)
				}
			}
		})
	}
}

// TestFlowCandidatesTie checks that identical architectures (the same
// initial stream and training) reach the same loss and that a tie keeps
// Config.Flow.
func TestFlowCandidatesTie(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	cfg := smallConfig()
	cfg.Rounds = 1
	good := *cfg.Flow
	cfg.FlowCandidates = []flow.Config{good}
	res, err := SPPE(context.Background(), testProblem(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Rounds[0].Candidates
	if len(c) != 2 || c[0] != c[1] || res.Rounds[0].Selected != 0 || math.IsInf(c[0], 0) {
		t.Fatalf("two identical architectures: Candidates %v, Selected %d; want equal finite losses and the first kept", c, res.Rounds[0].Selected)
	}
}
