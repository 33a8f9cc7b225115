// Package aggregate provides the curator's differentially private
// aggregations: Count, BoundedSum, BoundedMean, Histogram over known
// categories and Quantile by the exponential mechanism on data held in
// one process, and, for pipelines spread over many machines, mergeable
// integer accumulators, contribution bounding, partition selection and a
// budget plan charged once (see Scale-out below).
//
// Every aggregation
//
//   - states the neighbour relation its guarantee is for (Neighbour:
//     adding or removing one record, or substituting one record in a data
//     set of public size) and computes its sensitivity from the public
//     bounds, clamping every record into [Lo, Hi] on both sides;
//   - validates its input (NaN, ±Inf, lo ≥ hi, empty data where the
//     aggregate is undefined, out-of-range categories, sizes beyond exact
//     integer arithmetic) and returns an error wrapping ErrInvalid;
//   - releases on a lattice with exactly sampled integer noise (discrete
//     Laplace, or an exact exponential mechanism for Quantile), so no
//     output is impossible under a neighbouring data set, whatever the
//     floating-point details (Mironov 2012);
//   - draws its noise from the operating system's secure generator
//     (mechanism.CryptoSource), ignoring the *rand.Rand it is given,
//     unless Config.Reproducible is set;
//   - charges Config.Accountant, if one is given, before releasing, and
//     reports the budget it used.
//
// Reproducible (draw the noise from the *rand.Rand passed in) exists for tests
// and simulation studies that must be reproducible; anyone who knows the
// seed can subtract the noise, so it must never be used for a release of
// confidential data.
//
// With Config.Rho instead of Config.Epsilon, Count, BoundedSum,
// BoundedMean and Histogram add the secure discrete Gaussian instead and
// are ρ-zCDP (see gaussian.go); the Accountant composes ρ and converts it
// to (ε, δ).
//
// Pure budgets are ε-DP. The noise is calibrated to ε' = ⌊ε·2^30⌋/2^30 ≤ ε
// (a dyadic rational, so that the noise scale is a ratio of integers and
// sampled exactly); the guarantee is ε'-DP, hence ε-DP, and ε is what is
// charged and reported.
//
// # Scale-out
//
// For data spread over many machines, in partitions (keys) not known in
// advance, the package offers the pieces a distributed pipeline is
// assembled from, with no dependency beyond the core:
//
//   - Params and SelectionParams are plain configurations: budgets,
//     bounds, contribution limits. Workers receive them and nothing
//     else — never an Accountant, never a seeded generator (Reproducible exists
//     for tests and a pipeline must refuse it).
//   - The budget is charged once, on the driver, when the pipeline is
//     built: every aggregation declares its share in a Plan, a share
//     beyond the total is refused at once, and Plan.Commit charges the
//     Accountant for all of them atomically before any data is read. An
//     over-budget plan releases nothing.
//   - Contribution bounding per privacy unit: BoundPartitions keeps a
//     uniform sample of at most L0 of the unit's partitions,
//     CapContributions at most L∞ of its records in each, and the
//     accumulators clamp every value to [Lo, Hi] (Params.ClampValue; NaN is
//     dropped, ±Inf goes to the nearer bound). The sensitivities of
//     Params rest on this bounding.
//   - CountAccumulator, SumAccumulator and MeanAccumulator are mergeable
//     and serialisable (encoding.BinaryMarshaler). They hold exact
//     integers: a count, and sums of lattice indices round(clamp(v)/γ) in
//     128 bits. Merge is integer addition, which is commutative and
//     associative, so whatever tree the pipeline merges partial results
//     in, the final state is the same integers, and the release —
//     noise drawn on the lattice and added to that integer — has the same
//     law; with the same generator it is the same bits. Nothing is
//     rounded in floating point before the noise.
//   - Partitions are selected by a PartitionSelector ((ε, δ)-DP; the
//     optimal rule of Desfontaines et al. 2022 or a discrete Laplace
//     threshold), or declared public with PublicPartitions (every public
//     key released, empty ones with noise only).
//   - Every Result carries the exact law of its noise (Result.Noise), and
//     Result.Mechanism turns it into a mechanism for a noise-aware
//     posterior (privinfer.Problem) that is the discrete lattice law
//     itself, not a continuous approximation.
//
// Success or failure of every release depends on its public parameters
// only, never on the data: an empty data set, NaN or infinite records,
// out-of-range categories and counts beyond exact arithmetic are
// released like any other input (as each function documents), except
// where the number of records is public (Substitute), where an empty
// data set may be refused.
//
// # Nil receivers
//
// No exported method panics on a nil pointer receiver: accessors return
// the zero value, methods with an error result return an error wrapping
// ErrInvalid, Add on a nil accumulator does nothing (its Release fails),
// LogDensity returns NaN and Apply fills dst with NaN.
package aggregate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// ErrInvalid is the sentinel wrapped by every argument error of this
// package.
var ErrInvalid = errors.New("aggregate: invalid argument")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Neighbour is the neighbour relation a guarantee is stated for.
type Neighbour int

