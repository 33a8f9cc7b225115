package beam

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	"github.com/privinfer/privinfer/mechanism/beam/internal/core"
)

func visitSpendString(v visit) (string, string) { return v.Day, v.User }
func userLen(u string) int                      { return len(u) }

// TestBadInputAtConstruction checks that every bad argument is an error
// when the graph is built, wrapping ErrInvalid (or
// mechanism.ErrBudgetExceeded for a share beyond the total) and naming
// the argument, and never a panic.
func TestBadInputAtConstruction(t *testing.T) {
	newGraph := func(t *testing.T) (beam.Scope, beam.PCollection, *Budget, PrivatePCollection) {
		_, s := beam.NewPipelineWithRoot()
		b, err := NewBudget(mechanism.Budget{Epsilon: 1, Delta: 1e-6})
		if err != nil {
			t.Fatal(err)
		}
		col := beam.Create(s, visit{User: "a", Day: "d", Spend: 1})
		pc, err := MakePrivate(s, col, visitUser, b)
		if err != nil {
			t.Fatal(err)
		}
		days, err := ByKey(s, pc, visitDaySpend)
		if err != nil {
			t.Fatal(err)
		}
		return s, col, b, days
	}
	good := Params{Epsilon: 0.1, MaxPartitionsContributed: 1, SelectionEpsilon: 0.1, SelectionDelta: 1e-7}
	money := good
	money.Lo, money.Hi = 0, 10
	with := func(p Params, f func(*Params)) Params { f(&p); return p }
	for _, tc := range []struct {
		name, want string
		sentinel   error
		build      func(s beam.Scope, col beam.PCollection, b *Budget, pc PrivatePCollection) error
	}{
		{"missing privacy ID", "missing privacy ID", ErrInvalid, func(s beam.Scope, col beam.PCollection, b *Budget, _ PrivatePCollection) error {
			_, err := MakePrivate(s, col, nil, b)
			return err
		}},
		{"nil privacy ID func", "missing privacy ID", ErrInvalid, func(s beam.Scope, col beam.PCollection, b *Budget, _ PrivatePCollection) error {
			var f func(visit) string
			_, err := MakePrivate(s, col, f, b)
			return err
		}},
		{"privacy ID of another type", "privacyID takes string", ErrInvalid, func(s beam.Scope, col beam.PCollection, b *Budget, _ PrivatePCollection) error {
			_, err := MakePrivate(s, col, userLen, b)
			return err
		}},
		{"privacy ID not a func", "privacyID must be a func", ErrInvalid, func(s beam.Scope, col beam.PCollection, b *Budget, _ PrivatePCollection) error {
			_, err := MakePrivate(s, col, "User", b)
			return err
		}},
		{"nil budget", "nil Budget", ErrInvalid, func(s beam.Scope, col beam.PCollection, _ *Budget, _ PrivatePCollection) error {
			_, err := MakePrivate(s, col, visitUser, nil)
			return err
		}},
		{"value not numeric", "not an integer or floating-point", ErrInvalid, func(s beam.Scope, col beam.PCollection, b *Budget, _ PrivatePCollection) error {
			pc, err := MakePrivate(s, col, visitUser, b)
			if err != nil {
				return err
			}
			_, err = ByKey(s, pc, visitSpendString)
			return err
		}},
		{"no keys", "call ByKey first", ErrInvalid, func(s beam.Scope, col beam.PCollection, b *Budget, _ PrivatePCollection) error {
			pc, err := MakePrivate(s, col, visitUser, b)
			if err != nil {
				return err
			}
			_, err = CountPerKey(s, pc, good)
			return err
		}},
		{"zero collection", "not built by MakePrivate", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, _ PrivatePCollection) error {
			_, err := CountPerKey(s, PrivatePCollection{}, good)
			return err
		}},
		{"L0 zero", "MaxPartitionsContributed (L0) must be at least 1", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := CountPerKey(s, pc, with(good, func(p *Params) { p.MaxPartitionsContributed = 0 }))
			return err
		}},
		{"L0 negative", "MaxPartitionsContributed (L0) must be at least 1", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := SumPerKey(s, pc, with(money, func(p *Params) { p.MaxPartitionsContributed = -3 }))
			return err
		}},
		{"lo = hi", "Lo (5) must be below Params.Hi (5)", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := SumPerKey(s, pc, with(money, func(p *Params) { p.Lo, p.Hi = 5, 5 }))
			return err
		}},
		{"lo > hi", "must be below", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := MeanPerKey(s, pc, with(money, func(p *Params) { p.Lo, p.Hi = 3, -3 }))
			return err
		}},
		{"NaN bound", "must be below", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := MeanPerKey(s, pc, with(money, func(p *Params) { p.Lo = math.NaN() }))
			return err
		}},
		{"infinite bound", "both finite", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := SumPerKey(s, pc, with(money, func(p *Params) { p.Hi = math.Inf(1) }))
			return err
		}},
		{"bounds on a count", "leave them zero", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := CountPerKey(s, pc, money)
			return err
		}},
		{"no budget", "epsilon", aggregate.ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := CountPerKey(s, pc, with(good, func(p *Params) { p.Epsilon = 0 }))
			return err
		}},
		{"no selection, no public keys", "no selection budget", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := CountPerKey(s, pc, with(good, func(p *Params) { p.SelectionEpsilon, p.SelectionDelta = 0, 0 }))
			return err
		}},
		{"public keys of another type", "must be a []string", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := CountPerKey(s, pc, with(good, func(p *Params) { p.SelectionEpsilon, p.SelectionDelta, p.PublicPartitions = 0, 0, []int{1} }))
			return err
		}},
		{"empty public keys", "empty", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := CountPerKey(s, pc, with(good, func(p *Params) { p.SelectionEpsilon, p.SelectionDelta, p.PublicPartitions = 0, 0, []string{} }))
			return err
		}},
		{"share beyond the total", "beyond its total", mechanism.ErrBudgetExceeded, func(s beam.Scope, _ beam.PCollection, b *Budget, pc PrivatePCollection) error {
			if _, err := CountPerKey(s, pc, with(good, func(p *Params) { p.Epsilon = 0.6 })); err != nil {
				return err
			}
			_, err := MeanPerKey(s, pc, with(money, func(p *Params) { p.Epsilon = 0.3 }))
			if err != nil && len(b.Shares()) != 2 {
				return errors.New("the refused aggregation left a share behind")
			}
			return err
		}},
		{"selection beyond the total", "beyond its total", mechanism.ErrBudgetExceeded, func(s beam.Scope, _ beam.PCollection, b *Budget, pc PrivatePCollection) error {
			_, err := CountPerKey(s, pc, with(good, func(p *Params) { p.Epsilon, p.SelectionEpsilon = 0.5, 0.6 }))
			if err != nil && len(b.Shares()) != 0 {
				return errors.New("the refused aggregation left a share behind")
			}
			return err
		}},
		{"selection budget with public keys", "need no selection budget", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := CountPerKey(s, pc, with(good, func(p *Params) { p.PublicPartitions = []string{"d"} }))
			return err
		}},
		{"SelectPartitions with an aggregation budget", "leave Epsilon and Rho zero", ErrInvalid, func(s beam.Scope, _ beam.PCollection, _ *Budget, pc PrivatePCollection) error {
			_, err := SelectPartitions(s, pc, good)
			return err
		}},
		{"test mode after an aggregation", "before any aggregation", ErrInvalid, func(s beam.Scope, _ beam.PCollection, b *Budget, pc PrivatePCollection) error {
			if _, err := CountPerKey(s, pc, good); err != nil {
				return err
			}
			return b.TestMode(1, true)
		}},
		{"seeded generator outside tests", "refused outside tests", ErrInvalid, func(_ beam.Scope, _ beam.PCollection, b *Budget, _ PrivatePCollection) error {
			testingAllowed = func() bool { return false }
			defer func() { testingAllowed = defaultTestingAllowed }()
			return b.TestMode(1, false)
		}},
		{"seeded core parameters", "seeded generator is refused", ErrInvalid, func(beam.Scope, beam.PCollection, *Budget, PrivatePCollection) error {
			c := good.config(core.Count)
			c.Params.Reproducible = true
			return c.Validate()
		}},
		{"Run without a runner", "nil Runner", ErrInvalid, func(s beam.Scope, _ beam.PCollection, b *Budget, _ PrivatePCollection) error {
			acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1})
			return Run(context.Background(), beam.NewPipeline(), b, acct, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, col, b, pc := newGraph(t)
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v", r)
					}
				}()
				err = tc.build(s, col, b, pc)
			}()
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q; want one wrapping %v and containing %q", err, tc.sentinel, tc.want)
			}
		})
	}
}

