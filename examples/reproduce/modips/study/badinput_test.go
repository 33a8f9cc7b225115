package study

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/privinfer/privinfer/synth"
)

// TestBadInput feeds invalid settings to the studies: every call returns
// an error wrapping ErrInvalid before any simulation starts.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	nan, inf := math.NaN(), math.Inf(1)
	ok := Config{Reps: 2}
	gauss := Scenario{Eps: 1, N: 100, SimN: 100, RecordBounding: synth.BIT}
	bin := Scenario{Binary: true, Eps: 1, N: 100, SimN: 100, P: 0.5}
	run := func(s Scenario, reps int) func() error {
		return func() error { _, err := s.Run(ctx, 1, reps); return err }
	}
	with := func(s Scenario, f func(*Scenario)) Scenario { f(&s); return s }
	ms := func(cfg Config, m []int, scale int) func() error {
		return func() error { _, err := MStudyScaled(ctx, cfg, m, scale); return err }
	}
	alloc := func(cfg Config, ws []float64) func() error {
		return func() error { _, err := Allocation(ctx, cfg, ws); return err }
	}
	cases := []B{
		{Category: "zerovalue", Name: "Config{}.Validate", Err: Config{}.Validate},
		{Category: "nonpositive", Name: "Config Reps -1", Err: Config{Reps: -1}.Validate},
		{Category: "huge", Name: "Config Reps MaxReps+1", Err: Config{Reps: MaxReps + 1}.Validate},
		{Category: "zerovalue", Name: "Table1 zero Config", Err: func() error { _, err := Table1(ctx, Config{}); return err }},
		{Category: "nil", Name: "Table1 nil ctx", Err: func() error { _, err := Table1(nil, Config{Reps: 1}); return err }}, //nolint:staticcheck // nil context is the bad input
		{Category: "nonpositive", Name: "Fig8 Reps 1", Err: func() error { _, err := Fig8(ctx, Config{Reps: 1}); return err }},
		{Category: "nonpositive", Name: "MStudy Reps 1", Err: ms(Config{Reps: 1}, []int{2}, 1)},
		{Category: "nil", Name: "MStudy nil ctx", Err: func() error { _, err := MStudy(nil, ok, []int{2}); return err }}, //nolint:staticcheck // nil context is the bad input
		{Category: "empty", Name: "MStudy no m", Err: ms(ok, nil, 1)},
		{Category: "nonpositive", Name: "MStudy m 1", Err: ms(ok, []int{1}, 1)},
		{Category: "huge", Name: "MStudy m MaxSets+1", Err: ms(ok, []int{synth.MaxSets + 1}, 1)},
		{Category: "nonpositive", Name: "MStudyScaled scale 0", Err: ms(ok, []int{2}, 0)},
		{Category: "huge", Name: "MStudyScaled scale MaxScale+1", Err: ms(ok, []int{2}, MaxScale+1)},
		{Category: "nonpositive", Name: "Allocation Reps 1", Err: alloc(Config{Reps: 1}, []float64{0.5})},
		{Category: "nan", Name: "Allocation w NaN", Err: alloc(ok, []float64{nan})},
		{Category: "nonpositive", Name: "Allocation w 0", Err: alloc(ok, []float64{0})},
		{Category: "mismatched", Name: "Allocation w 1", Err: alloc(ok, []float64{0.5, 1})},
		{Category: "inf", Name: "Allocation w Inf", Err: alloc(ok, []float64{inf})},
		{Category: "zerovalue", Name: "Scenario{}.Validate", Err: Scenario{}.Validate},
		{Category: "zerovalue", Name: "Scenario{}.Run", Err: run(Scenario{}, 1)},
		{Category: "nonpositive", Name: "Run reps 0", Err: run(bin, 0)},
		{Category: "huge", Name: "Run reps MaxReps+1", Err: run(bin, MaxReps+1)},
		{Category: "nil", Name: "Run nil ctx", Err: func() error { _, err := bin.Run(nil, 1, 1); return err }}, //nolint:staticcheck // nil context is the bad input
		{Category: "nonpositive", Name: "Run SimN 0", Err: run(with(bin, func(s *Scenario) { s.SimN = 0 }), 1)},
		{Category: "huge", Name: "Run SimN MaxSimN+1", Err: run(with(bin, func(s *Scenario) { s.SimN = MaxSimN + 1 }), 1)},
		{Category: "nan", Name: "Run Eps NaN", Err: run(with(gauss, func(s *Scenario) { s.Eps = nan }), 1)},
		{Category: "inf", Name: "Run Eps Inf", Err: run(with(gauss, func(s *Scenario) { s.Eps = inf }), 1)},
		{Category: "nonpositive", Name: "Run Eps 0", Err: run(with(gauss, func(s *Scenario) { s.Eps = 0 }), 1)},
		{Category: "nan", Name: "Run P NaN", Err: run(with(bin, func(s *Scenario) { s.P = nan }), 1)},
		{Category: "mismatched", Name: "Run P 1.5", Err: run(with(bin, func(s *Scenario) { s.P = 1.5 }), 1)},
		{Category: "mismatched", Name: "Run RecordBounding 99", Err: run(with(gauss, func(s *Scenario) { s.RecordBounding = 99 }), 1)},
	}
	for _, c := range cases {
		t.Run(c.Category+"/"+c.Name, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("panic: %v", p)
				}
			}()
			if err := c.Err(); !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

// B is one bad-input case: a call that must return an error wrapping
// ErrInvalid without panicking.
type B struct {
	Category, Name string
	Err            func() error
}
