package parallel

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds nil functions, nil contexts and non-positive sizes to
// Map and For: errors wrap ErrInvalid, n ≤ 0 is the documented no-op, and
// nothing panics.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	noop := func(int, *rand.Rand) error { return nil }
	type B = testutil.BadInput
	cases := []B{
		{Category: "nil", Name: "Map nil fn", Err: func() error { return Map(ctx, 3, 1, nil) }},
		{Category: "nil", Name: "For nil fn", Err: func() error { return For(ctx, 3, nil) }},
		{Category: "nil", Name: "Map nil context", Err: func() error {
			var c context.Context
			return Map(c, 3, 1, noop)
		}},
		{Category: "nil", Name: "For nil context", Err: func() error {
			var c context.Context
			return For(c, 3, func(int, int) error { return nil })
		}},
		{Category: "nonpositive", Name: "Map n -5 is a no-op", Check: func() error {
			called := false
			if err := Map(ctx, -5, 1, func(int, *rand.Rand) error { called = true; return nil }); err != nil || called {
				return errors.New("Map with n < 0 ran a task or failed")
			}
			return nil
		}},
		{Category: "nonpositive", Name: "For n 0 is a no-op", Check: func() error {
			called := false
			if err := For(ctx, 0, func(int, int) error { called = true; return nil }); err != nil || called {
				return errors.New("For with n = 0 ran a chunk or failed")
			}
			return nil
		}},
		{Category: "nonpositive", Name: "Workers and Chunks of -1", Check: func() error {
			if Workers(-1) != 1 || Chunks(-1) != 0 {
				return errors.New("Workers(-1) ≠ 1 or Chunks(-1) ≠ 0")
			}
			return nil
		}},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
