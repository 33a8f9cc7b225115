package mechanism

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// Budget is a privacy loss: ε-DP when Delta is zero, (ε, δ)-DP otherwise.
type Budget struct {
	Epsilon float64
	Delta   float64
}

// budgetTol is the relative slack an Accountant allows when comparing
// sums of floating-point budgets with the total, so that splitting a
// budget into parts and spending all of them is not refused because of
// rounding (for example 0.1 + 0.2 + 0.7 > 1 in float64).
const budgetTol = 1e-12

// Validate reports whether b is a usable budget: ε > 0 and finite,
// δ ∈ [0, 1).
func (b Budget) Validate() error {
	if err := checkEpsilon(b.Epsilon); err != nil {
		return err
	}
	return checkDelta(b.Delta)
}

// IsPure reports whether b is a pure ε-DP budget (δ = 0).
func (b Budget) IsPure() bool { return b.Delta == 0 }

// String formats b as "ε=…" or "(ε=…, δ=…)". Each value is rounded to 12
// significant digits and written as the shortest decimal (in %g style)
// that reads back as the rounded value: a sum of budgets such as
// 0.1 + 0.2 = 0.30000000000000004 prints as ε=0.3, and δ = 1e-6 as
// δ=1e-06. Two budgets differing only beyond the 12th digit print alike.
func (b Budget) String() string {
	if b.Delta == 0 {
		return "ε=" + formatBudgetValue(b.Epsilon)
	}
	return "(ε=" + formatBudgetValue(b.Epsilon) + ", δ=" + formatBudgetValue(b.Delta) + ")"
}

// Scale returns the budget of w times b: (wε, wδ). It is how a total
// budget is divided among sequentially composed releases.
func (b Budget) Scale(w float64) Budget { return Budget{Epsilon: w * b.Epsilon, Delta: w * b.Delta} }

// Sequential returns the basic sequential composition of the budgets:
// releasing the outputs of mechanisms with budgets (ε_j, δ_j) on the same
// data is (Σε_j, Σδ_j)-DP.
func Sequential(bs ...Budget) Budget {
	var out Budget
	for _, b := range bs {
		out.Epsilon += b.Epsilon
		out.Delta += b.Delta
	}
	return out
}

// Parallel returns the parallel composition of the budgets: mechanisms
// applied to disjoint subsets of the individuals are jointly
// (max ε_j, max δ_j)-DP.
func Parallel(bs ...Budget) Budget {
	var out Budget
	for _, b := range bs {
		out.Epsilon = math.Max(out.Epsilon, b.Epsilon)
		out.Delta = math.Max(out.Delta, b.Delta)
	}
	return out
}

// Split divides total among len(weights) sequentially composed releases:
// part j receives (w_j ε, w_j δ) with w_j = weights[j]/Σweights. Weights
// must be positive and finite; they need not sum to one. The parts compose
// back to total (up to rounding).
func Split(total Budget, weights []float64) ([]Budget, error) {
	if err := total.Validate(); err != nil {
		return nil, err
	}
	w, err := normalizeWeights(weights)
	if err != nil {
		return nil, err
	}
	out := make([]Budget, len(w))
	for i, wi := range w {
		out[i] = total.Scale(wi)
	}
	return out, nil
}

// normalizeWeights returns weights/Σweights after validation.
func normalizeWeights(weights []float64) ([]float64, error) {
	if len(weights) == 0 {
		return nil, invalidf("weights must be non-empty")
	}
	sum := 0.0
	for i, w := range weights {
		if !(w > 0) || math.IsInf(w, 1) {
			return nil, invalidf("weights[%d] must be finite and > 0, got %v", i, w)
		}
		sum += w
	}
	if math.IsInf(sum, 1) {
		return nil, invalidf("weights sum to +Inf; rescale them")
	}
	out := make([]float64, len(weights))
	for i, w := range weights {
		out[i] = w / sum
		if !(out[i] >= minNormal) {
			return nil, invalidf("weights[%d] = %v is too small relative to their sum %v: its share %v is not a positive normal number", i, w, sum, out[i])
		}
	}
	return out, nil
}

// CommunalWeights returns the budget proportions w_i = Δ_i/ΣΔ_j under
// which individualized sanitization coincides with communal sanitization
// (modips Remark 6a).
func CommunalWeights(sens []float64) ([]float64, error) {
	for i, d := range sens {
		if err := checkPositive(fmt.Sprintf("sensitivity[%d]", i), d); err != nil {
			return nil, err
		}
	}
	return normalizeWeights(sens)
}

