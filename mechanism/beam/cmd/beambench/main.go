// Command beambench measures the private per-key mean of package
// mechanism/beam on a synthetic log: rows per second on Beam's in-process
// prism runner, beside the in-memory path that calls the same bounding,
// accumulation and release functions without Beam. Run each mode under
// /usr/bin/time -v for the peak memory:
//
//	go build -o /tmp/beambench ./cmd/beambench
//	/usr/bin/time -v /tmp/beambench -mode=prism -rows=1000000
//	/usr/bin/time -v /tmp/beambench -mode=local -rows=1000000
//
// The log has -units privacy units and -parts partitions whose keys the
// pipeline does not know (partition selection); the rows are generated
// inside the pipeline from -shards seeds, as a source would read them,
// and the local mode generates the same rows in memory. The release uses
// the operating system's generator, as in production.
//
// # Measurements
//
// MeanPerKey with partition selection (L0 = 5, L∞ = 2, 10⁵ units, 10⁴
// partitions, all 10⁴ released), Beam v2.78.0, go1.26.8, 2 cores shared
// with other jobs (the processes got 13–31% of the machine, load average
// 6–38), 24 GiB; wall time, CPU time (user + system) and peak RSS from
// /usr/bin/time -v. Rows per wall second depend on the load; rows per CPU
// second less so.
//
//	         prism                                 in-memory path
//	rows     rows/s   rows/CPU-s  peak RSS         rows/s   rows/CPU-s  peak RSS
//	10⁵       5,592       18,900   0.31 GB         50,697      156,000   0.09 GB
//	10⁶       6,331       21,000   1.61 GB         75,571      243,000   0.30 GB
//	3·10⁶     2,995       22,200   4.02 GB        124,428      386,000   0.57 GB
//	10⁷      13,579       43,900  14.74 GB         75,535      373,000   1.70 GB
//
// Prism keeps every stage's elements in memory: its peak grows about
// linearly, by roughly 1.4 GB per 10⁶ rows for this one aggregation, so
// 10⁷ rows fit in 24 GiB and about 1.6·10⁷ rows would be the limit. Each further
// aggregation adds its own grouping: example/visits (a selection, a count
// and a mean on about 10⁶ rows) peaks at 4.8 GB. The in-memory path holds
// the records and one state per (unit, partition).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	privbeam "github.com/privinfer/privinfer/mechanism/beam"
	"github.com/privinfer/privinfer/mechanism/beam/internal/core"
)

// Row is one synthetic record.
type Row struct {
	Unit  int64
	Part  int64
	Value float64
}

func rowUnit(r Row) int64                 { return r.Unit }
func rowPartValue(r Row) (int64, float64) { return r.Part, r.Value }

// genFn generates the rows of one shard.
type genFn struct {
	Rows, Units, Parts, Shards int64
	Seed                       uint64
}

func (f *genFn) ProcessElement(shard int64, emit func(Row)) {
	gen(f.Rows, f.Units, f.Parts, f.Shards, f.Seed, shard, emit)
}

// gen emits the rows of shard: rows/shards rows (the last shard the
// rest), each of a uniform unit, in one of the unit's 8 partitions
// (unit·7919 + j mod parts), with a lognormal value.
func gen(rows, units, parts, shards int64, seed uint64, shard int64, emit func(Row)) {
	r := rand.New(rand.NewPCG(seed, uint64(shard)))
	n := rows / shards
	if shard == shards-1 {
		n = rows - n*(shards-1)
	}
	for range n {
		u := r.Int64N(units)
		emit(Row{Unit: u, Part: (u*7919 + r.Int64N(8)) % parts, Value: math.Exp(2 + 0.5*r.NormFloat64())})
	}
}

// released counts the keys the pipeline released.
var released atomic.Int64

type countFn struct{}

func (*countFn) ProcessElement(_ int64, _ aggregate.Result) { released.Add(1) }

func init() {
	register.Function1x1(rowUnit)
	register.Function1x2(rowPartValue)
	register.DoFn2x0[int64, func(Row)](&genFn{})
	register.Emitter1[Row]()
	register.DoFn2x0[int64, aggregate.Result](&countFn{})
	beam.RegisterType(reflect.TypeOf(Row{}))
}

// params is the benchmark's aggregation.
var params = privbeam.Params{
	Epsilon: 1, Lo: 0, Hi: 50, MaxPartitionsContributed: 5, MaxContributionsPerPartition: 2,
	SelectionEpsilon: 4, SelectionDelta: 1e-5,
}

