// Package core holds the per-unit and per-key steps of the private
// aggregations, free of Beam: bounding one privacy unit's records, the
// mergeable per-key state and its binary form, and the release of one key.
// The pipeline's DoFns and the in-memory path (Local) call the same
// functions, so both compute the same thing; every bounding, accumulation
// and noise step is the core module's mechanism/aggregate.
package core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/privinfer/privinfer/mechanism/aggregate"
)

// ErrInvalid is wrapped by every argument error of this package.
var ErrInvalid = errors.New("beam: invalid argument")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("beam: "+format+": %w", append(args, ErrInvalid)...)
}

// Kind names an aggregation.
type Kind uint8

const (
	// Count counts records (at most L∞ per unit and key).
	Count Kind = iota + 1
	// Sum sums values clamped to [Lo, Hi].
	Sum
	// Mean averages values clamped to [Lo, Hi].
	Mean
	// Distinct counts distinct privacy units per key.
	Distinct
	// Select only selects keys.
	Select
)

// String names the kind as the public API does.
func (k Kind) String() string {
	switch k {
	case Count:
		return "CountPerKey"
	case Sum:
		return "SumPerKey"
	case Mean:
		return "MeanPerKey"
	case Distinct:
		return "DistinctUnitsPerKey"
	case Select:
		return "SelectPartitions"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// TestMode is the reproducible mode of tests: bounding samples from
// generators seeded by (Seed, unit), noise from generators seeded by
// (Seed, key), or no noise at all. The zero value is off.
type TestMode struct {
	// On enables the mode.
	On bool
	// Seed seeds every generator.
	Seed uint64
	// NoNoise releases the exact bounded statistics and keeps every
	// non-empty partition.
	NoNoise bool
}

// Config is the plain configuration of one aggregation, shipped to
// workers (JSON-encoded inside the DoFns). It holds no generator and no
// accountant.
type Config struct {
	Kind Kind
	// Params are the aggregation's parameters (unused for Select but L0).
	Params aggregate.Params
	// Selection is the partition selection; unused when Public.
	Selection aggregate.SelectionParams
	// Public is set when the partitions are public.
	Public bool
	// Test is the test mode.
	Test TestMode
}

// L0 returns the number of partitions a unit may contribute to.
func (c Config) L0() int {
	if c.Kind == Select {
		return c.Selection.MaxPartitionsContributed
	}
	return c.Params.MaxPartitionsContributed
}

// cap returns the records a unit may contribute to one partition.
func (c Config) cap() int {
	switch c.Kind {
	case Distinct, Select:
		return 1
	}
	return c.Params.MaxContributionsPerPartition
}

// params returns the aggregate parameters with Reproducible set as the test
// mode requires.
func (c Config) params() aggregate.Params {
	p := c.Params
	p.Reproducible = c.Test.On && !c.Test.NoNoise
	return p
}

// Validate checks c as the pipeline builder does.
func (c Config) Validate() error {
	if c.Kind < Count || c.Kind > Select {
		return invalidf("unknown aggregation kind %d", c.Kind)
	}
	if c.Params.Reproducible || c.Selection.Reproducible {
		return invalidf("%v: a seeded generator is refused in a pipeline (Params.Reproducible or Selection.Reproducible); tests use the test mode", c.Kind)
	}
	if c.Kind != Select {
		if err := c.Params.Validate(); err != nil {
			return fmt.Errorf("%v: %w", c.Kind, err)
		}
		if _, err := c.NewAcc(); err != nil {
			return fmt.Errorf("%v: %w", c.Kind, err)
		}
	}
	if !c.Public {
		if err := c.Selection.Validate(); err != nil {
			return fmt.Errorf("%v: partition selection: %w", c.Kind, err)
		}
		if c.Kind != Select && c.Selection.MaxPartitionsContributed != c.Params.MaxPartitionsContributed {
			return invalidf("%v: the selection's L0 (%d) differs from the aggregation's (%d)", c.Kind, c.Selection.MaxPartitionsContributed, c.Params.MaxPartitionsContributed)
		}
		if _, err := aggregate.NewPartitionSelector(c.Selection); err != nil {
			return fmt.Errorf("%v: partition selection: %w", c.Kind, err)
		}
	} else if c.Kind == Select {
		return invalidf("SelectPartitions needs no public partitions")
	}
	return nil
}

// Row is one record after the privacy ID is split off: its partition key
// in Beam's encoding and its value.
type Row struct {
	Key   string
	Value float64
}

// Acc is the per-key state: the number of units that contributed, the
// core accumulator of the aggregation (nil for Select), and in the
// noise-free test mode the exact record count and sum of rounded values.
type Acc struct {
	Units int64
	N     int64
	Exact float64
	a     aggregate.Accumulator
}

// NewAcc returns an empty state for c.
func (c Config) NewAcc() (Acc, error) {
	var (
		a   aggregate.Accumulator
		err error
	)
	switch c.Kind {
	case Count, Distinct:
		a, err = aggregate.NewCountAccumulator(c.params())
	case Sum:
		a, err = aggregate.NewSumAccumulator(c.params())
	case Mean:
		a, err = aggregate.NewMeanAccumulator(c.params())
	case Select:
	default:
		err = invalidf("unknown aggregation kind %d", c.Kind)
	}
	return Acc{a: a}, err
}

// add adds one bounded record.
func (c Config) add(acc *Acc, v float64) {
	if acc.a != nil {
		acc.a.Add(v)
	}
	if c.Test.NoNoise {
		switch c.Kind {
		case Count, Distinct:
			acc.N++
		case Sum, Mean:
			if r, ok := c.Params.RoundValue(v); ok {
				acc.N++
				acc.Exact += r
			}
		}
	}
}

// Merge adds b into a. It fails only for states of different
// aggregations or parameters.
func (a *Acc) Merge(b Acc) error {
	a.Units += b.Units
	a.N += b.N
	a.Exact += b.Exact
	switch x := a.a.(type) {
	case nil:
		if b.a != nil {
			return invalidf("merging states of different aggregations")
		}
		return nil
	case *aggregate.CountAccumulator:
		y, ok := b.a.(*aggregate.CountAccumulator)
		if !ok {
			return invalidf("merging states of different aggregations")
		}
		return x.Merge(y)
	case *aggregate.SumAccumulator:
		y, ok := b.a.(*aggregate.SumAccumulator)
		if !ok {
			return invalidf("merging states of different aggregations")
		}
		return x.Merge(y)
	case *aggregate.MeanAccumulator:
		y, ok := b.a.(*aggregate.MeanAccumulator)
		if !ok {
			return invalidf("merging states of different aggregations")
		}
		return x.Merge(y)
	}
	return invalidf("unknown accumulator %T", a.a)
}

// Binary form: a tag byte for the accumulator's kind, the unit count, the
// noise-free count and sum, and the core accumulator's MarshalBinary.
const (
	tagNone  = 0
	tagCount = 1
	tagSum   = 2
	tagMean  = 3
)

// MarshalBinary encodes a; the core accumulator encodes itself
// (encoding.BinaryMarshaler), so the bytes shipped between workers are
// the integers Merge adds.
func (a Acc) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 96)
	var inner []byte
	tag := byte(tagNone)
	if a.a != nil {
		var err error
		if inner, err = a.a.MarshalBinary(); err != nil {
			return nil, err
		}
		switch a.a.(type) {
		case *aggregate.CountAccumulator:
			tag = tagCount
		case *aggregate.SumAccumulator:
			tag = tagSum
		case *aggregate.MeanAccumulator:
			tag = tagMean
		}
	}
	b = append(b, tag)
	b = binary.AppendVarint(b, a.Units)
	b = binary.AppendVarint(b, a.N)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(a.Exact))
	return append(b, inner...), nil
}