const (
	// AddRemove: neighbouring data sets differ by adding or removing one
	// record; the number of records is itself private.
	AddRemove Neighbour = iota
	// Substitute: neighbouring data sets have the same, public, number of
	// records and differ in the value of one record.
	Substitute
)

// String names the relation.
func (n Neighbour) String() string {
	switch n {
	case AddRemove:
		return "add/remove"
	case Substitute:
		return "substitute"
	}
	return fmt.Sprintf("Neighbour(%d)", int(n))
}

// Config holds the settings of the single-process aggregations: the
// budget and neighbour relation every aggregation shares, and the public
// bounds of the bounded ones. The zero value is invalid: exactly one of
// Epsilon and Rho must be set; BoundedSum, BoundedMean and Quantile also
// need Lo and Hi.
type Config struct {
	// Epsilon is the pure-DP budget of the release, in [2^-30, 2^20]
	// (discrete Laplace noise, or the exponential mechanism).
	Epsilon float64
	// Rho, if set instead of Epsilon, makes the release ρ-zCDP with
	// discrete Gaussian noise (see gaussian.go), ρ in [2^-40, 2^20].
	// Quantile has no zCDP form and needs Epsilon.
	Rho float64
	// Neighbour is the relation the guarantee is for.
	Neighbour Neighbour
	// Accountant, if not nil, is charged (ε, 0) (Accountant.Spend) or ρ
	// (Accountant.SpendRho) before the release; a refused charge releases
	// nothing.
	Accountant *mechanism.Accountant
	// Reproducible draws the noise from the *rand.Rand passed to the
	// aggregation instead of the operating system's generator. For
	// reproducible tests and simulation studies only: a release whose
	// seed is known can be de-noised.
	Reproducible bool
	// Lo and Hi are the public clamping bounds of BoundedSum, BoundedMean
	// and Quantile: every record is clamped into [Lo, Hi] (finite,
	// Lo < Hi). Both zero means unset, which those three refuse; Count
	// and Histogram ignore the bounds.
	Lo, Hi float64
	// Candidates is the number k of public candidates of Quantile, the
	// grid Lo + (Hi − Lo)·j/(k − 1), j = 0, …, k − 1, in [2, 2^16]. Zero
	// selects DefaultCandidates. The other aggregations ignore it.
	Candidates int
}

// DefaultCandidates is the number of quantile candidates when
// Config.Candidates is zero: a grid step of (Hi − Lo)/1024.
const DefaultCandidates = 1025

