package parallel

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestChainsProgress runs 3 chains of 250 iterations: the events count up
// to Total = 750 without going back, Finished reaches 3 with the last event,
// each chain sees its own stream, and without Progress the draws are the
// same.
func TestChainsProgress(t *testing.T) {
	const chains, iters = 3, 250
	run := func(progress func(ChainProgress)) []uint64 {
		first := make([]uint64, chains)
		err := Chains(context.Background(), ChainOptions{Chains: chains, Iters: iters, Seed: 7, Progress: progress},
			func(c int, r *rand.Rand, tick func(int)) error {
				first[c] = r.Uint64()
				for it := range iters {
					tick(it + 1)
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		return first
	}
	var events []ChainProgress
	with := run(func(p ChainProgress) { events = append(events, p) })
	without := run(nil)
	for c := range chains {
		if with[c] != without[c] || with[c] != Stream(7, uint64(c)).Uint64() {
			t.Errorf("chain %d: stream differs with and without progress or from Stream(7, %d)", c, c)
		}
	}
	if len(events) == 0 {
		t.Fatal("no progress events")
	}
	prev := 0
	for i, e := range events {
		if e.Step < prev || e.Total != chains*iters || e.Chains != chains || e.Finished > chains {
			t.Fatalf("event %d: %+v after step %d", i, e, prev)
		}
		prev = e.Step
	}
	if last := events[len(events)-1]; last.Step != chains*iters || last.Finished != chains {
		t.Errorf("last event %+v, want Step %d and Finished %d", last, chains*iters, chains)
	}
	// One event per percent of each chain (stride 2) and none at other ticks.
	if want := chains * iters / 2; len(events) != want {
		t.Errorf("%d events, want %d", len(events), want)
	}
}

// TestChainsError checks that the lowest-indexed chain's error is returned
// with and without Progress, and that a nil fn is refused.
func TestChainsError(t *testing.T) {
	boom := errors.New("boom")
	for _, progress := range []func(ChainProgress){nil, func(ChainProgress) {}} {
		err := Chains(context.Background(), ChainOptions{Chains: 4, Iters: 10, Seed: 1, Progress: progress},
			func(c int, _ *rand.Rand, tick func(int)) error {
				if c >= 2 {
					return boom
				}
				for it := range 10 {
					tick(it + 1)
				}
				return nil
			})
		if !errors.Is(err, boom) {
			t.Errorf("progress %t: err = %v, want boom", progress != nil, err)
		}
	}
	if err := Chains(context.Background(), ChainOptions{Chains: 1}, nil); !errors.Is(err, ErrNilFunc) {
		t.Errorf("nil fn: err = %v, want ErrNilFunc", err)
	}
}