// CommunalLaplace returns the communal sanitization of modips Def. 5: every
// coordinate of an r-dimensional statistic whose coordinates have ℓ1
// sensitivities sens receives Laplace noise of the common scale
// δ_s/ε, δ_s = Σ_i sens[i]. It is epsilon-DP.
func CommunalLaplace(sens []float64, epsilon float64) (*Laplace, error) {
	if err := checkEpsilon(epsilon); err != nil {
		return nil, err
	}
	if len(sens) == 0 {
		return nil, invalidf("sensitivities must be non-empty")
	}
	total := 0.0
	for i, d := range sens {
		if err := checkPositive(fmt.Sprintf("sensitivity[%d]", i), d); err != nil {
			return nil, err
		}
		total += d
	}
	return NewLaplace(LaplaceConfig{Sensitivity: total, Epsilon: epsilon, Dim: len(sens)})
}

// IndividualizedLaplace returns the individualized sanitization of modips
// Def. 6: coordinate i receives Laplace(0, sens[i]/(w_i ε)) noise with
// w_i = weights[i]/Σweights. By sequential composition it is epsilon-DP.
// With weights ∝ sens it equals CommunalLaplace (Remark 6a).
func IndividualizedLaplace(sens, weights []float64, epsilon float64) (*Laplace, error) {
	if err := checkEpsilon(epsilon); err != nil {
		return nil, err
	}
	if len(sens) != len(weights) {
		return nil, fmt.Errorf("%w: %d sensitivities but %d weights", ErrInvalid, len(sens), len(weights))
	}
	w, err := normalizeWeights(weights)
	if err != nil {
		return nil, err
	}
	scales := make([]float64, len(sens))
	for i, d := range sens {
		if err := checkPositive(fmt.Sprintf("sensitivity[%d]", i), d); err != nil {
			return nil, err
		}
		scales[i] = d / (w[i] * epsilon)
	}
	return NewLaplaceScales(scales, Budget{Epsilon: epsilon})
}

// Accountant tracks the privacy budget spent on one data set and refuses
// any spend that would exceed its total. It is safe for concurrent use.
//
// (ε, δ) spends (Spend, Release) compose sequentially: (Σε_j, Σδ_j).
// zCDP spends (SpendRho, ReleaseZCDP) compose by adding ρ (see zcdp.go).
// When both kinds are present the guarantee (Guarantee) is the better of
//
//   - sequential composition of the (ε, δ) part with the zCDP part
//     converted at the δ that is left: (Σε_j + ε(ρ, δ_T − Σδ_j), δ_T);
//   - if every (ε, δ) spend is pure, all of it as zCDP (ε-DP is
//     ε²/2-zCDP): (ε(ρ + Σε_j²/2, δ_T), δ_T),
//
// with ε(ρ, δ) the tight conversion ZCDPEpsilon. zCDP spends need a total
// with δ > 0. Without zCDP spends the guarantee is plain sequential
// composition, as before.
type Accountant struct {
	mu     sync.Mutex
	total  Budget
	spent  Budget
	rho    float64 // Σρ of zCDP spends
	pureSq float64 // Σε² of pure (δ = 0) spends
}

// NewAccountant returns an Accountant with the given total budget.
func NewAccountant(total Budget) (*Accountant, error) {
	if err := total.Validate(); err != nil {
		return nil, err
	}
	return &Accountant{total: total}, nil
}

// usable reports whether a was built by NewAccountant: a nil or
// zero-value Accountant has no total and refuses every spend with an
// error wrapping ErrInvalid.
func (a *Accountant) usable() error {
	if a == nil || !(a.total.Epsilon > 0) {
		return invalidf("Accountant is nil or was not built by NewAccountant")
	}
	return nil
}

// Total returns the total budget.
func (a *Accountant) Total() Budget {
	if a == nil {
		return Budget{}
	}
	return a.total
}