// Result is a released aggregate.
type Result struct {
	// Value is the private release.
	Value float64
	// Sensitivity is the sensitivity of the released statistic under the
	// configured neighbour relation, in value units (after rounding the
	// bounds to the lattice).
	Sensitivity float64
	// Grid is the lattice spacing γ of the release (a power of two).
	Grid float64
	// Scale is the noise scale in value units: γ·t for discrete Laplace
	// noise, P(Z = z) ∝ exp(−|z|/t), or γ·σ' for discrete Gaussian noise
	// of standard deviation σ' (lattice units).
	Scale float64
	// Budget is the (ε, 0) budget charged (zero for a zCDP release).
	Budget mechanism.Budget
	// Rho is the zCDP ρ charged (zero for a pure-DP release).
	Rho float64
	// Releases are the lattice releases Value was computed from, in value
	// units: Value itself for a count or a sum; the sum's release for
	// BoundedMean under Substitute; the noisy count ñ and the noisy
	// centred sum γ·s̃ for a mean released from both. They are the
	// observed data of a noise-aware posterior (Observed, Mechanism).
	Releases []float64
	// Noise holds the exact law of each release's noise.
	Noise []NoiseModel
	// Center is C, the lattice index a mean's second release is centred
	// at (zero otherwise).
	Center int64
}

const (
	// maxGridSens bounds a sensitivity in lattice units.
	maxGridSens = 1 << 31
	// maxScale bounds the noise scale t in lattice units so that
	// |statistic + noise| < 2^53 except with probability below e^-100.
	maxScale = 1 << 45
	// exact is 2^53: integers below it are exact in float64.
	exact = 1 << 53
)

// Validate reports whether c is usable, with an error wrapping
// ErrInvalid that names the offending field: the budget (exactly one of
// Epsilon and Rho, each in its range), the neighbour relation, the
// bounds when either is set, and Candidates. It does not require the
// bounds (only the bounded aggregations do) and cannot tell whether a
// budget is large enough for the noise scale of a particular release.
func (c Config) Validate() error {
	if err := c.checkBudget("Config"); err != nil {
		return err
	}
	if c.Lo != 0 || c.Hi != 0 {
		if err := checkBounds("Config", c.Lo, c.Hi); err != nil {
			return err
		}
	}
	if c.Candidates != 0 && (c.Candidates < 2 || c.Candidates > maxCandidates) {
		return invalidf("Config.Candidates: the number of quantile candidates must be 0 (default) or in [2, 2^16], got %d", c.Candidates)
	}
	return nil
}

// bounds returns Lo and Hi after checking that they are set.
func (c Config) bounds() (lo, hi float64, err error) {
	if c.Lo == 0 && c.Hi == 0 {
		return 0, 0, invalidf("Config.Lo, Config.Hi: a bounded aggregation needs public bounds, both are unset")
	}
	return c.Lo, c.Hi, nil
}

// lattice validates c for BoundedSum and BoundedMean (Validate, and set
// bounds) and returns the lattice of its bounds.
func (c Config) lattice() (lattice, error) {
	if err := c.Validate(); err != nil {
		return lattice{}, err
	}
	lo, hi, err := c.bounds()
	if err != nil {
		return lattice{}, err
	}
	return newLattice("Config", lo, hi, 0)
}

// checkBudget validates the budget and neighbour relation of c; owner
// names the configuration type in the error (Config or Params).
func (c Config) checkBudget(owner string) error {
	if c.Rho != 0 {
		if !(c.Rho >= 0x1p-40 && c.Rho <= 0x1p20) {
			return invalidf("%s.Rho: rho must be in [2^-40, 2^20], got %v", owner, c.Rho)
		}
		if c.Epsilon != 0 {
			return invalidf("%s.Epsilon, %s.Rho: set either epsilon (%v) or rho (%v), not both", owner, owner, c.Epsilon, c.Rho)
		}
	} else if !(c.Epsilon >= 0x1p-30 && c.Epsilon <= 0x1p20) {
		return invalidf("%s.Epsilon: epsilon must be in [2^-30, 2^20], got %v", owner, c.Epsilon)
	}
	if c.Neighbour != AddRemove && c.Neighbour != Substitute {
		return invalidf("%s.Neighbour: unknown neighbour relation %d", owner, int(c.Neighbour))
	}
	return nil
}

// source returns the generator the noise is drawn from.
func (c Config) source(r *rand.Rand) (*rand.Rand, error) {
	if c.Reproducible {
		if r == nil {
			return nil, invalidf("r: a Reproducible release needs a non-nil *rand.Rand")
		}
		return r, nil
	}
	return mechanism.NewCryptoRand(), nil
}

