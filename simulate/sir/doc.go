// Package sir provides the SBI paper's stochastic SIR epidemic (§4.1):
// the exact Gillespie simulator Exact (New), binomial tau-leaping TauLeap
// and the deterministic ODE, all simulate.Simulator values, together with
// the paper's setting and data — the record times PaperTimes, the prior
// Prior, the basic reproduction number R0, the synthetic experiment
// (SyntheticTheta, SyntheticSimulator, SyntheticRelease) and the real
// outbreaks (Outbreaks, OutbreakPrior).
//
// Exact simulates every infection and recovery: about 1.8 million events
// for the synthetic setting at K = 10⁶, a few tens of milliseconds on one
// core (BenchmarkGillespieK1e6; measured in examples/reproduce/sir/RESULTS.md,
// section "The exact simulator's cost"); TauLeap and the ODE are
// approximations whose cost does not grow with K.
//
// Every simulator is safe for concurrent use and allocates nothing per
// simulation. Errors wrap simulate.ErrInvalid (simulate.ErrInvalidTheta
// for a bad θ).
package sir
