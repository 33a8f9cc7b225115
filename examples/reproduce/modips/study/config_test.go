package study

import (
	"context"
	"errors"
	"testing"

	"github.com/privinfer/privinfer"
)

func TestConfigValidate(t *testing.T) {
	for _, reps := range []int{0, -1, MaxReps + 1} {
		if err := (Config{Reps: reps}).Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("Reps = %d: got %v, want ErrInvalid", reps, err)
		}
		if _, err := MStudy(context.Background(), Config{Reps: reps}, []int{2}); !errors.Is(err, ErrInvalid) {
			t.Errorf("MStudy with Reps = %d: got %v, want ErrInvalid", reps, err)
		}
		if _, err := Table1(context.Background(), Config{Reps: reps}); !errors.Is(err, ErrInvalid) {
			t.Errorf("Table1 with Reps = %d: got %v, want ErrInvalid", reps, err)
		}
		if _, err := Allocation(context.Background(), Config{Reps: reps}, []float64{0.5}); !errors.Is(err, ErrInvalid) {
			t.Errorf("Allocation with Reps = %d: got %v, want ErrInvalid", reps, err)
		}
	}
}

// TestProgress checks that a study reports one event per finished setting,
// counting up to the number of settings.
func TestProgress(t *testing.T) {
	var got []privinfer.Progress
	ms := []int{2, 3}
	pts, err := MStudy(context.Background(), Config{Seed: 1, Reps: 2, Progress: func(p privinfer.Progress) { got = append(got, p) }}, ms)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(pts) {
		t.Fatalf("%d progress events for %d settings", len(got), len(pts))
	}
	for i, p := range got {
		if p.Stage != "scenario" || p.Step != i+1 || p.Total != len(pts) || p.Message == "" {
			t.Errorf("event %d = %+v", i, p)
		}
	}
}
