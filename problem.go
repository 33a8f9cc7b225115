package privinfer

import (
	"errors"
	"fmt"
	"math"

	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// Errors of the package. Every error returned for a bad argument wraps
// ErrInvalid; an engine that finds a Problem lacking a capability it needs
// returns an error wrapping one of ErrNoMechanism, ErrNoDensity,
// ErrNoTransform or ErrNoRecords, with a message naming the engine's need.
// Test with errors.Is.
var (
	// ErrInvalid reports an argument outside its domain: a nil prior, a
	// NaN in an observed release, mismatched lengths, a malformed file.
	ErrInvalid = errors.New("privinfer: invalid argument")
	// ErrNoMechanism reports a Problem without a mechanism given to an
	// engine that needs one (a release density or a uniform transform).
	ErrNoMechanism = errors.New("privinfer: problem has no mechanism")
	// ErrNoDensity reports a mechanism without a release density
	// (mechanism.Density), which exact-kernel importance sampling and
	// data-augmentation MCMC need.
	ErrNoDensity = errors.New("privinfer: mechanism has no release density")
	// ErrNoTransform reports a mechanism without a uniform transform
	// (mechanism.Transform), which SPPE and SPLE need to integrate over
	// the privacy noise.
	ErrNoTransform = errors.New("privinfer: mechanism has no uniform transform")
	// ErrNoRecords reports a simulator without a record-level model,
	// which data-augmentation MCMC needs to update latent records.
	ErrNoRecords = errors.New("privinfer: simulator has no record-level model")
)

// invalidf formats an argument error that wraps ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Problem is the inference problem: the same value goes to every posterior
// engine (rejection ABC, SMC-ABC, exact-kernel importance sampling, ABCDP,
// DA-MCMC, SPPE, SPLE). The data flow it describes is
//
//	θ ~ Prior ──► Simulator: s(x), x ~ f(·|θ) ──► Mechanism η: s_dp ~ η(·|s) ──► Observed s_dp°
//
// and the engines target π(θ | s_dp°) ∝ π(θ) ∫ η(s_dp° | s) p(s | θ) ds.
// With a nil Mechanism the problem is non-private: Observed is the
// confidential summary itself and the engines target π(θ | s°).
//
// An engine calls Require with the capabilities it needs before it starts
// and then obtains them with ReleaseSimulator, Density, Transform or
// Records; each returns an error naming what is missing. Settings that
// belong to one engine (an ABC distance, a DA-MCMC θ-step) go into that
// engine's Config, not into the Problem.
type Problem struct {
	// Prior is π(θ); its LogDensity is −Inf outside the support.
	Prior simulate.Prior
	// Simulator draws confidential data x ~ f(·|θ) and writes the
	// confidential summary s(x) (not a release). It must not itself apply
	// the Mechanism: a *simulate.PrivateSimulator together with a non-nil
	// Mechanism would add the noise twice and is refused.
	Simulator simulate.Simulator
	// Mechanism is η(s_dp | s), the mechanism that produced Observed; nil
	// for non-private inference.
	Mechanism mechanism.Mechanism
	// Observed is the observed release s_dp° (length Simulator.StatDim()),
	// all entries finite. Validate requires it; an engine that trains an
	// amortized posterior conditioned only at sample time (flow/sbi's SPPE
	// with one round) accepts a nil Observed and says so.
	Observed []float64
	// Names are optional parameter names (length Prior.Dim() when given),
	// used in summaries, CSV headers and plots; nil means θ[0], θ[1], ….
	Names []string
}

// Capability is a set of things an engine needs from a Problem, combined
// with |.
type Capability uint

const (
	// NeedRelease: the engine simulates releases s_dp ~ η(·|s(x)) (or
	// confidential summaries when the Mechanism is nil); every Problem
	// that validates has it. Rejection ABC, SMC-ABC and ABCDP need only
	// this.
	NeedRelease Capability = 1 << iota
	// NeedDensity: the engine evaluates η(s_dp | s); the Mechanism must be
	// non-nil and implement mechanism.Density (exact-kernel importance
	// sampling, DA-MCMC).
	NeedDensity
	// NeedTransform: the engine writes the noise as a map of uniforms; the
	// Mechanism must be nil or implement mechanism.Transform (SPPE, SPLE).
	NeedTransform
	// NeedRecords: the engine updates latent records; the Simulator must
	// be a record-level simulator (*simulate.MeanStat) (DA-MCMC).
	NeedRecords
)

// Dim returns the parameter dimension, Prior.Dim(), or 0 for a nil prior.
func (p *Problem) Dim() int {
	if p == nil || p.Prior == nil {
		return 0
	}
	return p.Prior.Dim()
}

// Private reports whether the problem has a mechanism.
func (p *Problem) Private() bool { return p != nil && p.Mechanism != nil }

// ParamNames returns Names, or θ[0], θ[1], … when Names is nil. The slice
// is a fresh copy.
func (p *Problem) ParamNames() []string {
	if p != nil && p.Names != nil {
		return append([]string(nil), p.Names...)
	}
	return DefaultNames(p.Dim())
}

// DefaultNames returns the names θ[0], …, θ[d−1] used when a Problem or
// Draws has no names.
func DefaultNames(d int) []string {
	names := make([]string, max(d, 0))
	for i := range names {
		names[i] = fmt.Sprintf("θ[%d]", i)
	}
	return names
}

// paramDimer is implemented by simulators that know the length of θ.
type paramDimer interface{ ParamDim() int }

// simulatorParamDim finds the parameter dimension a simulator declares,
// directly (ParamDim) or through its record model (Model().ParamDim()).
func simulatorParamDim(s simulate.Simulator) (int, bool) {
	switch v := s.(type) {
	case paramDimer:
		return v.ParamDim(), true
	case interface{ Model() simulate.RecordModel }:
		if m := v.Model(); m != nil {
			return m.ParamDim(), true
		}
	}
	return 0, false
}

// Validate checks the problem's values and shapes: a non-nil prior of
// dimension ≥ 1 and simulator of StatDim ≥ 1; Names nil or of length
// Prior.Dim() with no empty or repeated name; Observed of length StatDim
// with finite entries; the simulator's declared parameter dimension (a
// ParamDim method or a record model) equal to Prior.Dim(); the mechanism's
// declared dimension (a Dim method) equal to StatDim; and no
// *simulate.PrivateSimulator when a Mechanism is given. Errors wrap
// ErrInvalid and name the field.
func (p *Problem) Validate() error {
	if p == nil {
		return invalidf("problem is nil")
	}
	switch {
	case argcheck.Nil(p.Prior):
		return invalidf("Prior is nil")
	case argcheck.Nil(p.Simulator):
		return invalidf("Simulator is nil")
	case p.Mechanism != nil && argcheck.Nil(p.Mechanism):
		return invalidf("Mechanism is a typed nil (use a nil interface for a non-private problem)")
	}
	d := p.Prior.Dim()
	if d < 1 {
		return invalidf("Prior.Dim() must be >= 1, got %d", d)
	}
	if p.Names != nil {
		if err := checkNames(p.Names, d); err != nil {
			return err
		}
	}
	sd := p.Simulator.StatDim()
	if sd < 1 {
		return invalidf("Simulator.StatDim() must be >= 1, got %d", sd)
	}
	if pd, ok := simulatorParamDim(p.Simulator); ok && pd != d {
		return invalidf("Prior.Dim() = %d does not match the simulator's parameter dimension %d", d, pd)
	}
	if len(p.Observed) != sd {
		return invalidf("Observed has length %d, want Simulator.StatDim() = %d", len(p.Observed), sd)
	}
	for i, v := range p.Observed {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalidf("Observed[%d] is %v, want a finite value", i, v)
		}
	}
	if p.Mechanism != nil {
		if _, ok := p.Simulator.(*simulate.PrivateSimulator); ok {
			return invalidf("Simulator is a private simulator and Mechanism is set: the noise would be added twice; give the confidential simulator")
		}
		if md, ok := p.Mechanism.(interface{ Dim() int }); ok && md.Dim() != sd {
			return invalidf("Mechanism releases statistics of length %d, Simulator.StatDim() is %d", md.Dim(), sd)
		}
	}
	return nil
}

