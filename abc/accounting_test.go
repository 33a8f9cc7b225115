package abc

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/mechanism"
)

// TestABCDPAccountant checks that ABCDP and Select charge exactly the
// budget of the release to ABCDPConfig.Accountant, and that a refused
// charge releases nothing and records nothing.
func TestABCDPAccountant(t *testing.T) {
	p, cfg := abcdpFixture(t)
	ctx := context.Background()
	sel, err := NewABCDPSelector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := sel.Budget()
	if !(want.Epsilon > 0) {
		t.Fatalf("selector budget %v", want)
	}

	// Accepted: the spend is exactly the reported budget, and the release
	// is the one without an accountant.
	acc, err := mechanism.NewAccountant(mechanism.Budget{Epsilon: 5})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ABCDP(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	withAcc := cfg
	withAcc.Accountant = acc
	got, err := ABCDP(ctx, p, withAcc)
	if err != nil {
		t.Fatal(err)
	}
	if s := acc.Spent(); s != want {
		t.Fatalf("ABCDP spent %v, want %v", s, want)
	}
	if !slices.Equal(got.Indicators, ref.Indicators) {
		t.Fatalf("indicators with an accountant %v, without %v", got.Indicators, ref.Indicators)
	}

	// Refused: 5 − 2 = 3 ≥ 2 is left, so a second run passes and a third
	// (6 > 5) is refused.
	if _, err := ABCDP(ctx, p, withAcc); err != nil {
		t.Fatal(err)
	}
	before := acc.Spent()
	res, err := ABCDP(ctx, p, withAcc)
	if !errors.Is(err, mechanism.ErrBudgetExceeded) || res != nil {
		t.Fatalf("ABCDP over budget: result %v, error %v; want nil and ErrBudgetExceeded", res, err)
	}
	if acc.Spent() != before {
		t.Fatalf("refused ABCDP recorded a spend: %v, was %v", acc.Spent(), before)
	}

	// Select charges the same way, after its input checks.
	small, err := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1})
	if err != nil {
		t.Fatal(err)
	}
	selCfg := cfg
	selCfg.Accountant = small
	s2, err := NewABCDPSelector(selCfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Select(parallel.Stream(1, 0), []float64{0.1, 0.2}); !errors.Is(err, mechanism.ErrBudgetExceeded) {
		t.Fatalf("Select over budget: error %v, want ErrBudgetExceeded", err)
	}
	big, err := mechanism.NewAccountant(mechanism.Budget{Epsilon: 2.5})
	if err != nil {
		t.Fatal(err)
	}
	selCfg.Accountant = big
	s3, err := NewABCDPSelector(selCfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s3.Select(parallel.Stream(1, 0), []float64{0.1, math.NaN()}); !errors.Is(err, ErrInvalid) || big.Spent() != (mechanism.Budget{}) {
		t.Fatalf("Select of a NaN distance: error %v, spent %v; want ErrInvalid and nothing spent", err, big.Spent())
	}
	if r, err := s3.Select(parallel.Stream(1, 0), []float64{0.1, 0.2}); err != nil || r == nil || big.Spent() != want {
		t.Fatalf("Select: error %v, spent %v, want %v", err, big.Spent(), want)
	}

	// A zero-value accountant refuses every charge.
	selCfg.Accountant = &mechanism.Accountant{}
	s4, err := NewABCDPSelector(selCfg)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s4.Select(parallel.Stream(1, 0), []float64{0.1}); err == nil || r != nil {
		t.Fatalf("Select with a zero-value accountant: result %v, error %v", r, err)
	}
}

// TestSimulatePriorObservation checks that SimulatePrior and
// SimulatePriorWith refuse an undeclared observation, and record the
// declaration otherwise.
func TestSimulatePriorObservation(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, o := range []Observation{ObservationUnset, Observation(3), Observation(255)} {
		if s, err := SimulatePrior(ctx, p, Euclidean{}, 10, 1, o); !errors.Is(err, ErrInvalid) || s != nil {
			t.Errorf("SimulatePrior with %v: result %v, error %v; want ErrInvalid", o, s, err)
		}
		if s, err := SimulatePriorWith(ctx, nil, p, Euclidean{}, 10, 1, o); !errors.Is(err, ErrInvalid) || s != nil {
			t.Errorf("SimulatePriorWith with %v: result %v, error %v; want ErrInvalid", o, s, err)
		}
	}
	var dist [2][]float64
	for i, o := range []Observation{PublicObservation, ConfidentialObservation} {
		s, err := SimulatePrior(ctx, p, Euclidean{}, 10, 1, o)
		if err != nil {
			t.Fatal(err)
		}
		if s.Observation != o || s.Len() != 10 {
			t.Errorf("SimulatePrior with %v: Observation %v, %d rows", o, s.Observation, s.Len())
		}
		dist[i] = s.Distance
	}
	if !slices.Equal(dist[0], dist[1]) {
		t.Error("the declaration changed the distances")
	}
	if ObservationUnset.String() != "ObservationUnset" || PublicObservation.String() != "PublicObservation" ||
		ConfidentialObservation.String() != "ConfidentialObservation" || Observation(9).String() != "Observation(9)" {
		t.Error("Observation.String")
	}
}