// Spent returns the budget spent so far.
func (a *Accountant) Spent() Budget {
	if a == nil {
		return Budget{}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.spent
}

// Remaining returns the budget left (never negative): the total minus
// Guarantee.
func (a *Accountant) Remaining() Budget {
	if a == nil {
		return Budget{}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	g := a.guarantee(a.spent, a.pureSq, a.rho)
	return Budget{
		Epsilon: math.Max(0, a.total.Epsilon-g.Epsilon),
		Delta:   math.Max(0, a.total.Delta-a.spent.Delta),
	}
}

// Rho returns the sum of the zCDP spends.
func (a *Accountant) Rho() float64 {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rho
}

// Guarantee returns the (ε, δ) guarantee of everything spent so far (see
// the type comment); with no zCDP spend it equals Spent.
func (a *Accountant) Guarantee() Budget {
	if a == nil {
		return Budget{}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.guarantee(a.spent, a.pureSq, a.rho)
}

// guarantee composes an (ε, δ) part with a zCDP part ρ. It returns
// ε = +Inf when the zCDP part has no δ left to convert at.
func (a *Accountant) guarantee(spent Budget, pureSq, rho float64) Budget {
	if rho == 0 {
		return spent
	}
	out := Budget{Epsilon: math.Inf(1), Delta: a.total.Delta}
	if dz := a.total.Delta - spent.Delta; dz > 0 {
		if e, err := ZCDPEpsilon(rho, dz); err == nil {
			out.Epsilon = spent.Epsilon + e
		}
	}
	if spent.Delta == 0 && a.total.Delta > 0 {
		if e, err := ZCDPEpsilon(rho+pureSq/2, a.total.Delta); err == nil && e < out.Epsilon {
			out.Epsilon = e
		}
	}
	return out
}

// admit checks a prospective state against the total; what names the
// spend in the error, and is called only when the spend is refused.
func (a *Accountant) admit(spent Budget, pureSq, rho float64, what func() string) error {
	if spent.Delta > a.total.Delta*(1+budgetTol) {
		return fmt.Errorf("%w: spending %s would bring δ to %g, total is %g", ErrBudgetExceeded, what(), spent.Delta, a.total.Delta)
	}
	g := a.guarantee(spent, pureSq, rho)
	if g.Epsilon > a.total.Epsilon*(1+budgetTol) {
		return fmt.Errorf("%w: spending %s would bring ε to %g, total is %g", ErrBudgetExceeded, what(), g.Epsilon, a.total.Epsilon)
	}
	return nil
}

// Spend records a release with budget b. It returns an error wrapping
// ErrBudgetExceeded, and records nothing, if the spend would take ε or δ
// beyond the total (with a relative slack of 1e-12 for rounding); an error
// wrapping ErrInvalid if b is not a valid budget.
func (a *Accountant) Spend(b Budget) error {
	if err := a.usable(); err != nil {
		return err
	}
	if err := b.Validate(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	spent := Budget{Epsilon: a.spent.Epsilon + b.Epsilon, Delta: a.spent.Delta + b.Delta}
	sq := a.pureSq
	if b.Delta == 0 {
		sq += b.Epsilon * b.Epsilon
	}
	if err := a.admit(spent, sq, a.rho, func() string { return fmt.Sprint(b) }); err != nil {
		return err
	}
	a.spent, a.pureSq = spent, sq
	return nil
}

// SpendRho records a ρ-zCDP release. It returns an error wrapping
// ErrBudgetExceeded, and records nothing, if the composed guarantee would
// exceed the total (always so for a total with δ = 0, at which zCDP
// implies no finite ε); an error wrapping ErrInvalid unless
// rho is finite and > 0.
func (a *Accountant) SpendRho(rho float64) error {
	if err := a.usable(); err != nil {
		return err
	}
	if err := checkRho(rho); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.admit(a.spent, a.pureSq, a.rho+rho, func() string { return fmt.Sprintf("ρ=%g", rho) }); err != nil {
		return err
	}
	a.rho += rho
	return nil
}

// ZCDPMechanism is a mechanism with a zero-concentrated DP guarantee:
// Rho returns its ρ.
type ZCDPMechanism interface {
	Mechanism
	Rho() float64
}

// ReleaseZCDP charges m.Rho() as a zCDP spend and then releases s through
// m into dst, refunding the charge if the release fails validation.
func (a *Accountant) ReleaseZCDP(m ZCDPMechanism, r *rand.Rand, s, dst []float64) error {
	if m == nil {
		return invalidf("ReleaseZCDP needs a non-nil mechanism")
	}
	if err := a.usable(); err != nil {
		return err
	}
	rho := m.Rho()
	if err := a.SpendRho(rho); err != nil {
		return err
	}
	if err := m.Release(r, s, dst); err != nil {
		a.mu.Lock()
		a.rho = math.Max(0, a.rho-rho)
		a.mu.Unlock()
		return err
	}
	return nil
}

// refund returns b to the accountant after a release that failed before
// any output was produced.
func (a *Accountant) refund(b Budget) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.spent.Epsilon = math.Max(0, a.spent.Epsilon-b.Epsilon)
	a.spent.Delta = math.Max(0, a.spent.Delta-b.Delta)
	if b.Delta == 0 {
		a.pureSq = math.Max(0, a.pureSq-b.Epsilon*b.Epsilon)
	}
}

// Release charges m.Budget() and then releases s through m into dst. If
// the budget would be exceeded nothing is released; if the release itself
// fails (a validation error, before any noise is drawn) the charge is
// refunded.
func (a *Accountant) Release(m Mechanism, r *rand.Rand, s, dst []float64) error {
	if m == nil {
		return invalidf("Release needs a non-nil mechanism")
	}
	b := m.Budget()
	if err := a.Spend(b); err != nil {
		return err
	}
	if err := m.Release(r, s, dst); err != nil {
		a.refund(b)
		return err
	}
	return nil
}
