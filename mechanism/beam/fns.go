package beam

import (
	"bytes"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/util/reflectx"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	"github.com/privinfer/privinfer/mechanism/beam/internal/core"
)

// The DoFns and the combiner of the private aggregations. Each is a
// struct whose exported fields (plain configurations, never a generator
// or an accountant) are serialised into the pipeline; each is registered
// with Beam below.

func init() {
	register.DoFn1x3[beam.T, string, beam.T, error](&idFn{})
	register.DoFn2x3[string, beam.T, string, core.Row, error](&keyFn{})
	register.DoFn1x2[beam.X, string, error](&encodeKeyFn{})
	register.DoFn4x1[string, core.Row, func(*string) bool, func(string, core.Row), error](&publicFilterFn{})
	register.DoFn3x1[string, func(*core.Row) bool, func(string, core.Acc), error](&boundFn{})
	register.DoFn1x3[string, string, core.Acc, error](&emptyFn{})
	register.Combiner3[core.Acc, core.Acc, core.Acc](&accCombineFn{})
	register.DoFn3x1[string, core.Acc, func(beam.X, aggregate.Result), error](&releaseFn{})
	register.DoFn3x1[string, core.Acc, func(beam.X), error](&selectFn{})
	register.Emitter1[beam.X]()
	register.Emitter2[beam.X, aggregate.Result]()
	register.Emitter2[string, core.Row]()
	register.Emitter2[string, core.Acc]()
	register.Iter1[string]()
	register.Iter1[core.Row]()

	beam.RegisterType(reflect.TypeOf(core.Row{}))
	beam.RegisterType(reflect.TypeOf(aggregate.Result{}))
	beam.RegisterType(reflect.TypeOf(aggregate.NoiseModel{}))
	beam.RegisterCoder(reflect.TypeOf(core.Acc{}), encodeAcc, decodeAcc)
}

// encodeAcc is the Beam coder of the per-key state: the core
// accumulator's MarshalBinary inside core.Acc.MarshalBinary.
func encodeAcc(a core.Acc) ([]byte, error) { return a.MarshalBinary() }

// decodeAcc decodes what encodeAcc encoded.
func decodeAcc(b []byte) (core.Acc, error) {
	var a core.Acc
	err := a.UnmarshalBinary(b)
	return a, err
}

// encoder encodes values of one type with Beam's coder of that type.
type encoder struct {
	enc beam.ElementEncoder
	buf bytes.Buffer
}

func newEncoder(t reflect.Type) *encoder { return &encoder{enc: beam.NewElementEncoder(t)} }

// encode returns the encoding of v as a string.
func (e *encoder) encode(v any) (string, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v, &e.buf); err != nil {
		return "", err
	}
	return e.buf.String(), nil
}

// idFn splits off each record's privacy ID, encoded.
type idFn struct {
	Fn beam.EncodedFunc
	ID beam.EncodedType

	fn  reflectx.Func1x1
	enc *encoder
}

func (f *idFn) Setup() {
	f.fn = reflectx.ToFunc1x1(f.Fn.Fn)
	f.enc = newEncoder(f.ID.T)
}

func (f *idFn) ProcessElement(x beam.T) (string, beam.T, error) {
	id, err := f.enc.encode(f.fn.Call1x1(x))
	if err != nil {
		return "", nil, fmt.Errorf("beam: encoding a privacy ID: %w", err)
	}
	return id, x, nil
}

// keyFn gives each record its encoded partition key and its value.
type keyFn struct {
	Fn   beam.EncodedFunc
	Key  beam.EncodedType
	Pair bool

	fn1 reflectx.Func1x1
	fn2 reflectx.Func1x2
	enc *encoder
}

func (f *keyFn) Setup() {
	if f.Pair {
		f.fn2 = reflectx.ToFunc1x2(f.Fn.Fn)
	} else {
		f.fn1 = reflectx.ToFunc1x1(f.Fn.Fn)
	}
	f.enc = newEncoder(f.Key.T)
}

func (f *keyFn) ProcessElement(id string, x beam.T) (string, core.Row, error) {
	var k, v any
	if f.Pair {
		k, v = f.fn2.Call1x2(x)
	} else {
		k = f.fn1.Call1x1(x)
	}
	key, err := f.enc.encode(k)
	if err != nil {
		return "", core.Row{}, fmt.Errorf("beam: encoding a partition key: %w", err)
	}
	return id, core.Row{Key: key, Value: toFloat(v)}, nil
}

// toFloat converts a numeric value to float64 (0 for nil).
func toFloat(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case float64:
		return x
	case float32:
		return float64(x)
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanFloat():
		return rv.Float()
	case rv.CanInt():
		return float64(rv.Int())
	case rv.CanUint():
		return float64(rv.Uint())
	}
	return 0
}

