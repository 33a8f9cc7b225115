package mechanism

import (
	"math/rand/v2"
)

// Simulator is implemented by mechanisms with a fast simulation path.
//
// SimulateRelease draws from the same law as Release — the law of the
// noise actually released, so that densities and transforms used by
// inference describe it — but in floating point and from r, so a seeded
// generator gives reproducible simulations. It validates its arguments
// like Release. It is the path for simulating releases inside inference
// (ABC, SPPE/SPLE, calibration), which never touches confidential data;
// it must not be used to release confidential data.
type Simulator interface {
	SimulateRelease(r *rand.Rand, s, dst []float64) error
}

// sourcedReleaser is implemented by the package's mechanisms: the secure
// release law sampled from a given generator. Release calls it with the
// operating system's generator; Reproducible with the caller's.
type sourcedReleaser interface {
	releaseWith(r *rand.Rand, s, dst []float64) error
}

// Simulate draws a simulated release of s through m into dst for use
// inside inference: it calls m.SimulateRelease if m is a Simulator (every
// mechanism of this package is) and otherwise m.Release, which for a
// mechanism from outside the package draws from the r it is given.
// Results depend on r only. It returns an error for a nil m or r and for
// arguments the mechanism rejects.
func Simulate(m Mechanism, r *rand.Rand, s, dst []float64) error {
	if m == nil {
		return invalidf("Simulate needs a non-nil mechanism")
	}
	if r == nil {
		return invalidf("Simulate needs a non-nil *rand.Rand")
	}
	if v, ok := m.(Simulator); ok {
		return v.SimulateRelease(r, s, dst)
	}
	return m.Release(r, s, dst)
}

// ReproducibleMechanism is a mechanism with an explicit opt-out of the
// operating system's generator, for reproducible simulations and tests
// (built by Reproducible, the one seeded-noise option of package
// mechanism; configs elsewhere name theirs Reproducible too): its Release
// draws the same secure lattice law as m.Release, with the same checks,
// but from the *rand.Rand it is given, so a seeded generator reproduces
// it. Anyone who learns the seed can subtract the noise: never use it to
// release confidential data. A Composite mechanism from outside this
// package releases through its inner mechanisms' reproducible releases;
// other mechanisms from outside this package are wrapped unchanged (their
// Release already decides its generator).
type ReproducibleMechanism struct {
	m Mechanism
}

// Reproducible wraps m (see ReproducibleMechanism). It returns nil for a
// nil m.
func Reproducible(m Mechanism) *ReproducibleMechanism {
	if m == nil {
		return nil
	}
	return &ReproducibleMechanism{m: m}
}

// Unwrap returns the wrapped mechanism.
func (p *ReproducibleMechanism) Unwrap() Mechanism {
	if p == nil {
		return nil
	}
	return p.m
}

// Budget reports the wrapped mechanism's budget.
func (p *ReproducibleMechanism) Budget() Budget {
	if p == nil || p.m == nil {
		return Budget{}
	}
	return p.m.Budget()
}

// Release draws the wrapped mechanism's secure release law from r, which
// must be non-nil.
func (p *ReproducibleMechanism) Release(r *rand.Rand, s, dst []float64) error {
	if p == nil || p.m == nil {
		return invalidf("Reproducible mechanism is nil")
	}
	if r == nil {
		return invalidf("a reproducible release needs a non-nil *rand.Rand")
	}
	if sr, ok := p.m.(sourcedReleaser); ok {
		return sr.releaseWith(r, s, dst)
	}
	if c, ok := p.m.(Composite); ok {
		return c.ReleaseVia(&Via{r: r, mode: viaReproducible}, s, dst)
	}
	return p.m.Release(r, s, dst)
}

// Composite is implemented by mechanisms defined outside this package
// whose release is a fixed composition of releases by mechanisms of this
// package: the per-record local mechanisms of mechanism/ldp clip each
// person's record and release it through a Laplace mechanism.
//
// ReleaseVia draws the composite release of s into dst, handing every
// inner release to v.Release. A Composite's Release must be
// ReleaseVia(SecureVia(r), …) and its SimulateRelease may be
// ReleaseVia(SimulateVia(r), …); Reproducible(c).Release(r, …) calls
// ReleaseVia with a Via only this package can build, so the one
// reproducible opt-out reaches the noise of a composite too and no other
// way to it is open. ReleaseVia returns an error for a nil v.
type Composite interface {
	Mechanism
	ReleaseVia(v *Via, s, dst []float64) error
}

type viaMode uint8

const (
	viaSecure viaMode = iota
	viaSimulate
	viaReproducible
)

// Via is how a Composite draws its inner releases: SecureVia (each inner
// mechanism's own secure Release), SimulateVia (the floating-point
// simulation path of Simulate) or, built only by Reproducible, the inner
// mechanisms' reproducible releases. Its zero value is SecureVia(nil).
type Via struct {
	r    *rand.Rand
	mode viaMode
}

// SecureVia returns the Via of a Composite's Release: inner.Release(r, …),
// which for a mechanism of this package draws from the operating
// system's generator whatever r is.
func SecureVia(r *rand.Rand) *Via { return &Via{r: r, mode: viaSecure} }

// SimulateVia returns the Via of a Composite's SimulateRelease:
// Simulate(inner, r, …), for inference and simulation studies only; its
// Release returns an error for a nil r.
func SimulateVia(r *rand.Rand) *Via { return &Via{r: r, mode: viaSimulate} }

// Release draws the release of s by inner into dst the way v says. It
// returns an error for a nil v or inner and for arguments inner rejects.
func (v *Via) Release(inner Mechanism, s, dst []float64) error {
	if v == nil {
		return invalidf("Via is nil")
	}
	if inner == nil {
		return invalidf("Via.Release needs a non-nil mechanism")
	}
	switch v.mode {
	case viaSimulate:
		return Simulate(inner, v.r, s, dst)
	case viaReproducible:
		return Reproducible(inner).Release(v.r, s, dst)
	default:
		return inner.Release(v.r, s, dst)
	}
}

// SimulateRelease is Simulate through the wrapped mechanism.
func (p *ReproducibleMechanism) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if p == nil || p.m == nil {
		return invalidf("Reproducible mechanism is nil")
	}
	return Simulate(p.m, r, s, dst)
}
