package beam

import (
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/typex"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/filter"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	"github.com/privinfer/privinfer/mechanism/beam/internal/core"
)

// Params are the parameters of one private aggregation, checked when the
// graph is built. The zero value is invalid: a budget (Epsilon or Rho)
// and MaxPartitionsContributed must be set, and either PublicPartitions
// or a selection budget (SelectionEpsilon, SelectionDelta).
type Params struct {
	// Name names the aggregation's share of the Budget (unique); empty
	// gives "CountPerKey#n" and the like.
	Name string
	// Epsilon makes the released values ε-DP (discrete Laplace noise);
	// Rho instead makes them ρ-zCDP (discrete Gaussian noise). Exactly one
	// is set (aggregate.Params).
	Epsilon, Rho float64
	// MaxPartitionsContributed is L0 ≥ 1: each privacy unit contributes to
	// at most L0 partitions, a uniform sample of its partitions if it has
	// more.
	MaxPartitionsContributed int
	// MaxContributionsPerPartition is L∞: each unit contributes at most
	// L∞ records to a partition, a uniform sample if it has more. Zero
	// means 1. DistinctUnitsPerKey and SelectPartitions ignore it (one
	// per unit).
	MaxContributionsPerPartition int
	// Lo and Hi bound each value of SumPerKey and MeanPerKey (finite,
	// Lo < Hi): values are clamped to [Lo, Hi] (±Inf to the nearer bound)
	// and NaN values are dropped before bounding. Counts leave them zero.
	Lo, Hi float64
	// Grid is the release lattice of sums and means (aggregate.Params.Grid;
	// zero for the default).
	Grid float64
	// PublicPartitions, if not nil, are the partitions released: a slice
	// of keys ([]K) or a beam.PCollection of K. Every public key is
	// released (one without data with noise only), records of other keys
	// are dropped before bounding, and no budget goes to selection.
	PublicPartitions any
	// SelectionEpsilon and SelectionDelta are the (ε, δ) budget of
	// partition selection when the keys are not public: a partition is
	// released only if a differentially private decision on its number of
	// privacy units keeps it (aggregate.PartitionSelector).
	SelectionEpsilon, SelectionDelta float64
	// SelectionRule is the selection rule (zero: aggregate.AutoRule).
	SelectionRule aggregate.SelectionRule
}

// config builds the core configuration of kind from p.
func (p Params) config(kind core.Kind) core.Config {
	li := p.MaxContributionsPerPartition
	if li == 0 || kind == core.Distinct {
		li = 1
	}
	c := core.Config{
		Kind: kind,
		Params: aggregate.Params{
			Epsilon: p.Epsilon, Rho: p.Rho, Lo: p.Lo, Hi: p.Hi, Grid: p.Grid,
			MaxPartitionsContributed: p.MaxPartitionsContributed, MaxContributionsPerPartition: li,
		},
		Public: p.PublicPartitions != nil,
	}
	if !c.Public {
		c.Selection = aggregate.SelectionParams{
			Epsilon: p.SelectionEpsilon, Delta: p.SelectionDelta,
			MaxPartitionsContributed: p.MaxPartitionsContributed, Rule: p.SelectionRule,
		}
	}
	return c
}

// check validates what core.Config.Validate does not see.
func (p Params) check(kind core.Kind) error {
	switch {
	case p.MaxPartitionsContributed < 1:
		return invalidf("%v: Params.MaxPartitionsContributed (L0) must be at least 1, got %d", kind, p.MaxPartitionsContributed)
	case p.MaxContributionsPerPartition < 0:
		return invalidf("%v: Params.MaxContributionsPerPartition must be at least 1 (or 0 for 1), got %d", kind, p.MaxContributionsPerPartition)
	}
	switch kind {
	case core.Count, core.Distinct:
		if p.Lo != 0 || p.Hi != 0 || p.Grid != 0 {
			return invalidf("%v: Params.Lo, Hi and Grid are for sums and means; leave them zero", kind)
		}
	case core.Sum, core.Mean:
		if !(p.Lo < p.Hi) || math.IsInf(p.Lo, 0) || math.IsInf(p.Hi, 0) {
			return invalidf("%v: Params.Lo (%v) must be below Params.Hi (%v), both finite", kind, p.Lo, p.Hi)
		}
	case core.Select:
		if p.Epsilon != 0 || p.Rho != 0 {
			return invalidf("SelectPartitions spends only SelectionEpsilon and SelectionDelta; leave Epsilon and Rho zero")
		}
	}
	if p.PublicPartitions == nil && p.SelectionEpsilon == 0 && p.SelectionDelta == 0 {
		return invalidf("%v: the keys are not public (Params.PublicPartitions is nil) and no selection budget is set (Params.SelectionEpsilon, SelectionDelta)", kind)
	}
	if p.PublicPartitions != nil && (p.SelectionEpsilon != 0 || p.SelectionDelta != 0) {
		return invalidf("%v: public partitions need no selection budget; leave Params.SelectionEpsilon and SelectionDelta zero", kind)
	}
	return nil
}

// CountPerKey releases, per partition key, the number of records (each
// privacy unit contributing at most L∞ records to each of at most L0
// partitions): a PCollection of KV<K, aggregate.Result>. Each Result
// carries its value and the exact law of its noise (Result.Noise;
// Result.Mechanism and Result.Observed give a privinfer.Problem's
// Mechanism and Observed). Its share is declared in pc's Budget; invalid
// parameters and a share beyond the total are refused here, with an error.
func CountPerKey(s beam.Scope, pc PrivatePCollection, p Params) (beam.PCollection, error) {
	return aggregatePerKey(s, pc, p, core.Count)
}