// charge spends the budget on the accountant, if any, and returns what
// it charged.
func (c Config) charge() (mechanism.Budget, float64, error) {
	if c.Rho > 0 {
		if c.Accountant != nil {
			if err := c.Accountant.SpendRho(c.Rho); err != nil {
				return mechanism.Budget{}, 0, fmt.Errorf("aggregate: %w", err)
			}
		}
		return mechanism.Budget{}, c.Rho, nil
	}
	b := mechanism.Budget{Epsilon: c.Epsilon}
	if c.Accountant != nil {
		if err := c.Accountant.Spend(b); err != nil {
			return b, 0, fmt.Errorf("aggregate: %w", err)
		}
	}
	return b, 0, nil
}

// noise adds integer-statistic noise on a lattice: discrete Laplace
// (dlap) or discrete Gaussian (gaussNoise). add clamps the statistic to
// ±limit() first (1-Lipschitz, so no sensitivity grows) so that the
// release is exactly representable whatever the data.
type noise interface {
	add(r *rand.Rand, s int64) (float64, error)
	limit() int64
	scale() float64
	model() NoiseModel
}

// newNoise returns the noise of c for a statistic of ℓ1 sensitivity sens1
// and ℓ2 sensitivity sens2 (lattice units), with the fraction frac of the
// budget (ε or ρ).
func (c Config) newNoise(sens1 uint64, sens2, frac float64) (noise, error) {
	if c.Rho > 0 {
		return newGaussNoise(sens2, c.Rho*frac, c.Reproducible)
	}
	e := c.Epsilon * frac
	if !(e >= 0x1p-30) {
		return nil, invalidf("epsilon share %v must be >= 2^-30", e)
	}
	return newDLap(sens1, e)
}

// dyadic returns ε' = ⌊ε·2^30⌋/2^30 as its numerator.
func dyadic(eps float64) uint64 { return uint64(math.Floor(math.Ldexp(eps, 30))) }

// dlap is the discrete Laplace law of scale t = num/den on the integers.
type dlap struct{ num, den uint64 }

// newDLap returns the discrete Laplace law for an integer statistic of
// sensitivity sensG (lattice units) at budget eps: t = sensG/ε'.
func newDLap(sensG uint64, eps float64) (dlap, error) {
	if sensG < 1 || sensG > maxPlanSens {
		return dlap{}, invalidf("sensitivity in lattice units %d outside [1, 2^33]", sensG)
	}
	e := dyadic(eps)
	num, den := sensG<<30, e
	g := gcd(num, den)
	d := dlap{num / g, den / g}
	if d.scale() > maxScale {
		return dlap{}, invalidf("noise scale %v lattice units exceeds 2^45 (epsilon %v too small for the bounds)", d.scale(), eps)
	}
	return d, nil
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// scale returns t.
func (d dlap) scale() float64 { return float64(d.num) / float64(d.den) }

// model returns the law of the noise.
func (d dlap) model() NoiseModel { return NoiseModel{Kind: DiscreteLaplace, Num: d.num, Den: d.den} }

// sample draws Z exactly.
func (d dlap) sample(r *rand.Rand) int64 { return mechanism.SampleDiscreteLaplace(r, d.num, d.den) }

// limit returns 2^52: with |Z| < 2^52 (larger draws are redrawn by the
// sampler) every s + Z is an exact float64.
func (d dlap) limit() int64 { return maxStat }

// add returns clamp(s) + Z as an exact float64 integer (the error is
// unreachable: the sampler redraws |Z| ≥ 2^52).
func (d dlap) add(r *rand.Rand, s int64) (float64, error) {
	v := clampStat(s, maxStat) + d.sample(r)
	if v <= -exact || v >= exact {
		return 0, fmt.Errorf("aggregate: noisy lattice value %d is not exactly representable", v)
	}
	return float64(v), nil
}

// clampStat returns s clamped to [−lim, lim].
func clampStat(s, lim int64) int64 { return max(-lim, min(lim, s)) }

// checkBounds validates public clamping bounds; owner names the
// configuration type whose Lo and Hi they are.
func checkBounds(owner string, lo, hi float64) error {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo < hi) {
		return invalidf("%s.Lo, %s.Hi: bounds must be finite with Lo < Hi, got [%v, %v]", owner, owner, lo, hi)
	}
	return nil
}

