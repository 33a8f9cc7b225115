package optim

import (
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput is the package's bad-input table: NewAdamW's arguments,
// Step's documented length panics, and ClipNorm's documented values.
func TestBadInput(t *testing.T) {
	type B = testutil.BadInput
	nan, inf := math.NaN(), math.Inf(1)
	var cs []B
	for _, n := range []int{-1, maxParams + 1, 1 << 31, math.MaxInt} {
		c := map[bool]string{true: "nonpositive", false: "huge"}[n < 0]
		cs = append(cs, B{Category: c, Name: fmt.Sprintf("NewAdamW n %d", n), Err: func() error { _, err := NewAdamW(n, AdamWConfig{LearningRate: 1e-3}); return err }})
	}
	for _, v := range []float64{nan, inf, -inf, 0, -1} {
		c := "nonpositive"
		if math.IsNaN(v) {
			c = "nan"
		} else if math.IsInf(v, 0) {
			c = "inf"
		}
		cs = append(cs, B{Category: c, Name: fmt.Sprintf("NewAdamW lr %v", v), Err: func() error { _, err := NewAdamW(3, AdamWConfig{LearningRate: v}); return err }})
		if v != 0 {
			cs = append(cs, B{Category: c, Name: fmt.Sprintf("NewAdamW wd %v", v), Err: func() error { _, err := NewAdamW(3, AdamWConfig{LearningRate: 1e-3, WeightDecay: v}); return err }})
		}
		if v != 0 {
			cs = append(cs,
				B{Category: c, Name: fmt.Sprintf("NewAdamW β₁ %v", v), Err: func() error { _, err := NewAdamW(3, AdamWConfig{LearningRate: 1e-3, Beta1: v}); return err }},
				B{Category: c, Name: fmt.Sprintf("NewAdamW β₂ %v", v), Err: func() error { _, err := NewAdamW(3, AdamWConfig{LearningRate: 1e-3, Beta2: v}); return err }},
				B{Category: c, Name: fmt.Sprintf("NewAdamW ε %v", v), Err: func() error { _, err := NewAdamW(3, AdamWConfig{LearningRate: 1e-3, Eps: v}); return err }})
		}
	}
	cs = append(cs,
		B{Category: "huge", Name: "NewAdamW β₁ 1", Err: func() error { _, err := NewAdamW(3, AdamWConfig{LearningRate: 1e-3, Beta1: 1}); return err }},
		B{Category: "huge", Name: "NewAdamW β₂ 1", Err: func() error { _, err := NewAdamW(3, AdamWConfig{LearningRate: 1e-3, Beta2: 1}); return err }})
	adam := func() *AdamW { a, _ := NewAdamW(3, AdamWConfig{LearningRate: 1e-3}); return a }
	cs = append(cs,
		B{Category: "mismatched", Name: "Step short p", Panics: func() { adam().Step(make([]float64, 2), make([]float64, 2)) }},
		B{Category: "mismatched", Name: "Step short g", Panics: func() { adam().Step(make([]float64, 3), make([]float64, 2)) }},
		B{Category: "mismatched", Name: "Step long p", Panics: func() { adam().Step(make([]float64, 4), make([]float64, 4)) }},
		B{Category: "empty", Name: "Step empty", Panics: func() { adam().Step(nil, nil) }},
		B{Category: "nil", Name: "nil AdamW.Step", Panics: func() { (*AdamW)(nil).Step(make([]float64, 1), make([]float64, 1)) }},
		B{Category: "zerovalue", Name: "zero AdamW.Step", Panics: func() { (&AdamW{}).Step(make([]float64, 1), make([]float64, 1)) }},
		B{Category: "nan", Name: "ClipNorm NaN entry: NaN norm, g unchanged", Check: func() error {
			g := []float64{1, nan}
			if n := ClipNorm(g, 1); !math.IsNaN(n) || g[0] != 1 {
				return fmt.Errorf("norm %v, g %v", n, g)
			}
			return nil
		}},
		B{Category: "nan", Name: "ClipNorm NaN bound disables clipping", Check: func() error {
			g := []float64{3, 4}
			if n := ClipNorm(g, nan); n != 5 || g[0] != 3 {
				return fmt.Errorf("norm %v, g %v", n, g)
			}
			return nil
		}},
		B{Category: "huge", Name: "ClipNorm entries 1e200: finite norm, g scaled to norm 1", Check: func() error {
			g := []float64{1e200, 1e200}
			if n := ClipNorm(g, 1); math.Abs(n/(math.Sqrt2*1e200)-1) > 1e-15 || math.Abs(math.Hypot(g[0], g[1])-1) > 1e-15 {
				return fmt.Errorf("norm %v, g %v", n, g)
			}
			return nil
		}},
		B{Category: "inf", Name: "ClipNorm infinite entry: norm +Inf", Check: func() error {
			g := []float64{inf, 1}
			if n := ClipNorm(g, 1); !math.IsInf(n, 1) {
				return fmt.Errorf("norm %v, g %v", n, g)
			}
			return nil
		}},
		B{Category: "empty", Name: "ClipNorm empty: norm 0", Check: func() error {
			if n := ClipNorm(nil, 1); n != 0 {
				return fmt.Errorf("norm %v", n)
			}
			return nil
		}},
	)
	testutil.RunBadInput(t, ErrInvalid, cs)
}
