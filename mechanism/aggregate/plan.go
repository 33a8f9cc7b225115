package aggregate

import (
	"fmt"
	"math"
	"sync"

	"github.com/privinfer/privinfer/mechanism"
)

// Share is one aggregation's declared part of a Plan: an (ε, δ) budget,
// a zCDP ρ, or both.
type Share struct {
	// Name identifies the aggregation (unique within a plan).
	Name string
	// Budget is its (ε, δ) part (zero if none).
	Budget mechanism.Budget
	// Rho is its ρ-zCDP part (zero if none).
	Rho float64
}

// Plan is the budget of a pipeline, built on the driver before anything
// runs: every aggregation declares its share (Add, AddRho, or AddParams
// and AddSelection for the package's own configurations), a share that
// would take the plan beyond its total is refused at once, and Commit
// charges an Accountant once, atomically, for the whole plan. Workers
// then receive only plain configurations (Params, SelectionParams),
// never the accountant. A Plan is safe for concurrent use.
//
// The plan's guarantee composes its shares as the Accountant does:
// (Σε + ε(Σρ, δ_T − Σδ), δ_T) when zCDP shares are present, with ε(ρ, δ)
// the conversion of mechanism.ZCDPEpsilon, and (Σε, Σδ) otherwise; it
// must stay within the total (the Accountant, which also considers
// treating pure shares as zCDP, can only find it cheaper).
type Plan struct {
	mu        sync.Mutex
	total     mechanism.Budget
	shares    []Share
	committed bool
}

// NewPlan returns an empty plan with the given total.
func NewPlan(total mechanism.Budget) (*Plan, error) {
	if err := total.Validate(); err != nil {
		return nil, invalidf("plan total: %v", err)
	}
	return &Plan{total: total}, nil
}

// Add declares an (ε, δ) share.
func (p *Plan) Add(name string, b mechanism.Budget) error {
	if err := b.Validate(); err != nil {
		return invalidf("share %q: %v", name, err)
	}
	return p.add(Share{Name: name, Budget: b})
}

// AddRho declares a ρ-zCDP share.
func (p *Plan) AddRho(name string, rho float64) error {
	if !(rho > 0) || math.IsInf(rho, 1) {
		return invalidf("share %q: rho must be finite and > 0, got %v", name, rho)
	}
	return p.add(Share{Name: name, Rho: rho})
}

// AddParams validates q and declares its share: (Epsilon, 0) or Rho.
func (p *Plan) AddParams(name string, q Params) error {
	if err := q.Validate(); err != nil {
		return err
	}
	b, rho := q.budget()
	return p.add(Share{Name: name, Budget: b, Rho: rho})
}

// AddSelection validates q and declares its (ε, δ) share.
func (p *Plan) AddSelection(name string, q SelectionParams) error {
	if err := q.Validate(); err != nil {
		return err
	}
	return p.add(Share{Name: name, Budget: mechanism.Budget{Epsilon: q.Epsilon, Delta: q.Delta}})
}

// add records s unless the plan is committed, the name is taken or the
// total would be exceeded.
func (p *Plan) add(s Share) error {
	if p == nil {
		return invalidf("nil Plan")
	}
	if s.Name == "" {
		return invalidf("a share needs a name")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.committed {
		return invalidf("share %q: the plan is already committed", s.Name)
	}
	for _, o := range p.shares {
		if o.Name == s.Name {
			return invalidf("share %q is declared twice", s.Name)
		}
	}
	g, err := guarantee(p.total, append(p.shares[:len(p.shares):len(p.shares)], s))
	if err != nil {
		return fmt.Errorf("aggregate: share %q: %w", s.Name, err)
	}
	if g.Epsilon > p.total.Epsilon*(1+1e-12) || g.Delta > p.total.Delta*(1+1e-12) {
		return fmt.Errorf("%w: plan share %q would bring the plan to %v, beyond its total %v", mechanism.ErrBudgetExceeded, s.Name, g, p.total)
	}
	p.shares = append(p.shares, s)
	return nil
}

// sum returns the (ε, δ) and ρ totals of shares.
func sum(shares []Share) (mechanism.Budget, float64) {
	var b mechanism.Budget
	rho := 0.0
	for _, s := range shares {
		b.Epsilon += s.Budget.Epsilon
		b.Delta += s.Budget.Delta
		rho += s.Rho
	}
	return b, rho
}

// guarantee returns the (ε, δ) guarantee of shares within total.
func guarantee(total mechanism.Budget, shares []Share) (mechanism.Budget, error) {
	b, rho := sum(shares)
	if rho == 0 {
		return b, nil
	}
	dz := total.Delta - b.Delta
	if !(dz > 0) {
		return mechanism.Budget{}, fmt.Errorf("zCDP shares need δ left in the total (δ %v of %v declared): %w", b.Delta, total.Delta, mechanism.ErrBudgetExceeded)
	}
	e, err := mechanism.ZCDPEpsilon(rho, dz)
	if err != nil {
		return mechanism.Budget{}, err
	}
	return mechanism.Budget{Epsilon: b.Epsilon + e, Delta: total.Delta}, nil
}

// Shares returns a copy of the declared shares (none for a nil Plan).
func (p *Plan) Shares() []Share {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Share(nil), p.shares...)
}

// Total returns the plan's total (zero for a nil Plan).
func (p *Plan) Total() mechanism.Budget {
	if p == nil {
		return mechanism.Budget{}
	}
	return p.total
}

// Guarantee returns the (ε, δ) guarantee of the shares declared so far
// (zero for a nil Plan).
func (p *Plan) Guarantee() mechanism.Budget {
	if p == nil {
		return mechanism.Budget{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	g, _ := guarantee(p.total, p.shares)
	return g
}

// Commit charges acct once for the whole plan (mechanism.Accountant's
// SpendJoint: the (ε, δ) shares and the ρ shares together, or nothing)
// and closes the plan to further shares. It returns an error, charging
// nothing, if the plan is empty or already committed, or if acct refuses
// the charge (an error wrapping mechanism.ErrBudgetExceeded): the
// pipeline must then release nothing.
func (p *Plan) Commit(acct *mechanism.Accountant) error {
	if p == nil {
		return invalidf("nil Plan")
	}
	if acct == nil {
		return invalidf("Commit needs an Accountant")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.committed {
		return invalidf("the plan is already committed")
	}
	if len(p.shares) == 0 {
		return invalidf("the plan has no shares")
	}
	b, rho := sum(p.shares)
	if err := acct.SpendJoint(b, rho); err != nil {
		return fmt.Errorf("aggregate: plan refused: %w", err)
	}
	p.committed = true
	return nil
}

// Committed reports whether Commit succeeded (false for a nil Plan).
func (p *Plan) Committed() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.committed
}