func main() {
	mode := flag.String("mode", "prism", "prism (the Beam pipeline on the prism runner) or local (the in-memory path)")
	rows := flag.Int64("rows", 1_000_000, "rows of the synthetic log")
	units := flag.Int64("units", 100_000, "privacy units")
	parts := flag.Int64("parts", 10_000, "partitions (keys unknown to the pipeline)")
	shards := flag.Int64("shards", 64, "generator shards")
	seed := flag.Uint64("seed", 1, "seed of the synthetic log")
	flag.Parse()
	beam.Init()
	if *rows < *shards || *units < 1 || *parts < 1 || *shards < 1 {
		log.Fatal("need rows ≥ shards ≥ 1, units ≥ 1, parts ≥ 1")
	}
	start := time.Now()
	var err error
	switch *mode {
	case "prism":
		err = runPrism(*rows, *units, *parts, *shards, *seed)
	case "local":
		err = runLocal(*rows, *units, *parts, *shards, *seed)
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	if err != nil {
		log.Fatal(err)
	}
	el := time.Since(start)
	fmt.Printf("mode=%s rows=%d units=%d parts=%d released=%d seconds=%.2f rows/s=%.0f GOMAXPROCS=%d\n",
		*mode, *rows, *units, *parts, released.Load(), el.Seconds(), float64(*rows)/el.Seconds(), runtime.GOMAXPROCS(0))
}

func runPrism(rows, units, parts, shards int64, seed uint64) error {
	p, s := beam.NewPipelineWithRoot()
	budget, err := privbeam.NewBudget(mechanism.Budget{Epsilon: 5, Delta: 1e-5})
	if err != nil {
		return err
	}
	idx := make([]int64, shards)
	for i := range idx {
		idx[i] = int64(i)
	}
	data := beam.ParDo(s, &genFn{Rows: rows, Units: units, Parts: parts, Shards: shards, Seed: seed}, beam.CreateList(s, idx))
	pc, err := privbeam.MakePrivate(s, data, rowUnit, budget)
	if err != nil {
		return err
	}
	keyed, err := privbeam.ByKey(s, pc, rowPartValue)
	if err != nil {
		return err
	}
	means, err := privbeam.MeanPerKey(s, keyed, params)
	if err != nil {
		return err
	}
	beam.ParDo0(s, &countFn{}, means)
	acct, err := mechanism.NewAccountant(budget.Total())
	if err != nil {
		return err
	}
	return privbeam.Run(context.Background(), p, budget, acct, func(ctx context.Context, p *beam.Pipeline) error {
		_, err := beam.Run(ctx, "prism", p)
		return err
	})
}

// runLocal generates the same rows and runs the in-memory path
// (core.Local: the same BoundUnit, Merge and Release as the DoFns),
// encoding IDs and keys with Beam's coders as the pipeline does.
func runLocal(rows, units, parts, shards int64, seed uint64) error {
	enc := beam.NewElementEncoder(reflect.TypeOf(int64(0)))
	encode := func(v int64) string {
		var b bytesWriter
		if err := enc.Encode(v, &b); err != nil {
			panic(err)
		}
		return string(b)
	}
	recs := make([]core.Record, 0, rows)
	for sh := range shards {
		gen(rows, units, parts, shards, seed, sh, func(r Row) {
			recs = append(recs, core.Record{ID: encode(r.Unit), Row: core.Row{Key: encode(r.Part), Value: r.Value}})
		})
	}
	c := core.Config{
		Kind: core.Mean,
		Params: aggregate.Params{
			Epsilon: params.Epsilon, Lo: params.Lo, Hi: params.Hi,
			MaxPartitionsContributed: params.MaxPartitionsContributed, MaxContributionsPerPartition: params.MaxContributionsPerPartition,
		},
		Selection: aggregate.SelectionParams{Epsilon: params.SelectionEpsilon, Delta: params.SelectionDelta, MaxPartitionsContributed: params.MaxPartitionsContributed},
	}
	if err := c.Validate(); err != nil {
		return err
	}
	out, err := core.Local(c, recs, nil)
	if err != nil {
		return err
	}
	released.Store(int64(len(out)))
	fmt.Fprintf(os.Stderr, "local: %d records\n", len(recs))
	return nil
}

// bytesWriter is an io.Writer appending to a byte slice.
type bytesWriter []byte

func (b *bytesWriter) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