// checkNames validates d parameter names: none empty, none repeated.
func checkNames(names []string, d int) error {
	if len(names) != d {
		return invalidf("Names has length %d, want the parameter dimension %d", len(names), d)
	}
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		if n == "" {
			return invalidf("Names[%d] is empty", i)
		}
		if seen[n] {
			return invalidf("Names[%d] = %q is repeated", i, n)
		}
		seen[n] = true
	}
	return nil
}

// Require validates the problem and checks that it has every capability in
// need, returning the first failure: an error wrapping ErrInvalid from
// Validate, or ErrNoMechanism, ErrNoDensity, ErrNoTransform or
// ErrNoRecords with a message saying what is missing.
func (p *Problem) Require(need Capability) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if need&NeedDensity != 0 {
		if _, err := p.Density(); err != nil {
			return err
		}
	}
	if need&NeedTransform != 0 && p.Mechanism != nil {
		if _, err := p.Transform(); err != nil {
			return err
		}
	}
	if need&NeedRecords != 0 {
		if _, _, err := p.Records(); err != nil {
			return err
		}
	}
	return nil
}

// ReleaseSimulator returns the simulator of releases θ ↦ s_dp: the
// Simulator composed with the Mechanism (simulate.Private), or the
// Simulator itself when the Mechanism is nil. ABC engines simulate
// through it and compare with Observed.
func (p *Problem) ReleaseSimulator() (simulate.Simulator, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Mechanism == nil {
		return p.Simulator, nil
	}
	s, err := simulate.Private(p.Simulator, p.Mechanism)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return s, nil
}