// record returns the record v as the slice aggregations take it: clamped
// to [lo, hi] (±Inf to the nearer bound) and true; NaN is dropped under
// AddRemove (false: as if the record were absent) and counts as lo under
// Substitute, where the number of records is public and each must count.
func record(v, lo, hi float64, nb Neighbour) (float64, bool) {
	c, ok := clampValue(v, lo, hi)
	if !ok && nb == Substitute {
		return lo, true
	}
	return c, ok
}

// lattice is the power-of-two grid of a bounded aggregation: records are
// clamped to [lo, hi] and rounded to the nearest multiple of γ = 2^k, so
// each record's lattice index lies in [L, H].
type lattice struct {
	k    int
	L, H int64
}

// newLattice chooses the lattice of the bounds [lo, hi] of the
// configuration type owner (named in errors): with grid zero,
// γ ≈ (hi − lo)·2^-20 (a power of two at most that), so that the rounding
// is a millionth of the bounds' width; otherwise the power-of-two spacing
// grid ≤ hi − lo.
func newLattice(owner string, lo, hi, grid float64) (lattice, error) {
	if err := checkBounds(owner, lo, hi); err != nil {
		return lattice{}, err
	}
	w := hi - lo
	if math.IsInf(w, 0) {
		return lattice{}, invalidf("%s.Lo, %s.Hi: bounds width Hi − Lo = %v overflows", owner, owner, w)
	}
	_, e := math.Frexp(w)
	k := e - 1 - 20
	if grid != 0 {
		f, ge := math.Frexp(grid)
		if !(grid > 0) || f != 0.5 || grid > w {
			return lattice{}, invalidf("%s.Grid: grid must be 0 (default) or a power of two no larger than Hi − Lo = %v, got %v", owner, w, grid)
		}
		k = ge - 1
	}
	L := math.Round(math.Ldexp(lo, -k))
	H := math.Round(math.Ldexp(hi, -k))
	if math.Max(math.Abs(L), math.Abs(H)) > maxGridSens {
		return lattice{}, invalidf("%s.Lo, %s.Hi: bounds [%v, %v] are too large relative to their width (more than 2^31 lattice steps from 0)", owner, owner, lo, hi)
	}
	return lattice{k: k, L: int64(L), H: int64(H)}, nil
}

// center returns C = ⌊(L + H)/2⌋, the centre of a mean's sums.
func (l lattice) center() int64 { return (l.L + l.H) >> 1 }

// gamma returns γ.
func (l lattice) gamma() float64 { return math.Ldexp(1, l.k) }

// index returns the lattice index of the clamped, rounded record v.
func (l lattice) index(v, lo, hi float64) int64 {
	i := int64(math.Round(math.Ldexp(math.Max(lo, math.Min(hi, v)), -l.k)))
	return max(l.L, min(l.H, i))
}

// maxAbs returns max(|L|, |H|).
func (l lattice) maxAbs() int64 { return max(absInt(l.L), absInt(l.H)) }

func absInt(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// sum returns Σ index(x_i) over the records as record takes them, kept
// in 128 bits and clamped to ±2^52. The multiplication by the power of
// two 2^-k is exact (a result too small to be normal rounds to index 0
// either way).
func (l lattice) sum(x []float64, lo, hi float64, nb Neighbour) int64 {
	inv := math.Ldexp(1, -l.k)
	var s wide
	for _, v := range x {
		i, ok := l.indexOf(v, lo, hi, inv)
		if !ok {
			if nb != Substitute {
				continue
			}
			i = l.L
		}
		s.add(i)
	}
	return s.clamp(maxStat)
}
