package beam

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/typex"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/util/reflectx"
)

// PrivatePCollection is a PCollection of confidential records, each tied
// to its privacy unit, and the Budget its releases are charged to. It has
// no accessor for its elements: data leave it only through the private
// aggregations of this package (CountPerKey, SumPerKey, MeanPerKey,
// DistinctUnitsPerKey, SelectPartitions), after contribution bounding and
// with noise. The zero value is unusable; build one with MakePrivate.
type PrivatePCollection struct {
	col    beam.PCollection // KV<string (encoded privacy ID), T> or KV<string, core.Row>
	elem   reflect.Type     // T, before ByKey
	key    reflect.Type     // the partition key type, after ByKey
	budget *Budget
}

// Keyed reports whether ByKey has given the collection partition keys.
func (pc PrivatePCollection) Keyed() bool { return pc.key != nil }

// KeyType returns the partition key type (nil before ByKey).
func (pc PrivatePCollection) KeyType() reflect.Type { return pc.key }

// Budget returns the budget the collection's releases are charged to.
func (pc PrivatePCollection) Budget() *Budget { return pc.budget }

// MakePrivate marks col, a PCollection of records of type T, as
// confidential. privacyID is a function func(T) ID naming the privacy unit
// of each record (a user, a device): every record of one unit is bounded
// together, and the guarantee is for adding or removing one unit with all
// its records. ID must be a type Beam can encode deterministically (a
// string, an integer, a struct of those). The function must be
// registered with Beam (register.Function1x1) so that workers find it.
// budget is the Budget every aggregation of the collection is charged to.
//
// It returns an error wrapping ErrInvalid, when the graph is built, for a
// missing or ill-typed privacy ID function, an invalid collection or a nil
// budget.
func MakePrivate(s beam.Scope, col beam.PCollection, privacyID any, budget *Budget) (PrivatePCollection, error) {
	if budget == nil {
		return PrivatePCollection{}, invalidf("MakePrivate: nil Budget")
	}
	if !col.IsValid() {
		return PrivatePCollection{}, invalidf("MakePrivate: invalid PCollection")
	}
	if typex.IsKV(col.Type()) || typex.IsCoGBK(col.Type()) {
		return PrivatePCollection{}, invalidf("MakePrivate: the collection's elements are %v; give a PCollection of records (not KV) and a privacy ID function", col.Type())
	}
	elem := col.Type().Type()
	if privacyID == nil {
		return PrivatePCollection{}, invalidf("MakePrivate: missing privacy ID function")
	}
	ft := reflect.TypeOf(privacyID)
	if ft.Kind() != reflect.Func || ft.NumIn() != 1 || ft.NumOut() != 1 || ft.IsVariadic() {
		return PrivatePCollection{}, invalidf("MakePrivate: privacyID must be a func(%v) ID, got %T", elem, privacyID)
	}
	if reflect.ValueOf(privacyID).IsNil() {
		return PrivatePCollection{}, invalidf("MakePrivate: missing privacy ID function (nil func)")
	}
	if ft.In(0) != elem {
		return PrivatePCollection{}, invalidf("MakePrivate: privacyID takes %v, the collection holds %v", ft.In(0), elem)
	}
	if err := checkKeyType("MakePrivate: the privacy ID", ft.Out(0)); err != nil {
		return PrivatePCollection{}, err
	}
	s = s.Scope("privinfer.MakePrivate")
	out := beam.ParDo(s, &idFn{Fn: beam.EncodedFunc{Fn: reflectx.MakeFunc(privacyID)}, ID: beam.EncodedType{T: ft.Out(0)}}, col)
	return PrivatePCollection{col: out, elem: elem, budget: budget}, nil
}

// ByKey gives the records of pc their partition key and value with fn,
// a func(T) (K, V) with V an integer or floating-point type, or a func(T) K
// for counts (the value is then 0). K must be a type Beam can encode
// deterministically. fn must be registered with Beam
// (register.Function1x2 or register.Function1x1). It returns an error
// wrapping ErrInvalid, when the graph is built, for a function of another
// shape or a collection that already has keys.
func ByKey(s beam.Scope, pc PrivatePCollection, fn any) (PrivatePCollection, error) {
	if pc.budget == nil || !pc.col.IsValid() {
		return PrivatePCollection{}, invalidf("ByKey: the PrivatePCollection was not built by MakePrivate")
	}
	if pc.key != nil {
		return PrivatePCollection{}, invalidf("ByKey: the collection already has keys of type %v", pc.key)
	}
	if fn == nil {
		return PrivatePCollection{}, invalidf("ByKey: nil function")
	}
	ft := reflect.TypeOf(fn)
	if ft.Kind() != reflect.Func || ft.NumIn() != 1 || ft.NumOut() < 1 || ft.NumOut() > 2 || ft.IsVariadic() || reflect.ValueOf(fn).IsNil() {
		return PrivatePCollection{}, invalidf("ByKey: fn must be a func(%v) (K, V) or func(%v) K, got %T", pc.elem, pc.elem, fn)
	}
	if ft.In(0) != pc.elem {
		return PrivatePCollection{}, invalidf("ByKey: fn takes %v, the collection holds %v", ft.In(0), pc.elem)
	}
	if err := checkKeyType("ByKey: the partition key", ft.Out(0)); err != nil {
		return PrivatePCollection{}, err
	}
	if ft.NumOut() == 2 {
		switch ft.Out(1).Kind() {
		case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return PrivatePCollection{}, invalidf("ByKey: the value type %v is not an integer or floating-point type", ft.Out(1))
		}
	}
	s = s.Scope("privinfer.ByKey")
	out := beam.ParDo(s, &keyFn{Fn: beam.EncodedFunc{Fn: reflectx.MakeFunc(fn)}, Key: beam.EncodedType{T: ft.Out(0)}, Pair: ft.NumOut() == 2}, pc.col)
	return PrivatePCollection{col: out, key: ft.Out(0), budget: pc.budget}, nil
}

// checkKeyType checks that Beam can encode t deterministically, as a
// grouping key must be.
func checkKeyType(what string, t reflect.Type) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = invalidf("%s type %v has no Beam coder: %v", what, t, r)
		}
	}()
	if t.Kind() == reflect.Interface || typex.IsUniversal(t) {
		return invalidf("%s type %v is not a concrete type", what, t)
	}
	c := beam.NewCoder(typex.New(t))
	if !c.IsDeterministic() {
		return invalidf("%s type %v has no deterministic Beam coder (%v)", what, t, c)
	}
	return nil
}