// UnmarshalBinary decodes what MarshalBinary encoded.
func (a *Acc) UnmarshalBinary(data []byte) error {
	if len(data) < 1 {
		return invalidf("empty binary state")
	}
	tag := data[0]
	d := data[1:]
	units, n1 := binary.Varint(d)
	if n1 <= 0 {
		return invalidf("binary state: bad unit count")
	}
	d = d[n1:]
	n, n2 := binary.Varint(d)
	if n2 <= 0 || len(d) < n2+8 {
		return invalidf("binary state: bad count")
	}
	d = d[n2:]
	exact := math.Float64frombits(binary.LittleEndian.Uint64(d))
	d = d[8:]
	var inner aggregate.Accumulator
	switch tag {
	case tagNone:
		if len(d) != 0 {
			return invalidf("binary state: trailing bytes")
		}
	case tagCount:
		inner = new(aggregate.CountAccumulator)
	case tagSum:
		inner = new(aggregate.SumAccumulator)
	case tagMean:
		inner = new(aggregate.MeanAccumulator)
	default:
		return invalidf("binary state: unknown tag %d", tag)
	}
	if inner != nil {
		if err := inner.UnmarshalBinary(d); err != nil {
			return err
		}
	}
	*a = Acc{Units: units, N: n, Exact: exact, a: inner}
	return nil
}

