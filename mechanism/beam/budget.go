package beam

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	"github.com/privinfer/privinfer/mechanism/beam/internal/core"
)

// ErrInvalid is the sentinel wrapped by every argument error of this
// package; errors of the core's parameter checks also wrap
// aggregate.ErrInvalid.
var ErrInvalid = core.ErrInvalid

func invalidf(format string, args ...any) error {
	return fmt.Errorf("beam: "+format+": %w", append(args, ErrInvalid)...)
}

// Budget is a pipeline's privacy budget, held on the driver: every
// aggregation built on a PrivatePCollection declares its share in it
// while the graph is built (a share that would take it beyond its total
// is refused there, with an error wrapping mechanism.ErrBudgetExceeded),
// and Commit (or Run) charges a mechanism.Accountant once for all shares
// before the pipeline runs. Workers receive only the plain parameters of
// their aggregation. It wraps an aggregate.Plan. Safe for concurrent
// use.
type Budget struct {
	plan *aggregate.Plan

	mu   sync.Mutex
	n    int
	test core.TestMode
}

// NewBudget returns an empty budget with the given (ε, δ) total. δ must
// be positive if any aggregation selects partitions or uses ρ-zCDP.
func NewBudget(total mechanism.Budget) (*Budget, error) {
	p, err := aggregate.NewPlan(total)
	if err != nil {
		return nil, fmt.Errorf("beam: NewBudget: %w", err)
	}
	return &Budget{plan: p}, nil
}

// testingAllowed reports whether test modes may be enabled: only inside a
// test binary. Tests of the refusal replace it.
var testingAllowed = testing.Testing

// TestMode makes the pipelines built on b reproducible, for tests only:
// every bounding sample is drawn from a generator seeded by (seed, privacy
// unit) and every noise and selection draw from one seeded by (seed,
// partition key), so that the same data give the same released bits on
// any runner and in any merge order; with noNoise the exact bounded
// aggregates are released and every non-empty partition is kept (Results
// then carry no noise model; the noise-free mean of an empty public
// partition is (Lo + Hi)/2). It must be called before any aggregation is
// added, and it returns an error wrapping ErrInvalid outside a test
// binary (testing.Testing): a seeded generator can be subtracted, so a
// pipeline releasing confidential data refuses it.
func (b *Budget) TestMode(seed uint64, noNoise bool) error {
	if !testingAllowed() {
		return invalidf("Budget.TestMode: a seeded or noise-free pipeline is refused outside tests")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n > 0 {
		return invalidf("Budget.TestMode must be set before any aggregation is added")
	}
	b.test = core.TestMode{On: true, Seed: seed, NoNoise: noNoise}
	return nil
}

// declare validates c, records its shares under name (a generated name if
// empty) and returns c with the test mode applied.
func (b *Budget) declare(name string, c core.Config) (core.Config, error) {
	if b == nil {
		return c, invalidf("%v: nil Budget", c.Kind)
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	b.mu.Lock()
	b.n++
	if name == "" {
		name = fmt.Sprintf("%v#%d", c.Kind, b.n)
	}
	c.Test = b.test
	b.mu.Unlock()
	// Declare on a scratch copy of the plan first, so that a refused
	// selection share leaves no aggregation share behind.
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, plan := range []*aggregate.Plan{nil, b.plan} {
		if plan == nil {
			scratch, err := aggregate.NewPlan(b.plan.Total())
			if err != nil {
				return c, err
			}
			for _, s := range b.plan.Shares() {
				if s.Rho > 0 {
					err = scratch.AddRho(s.Name, s.Rho)
				} else {
					err = scratch.Add(s.Name, s.Budget)
				}
				if err != nil {
					return c, err
				}
			}
			plan = scratch
		}
		if c.Kind != core.Select {
			if err := plan.AddParams(name, c.Params); err != nil {
				return c, err
			}
		}
		if !c.Public {
			sel := name
			if c.Kind != core.Select {
				sel = name + "/selection"
			}
			if err := plan.AddSelection(sel, c.Selection); err != nil {
				return c, err
			}
		}
	}
	return c, nil
}

// Shares returns the declared shares.
func (b *Budget) Shares() []aggregate.Share { return b.plan.Shares() }

// Total returns the budget's total.
func (b *Budget) Total() mechanism.Budget { return b.plan.Total() }

// Guarantee returns the (ε, δ) guarantee of the shares declared so far.
func (b *Budget) Guarantee() mechanism.Budget { return b.plan.Guarantee() }

// Commit charges acct once for all declared shares (aggregate.Plan.Commit)
// and closes the budget to further aggregations. On error (an error
// wrapping mechanism.ErrBudgetExceeded if acct refuses) nothing is
// charged and the pipeline must not run.
func (b *Budget) Commit(acct *mechanism.Accountant) error {
	if b == nil {
		return invalidf("Commit: nil Budget")
	}
	return b.plan.Commit(acct)
}

// Committed reports whether Commit succeeded.
func (b *Budget) Committed() bool { return b != nil && b.plan.Committed() }

// Runner runs a pipeline: beamx.Run, ptest.Run, or a closure over
// beam.Run with a runner name.
type Runner func(ctx context.Context, p *beam.Pipeline) error

// Run commits b to acct and runs p with run only if the accountant
// accepts every share: an over-budget pipeline is refused before anything
// runs. It returns an error wrapping ErrInvalid for a nil argument or an
// empty or already committed budget.
func Run(ctx context.Context, p *beam.Pipeline, b *Budget, acct *mechanism.Accountant, run Runner) error {
	switch {
	case p == nil:
		return invalidf("Run: nil pipeline")
	case run == nil:
		return invalidf("Run: nil Runner")
	case b == nil:
		return invalidf("Run: nil Budget")
	}
	if err := b.Commit(acct); err != nil {
		return fmt.Errorf("beam: Run: the pipeline was not run: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := run(ctx, p); err != nil {
		return fmt.Errorf("beam: Run: %w", err)
	}
	return nil
}
