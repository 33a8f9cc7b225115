package sbibm

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid names, parameters, lengths, nil sources,
// observation numbers, malformed files and the zero Task to the package:
// every call returns an error wrapping simulate.ErrInvalid (or the
// documented NaN) and never panics.
func TestBadInput(t *testing.T) {
	type B = testutil.BadInput
	r := newRand(1)
	nan, inf := math.NaN(), math.Inf(1)
	var zero Task
	var nilTask *Task
	dir := t.TempDir()
	nanCheck := func(v float64) error {
		if !math.IsNaN(v) {
			return fmt.Errorf("got %v, want NaN", v)
		}
		return nil
	}
	cases := []B{
		{Category: "empty", Name: "New empty name", Err: func() error { _, err := New(""); return err }},
		{Category: "mismatched", Name: "New unknown name", Err: func() error { _, err := New("slcp_distractors"); return err }},
		{Category: "zerovalue", Name: "Task{}.Problem", Err: func() error { _, err := zero.Problem([]float64{0, 0}); return err }},
		{Category: "nil", Name: "(*Task)(nil).Problem", Err: func() error { _, err := nilTask.Problem([]float64{0, 0}); return err }},
		{Category: "zerovalue", Name: "Task{}.Observation", Err: func() error { _, err := zero.Observation(dir, 1); return err }},
		{Category: "nil", Name: "(*Task)(nil).Reference", Err: func() error { _, err := nilTask.Reference(dir, 1); return err }},
		{Category: "zerovalue", Name: "Task{}.LogLikelihood", Check: func() error { return nanCheck(zero.LogLikelihood(nil, nil)) }},
		{Category: "empty", Name: "Observation empty dir", Err: func() error { _, err := NewTwoMoons().Observation("", 1); return err }},
		{Category: "nonpositive", Name: "Observation number 0", Err: func() error { _, err := NewTwoMoons().Observation(dir, 0); return err }},
		{Category: "huge", Name: "TrueParameters number 11", Err: func() error { _, err := NewSLCP().TrueParameters(dir, 11); return err }},
		{Category: "mismatched", Name: "Problem observation of the wrong length", Err: func() error { _, err := NewSLCP().Problem([]float64{1, 2}); return err }},
		{Category: "nan", Name: "Problem NaN observation", Err: func() error { _, err := NewTwoMoons().Problem([]float64{nan, 0}); return err }},
		{Category: "nan", Name: "GaussianLinearPosterior NaN", Err: func() error {
			x := make([]float64, 10)
			x[3] = nan
			_, _, err := GaussianLinearPosterior(x)
			return err
		}},
		{Category: "mismatched", Name: "GaussianLinearPosterior length 2", Err: func() error { _, _, err := GaussianLinearPosterior([]float64{1, 2}); return err }},
		{Category: "mismatched", Name: "parseRow two rows", Err: func() error { _, err := parseRow(strings.NewReader("a,b\n1,2\n3,4\n"), "f", 2); return err }},
		{Category: "mismatched", Name: "parseRow three columns", Err: func() error { _, err := parseRow(strings.NewReader("a,b,c\n1,2,3\n"), "f", 2); return err }},
		{Category: "nan", Name: "parseRow NaN", Err: func() error { _, err := parseRow(strings.NewReader("a,b\n1,nan\n"), "f", 2); return err }},
		{Category: "empty", Name: "parseRow empty", Err: func() error { _, err := parseRow(strings.NewReader(""), "f", 2); return err }},
	}
	for _, name := range Names() {
		task, _ := New(name)
		d, sd := task.Dim(), task.DataDim()
		good, x := make([]float64, d), make([]float64, sd)
		bad := make([]float64, d)
		bad[0] = inf
		badx := make([]float64, sd)
		badx[0] = nan
		cases = append(cases,
			B{Category: "nil", Name: name + " Simulate nil rand", Err: func() error { return task.Simulator().Simulate(nil, good, x) }},
			B{Category: "inf", Name: name + " Simulate θ with Inf", Err: func() error { return task.Simulator().Simulate(r, bad, x) }},
			B{Category: "mismatched", Name: name + " Simulate short θ", Err: func() error { return task.Simulator().Simulate(r, good[:d-1], x) }},
			B{Category: "mismatched", Name: name + " Simulate short dst", Err: func() error { return task.Simulator().Simulate(r, good, x[:sd-1]) }},
			B{Category: "mismatched", Name: name + " LogLikelihood short x", Check: func() error { return nanCheck(task.LogLikelihood(good, x[:sd-1])) }},
			B{Category: "nan", Name: name + " LogLikelihood NaN x", Check: func() error { return nanCheck(task.LogLikelihood(good, badx)) }},
		)
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)

	// A directory without the benchmark's files: the error says so.
	if _, err := NewTwoMoons().Reference(dir, 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Reference in an empty directory: %v, want fs.ErrNotExist", err)
	}
	if _, err := NewTwoMoons().Observation(dir, 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Observation in an empty directory: %v, want fs.ErrNotExist", err)
	}
}

// TestInvalidThetaKind: a bad θ is reported as simulate.ErrInvalidTheta.
func TestInvalidThetaKind(t *testing.T) {
	err := NewSLCP().Simulator().Simulate(newRand(1), []float64{0, 0, math.NaN(), 0, 0}, make([]float64, 8))
	if !errors.Is(err, simulate.ErrInvalidTheta) {
		t.Errorf("got %v, want simulate.ErrInvalidTheta", err)
	}
}
