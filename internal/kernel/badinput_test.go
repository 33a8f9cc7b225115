package kernel

import (
	"context"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds invalid samples, dimensions and bandwidths to the
// kernel sums: every call returns an error wrapping ErrInput and nothing
// panics.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	nan, inf := math.NaN(), math.Inf(1)
	x, y := []float64{0, 1, 2, 3}, []float64{1, 2, 3}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nonpositive", Name: "MMD2 d 0", Err: func() error { _, err := MMD2(ctx, x, y, 0, 1, true); return err }},
		{Category: "nonpositive", Name: "MMD2 bandwidth 0", Err: func() error { _, err := MMD2(ctx, x, y, 1, 0, true); return err }},
		{Category: "nan", Name: "MMD2 bandwidth NaN", Err: func() error { _, err := MMD2(ctx, x, y, 1, nan, true); return err }},
		{Category: "inf", Name: "MMD2 bandwidth Inf", Err: func() error { _, err := MMD2(ctx, x, y, 1, inf, false); return err }},
		{Category: "mismatched", Name: "MMD2 length not a multiple of d", Err: func() error { _, err := MMD2(ctx, x, y, 2, 1, false); return err }},
		{Category: "empty", Name: "MMD2 empty sample", Err: func() error { _, err := MMD2(ctx, nil, y, 1, 1, false); return err }},
		{Category: "nonpositive", Name: "MMD2 unbiased with one point", Err: func() error { _, err := MMD2(ctx, x, y[:1], 1, 1, true); return err }},
		{Category: "nil", Name: "MMD2 nil context", Err: func() error {
			var c context.Context
			_, err := MMD2(c, x, y, 1, 1, true)
			return err
		}},
		{Category: "nonpositive", Name: "Sum d 0", Err: func() error { _, err := Sum(ctx, x, y, 0, 1, false); return err }},
		{Category: "nan", Name: "Sum g NaN", Err: func() error { _, err := Sum(ctx, x, y, 1, nan, false); return err }},
		{Category: "mismatched", Name: "Sum symmetric with different samples", Err: func() error { _, err := Sum(ctx, x, y, 1, 1, true); return err }},
		{Category: "nonpositive", Name: "MedianHeuristic d 0", Err: func() error { _, err := MedianHeuristic(x, 0, 10); return err }},
		{Category: "empty", Name: "MedianHeuristic one point", Err: func() error { _, err := MedianHeuristic(x[:1], 1, 10); return err }},
		{Category: "nan", Name: "MedianHeuristic NaN point", Err: func() error { _, err := MedianHeuristic([]float64{0, nan, 1}, 1, 10); return err }},
	}
	testutil.RunBadInput(t, ErrInput, cases)
}