// Density returns the Mechanism's release density η(s_dp | s). It returns
// an error wrapping ErrNoMechanism when the Mechanism is nil and
// ErrNoDensity when it does not implement mechanism.Density.
func (p *Problem) Density() (mechanism.Density, error) {
	return mechanismAs[mechanism.Density](p, "evaluates the release density η(s_dp | s)",
		ErrNoDensity, "mechanism.Density (LogDensity(sdp, s []float64) float64)")
}

// Transform returns the Mechanism's uniform transform s_dp = τ(u; s). It
// returns an error wrapping ErrNoMechanism when the Mechanism is nil (an
// engine that also handles non-private problems checks Private first) and
// ErrNoTransform when it does not implement mechanism.Transform.
func (p *Problem) Transform() (mechanism.Transform, error) {
	return mechanismAs[mechanism.Transform](p, "integrates over the mechanism's noise",
		ErrNoTransform, "mechanism.Transform (NoiseDim and Apply)")
}

// mechanismAs returns p's Mechanism as the capability T, with an error
// wrapping ErrNoMechanism (saying what the engine does with it) when
// there is none and one wrapping missing (naming the interface) when the
// Mechanism does not implement T.
func mechanismAs[T any](p *Problem, does string, missing error, iface string) (T, error) {
	var zero T
	if p == nil || p.Mechanism == nil {
		return zero, fmt.Errorf("%w: the engine %s, so it needs a Mechanism", ErrNoMechanism, does)
	}
	t, ok := p.Mechanism.(T)
	if !ok {
		return zero, fmt.Errorf("%w: %T does not implement %s", missing, p.Mechanism, iface)
	}
	return t, nil
}

// Records returns the record-level view of the Simulator that
// data-augmentation MCMC needs: the record model f(x_i | θ) with its
// contributions t(x_i), and the number of records n, the summary being
// s(x) = (1/n) Σ t(x_i). The Simulator must be a *simulate.MeanStat;
// otherwise the error wraps ErrNoRecords.
func (p *Problem) Records() (simulate.RecordModel, int, error) {
	if p == nil || p.Simulator == nil {
		return nil, 0, fmt.Errorf("%w: Simulator is nil", ErrNoRecords)
	}
	ms, ok := p.Simulator.(*simulate.MeanStat)
	if !ok {
		return nil, 0, fmt.Errorf("%w: the engine updates latent records, so the Simulator must be a *simulate.MeanStat (a record model with its number of records), got %T", ErrNoRecords, p.Simulator)
	}
	return ms.Model(), ms.N(), nil
}
