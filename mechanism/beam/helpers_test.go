package beam

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	"github.com/privinfer/privinfer/mechanism/beam/internal/core"
)

func TestMain(m *testing.M) { ptest.Main(m) }

// visit is one record of the tests' synthetic logs.
type visit struct {
	User  string
	Day   string
	Spend float64
}

func visitUser(v visit) string                { return v.User }
func visitDay(v visit) string                 { return v.Day }
func visitDaySpend(v visit) (string, float64) { return v.Day, v.Spend }

func init() {
	register.Function1x1(visitUser)
	register.Function1x1(visitDay)
	register.Function1x2(visitDaySpend)
	beam.RegisterType(reflect.TypeOf(visit{}))
	register.DoFn2x0[string, aggregate.Result](&collectFn{})
	register.DoFn1x0[string](&collectKeyFn{})
}

// sinks holds what the collecting DoFns saw, by name: prism runs the
// workers in this process (loopback), so a test reads its pipeline's
// output from here.
var sinks sync.Map

type sink struct {
	mu   sync.Mutex
	rows map[string]aggregate.Result
	dup  int
}

// newSink registers an empty sink under a fresh name.
func newSink(t *testing.T, name string) (string, *sink) {
	name = t.Name() + "/" + name
	s := &sink{rows: map[string]aggregate.Result{}}
	sinks.Store(name, s)
	t.Cleanup(func() { sinks.Delete(name) })
	return name, s
}

// collectFn stores every (key, result) into the sink Name.
type collectFn struct{ Name string }

func (f *collectFn) ProcessElement(k string, r aggregate.Result) {
	v, _ := sinks.Load(f.Name)
	s := v.(*sink)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.rows[k]; ok {
		s.dup++
	}
	s.rows[k] = r
}

// collectKeyFn stores every key into the sink Name.
type collectKeyFn struct{ Name string }

func (f *collectKeyFn) ProcessElement(k string) {
	v, _ := sinks.Load(f.Name)
	s := v.(*sink)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.rows[k]; ok {
		s.dup++
	}
	s.rows[k] = aggregate.Result{}
}

// collect wires col (KV<string, aggregate.Result>) into a new sink.
func collect(t *testing.T, s beam.Scope, name string, col beam.PCollection) *sink {
	n, sk := newSink(t, name)
	beam.ParDo0(s, &collectFn{Name: n}, col)
	return sk
}

// collectKeys wires col (PCollection<string>) into a new sink.
func collectKeys(t *testing.T, s beam.Scope, name string, col beam.PCollection) *sink {
	n, sk := newSink(t, name)
	beam.ParDo0(s, &collectKeyFn{Name: n}, col)
	return sk
}

// synthLog returns n visits by units users over days days (keys
// "d000"…): user u visits a day drawn from its own few favourite days,
// spending a lognormal amount.
func synthLog(seed uint64, n, users, days int) []visit {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]visit, n)
	for i := range out {
		u := r.IntN(users)
		d := (u*7 + r.IntN(3)*r.IntN(days)) % days
		out[i] = visit{
			User:  fmt.Sprintf("u%05d", u),
			Day:   fmt.Sprintf("d%03d", d),
			Spend: math.Round(100*math.Exp(2+0.5*r.NormFloat64())) / 100,
		}
	}
	return out
}

// encodeString is Beam's encoding of a string, the form the pipeline
// keys by.
func encodeString(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := beam.NewElementEncoder(reflect.TypeOf("")).Encode(s, &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// decodeString inverts encodeString.
func decodeString(t testing.TB, s string) string {
	t.Helper()
	v, err := beam.NewElementDecoder(reflect.TypeOf("")).Decode(bytes.NewReader([]byte(s)))
	if err != nil {
		t.Fatal(err)
	}
	return v.(string)
}

// local runs the in-memory path of the same aggregation on visits.
func local(t testing.TB, c core.Config, vs []visit, public []string, withValue bool) map[string]aggregate.Result {
	t.Helper()
	recs := make([]core.Record, len(vs))
	for i, v := range vs {
		recs[i] = core.Record{ID: encodeString(t, v.User), Row: core.Row{Key: encodeString(t, v.Day)}}
		if withValue {
			recs[i].Value = v.Spend
		}
	}
	var pub []string
	for _, k := range public {
		pub = append(pub, encodeString(t, k))
	}
	out, err := core.Local(c, recs, pub)
	if err != nil {
		t.Fatal(err)
	}
	dec := make(map[string]aggregate.Result, len(out))
	for k, v := range out {
		dec[decodeString(t, k)] = v
	}
	return dec
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