// defaultTestingAllowed restores testingAllowed.
var defaultTestingAllowed = testingAllowed

// TestOverBudgetRefusedBeforeRun checks that Run refuses a pipeline whose
// shares the accountant cannot pay, without starting it, and charges
// nothing.
func TestOverBudgetRefusedBeforeRun(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	b, err := NewBudget(mechanism.Budget{Epsilon: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := MakePrivate(s, beam.Create(s, visit{User: "a", Day: "d", Spend: 1}), visitUser, b)
	if err != nil {
		t.Fatal(err)
	}
	days, err := ByKey(s, pc, visitDay)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CountPerKey(s, days, Params{Epsilon: 0.5, MaxPartitionsContributed: 1, SelectionEpsilon: 0.3, SelectionDelta: 1e-7}); err != nil {
		t.Fatal(err)
	}
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1, Delta: 1e-6})
	if err := acct.Spend(mechanism.Budget{Epsilon: 0.5}); err != nil {
		t.Fatal(err)
	}
	ran := false
	err = Run(t.Context(), p, b, acct, func(context.Context, *beam.Pipeline) error { ran = true; return nil })
	if !errors.Is(err, mechanism.ErrBudgetExceeded) || ran {
		t.Fatalf("Run: %v (ran %v); want a refusal wrapping ErrBudgetExceeded before running", err, ran)
	}
	if rem := acct.Remaining(); rem.Epsilon != 0.5 {
		t.Errorf("the refused plan charged the accountant: remaining %v", rem)
	}
	if b.Committed() {
		t.Error("the refused budget reports itself committed")
	}
	// With enough budget left, the same pipeline runs, once.
	acct2, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1, Delta: 1e-6})
	if err := Run(t.Context(), p, b, acct2, func(context.Context, *beam.Pipeline) error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("Run: %v (ran %v)", err, ran)
	}
	if err := Run(t.Context(), p, b, acct2, func(context.Context, *beam.Pipeline) error { return nil }); err == nil {
		t.Error("a committed budget ran a second time")
	}
}