// SumPerKey releases, per partition key, the sum of the values clamped to
// [Lo, Hi] and rounded to the release lattice (aggregate.SumAccumulator),
// each unit contributing at most L∞ values to each of at most L0
// partitions; NaN values are dropped. Output and errors as CountPerKey.
func SumPerKey(s beam.Scope, pc PrivatePCollection, p Params) (beam.PCollection, error) {
	return aggregatePerKey(s, pc, p, core.Sum)
}

// MeanPerKey releases, per partition key, the mean of the values clamped
// to [Lo, Hi] (aggregate.MeanAccumulator: a noisy count and a noisy
// centred sum, half the budget each; the Result's Releases hold both),
// each unit contributing at most L∞ values to each of at most L0
// partitions; NaN values are dropped. Output and errors as CountPerKey.
func MeanPerKey(s beam.Scope, pc PrivatePCollection, p Params) (beam.PCollection, error) {
	return aggregatePerKey(s, pc, p, core.Mean)
}

// DistinctUnitsPerKey releases, per partition key, the number of distinct
// privacy units with a record in it (each unit counted in at most L0
// partitions). Output and errors as CountPerKey.
func DistinctUnitsPerKey(s beam.Scope, pc PrivatePCollection, p Params) (beam.PCollection, error) {
	return aggregatePerKey(s, pc, p, core.Distinct)
}

// SelectPartitions releases the partition keys that differentially private
// partition selection keeps, spending only p.SelectionEpsilon and
// p.SelectionDelta (each unit counted in at most L0 partitions): a
// PCollection of K, which can serve as the PublicPartitions of later
// aggregations. Epsilon, Rho and PublicPartitions must be zero.
func SelectPartitions(s beam.Scope, pc PrivatePCollection, p Params) (beam.PCollection, error) {
	if p.PublicPartitions != nil {
		return beam.PCollection{}, invalidf("SelectPartitions: Params.PublicPartitions must be nil")
	}
	return aggregatePerKey(s, pc, p, core.Select)
}

// aggregatePerKey builds the graph of one aggregation: (public filter) →
// group by privacy unit → bound → combine per key (with empty public
// partitions) → select and release.
func aggregatePerKey(s beam.Scope, pc PrivatePCollection, p Params, kind core.Kind) (beam.PCollection, error) {
	if pc.budget == nil || !pc.col.IsValid() {
		return beam.PCollection{}, invalidf("%v: the PrivatePCollection was not built by MakePrivate", kind)
	}
	if pc.key == nil {
		return beam.PCollection{}, invalidf("%v: the PrivatePCollection has no partition keys; call ByKey first", kind)
	}
	if err := p.check(kind); err != nil {
		return beam.PCollection{}, err
	}
	var public beam.PCollection
	s = s.Scope("privinfer." + kind.String())
	if p.PublicPartitions != nil {
		var err error
		if public, err = publicKeys(s, p.PublicPartitions, pc.key); err != nil {
			return beam.PCollection{}, err
		}
	}
	c, err := pc.budget.declare(p.Name, p.config(kind))
	if err != nil {
		return beam.PCollection{}, err
	}
	rows := pc.col
	if public.IsValid() {
		rows = beam.ParDo(s, &publicFilterFn{}, rows, beam.SideInput{Input: public})
	}
	grouped := beam.GroupByKey(s, rows)
	parts := beam.ParDo(s, &boundFn{Cfg: c}, grouped)
	if public.IsValid() {
		parts = beam.Flatten(s, parts, beam.ParDo(s, &emptyFn{Cfg: c}, public))
	}
	states := beam.CombinePerKey(s, &accCombineFn{Cfg: c}, parts)
	key := beam.TypeDefinition{Var: beam.XType, T: pc.key}
	if kind == core.Select {
		return beam.ParDo(s, &selectFn{Cfg: c, Key: beam.EncodedType{T: pc.key}}, states, key), nil
	}
	return beam.ParDo(s, &releaseFn{Cfg: c, Key: beam.EncodedType{T: pc.key}}, states, key), nil
}

// publicKeys returns the distinct encoded public keys: from a slice []K,
// encoded on the driver, or from a PCollection of K.
func publicKeys(s beam.Scope, keys any, kt reflect.Type) (beam.PCollection, error) {
	if col, ok := keys.(beam.PCollection); ok {
		if !col.IsValid() {
			return beam.PCollection{}, invalidf("Params.PublicPartitions is an invalid PCollection")
		}
		if typex.IsKV(col.Type()) || col.Type().Type() != kt {
			return beam.PCollection{}, invalidf("Params.PublicPartitions holds %v; the partition keys are %v", col.Type(), kt)
		}
		enc := beam.ParDo(s, &encodeKeyFn{Key: beam.EncodedType{T: kt}}, col)
		return filter.Distinct(s, enc), nil
	}
	v := reflect.ValueOf(keys)
	if v.Kind() != reflect.Slice || v.Type().Elem() != kt {
		return beam.PCollection{}, invalidf("Params.PublicPartitions must be a []%v or a beam.PCollection of %v, got %T", kt, kt, keys)
	}
	if v.Len() == 0 {
		return beam.PCollection{}, invalidf("Params.PublicPartitions is empty")
	}
	e := newEncoder(kt)
	seen := make(map[string]bool, v.Len())
	var enc []string
	for i := range v.Len() {
		k, err := e.encode(v.Index(i).Interface())
		if err != nil {
			return beam.PCollection{}, invalidf("Params.PublicPartitions[%d]: %v", i, err)
		}
		if !seen[k] {
			seen[k] = true
			enc = append(enc, k)
		}
	}
	return beam.CreateList(s, enc), nil
}
