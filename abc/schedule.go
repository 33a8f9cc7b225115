package abc

import (
	"math"
	"slices"

	"github.com/privinfer/privinfer/internal/stats"
)

// Schedule chooses the tolerance ε_t of each SMC-ABC round.
type Schedule interface {
	// Next returns the tolerance of round t (t = 0 is the prior round,
	// where prev is nil) given the previous round; ok = false ends the
	// run (the schedule is exhausted, or t < 0).
	Next(t int, prev *Round) (eps float64, ok bool)
}

// ToleranceList is a schedule given as an explicit decreasing list.
type ToleranceList []float64

// Next returns the t-th tolerance.
func (l ToleranceList) Next(t int, _ *Round) (float64, bool) {
	if t < 0 || t >= len(l) {
		return 0, false
	}
	return l[t], true
}

func (l ToleranceList) validate() error {
	if len(l) == 0 {
		return invalidf("tolerance list is empty")
	}
	for i, e := range l {
		if !(e > 0) {
			return invalidf("tolerance list entry %d must be > 0 (+Inf accepts every draw), got %v", i, e)
		}
	}
	return nil
}

// checkMin validates a schedule's Min: 0 (no minimum) or finite and > 0.
func checkMin(name string, m float64) error {
	if !(m >= 0) || math.IsInf(m, 0) {
		return invalidf("%s must be finite and >= 0, got %v", name, m)
	}
	return nil
}

// Geometric is the schedule ε_t = A·R^t, t = 0, 1, …, Rounds−1 (the SBI
// paper's App. E.1 uses A = 0.5, R = 0.7). It also ends before the first
// tolerance below Min when Min > 0.
type Geometric struct {
	A, R   float64
	Rounds int
	Min    float64
}

// Next returns A·R^t.
func (g Geometric) Next(t int, _ *Round) (float64, bool) {
	if t < 0 || t >= g.Rounds {
		return 0, false
	}
	e := g.A * math.Pow(g.R, float64(t))
	if g.Min > 0 && e < g.Min {
		return 0, false
	}
	return e, true
}

func (g Geometric) validate() error {
	if !(g.A >= minNormal) || math.IsInf(g.A, 0) {
		return invalidf("geometric schedule: A must be a finite normal number > 0, got %v", g.A)
	}
	if err := checkMin("geometric schedule: Min", g.Min); err != nil {
		return err
	}
	if !(g.R > 0 && g.R < 1) {
		return invalidf("geometric schedule: R must be in (0, 1), got %v", g.R)
	}
	if g.Rounds < 1 {
		return invalidf("geometric schedule: rounds must be >= 1, got %d", g.Rounds)
	}
	return nil
}

// Adaptive sets ε_t to the Quantile-quantile of the previous population's
// distances (Del Moral et al. 2012 style); round 0 uses Initial (+Inf
// accepts every prior draw). The run ends after Rounds rounds or before the
// first tolerance below Min.
type Adaptive struct {
	Initial  float64
	Quantile float64
	Rounds   int
	Min      float64
}

// Next returns the next tolerance. It ends the schedule when the previous
// round has no distances to take a quantile of (or only NaN ones).
func (a Adaptive) Next(t int, prev *Round) (float64, bool) {
	if t < 0 || t >= a.Rounds {
		return 0, false
	}
	if t == 0 || prev == nil {
		return a.Initial, true
	}
	d := slices.Clone(prev.Distance)
	slices.Sort(d)
	e := stats.Quantile(d, a.Quantile)
	if math.IsNaN(e) {
		return 0, false
	}
	if e >= prev.Tolerance {
		// Keep the schedule strictly decreasing where the distances allow.
		e = math.Nextafter(prev.Tolerance, 0)
	}
	if a.Min > 0 && e < a.Min {
		return 0, false
	}
	return e, true
}

func (a Adaptive) validate() error {
	if !(a.Initial > 0) {
		return invalidf("adaptive schedule: initial tolerance must be > 0 (+Inf accepts every prior draw), got %v", a.Initial)
	}
	if err := checkMin("adaptive schedule: Min", a.Min); err != nil {
		return err
	}
	if !(a.Quantile > 0 && a.Quantile < 1) {
		return invalidf("adaptive schedule: quantile must be in (0, 1), got %v", a.Quantile)
	}
	if a.Rounds < 1 {
		return invalidf("adaptive schedule: rounds must be >= 1, got %d", a.Rounds)
	}
	return nil
}