// hash returns a 64-bit FNV-1a hash of s with a domain byte.
func hash(domain byte, s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte{domain})
	h.Write([]byte(s))
	return h.Sum64()
}

// unitRand returns the generator of a unit's bounding: nil (the operating
// system's) unless in the test mode.
func (c Config) unitRand(id string) *rand.Rand {
	if !c.Test.On {
		return nil
	}
	return rand.New(rand.NewPCG(c.Test.Seed, hash('u', id)))
}

// keyRand returns the generator of a key's release: nil unless in the
// test mode.
func (c Config) keyRand(key string) *rand.Rand {
	if !c.Test.On {
		return nil
	}
	return rand.New(rand.NewPCG(c.Test.Seed, hash('k', key)))
}

// BoundUnit bounds the records of one privacy unit and emits, for each
// partition it keeps, the unit's partial state. It keeps a uniform sample
// of at most L0 of the unit's partitions (aggregate.BoundPartitions) and
// in each at most L∞ of its records (aggregate.CapContributions; one for
// DistinctUnitsPerKey and SelectPartitions); sums and means drop NaN
// values before bounding, and the accumulators clamp the others. rows is
// reordered. In the test mode the rows are first sorted, so that the
// sample depends on the seed and the unit only, not on the order the
// runner delivered them in.
func (c Config) BoundUnit(id string, rows []Row, emit func(key string, a Acc) error) error {
	if c.Kind == Sum || c.Kind == Mean {
		rows = slices.DeleteFunc(rows, func(r Row) bool { return math.IsNaN(r.Value) })
	}
	if len(rows) == 0 {
		return nil
	}
	r := c.unitRand(id)
	if r != nil {
		slices.SortFunc(rows, func(a, b Row) int {
			if a.Key != b.Key {
				if a.Key < b.Key {
					return -1
				}
				return 1
			}
			return cmpFloat(a.Value, b.Value)
		})
	} else {
		slices.SortFunc(rows, func(a, b Row) int {
			switch {
			case a.Key < b.Key:
				return -1
			case a.Key > b.Key:
				return 1
			}
			return 0
		})
	}
	// rows are grouped by key: one run per key.
	keys := make([]string, 0, 8)
	for i, row := range rows {
		if i == 0 || row.Key != rows[i-1].Key {
			keys = append(keys, row.Key)
		}
	}
	kept, err := aggregate.BoundPartitions(keys, c.L0(), r)
	if err != nil {
		return err
	}
	// Emit in key order for a reproducible output.
	slices.Sort(kept)
	vals := make([]float64, 0, 8)
	i := 0
	for _, k := range kept {
		for i < len(rows) && rows[i].Key < k {
			i++
		}
		vals = vals[:0]
		for ; i < len(rows) && rows[i].Key == k; i++ {
			vals = append(vals, rows[i].Value)
		}
		vals, err = aggregate.CapContributions(vals, c.cap(), r)
		if err != nil {
			return err
		}
		acc, err := c.NewAcc()
		if err != nil {
			return err
		}
		acc.Units = 1
		for _, v := range vals {
			c.add(&acc, v)
		}
		if err := emit(k, acc); err != nil {
			return err
		}
	}
	return nil
}

