package sgd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput is the bad-input table of LDP-SGD: every call with an
// invalid argument returns an error wrapping ErrInvalid (or the context's
// error) and nothing panics.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ctx := context.Background()
	x := []float64{0.1, 0.2, -0.3, 0.4}
	y := []float64{0, 1}
	good := Config{Loss: Logistic, Epsilon: 1, Delta: 1e-5}
	train := func(f func(*Config)) error {
		c := good
		f(&c)
		_, err := Train(ctx, x, y, 2, c)
		return err
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nan", Name: "Config.Epsilon NaN", Err: func() error { return train(func(c *Config) { c.Epsilon = nan }) }},
		{Category: "inf", Name: "Config.Epsilon Inf", Err: func() error { return train(func(c *Config) { c.Epsilon = inf }) }},
		{Category: "nonpositive", Name: "Config.Delta 0", Err: func() error { return train(func(c *Config) { c.Delta = 0 }) }},
		{Category: "subnormal", Name: "Config.Epsilon 1e-320", Err: func() error { return train(func(c *Config) { c.Epsilon = 1e-320 }) }},
		{Category: "huge", Name: "Config.Clip 1e308 (sensitivity overflows)", Err: func() error { return train(func(c *Config) { c.Clip = 1e308 }) }},
		{Category: "huge", Name: "Config.LearningRate 1e308: an error or finite iterates", Check: func() error {
			for _, eps := range []float64{1e6, 0.1} {
				res, err := Train(ctx, x, y, 2, Config{Loss: Squared, Epsilon: eps, Delta: 1e-5, LearningRate: 1e308, GroupSize: 1, Seed: 1, Reproducible: true})
				if err != nil {
					if !errors.Is(err, ErrInvalid) {
						return err
					}
					continue
				}
				for _, v := range append(res.Theta, res.Average...) {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						return fmt.Errorf("non-finite model %v without an error", res.Theta)
					}
				}
			}
			return nil
		}},
		{Category: "zerovalue", Name: "Config{}", Err: func() error { _, err := Train(ctx, x, y, 2, Config{}); return err }},
		{Category: "empty", Name: "Train no users", Err: func() error { _, err := Train(ctx, nil, nil, 2, good); return err }},
		{Category: "mismatched", Name: "Train x length", Err: func() error { _, err := Train(ctx, x[:3], y, 2, good); return err }},
		{Category: "nan", Name: "Train y NaN", Err: func() error { _, err := Train(ctx, x, []float64{0, nan}, 2, good); return err }},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
