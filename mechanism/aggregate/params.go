package aggregate

import (
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// Params is the plain configuration of a scaled-out aggregation: the
// budget of its noise, the clamping bounds and lattice, and the
// contribution bounds the pipeline enforces. It holds no accountant and
// no generator, so it can be serialised and shipped to workers; the
// budget is charged once, on the driver, through a Plan.
//
// The zero value is invalid: exactly one of Epsilon and Rho must be set,
// and both contribution bounds must be at least 1.
//
// Sensitivity (proof sketch). After bounding, one privacy unit has
// records in at most L0 partitions and at most L∞ records in each, and
// each record moves a partition's statistic by at most b lattice steps
// (b = 1 for a count, max(|L|, |H|) for a sum, max(H − C, C − L) for a
// mean's centred sum). So adding or removing the unit moves each of at
// most L0 per-partition statistics by at most L∞·b, the vector of all
// partitions' statistics by at most L0·L∞·b in ℓ1 and √L0·L∞·b in ℓ2; a
// substitution is a removal and an addition, twice that. Each
// partition's noise is calibrated to these norms (discrete Laplace of
// scale L0·L∞·b/ε', or the discrete Gaussian of ℓ2 sensitivity √L0·L∞·b
// at ρ), so the releases of all partitions together are ε-DP (ρ-zCDP):
// the privacy loss of the ℓ1-calibrated discrete Laplace is at most
// ε'·Σ|Δ_p|/(L0·L∞·b) ≤ ε' over the changed partitions p.
type Params struct {
	// Epsilon makes each release ε-DP with discrete Laplace noise, ε in
	// [2^-30, 2^20]; the noise is calibrated to ε' = ⌊ε·2^30⌋/2^30 ≤ ε.
	Epsilon float64
	// Rho, if set instead of Epsilon, makes each release ρ-zCDP with the
	// secure discrete Gaussian, ρ in [2^-40, 2^20].
	Rho float64
	// Lo and Hi are the public clamping bounds of SumAccumulator and
	// MeanAccumulator (finite, Lo < Hi). CountAccumulator ignores them;
	// both zero means unset.
	Lo, Hi float64
	// Grid is the release lattice γ of sums and means: zero selects the
	// default, the power of two at most (Hi − Lo)·2^-20; otherwise a power
	// of two no larger than Hi − Lo (a coarse lattice such as 1 suits
	// integer data, whose records are then not rounded at all).
	Grid float64
	// MaxPartitionsContributed is L0, the number of partitions one
	// privacy unit may contribute to (≥ 1); the pipeline enforces it with
	// BoundPartitions.
	MaxPartitionsContributed int
	// MaxContributionsPerPartition is L∞, the number of records one
	// privacy unit may contribute to one partition (≥ 1); the pipeline
	// enforces it with CapContributions.
	MaxContributionsPerPartition int
	// Neighbour is the relation the guarantee is for: AddRemove adds or
	// removes one privacy unit with all its records; Substitute replaces
	// one unit's records with another's (the number of units public), and
	// doubles every sensitivity (a substitution is a removal followed by
	// an addition).
	Neighbour Neighbour
	// Reproducible draws the noise of Release from the *rand.Rand passed to it
	// instead of the operating system's generator. For reproducible tests
	// only: a release whose seed is known can be de-noised. A pipeline
	// releasing confidential data must refuse it.
	Reproducible bool
}

// maxContrib bounds L0 and L∞ (and their product) so that every
// sensitivity stays within the noise samplers' exact range.
const maxContrib = 1 << 20

// maxPlanSens bounds a sensitivity in lattice units (the discrete
// Laplace scale numerator sens·2^30 must fit in 64 bits).
const maxPlanSens = 1 << 33

// Validate reports whether p is usable, with an error wrapping ErrInvalid
// that names the offending field. It checks the bounds when either is set
// (constructors of sums and means require them) and that the noise scale
// every accumulator of p would use is within range.
func (p Params) Validate() error {
	if err := p.config().checkBudget("Params"); err != nil {
		return err
	}
	l0, li := p.MaxPartitionsContributed, p.MaxContributionsPerPartition
	if l0 < 1 || l0 > maxContrib {
		return invalidf("Params.MaxPartitionsContributed (L0) must be in [1, 2^20], got %d", l0)
	}
	if li < 1 || li > maxContrib {
		return invalidf("Params.MaxContributionsPerPartition must be in [1, 2^20], got %d", li)
	}
	if int64(l0)*int64(li) > maxContrib {
		return invalidf("Params: MaxPartitionsContributed × MaxContributionsPerPartition = %d exceeds 2^20", int64(l0)*int64(li))
	}
	if p.Grid != 0 && (p.Lo == 0 && p.Hi == 0) {
		return invalidf("Params.Grid = %v is set without bounds", p.Grid)
	}
	if _, err := p.newNoise(1, 1); err != nil {
		return err
	}
	if p.Lo != 0 || p.Hi != 0 {
		l, err := p.lattice()
		if err != nil {
			return err
		}
		if _, err := p.newNoise(l.maxAbs(), 1); err != nil {
			return err
		}
		if _, err := p.meanNoise(l); err != nil {
			return err
		}
	}
	return nil
}

// config returns the single-process Config of the same budget.
func (p Params) config() Config {
	return Config{Epsilon: p.Epsilon, Rho: p.Rho, Neighbour: p.Neighbour, Reproducible: p.Reproducible}
}

// lattice returns the release lattice of sums and means.
func (p Params) lattice() (lattice, error) {
	if p.Lo == 0 && p.Hi == 0 {
		return lattice{}, invalidf("Params.Lo and Params.Hi must be set for a sum or a mean")
	}
	return newLattice("Params", p.Lo, p.Hi, p.Grid)
}

// factor returns the multiplier of every per-unit sensitivity:
// L0·L∞, doubled under Substitute, for the ℓ1 norm; √L0·L∞, doubled,
// for the ℓ2 norm.
func (p Params) factor() (f1 int64, f2 float64) {
	f1 = int64(p.MaxPartitionsContributed) * int64(p.MaxContributionsPerPartition)
	f2 = math.Sqrt(float64(p.MaxPartitionsContributed)) * float64(p.MaxContributionsPerPartition)
	if p.Neighbour == Substitute {
		f1, f2 = 2*f1, 2*f2
	}
	return f1, f2
}

// newNoise returns the noise of a per-partition statistic to which one
// record contributes at most per lattice units, with the fraction frac
// of the budget, calibrated as the Params documentation derives.
func (p Params) newNoise(per int64, frac float64) (noise, error) {
	f1, f2 := p.factor()
	s1 := per * f1
	if s1 > maxPlanSens {
		return nil, invalidf("sensitivity %d lattice units (L0 × L∞ × bound) exceeds 2^33; lower the contribution bounds or coarsen Params.Grid", s1)
	}
	return p.config().newNoise(uint64(s1), float64(per)*f2, frac)
}

// meanNoise returns the noises of a mean's count and centred sum.
func (p Params) meanNoise(l lattice) ([2]noise, error) {
	c := l.center()
	dc, err := p.newNoise(1, 0.5)
	if err != nil {
		return [2]noise{}, err
	}
	ds, err := p.newNoise(max(l.H-c, c-l.L, 1), 0.5)
	if err != nil {
		return [2]noise{}, err
	}
	return [2]noise{dc, ds}, nil
}

// source returns the generator of a release: the operating system's
// unless Reproducible.
func (p Params) source(r *rand.Rand) (*rand.Rand, error) { return p.config().source(r) }

// budget returns what one release of p spends.
func (p Params) budget() (mechanism.Budget, float64) {
	if p.Rho > 0 {
		return mechanism.Budget{}, p.Rho
	}
	return mechanism.Budget{Epsilon: p.Epsilon}, 0
}