// cmpFloat orders floats totally (NaN first).
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	case a != a && b != b:
		return 0
	case a != a:
		return -1
	}
	return 1
}

// Releaser releases keys of one aggregation; it holds the partition
// selector, built once.
type Releaser struct {
	c   Config
	sel *aggregate.PartitionSelector
}

// NewReleaser returns the releaser of c.
func NewReleaser(c Config) (*Releaser, error) {
	r := &Releaser{c: c}
	if !c.Public {
		sp := c.Selection
		sp.Reproducible = c.Test.On && !c.Test.NoNoise
		s, err := aggregate.NewPartitionSelector(sp)
		if err != nil {
			return nil, err
		}
		r.sel = s
	}
	return r, nil
}

// Release decides whether the key is released (always, for public
// partitions; by the partition selector otherwise) and releases its
// statistic. The result is the zero Result for SelectPartitions and, in
// the noise-free test mode, carries the exact bounded statistic and no
// noise model.
func (r *Releaser) Release(key string, a Acc) (aggregate.Result, bool, error) {
	c := r.c
	rng := c.keyRand(key)
	if r.sel != nil {
		keep := a.Units > 0
		if !c.Test.NoNoise {
			keep = r.sel.Keep(rng, a.Units)
		}
		if !keep {
			return aggregate.Result{}, false, nil
		}
	}
	if c.Kind == Select {
		return aggregate.Result{}, true, nil
	}
	if c.Test.NoNoise {
		return c.exact(a), true, nil
	}
	if a.a == nil {
		return aggregate.Result{}, false, invalidf("%v: state without an accumulator", c.Kind)
	}
	res, err := a.a.Release(rng)
	return res, err == nil, err
}

// exact returns the noise-free statistic of a.
func (c Config) exact(a Acc) aggregate.Result {
	v := float64(a.N)
	switch c.Kind {
	case Sum:
		v = a.Exact
	case Mean:
		v = (c.Params.Lo + c.Params.Hi) / 2
		if a.N > 0 {
			v = max(c.Params.Lo, min(c.Params.Hi, a.Exact/float64(a.N)))
		}
	}
	return aggregate.Result{Value: v}
}

// Record is one input record of Local: a privacy unit and a row, both in
// Beam's encoding.
type Record struct {
	ID string
	Row
}

// Local runs the aggregation c on records in memory, with the same
// bounding, accumulation and release as the pipeline, and returns the
// released keys. public lists the public partitions when c.Public.
func Local(c Config, records []Record, public []string) (map[string]aggregate.Result, error) {
	var pub map[string]bool
	if c.Public {
		pub = make(map[string]bool, len(public))
		for _, k := range public {
			pub[k] = true
		}
	}
	byUnit := make(map[string][]Row)
	for _, rec := range records {
		if pub != nil && !pub[rec.Key] {
			continue
		}
		byUnit[rec.ID] = append(byUnit[rec.ID], rec.Row)
	}
	state := make(map[string]*Acc)
	for id, rows := range byUnit {
		err := c.BoundUnit(id, rows, func(k string, a Acc) error {
			if s, ok := state[k]; ok {
				return s.Merge(a)
			}
			state[k] = &a
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for k := range pub {
		if _, ok := state[k]; !ok {
			a, err := c.NewAcc()
			if err != nil {
				return nil, err
			}
			state[k] = &a
		}
	}
	rel, err := NewReleaser(c)
	if err != nil {
		return nil, err
	}
	out := make(map[string]aggregate.Result, len(state))
	for k, a := range state {
		res, keep, err := rel.Release(k, *a)
		if err != nil {
			return nil, err
		}
		if keep {
			out[k] = res
		}
	}
	return out, nil
}