// encodeKeyFn encodes public partition keys.
type encodeKeyFn struct {
	Key beam.EncodedType

	enc *encoder
}

func (f *encodeKeyFn) Setup() { f.enc = newEncoder(f.Key.T) }

func (f *encodeKeyFn) ProcessElement(k beam.X) (string, error) {
	return f.enc.encode(k)
}

// publicFilterFn drops records whose key is not a public partition, before
// bounding (so that they take none of a unit's L0 slots).
type publicFilterFn struct {
	set map[string]struct{}
}

func (f *publicFilterFn) ProcessElement(id string, r core.Row, public func(*string) bool, emit func(string, core.Row)) error {
	if f.set == nil {
		// The side input is the same for every element (one global
		// window), so it is read once per DoFn instance.
		f.set = make(map[string]struct{})
		var k string
		for public(&k) {
			f.set[k] = struct{}{}
		}
	}
	if _, ok := f.set[r.Key]; ok {
		emit(id, r)
	}
	return nil
}

// boundFn bounds the records of one privacy unit (core.Config.BoundUnit)
// and emits the unit's partial state per kept partition.
type boundFn struct {
	Cfg core.Config
}

func (f *boundFn) ProcessElement(id string, rows func(*core.Row) bool, emit func(string, core.Acc)) error {
	var all []core.Row
	var r core.Row
	for rows(&r) {
		all = append(all, r)
	}
	return f.Cfg.BoundUnit(id, all, func(k string, a core.Acc) error {
		emit(k, a)
		return nil
	})
}

// emptyFn gives every public partition an empty state, so that it is
// released (noise only) even without data.
type emptyFn struct {
	Cfg core.Config
}

func (f *emptyFn) ProcessElement(k string) (string, core.Acc, error) {
	a, err := f.Cfg.NewAcc()
	return k, a, err
}

// accCombineFn merges per-unit partial states per key with the core
// accumulators' Merge (integer addition: the merge order cannot change
// the state, hence not the released bits either).
type accCombineFn struct {
	Cfg core.Config
}

func (f *accCombineFn) CreateAccumulator() (core.Acc, error) { return f.Cfg.NewAcc() }

func (f *accCombineFn) AddInput(a, in core.Acc) (core.Acc, error) {
	err := a.Merge(in)
	return a, err
}

func (f *accCombineFn) MergeAccumulators(a, b core.Acc) (core.Acc, error) {
	err := a.Merge(b)
	return a, err
}

func (f *accCombineFn) ExtractOutput(a core.Acc) core.Acc { return a }

// releaseFn selects (unless public) and releases each key, decoding it to
// its type.
type releaseFn struct {
	Cfg core.Config
	Key beam.EncodedType

	rel *core.Releaser
	dec beam.ElementDecoder
}

func (f *releaseFn) Setup() error {
	var err error
	f.rel, f.dec, err = setupRelease(f.Cfg, f.Key)
	return err
}

func (f *releaseFn) ProcessElement(key string, a core.Acc, emit func(beam.X, aggregate.Result)) error {
	k, res, keep, err := releaseKey(f.rel, f.dec, key, a)
	if err != nil || !keep {
		return err
	}
	emit(k, res)
	return nil
}

// selectFn emits the keys the partition selector keeps.
type selectFn struct {
	Cfg core.Config
	Key beam.EncodedType

	rel *core.Releaser
	dec beam.ElementDecoder
}

func (f *selectFn) Setup() error {
	var err error
	f.rel, f.dec, err = setupRelease(f.Cfg, f.Key)
	return err
}

func (f *selectFn) ProcessElement(key string, a core.Acc, emit func(beam.X)) error {
	k, _, keep, err := releaseKey(f.rel, f.dec, key, a)
	if err != nil || !keep {
		return err
	}
	emit(k)
	return nil
}

// setupRelease returns the releaser of cfg and the decoder of partition
// keys of type key, the state releaseFn and selectFn set up on a worker.
func setupRelease(cfg core.Config, key beam.EncodedType) (*core.Releaser, beam.ElementDecoder, error) {
	rel, err := core.NewReleaser(cfg)
	return rel, beam.NewElementDecoder(key.T), err
}

// releaseKey selects (unless public) and releases the partition of the
// encoded key with state a, and decodes the key when the partition is
// kept.
func releaseKey(rel *core.Releaser, dec beam.ElementDecoder, key string, a core.Acc) (k any, res aggregate.Result, keep bool, err error) {
	res, keep, err = rel.Release(key, a)
	if err != nil || !keep {
		return nil, res, keep, err
	}
	k, err = dec.Decode(bytes.NewReader([]byte(key)))
	if err != nil {
		return nil, res, false, fmt.Errorf("beam: decoding a partition key: %w", err)
	}
	return k, res, true, nil
}
