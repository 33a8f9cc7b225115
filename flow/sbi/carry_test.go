package sbi

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestCarriedStarts checks which draw of prev each chain continues from:
// the last of its ⌈m/C⌉ chain-major rows, the last chain's cut short, and
// a chain with no rows gets none (and then posteriorMCMC keeps its
// resampled start).
func TestCarriedStarts(t *testing.T) {
	const d = 2
	row := func(i int) []float64 { return []float64{float64(i), -float64(i)} }
	for _, tc := range []struct {
		m, C int
		want []int // the row each chain continues from; -1 keeps the start
	}{
		{m: 8, C: 4, want: []int{1, 3, 5, 7}},
		{m: 10, C: 4, want: []int{2, 5, 8, 9}},
		{m: 5, C: 4, want: []int{1, 3, 4, -1}},
		{m: 0, C: 3, want: []int{-1, -1, -1}},
	} {
		var prev []float64
		for i := range tc.m {
			prev = append(prev, row(i)...)
		}
		starts, full := carriedStarts(prev, d, tc.C)
		for c := range starts {
			if starts[c] == nil {
				starts[c] = []float64{100, 100} // the resampled start stays
			}
		}
		if want := !slices.Contains(tc.want, -1); full != want {
			t.Errorf("m=%d, C=%d: full %v, want %v", tc.m, tc.C, full, want)
		}
		for c, i := range tc.want {
			want := []float64{100, 100}
			if i >= 0 {
				want = row(i)
			}
			if !slices.Equal(starts[c], want) {
				t.Errorf("m=%d, C=%d: chain %d starts at %v, want %v", tc.m, tc.C, c, starts[c], want)
			}
		}
	}
}

// TestSampleAMKeepsShares checks keepShares (Config.CarryChains): chains
// in the two separated modes of twoModes (20 standard deviations apart, so
// that a local move crosses with negligible probability) stay where they
// start, and the heavy mode's share of the draws is its share of the
// chains, 5 of 20, not its mass 0.75 (which TestSampleAMRebalancesModes
// gets without keepShares from the same starts).
func TestSampleAMKeepsShares(t *testing.T) {
	const C, n, d = 20, 4000, 2
	r := rand.New(rand.NewPCG(7, 8))
	starts := modeStarts(r, C, 15)
	run, err := sampleAM(context.Background(), twoModes, d, starts, []float64{3, 1}, 300, n, 5, 9, true)
	if err != nil {
		t.Fatal(err)
	}
	if heavy := rightOfZero(run.draws, n, d); heavy != n/4 || run.groups != 1 {
		t.Errorf("heavy mode's draws %d of %d in %d groups, want %d in 1 (the chains kept in their modes)", heavy, n, run.groups, n/4)
	}
}

// TestCarryChainsRounds checks where Config.CarryChains acts in a run of
// four rounds: the parameters of rounds 2 and 3 (drawn after rounds 1 and
// 2 from resampled starts, whose chains mix on this unimodal problem, so
// that leaving them in their modes changes nothing) are those of the run
// without it, and those of round 4 (drawn by the chains carried on from
// round 3's) differ.
func TestCarryChainsRounds(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := testProblem()
	draws := func(carry bool) [][]float64 {
		cfg := quickConfig()
		cfg.Rounds = 4
		cfg.CarryChains = carry
		var got [][]float64
		cfg.OnRound = func(round int, _ Estimate, d *privinfer.Draws) { got = append(got, slices.Clone(d.Theta)) }
		if _, err := SPLE(context.Background(), p, cfg); err != nil {
			t.Fatal(err)
		}
		return got
	}
	plain, carried := draws(false), draws(true)
	for i := range 2 {
		if !slices.Equal(plain[i], carried[i]) {
			t.Errorf("round %d's parameters differ with CarryChains", i+2)
		}
	}
	if slices.Equal(plain[2], carried[2]) {
		t.Error("round 4's parameters are the same with CarryChains")
	}
}
